/**
 * Printed Dynamic QRs (reference 4.4): creation with every rule, and the paged listing.
 * Scope pay_in and role manager (contract 1).
 *
 * Order of checks on creation, as the reference describes it: request validation (422,
 * then the 400s of section 7 about the fields and the wallet, including rule 2's "request
 * validation still runs first" for an existing QR), then printed_qr_disabled (503), then the
 * checkout (created first with auto_create_checkout, rule 5), then the gateway (rules 5, 6).
 *
 * Decisions for "not shown" statuses (README): `Checkout not found for this merchant` is 404;
 * `Printed dynamic QRs aren't available for this merchant` is 400.
 */
import { ACCESS, guard } from '../auth.ts';
import type { SandboxContext } from '../context.ts';
import { detailError } from '../http.ts';
import type { Reply, Router } from '../http.ts';
import { newId } from '../ids.ts';
import { assertSupportedNetwork, findCheckout, findStore, findWallet, findWalletByAddress, maskAddress } from '../lookup.ts';
import { checkoutLocation, printedQrEmv, printedQrOf } from '../sales.ts';
import type { CheckoutRecord, PrintedQrRecord, SandboxState, WalletRecord } from '../state.ts';
import { checkoutKey } from '../state.ts';
import { body, field, fields, optional, readRequest } from '../validate.ts';
import { addCheckout } from './admin.ts';

export const DETAIL = {
  bothWalletFields: 'send either wallet_id or address, not both',
  checkoutIdRequired: 'checkout_id is required',
  storeMissing: 'store_id does not exist',
  noStoreAccess: 'User does not have access to this store',
  walletNeedsAutoCreate: 'wallet_id/address require auto_create_checkout',
  noDefaultCheckout: 'Default checkout (store_id=1, checkout_id=1) not found; cannot derive wallet_id for auto-create',
  differentWallet: 'checkout already exists with a different wallet; update it via PATCH /v2/stores/{store_id}/checkouts/{checkout_id}',
  gatewayError: 'Gateway error during printed dynamic QR creation',
  gatewayBadFields: 'Gateway did not return expected fields for printed dynamic QR creation',
  disabled: 'printed_qr_disabled',
  checkoutNotFound: 'Checkout not found for this merchant',
  unsupported: "Printed dynamic QRs aren't available for this merchant",
} as const;

function walletAddressOf(state: SandboxState, checkout: CheckoutRecord): string {
  // Reference 2.4: the address of the wallet the checkout settles to NOW (it follows PATCH).
  return maskAddress(state.wallets[String(checkout.wallet_id)]?.address ?? '');
}

function qrBody(state: SandboxState, qr: PrintedQrRecord, checkout: CheckoutRecord): Record<string, unknown> {
  return {
    printed_dynamic_qr_id: qr.printed_dynamic_qr_id,
    qr_emvcode: qr.qr_emvcode,
    qr_location_id: qr.qr_location_id,
    address: walletAddressOf(state, checkout),
    checkout_id: qr.checkout_id,
    merchant_id: qr.merchant_id,
    store_id: qr.store_id,
    // Reference 2.4: epoch seconds.
    created_at: Math.floor(qr.created_at / 1000),
  };
}

const NewQrBody = body({
  checkout_id: optional(field.int()),
  store_id: optional(field.int(), 1),
  auto_create_checkout: optional(field.boolean(), false),
  checkout_desc: optional(field.string({ min: 1, max: 140 })),
  wallet_id: optional(field.int()),
  // Section 8: address not blank, at most 100 characters.
  address: optional(field.string({ min: 1, max: 100, strip: true })),
});

// Section 8: page from 1, default 1; page_size 1 to 100, default 100.
const QrListQuery = fields({
  store_id: optional(field.int()),
  checkout_id: optional(field.int()),
  page: optional(field.int({ ge: 1 }), 1),
  page_size: optional(field.int({ ge: 1, le: 100 }), 100),
});

