/**
 * `POST /v2/pay_in_refunds/request` (contract 5): scope pay_in, any role (contract 1).
 * The amount defaults to the rest of the charge; more than is left is a 422. In the batched
 * modes the refund brings a deduction into the checkout's pending refunds (refunds.ts,
 * settlement.ts); a charge refunded in full reads `refunded` in Tx Status.
 */
import { createHash } from 'node:crypto';
import { ACCESS, guard } from '../auth.ts';
import type { SandboxContext } from '../context.ts';
import { detailError } from '../http.ts';
import type { Reply, Router } from '../http.ts';
import { newId } from '../ids.ts';
import type { ChargeQuote } from '../quotes.ts';
import { planRefund, refundView } from '../refunds.ts';
import { formatCents } from '../../shared/money.ts';
import { body, field, optional, problem, readRequest, refuse, sentField, valueError } from '../validate.ts';
import { IDEMPOTENCY_TTL_MS, IdempotencyHeader } from './sales.ts';
import { runnerOf } from './settlements.ts';

export const DETAIL_CHARGE_NOT_FOUND = 'Charge not found';
/** Not shown in the reference: the longest free-text reason kept with a refund. */
export const REFUND_REASON_MAX = 255;

const RefundBody = body({
  service_id: field.string({ min: 1 }),
  // Left out, the rest of the charge.
  amount: optional(field.cents({ gt: 0 })),
  reason: optional(field.string({ max: REFUND_REASON_MAX })),
});

export function register(router: Router, ctx: SandboxContext): void {
  const runner = runnerOf(ctx);

  router.add('POST', '/v2/pay_in_refunds/request', (req): Reply => {
    const p = guard(req, ACCESS.payIn);
    const { header, body: sent } = readRequest(req, { header: IdempotencyHeader, body: RefundBody });
    const idempotencyKey = header['idempotency-key'];
    const { service_id: serviceId, amount: amountCents, reason } = sent;
    const { state } = ctx;
    // Contract 5 does not say whether a refund takes an Idempotency-Key; the sandbox honours
    // it as contract 2 does for a create (same key and request within 24 h: the first answer
    // again, nothing refunded twice; another request under the key: 409), so a client that
    // lost an answer can ask again safely. Keys live apart from the creates' keys.
    const idemKey = idempotencyKey === undefined ? null : `${p.merchantId}:refund:${idempotencyKey}`;
    const requestHash = createHash('sha256').update(JSON.stringify([serviceId, amountCents ?? null, reason ?? null])).digest('hex');
    if (idemKey !== null) {
      const previous = state.idempotency[idemKey];
      if (previous !== undefined && previous.expires_at > ctx.clock.now()) {
        if (previous.body_hash !== requestHash) throw detailError(409, 'Idempotency-Key reused with a different body');
        return { status: previous.status, body: previous.body, headers: { 'Idempotent-Replayed': 'true' } };
      }
    }
    const pixId = Object.hasOwn(state.saleIdByServiceId, serviceId) ? state.saleIdByServiceId[serviceId] : undefined;
    const sale = pixId === undefined ? undefined : state.sales[pixId];
    // reference 5 rule 4: another merchant's charge is answered as a missing one
    if (sale === undefined || sale.merchant_id !== p.merchantId) throw detailError(404, DETAIL_CHARGE_NOT_FOUND);
    runner.sync();
    const refundedBefore = (sale.ext['refunded_cents'] as number | undefined) ?? 0;
    const plan = planRefund({
      charge: {
        merchantId: sale.merchant_id,
        storeId: sale.store_id,
        checkoutId: sale.checkout_id,
        pix_id: sale.pix_id,
        service_id: sale.service_id,
        external_id: sale.external_id,
        paid_cents: sale.status === 'pending' ? null : sale.paid_amount_cents,
        quote: (sale.ext['quote'] as ChargeQuote | undefined) ?? null,
      },
      refundedBeforeCents: refundedBefore,
      requestedCents: amountCents ?? null,
      reason: reason ?? null,
      now: ctx.clock.now(),
      ids: { requestId: newId('rpir_'), refundId: newId('rpi_') },
    });
    if (!plan.ok) {
      // contract 5: 422 when the amount exceeds what is left to refund
      if (amountCents !== undefined && plan.leftCents > 0) {
        const le = formatCents(plan.leftCents);
        refuse('body', problem('amount', 'less_than_equal', `Input should be less than or equal to ${le}`, { le }), sentField(req.body, 'amount'));
      }
      refuse('body', valueError('service_id', 'the charge has nothing left to refund'), serviceId);
    }
    state.refunds[plan.record.service_refund_id] = plan.record;
    sale.ext['refunded_cents'] = refundedBefore + plan.record.refunded_cents;
    // contract 3: Tx Status reads `refunded` once nothing is left
    if (plan.fullyRefunded) sale.status = 'refunded';
    runner.sync();
    const body = refundView(plan.record);
    if (idemKey !== null) state.idempotency[idemKey] = { body_hash: requestHash, status: 201, body, expires_at: ctx.clock.now() + IDEMPOTENCY_TTL_MS };
    ctx.persist();
    return { status: 201, body };
  });
}
