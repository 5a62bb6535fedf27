/**
 * Pay-outs (contract 5): `GET /v2/payouts?limit&offset` and `GET /v2/payouts/{service_id}`,
 * scope pay_out and role manager or supervisor (contract 1). Another merchant's pay-out is
 * answered as a missing one (reference 5 rule 4).
 *
 * Control (contract 7 addition): `PUT /_sandbox/payouts/{service_id}/med` chooses whether a
 * MED claim over the pay-out is tracked or handled by the operator (reference 4.6 second
 * form), and whether an operator registration is confirmed. `POST /_sandbox/payouts`
 * adds a pay-out of merchant 1 made now (body: service_id, amount in cents, e2e_id,
 * payer_document), so a test can open claims beyond the fixture's two claimable ones.
 */
import { ACCESS, guard } from '../auth.ts';
import type { SandboxContext } from '../context.ts';
import { detailError } from '../http.ts';
import type { Reply, Router } from '../http.ts';
import { medBookOf } from '../med.ts';
import { findPayout, listPayouts, payoutView } from '../payouts.ts';
import { body, field, fields, optional, readRequest } from '../validate.ts';

/** Not shown in the reference: the sandbox's page bounds for the pay-out list. */
export const PAYOUT_LIST_LIMIT = { min: 1, max: 200, default: 50 } as const;
export const DETAIL_PAYOUT_NOT_FOUND = 'Payout not found';

const PayoutPage = fields({
  limit: optional(field.int({ ge: PAYOUT_LIST_LIMIT.min, le: PAYOUT_LIST_LIMIT.max }), PAYOUT_LIST_LIMIT.default),
  offset: optional(field.int({ ge: 0 }), 0),
});

const AddPayoutBody = body({
  service_id: field.string({ min: 1, max: 100 }),
  amount_cents: field.int({ ge: 1, le: 100_000_000 }),
  e2e_id: optional(field.string({ max: 100 })),
  payer_document: optional(field.string({ max: 20 })),
});

const MedHandlingBody = body({
  handling: field.literal(['tracked', 'manual']),
  manual_registration: optional(field.literal(['confirmed', 'unconfirmed']), 'confirmed'),
});

export function register(router: Router, ctx: SandboxContext): void {
  router.add('GET', '/v2/payouts', (req): Reply => {
    const p = guard(req, ACCESS.payOut);
    const { limit, offset } = readRequest(req, { query: PayoutPage }).query;
    return { status: 200, body: listPayouts(ctx.state, p.merchantId).slice(offset, offset + limit).map(payoutView) };
  });

  router.add('GET', '/v2/payouts/:service_id', (req): Reply => {
    const p = guard(req, ACCESS.payOut);
    const payout = findPayout(ctx.state, p.merchantId, { service_id: req.params['service_id'] ?? '' });
    if (payout === null) throw detailError(404, DETAIL_PAYOUT_NOT_FOUND);
    return { status: 200, body: payoutView(payout) };
  });

  if (!ctx.control) return;

  router.add('POST', '/_sandbox/payouts', (req): Reply => {
    const { service_id: id, amount_cents: amountCents, e2e_id: e2eId, payer_document: payerDocument } = readRequest(req, { body: AddPayoutBody }).body;
    if (Object.hasOwn(ctx.state.payouts, id)) throw detailError(409, 'Payout already exists');
    ctx.state.payouts[id] = {
      service_id: id,
      merchant_id: 1,
      // Contract 7: pay-out external_id = "ext_" + service_id.
      external_id: `ext_${id}`,
      amount_cents: amountCents,
      currency: 'BRL',
      e2e_id: e2eId ?? null,
      payer_document: payerDocument ?? null,
      created_at: ctx.clock.now(),
    };
    ctx.persist();
    return { status: 201, body: payoutView(ctx.state.payouts[id]) };
  });

  router.add('PUT', '/_sandbox/payouts/:service_id/med', (req): Reply => {
    const { handling, manual_registration: registration } = readRequest(req, { body: MedHandlingBody }).body;
    const serviceId = req.params['service_id'] ?? '';
    const payout = Object.hasOwn(ctx.state.payouts, serviceId) ? ctx.state.payouts[serviceId] : undefined;
    if (payout === undefined) throw detailError(404, DETAIL_PAYOUT_NOT_FOUND);
    const choice = { handling, manual_registration: registration };
    medBookOf(ctx.state).extra.handling[serviceId] = choice;
    ctx.persist();
    return { status: 200, body: { service_id: serviceId, ...choice } };
  });
}