export function register(router: Router, ctx: SandboxContext): void {
  router.add('POST', '/v2/printed_dynamic_qrs', (req): Reply => {
    const p = guard(req, ACCESS.administration);
    const sent = readRequest(req, { body: NewQrBody }).body;
    const { checkout_id: checkoutId, store_id: storeId, auto_create_checkout: autoCreate, checkout_desc: desc, wallet_id: walletId, address } = sent;
    const { state } = ctx;
    // Section 7, in the order of its table.
    if (walletId !== undefined && address !== undefined) throw detailError(400, DETAIL.bothWalletFields);
    if (checkoutId === undefined) throw detailError(400, DETAIL.checkoutIdRequired);
    if (findStore(state, p.merchantId, storeId) === undefined) {
      // Another merchant's store is answered like a missing one (reference 5 rule 4).
      throw detailError(400, autoCreate ? DETAIL.storeMissing : DETAIL.noStoreAccess);
    }
    if ((walletId !== undefined || address !== undefined) && !autoCreate) throw detailError(400, DETAIL.walletNeedsAutoCreate);
    let sentWallet: WalletRecord | undefined;
    if (walletId !== undefined || address !== undefined) {
      sentWallet = walletId !== undefined ? findWallet(state, p.merchantId, walletId) : findWalletByAddress(state, p.merchantId, address ?? '');
      if (sentWallet === undefined) throw detailError(400, 'Wallet not found');
      // Section 7: network checked on the wallet sent...
      assertSupportedNetwork(sentWallet);
    }
    let checkout = findCheckout(state, p.merchantId, storeId, checkoutId);
    let newCheckoutWallet: number | undefined;
    if (checkout !== undefined) {
      // Rule 3: an existing checkout keeps its wallet; a different one is a 409.
      if (sentWallet !== undefined && sentWallet.wallet_id !== checkout.wallet_id) throw detailError(409, DETAIL.differentWallet);
      // ...and on the existing checkout's wallet, also when it already has a QR.
      const current = state.wallets[String(checkout.wallet_id)];
      if (current !== undefined) assertSupportedNetwork(current);
    } else if (!autoCreate) {
      // Rule 4: without auto_create_checkout the checkout must exist.
      throw detailError(404, DETAIL.checkoutNotFound);
    } else if (sentWallet !== undefined) {
      newCheckoutWallet = sentWallet.wallet_id;
    } else {
      // Rule 1: a new checkout takes the wallet of checkout 1 of the same store.
      const first = findCheckout(state, p.merchantId, storeId, 1);
      if (first === undefined) throw detailError(400, DETAIL.noDefaultCheckout);
      const firstWallet = state.wallets[String(first.wallet_id)];
      // ...and on checkout 1's wallet for a new checkout.
      if (firstWallet !== undefined) assertSupportedNetwork(firstWallet);
      newCheckoutWallet = first.wallet_id;
    }
    if (state.gateway.printed_disabled) throw detailError(503, DETAIL.disabled);

    if (checkout === undefined) {
      // Rule 5: the checkout is created before the gateway is called; it stays dynamic
      // until the printed QR exists. checkout_desc is used only here (ignored if it exists).
      checkout = addCheckout(state, { merchant_id: p.merchantId, store_id: storeId, checkout_id: checkoutId, checkout_desc: desc ?? `Caixa ${checkoutId}`, wallet_id: newCheckoutWallet as number });
      ctx.persist();
    }
    const key = checkoutKey(checkout.merchant_id, checkout.store_id, checkout.checkout_id);
    const existing = printedQrOf(state, key);
    if (existing !== undefined) {
      // Rule 2: the existing QR with 200; auto_create_checkout also (re)sets printed mode.
      if (autoCreate) setPrintedMode(state, key);
      ctx.persist();
      return { status: 200, body: qrBody(state, existing, checkout) };
    }
    // Rule 6: a gateway without printed QRs creates nothing; a new checkout stays dynamic.
    if (!state.gateway.printed_supported) throw detailError(400, DETAIL.unsupported);
    // Rule 5: a gateway failure creates nothing and leaves the checkout dynamic.
    const fault = ctx.faults.takeGatewayFault();
    if (fault === 'printed_qr_error') throw detailError(502, DETAIL.gatewayError);
    if (fault === 'printed_qr_bad_fields') throw detailError(502, DETAIL.gatewayBadFields);
    const locationId = checkoutLocation(state, checkout);
    const qr: PrintedQrRecord = {
      printed_dynamic_qr_id: newId('pqr_'),
      merchant_id: checkout.merchant_id,
      store_id: checkout.store_id,
      checkout_id: checkout.checkout_id,
      qr_location_id: locationId,
      qr_emvcode: printedQrEmv(state, checkout, locationId),
      created_at: ctx.clock.now(),
    };
    state.printedQrs[qr.printed_dynamic_qr_id] = qr;
    state.printedQrByCheckout[key] = qr.printed_dynamic_qr_id;
    // Rule 4 / 3.1: printed mode only with auto_create_checkout, and only now the QR exists.
    if (autoCreate) setPrintedMode(state, key);
    ctx.persist();
    return { status: 201, body: qrBody(state, qr, checkout) };
  });

  router.add('GET', '/v2/printed_dynamic_qrs', (req): Reply => {
    const p = guard(req, ACCESS.administration);
    const { checkout_id: checkoutId, page, page_size: pageSize, ...asked } = readRequest(req, { query: QrListQuery }).query;
    let storeId = asked.store_id;
    // Reference 4.4: checkout_id without store_id means store 1.
    if (checkoutId !== undefined && storeId === undefined) storeId = 1;
    const { state } = ctx;
    const matching = Object.values(state.printedQrs)
      .filter((qr) => qr.merchant_id === p.merchantId && (storeId === undefined || qr.store_id === storeId) && (checkoutId === undefined || qr.checkout_id === checkoutId))
      .sort((a, b) => a.store_id - b.store_id || a.checkout_id - b.checkout_id || a.created_at - b.created_at);
    const slice = matching.slice((page - 1) * pageSize, page * pageSize);
    // Only stores and checkouts with at least one matching QR appear.
    const stores: { store_id: number; store_name: string | null; company_name: string | null; checkouts: { checkout_id: number; checkout_desc: string | null; printed_dynamic_qrs: unknown[] }[] }[] = [];
    for (const qr of slice) {
      let store = stores.find((s) => s.store_id === qr.store_id);
      if (store === undefined) {
        store = {
          store_id: qr.store_id,
          store_name: findStore(state, qr.merchant_id, qr.store_id)?.store_name ?? null,
          company_name: state.merchants[String(qr.merchant_id)]?.company_name ?? null,
          checkouts: [],
        };
        stores.push(store);
      }
      const checkout = findCheckout(state, qr.merchant_id, qr.store_id, qr.checkout_id);
      let entry = store.checkouts.find((c) => c.checkout_id === qr.checkout_id);
      if (entry === undefined) {
        entry = { checkout_id: qr.checkout_id, checkout_desc: checkout?.checkout_desc ?? null, printed_dynamic_qrs: [] };
        store.checkouts.push(entry);
      }
      entry.printed_dynamic_qrs.push({
        printed_dynamic_qr_id: qr.printed_dynamic_qr_id,
        qr_emvcode: qr.qr_emvcode,
        address: checkout === undefined ? '' : walletAddressOf(state, checkout),
      });
    }
    return { status: 200, body: { total: matching.length, page, page_size: pageSize, stores } };
  });
}

function setPrintedMode(state: SandboxState, key: string): void {
  (state.configs[key] ??= {}).default_qr = 'printed_dynamic_qr';
}
