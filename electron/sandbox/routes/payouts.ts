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
import { Fields } from '../validate.ts';

/** Not shown in the reference: the sandbox's page bounds for the pay-out list. */
export const PAYOUT_LIST_LIMIT = { min: 1, max: 200, default: 50 } as const;
export const DETAIL_PAYOUT_NOT_FOUND = 'Payout not found';

export function register(router: Router, ctx: SandboxContext): void {
  router.add('GET', '/v2/payouts', (req): Reply => {
    const p = guard(req, ACCESS.payOut);
    const q = Fields.query(req.query);
    const limit = q.int('limit', { default: PAYOUT_LIST_LIMIT.default, ge: PAYOUT_LIST_LIMIT.min, le: PAYOUT_LIST_LIMIT.max }) as number;
    const offset = q.int('offset', { default: 0, ge: 0 }) as number;
    q.check();
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
    const f = Fields.body(req.body);
    const serviceId = f.string('service_id', { required: true, min: 1, max: 100 });
    const amountCents = f.int('amount_cents', { required: true, ge: 1, le: 100_000_000 });
    const e2eId = f.string('e2e_id', { max: 100 });
    const payerDocument = f.string('payer_document', { max: 20 });
    f.check();
    const id = serviceId as string;
    if (Object.hasOwn(ctx.state.payouts, id)) throw detailError(409, 'Payout already exists');
    ctx.state.payouts[id] = {
      service_id: id,
      merchant_id: 1,
      // Contract 7: pay-out external_id = "ext_" + service_id.
      external_id: `ext_${id}`,
      amount_cents: amountCents as number,
      currency: 'BRL',
      e2e_id: e2eId ?? null,
      payer_document: payerDocument ?? null,
      created_at: ctx.clock.now(),
    };
    ctx.persist();
    return { status: 201, body: payoutView(ctx.state.payouts[id]) };
  });

  router.add('PUT', '/_sandbox/payouts/:service_id/med', (req): Reply => {
    const f = Fields.body(req.body);
    const handling = f.literal('handling', ['tracked', 'manual'] as const, { required: true });
    const registration = f.literal('manual_registration', ['confirmed', 'unconfirmed'] as const, { default: 'confirmed' });
    f.check();
    const serviceId = req.params['service_id'] ?? '';
    const payout = Object.hasOwn(ctx.state.payouts, serviceId) ? ctx.state.payouts[serviceId] : undefined;
    if (payout === undefined) throw detailError(404, DETAIL_PAYOUT_NOT_FOUND);
    const choice = { handling: handling as 'tracked' | 'manual', manual_registration: registration as 'confirmed' | 'unconfirmed' };
    medBookOf(ctx.state).extra.handling[serviceId] = choice;
    ctx.persist();
    return { status: 200, body: { service_id: serviceId, ...choice } };
  });
}
