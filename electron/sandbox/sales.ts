/**
 * Sales and charges: the state machine of reference 3.1 and the rules of 4.5, shared by
 * `create_dynamic_pix`, Tx Status and the control API's pay.
 *
 * - One pending sale per printed checkout: a new sale displaces the unpaid pending one
 *   (4.5 rule 1) silently (rule 4: no event, Tx Status 404 for ever).
 * - Every QR of a printed checkout resolves to the checkout location, which charges the
 *   checkout's NEWEST sale (rules 2 and 3); with no pending sale the printed QR cannot be
 *   read (3.1).
 * - A sale lives 5 minutes (section 8); a standard dynamic charge lives `expire` seconds.
 *   Expiry is computed from the clock when read, never stored.
 * - A displaced sale can still be paid late (rule 5, contract 4): charge.paid and
 *   charge.done carry its own pix_id and service_id.
 */
import { buildPixBrCode } from '../shared/emv.ts';
import { formatCents } from '../shared/money.ts';
import type { SandboxContext } from './context.ts';
import { newE2eId, newId, newLocationId } from './ids.ts';
import type { CheckoutRecord, MerchantRecord, PrintedQrRecord, QrType, SaleRecord, SandboxState } from './state.ts';
import { checkoutKey, nextId } from './state.ts';

/** Section 8: "Printed sale lifetime: 5 minutes". */
export const SALE_LIFETIME_MS = 5 * 60_000;
/** Contract 2: `expire` defaults to 3,600 s for a standard dynamic charge. */
export const DEFAULT_EXPIRE_SEC = 3_600;
/** The gateway host in every location URL (field 26.25, written without a scheme). */
export const LOCATION_HOST = 'pix.sandbox.local/qr/v2/';

export type SaleStatus = 'pending' | 'paid' | 'expired' | 'refunded';

/** Tx Status's status (contract 3): a pending sale past its expiry is expired. */
export function saleStatus(sale: SaleRecord, nowMs: number): SaleStatus {
  if (sale.status === 'pending' && nowMs >= sale.expires_at) return 'expired';
  return sale.status;
}

export function isPayable(sale: SaleRecord, nowMs: number): boolean {
  return saleStatus(sale, nowMs) === 'pending';
}

/** Reference 2.2: default_qr = printed_dynamic_qr means printed mode. */
export function isPrintedMode(state: SandboxState, merchantId: number, storeId: number, checkoutId: number): boolean {
  return state.configs[checkoutKey(merchantId, storeId, checkoutId)]?.default_qr === 'printed_dynamic_qr';
}

export function printedQrOf(state: SandboxState, key: string): PrintedQrRecord | undefined {
  const id = state.printedQrByCheckout[key];
  return id === undefined ? undefined : state.printedQrs[id];
}

export function locationUrl(locationId: string): string {
  return LOCATION_HOST + locationId;
}

/** The location id at the end of a location URL, or null. */
export function locationIdOf(url: string): string | null {
  const m = /\/([A-Za-z0-9_-]+)$/.exec(url);
  return m === null ? null : (m[1] ?? null);
}

/** The checkout's location (created on first use): the printed QR and its sales share it. */
export function checkoutLocation(state: SandboxState, checkout: CheckoutRecord): string {
  const key = checkoutKey(checkout.merchant_id, checkout.store_id, checkout.checkout_id);
  let id = state.checkoutLocations[key];
  if (id === undefined) {
    id = newLocationId();
    state.checkoutLocations[key] = id;
    state.locations[id] = { kind: 'checkout', merchant_id: checkout.merchant_id, store_id: checkout.store_id, checkout_id: checkout.checkout_id };
  }
  return id;
}

function merchantOf(state: SandboxState, merchantId: number): MerchantRecord {
  return state.merchants[String(merchantId)] ?? { merchant_id: merchantId, company_name: 'Sandbox', city: 'Sao Paulo' };
}

