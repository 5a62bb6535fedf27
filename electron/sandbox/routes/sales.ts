/**
 * `POST /v2/create_dynamic_pix` (reference 4.5, contract 2) and `GET /v2/tx_status/{pix_id}`
 * (contract 3). Scope pay_in, any role (contract 1).
 */
import { createHash } from 'node:crypto';
import { formatCents } from '../../shared/money.ts';
import { ACCESS, guard } from '../auth.ts';
import type { SandboxContext } from '../context.ts';
import { detailError } from '../http.ts';
import type { Reply, Router } from '../http.ts';
import { findCheckout } from '../lookup.ts';
import { chargeResponse, createCharge, DEFAULT_EXPIRE_SEC, isPrintedMode, iso, printedQrOf, saleStatus } from '../sales.ts';
import { checkoutKey } from '../state.ts';
import { body, field, fields, optional, readRequest } from '../validate.ts';

/** Contract 2: at most 1,000,000.00. */
export const MAX_AMOUNT_CENTS = 100_000_000;
/** Contract 2: an Idempotency-Key is remembered 24 hours. */
export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;

export const DETAIL_NO_PRINTED_QR = 'This checkout does not have a printed dynamic QR assigned.Please create one or contact support if you need assistance.';

/** Contract 2: an Idempotency-Key header of 1 to 255 characters. */
export const IdempotencyHeader = fields({ 'idempotency-key': optional(field.string({ min: 1, max: 255 })) });

const CreateSaleBody = body({
  amount: field.cents({ gt: 0, le: MAX_AMOUNT_CENTS }),
  store_id: optional(field.int(), 1),
  checkout_id: optional(field.int(), 1),
  external_id: optional(field.string({ min: 1, max: 128 })),
  // Left out, the default; the request's meaning (for its Idempotency-Key) tells the two apart.
  expire: optional(field.int({ ge: 60, le: 86_400 })),
});

export function register(router: Router, ctx: SandboxContext): void {
  router.add('POST', '/v2/create_dynamic_pix', (req): Reply => {
    const p = guard(req, ACCESS.payIn);
    const { header, body: sent } = readRequest(req, { header: IdempotencyHeader, body: CreateSaleBody });
    const idempotencyKey = header['idempotency-key'];
    const { amount: amountCents, store_id: storeId, checkout_id: checkoutId, external_id: externalId } = sent;
    const expireSec = sent.expire ?? DEFAULT_EXPIRE_SEC;
    const { state } = ctx;
    const now = ctx.clock.now();

    // Contract 2: same key + same request within 24 h replays the first answer; another
    // request under the same key is a 409. The request is compared by its validated
    // meaning, so key order or spacing in the JSON does not matter.
    let idemKey: string | null = null;
    let requestHash = '';
    if (idempotencyKey !== undefined) {
      idemKey = `${p.merchantId}:${idempotencyKey}`;
      requestHash = createHash('sha256').update(JSON.stringify([amountCents, storeId, checkoutId, externalId ?? null, sent.expire ?? null])).digest('hex');
      const previous = state.idempotency[idemKey];
      if (previous !== undefined && previous.expires_at > now) {
        if (previous.body_hash !== requestHash) throw detailError(409, 'Idempotency-Key reused with a different body');
        return { status: previous.status, body: previous.body, headers: { 'Idempotent-Replayed': 'true' } };
      }
    }

    const checkout = findCheckout(state, p.merchantId, storeId, checkoutId);
    if (checkout === undefined) throw detailError(404, 'Checkout not found');
    let flow: 'printed' | 'fallback' | 'dynamic' = 'dynamic';
    if (isPrintedMode(state, p.merchantId, storeId, checkoutId)) {
      // Reference 7: printed QRs disabled also stops sale creation on a printed checkout.
      if (state.gateway.printed_disabled) throw detailError(503, 'printed_qr_disabled');
      // Reference 3.1 / 7: printed mode without a printed QR breaks sales with this 422.
      if (printedQrOf(state, checkoutKey(p.merchantId, storeId, checkoutId)) === undefined) throw detailError(422, DETAIL_NO_PRINTED_QR);
      // Contract 2: the gateway may fall back to a dynamic QR (qr_type dynamic, no printed data).
      flow = state.gateway.printed_fallback_dynamic || !state.gateway.printed_supported ? 'fallback' : 'printed';
    }
    const sale = createCharge(ctx, { checkout, amountCents, externalId: externalId ?? null, flow, expireSec });
    const body = chargeResponse(state, sale);
    if (idemKey !== null) {
      state.idempotency[idemKey] = { body_hash: requestHash, status: 201, body, expires_at: now + IDEMPOTENCY_TTL_MS };
      sweepIdempotency(ctx, now);
    }
    ctx.persist();
    return { status: 201, body };
  });

  router.add('GET', '/v2/tx_status/:pix_id', (req): Reply => {
    const p = guard(req, ACCESS.payIn);
    const pixId = req.params.pix_id ?? '';
    const sale = Object.hasOwn(ctx.state.sales, pixId) ? ctx.state.sales[pixId] : undefined;
    // Contract 3: a displaced sale (for ever, even after a late payment) or another
    // merchant's id is "TX not found" (reference 4.5 rule 4, reference 5 rule 4).
    if (sale === undefined || sale.merchant_id !== p.merchantId || sale.displaced) throw detailError(404, 'TX not found');
    return {
      status: 200,
      body: {
        pix_id: sale.pix_id,
        service_id: sale.service_id,
        status: saleStatus(sale, ctx.clock.now()),
        // Once paid, the amount the payer actually paid (it is what charge.paid carries).
        amount_brl: formatCents(sale.paid_amount_cents ?? sale.amount_cents),
        paid_at: iso(sale.paid_at),
        e2e_id: sale.e2e_id,
      },
    };
  });
}

let sweepCounter = 0;

/** Forgets expired keys now and then, so the table does not grow for ever. */
function sweepIdempotency(ctx: SandboxContext, now: number): void {
  if (++sweepCounter % 1000 !== 0) return;
  for (const [key, record] of Object.entries(ctx.state.idempotency)) if (record.expires_at <= now) delete ctx.state.idempotency[key];
}