/** The permanent EMV of a printed QR: the checkout location, reusable, no amount. */
export function printedQrEmv(state: SandboxState, checkout: CheckoutRecord, locationId: string): string {
  const merchant = merchantOf(state, checkout.merchant_id);
  return buildPixBrCode({ merchantName: merchant.company_name, merchantCity: merchant.city, locationUrl: locationUrl(locationId), pointOfInitiation: '11' });
}

/** A single-use EMV with an amount, for a location. */
function amountEmv(state: SandboxState, merchantId: number, locationId: string, amountCents: number): string {
  const merchant = merchantOf(state, merchantId);
  return buildPixBrCode({ merchantName: merchant.company_name, merchantCity: merchant.city, locationUrl: locationUrl(locationId), amountCents, pointOfInitiation: '12' });
}

export interface NewCharge {
  checkout: CheckoutRecord;
  amountCents: number;
  externalId: string | null;
  /** 'printed': a sale attached to the printed QR; 'fallback': a sale on a printed checkout
   * that the gateway served as a dynamic QR; 'dynamic': a standard dynamic charge. */
  flow: 'printed' | 'fallback' | 'dynamic';
  /** Seconds; used by the dynamic flow only (4.5: `expire` does not apply to a sale). */
  expireSec: number;
}

/** Creates a sale or charge; on a printed checkout the pending sale is displaced first. */
export function createCharge(ctx: SandboxContext, input: NewCharge): SaleRecord {
  const { state } = ctx;
  const now = ctx.clock.now();
  const { checkout } = input;
  const key = checkoutKey(checkout.merchant_id, checkout.store_id, checkout.checkout_id);
  const onPrintedCheckout = input.flow !== 'dynamic';
  let emv: string;
  let locationId: string;
  let qrType: QrType;
  let printedQrId: string | null = null;
  if (input.flow === 'printed') {
    const qr = printedQrOf(state, key) as PrintedQrRecord;
    locationId = qr.qr_location_id;
    printedQrId = qr.printed_dynamic_qr_id;
    qrType = 'printed_dynamic';
    // Contract 2: `same_emv` returns the printed QR's EMV; `amount_emv` a different EMV of
    // the same checkout location whose text shows this sale's amount.
    emv = state.gateway.variant === 'same_emv' ? qr.qr_emvcode : amountEmv(state, checkout.merchant_id, locationId, input.amountCents);
  } else {
    qrType = 'dynamic';
    locationId = newLocationId();
    emv = amountEmv(state, checkout.merchant_id, locationId, input.amountCents);
  }
  const sale: SaleRecord = {
    pix_id: newId('pix_'),
    service_id: newId('svc_'),
    operation_id: newId('op_'),
    merchant_id: checkout.merchant_id,
    store_id: checkout.store_id,
    checkout_id: checkout.checkout_id,
    amount_cents: input.amountCents,
    paid_amount_cents: null,
    external_id: input.externalId,
    qr_type: qrType,
    emv,
    location_id: locationId,
    printed_dynamic_qr_id: printedQrId,
    created_at: now,
    expires_at: now + (onPrintedCheckout ? SALE_LIFETIME_MS : input.expireSec * 1000),
    status: 'pending',
    printed_checkout: onPrintedCheckout,
    displaced: false,
    paid_at: null,
    e2e_id: null,
    seq: nextId(state, 'sale'),
    ext: {},
  };
  if (onPrintedCheckout) {
    // 4.5 rule 1: the new sale replaces the unpaid pending one, silently (rule 4).
    const previousId = state.newestSaleByCheckout[key];
    const previous = previousId === undefined ? undefined : state.sales[previousId];
    if (previous !== undefined && isPayable(previous, now)) previous.displaced = true;
    state.newestSaleByCheckout[key] = sale.pix_id;
    // A fallback QR is still a QR of this printed checkout: it charges the newest sale.
    if (input.flow === 'fallback') state.locations[locationId] = { kind: 'checkout', merchant_id: checkout.merchant_id, store_id: checkout.store_id, checkout_id: checkout.checkout_id };
  } else {
    state.locations[locationId] = { kind: 'charge', pix_id: sale.pix_id };
  }
  state.sales[sale.pix_id] = sale;
  state.saleIdByServiceId[sale.service_id] = sale.pix_id;
  (state.saleIdsByCheckout[key] ??= []).push(sale.pix_id);
  // Contract 6: S2 quotes the charge when it is created.
  ctx.hooks.saleCreated(sale);
  ctx.persist();
  return sale;
}

/** Reference 4.5 rule 3: what a payment through the checkout location is credited to. */
export function newestPrintedSale(state: SandboxState, merchantId: number, storeId: number, checkoutId: number): SaleRecord | undefined {
  const id = state.newestSaleByCheckout[checkoutKey(merchantId, storeId, checkoutId)];
  return id === undefined ? undefined : state.sales[id];
}

/** The newest payable charge of a checkout, printed sale first (control API's pay by checkout). */
export function newestPayableCharge(state: SandboxState, merchantId: number, storeId: number, checkoutId: number, nowMs: number): SaleRecord | undefined {
  const newest = newestPrintedSale(state, merchantId, storeId, checkoutId);
  if (newest !== undefined && isPayable(newest, nowMs)) return newest;
  const ids = state.saleIdsByCheckout[checkoutKey(merchantId, storeId, checkoutId)] ?? [];
  for (let i = ids.length - 1; i >= 0; i--) {
    const sale = state.sales[ids[i] as string];
    if (sale !== undefined && !sale.printed_checkout && isPayable(sale, nowMs)) return sale;
  }
  return undefined;
}

export function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

/**
 * Marks a sale paid and emits charge.paid then charge.done (contract 4). `amountCents` is
 * what the payer actually paid; the webhooks carry it as amount_brl.
 */
export function paySale(ctx: SandboxContext, sale: SaleRecord, amountCents: number): { webhookIds: string[] } {
  const now = ctx.clock.now();
  sale.status = 'paid';
  sale.paid_amount_cents = amountCents;
  sale.paid_at = now;
  sale.e2e_id = newE2eId(now);
  const amountBrl = formatCents(amountCents);
  const paid = ctx.webhooks.enqueueEvent(sale.merchant_id, 'charge.paid', {
    pix_id: sale.pix_id,
    service_id: sale.service_id,
    external_id: sale.external_id,
    amount_brl: amountBrl,
    paid_at: iso(now),
    e2e_id: sale.e2e_id,
    store_id: sale.store_id,
    checkout_id: sale.checkout_id,
  });
  // The per-charge done (reference 6.2): S2's listener may settle it 1:1 and give the id.
  const settlementId = ctx.hooks.salePaid(sale);
  const done = ctx.webhooks.enqueueEvent(sale.merchant_id, 'charge.done', {
    pix_id: sale.pix_id,
    service_id: sale.service_id,
    external_id: sale.external_id,
    amount_brl: amountBrl,
    settlement_id: settlementId,
    tx_hash: null,
  });
  ctx.persist();
  return { webhookIds: [paid, done] };
}

/** The 201 body of create_dynamic_pix (contract 2). */
export function chargeResponse(state: SandboxState, sale: SaleRecord): Record<string, unknown> {
  const qr = sale.printed_dynamic_qr_id === null ? undefined : state.printedQrs[sale.printed_dynamic_qr_id];
  return {
    pix_id: sale.pix_id,
    service_id: sale.service_id,
    operation_id: sale.operation_id,
    qr_type: sale.qr_type,
    emv: sale.emv,
    printed_dynamic_qr_data: sale.qr_type === 'printed_dynamic' && qr !== undefined ? { pqr_emv: qr.qr_emvcode, printed_dynamic_qr_id: qr.printed_dynamic_qr_id } : null,
    amount_brl: formatCents(sale.amount_cents),
    external_id: sale.external_id,
    store_id: sale.store_id,
    checkout_id: sale.checkout_id,
    created_at: iso(sale.created_at),
    expires_at: iso(sale.expires_at),
  };
}
