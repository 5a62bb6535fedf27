/**
 * MED claims over HTTP (reference 4.6): open, get, list, with the per-IP rate limits of
 * reference 8 and the `{detail: {reason, message}}` error bodies of reference 7. The rules
 * themselves are in med.ts.
 *
 * Pipeline of each endpoint: token, scope pay_out, role manager or supervisor (contract 1),
 * then the rate limit (every authorised request counts, also one that then fails
 * validation), then the 422 validation list, then the rules.
 *
 * Control: `POST /_sandbox/med/{med_case_id}/advance` moves a claim forward (contract 7).
 */
import { ACCESS, guard } from '../auth.ts';
import type { SandboxContext } from '../context.ts';
import { detailError, reasonError, validationError } from '../http.ts';
import type { Reply, Router, SandboxRequest } from '../http.ts';
import {
  DETAILS_MAX,
  DETAILS_MIN,
  EXTERNAL_ID_MAX,
  LIST_LIMIT,
  MED_CASE_ID_PATTERN,
  MED_MESSAGE,
  MED_RATE_LIMITS,
  MED_REASONS,
  MED_RESULTS,
  MED_STATUSES,
  SlidingWindowLimiter,
  advanceClaim,
  claimView,
  findClaim,
  listClaims,
  medBookOf,
  newMedCaseId,
  openClaim,
  type AdvanceRequest,
  type MedResult,
} from '../med.ts';
import { findPayout } from '../payouts.ts';
import { Fields } from '../validate.ts';

export function register(router: Router, ctx: SandboxContext): void {
  // In memory, per sandbox: a restart or a reset forgets the minute's counts.
  const limiters = {
    open: new SlidingWindowLimiter(MED_RATE_LIMITS.open),
    get: new SlidingWindowLimiter(MED_RATE_LIMITS.get),
    list: new SlidingWindowLimiter(MED_RATE_LIMITS.list),
  };
  ctx.onReset(() => {
    for (const limiter of Object.values(limiters)) limiter.clear();
  });

  /** reference 8: so many requests per minute per IP address, then 429. */
  const limit = (which: keyof typeof limiters, req: SandboxRequest): void => {
    const retryAfter = limiters[which].hit(req.ip, ctx.clock.now());
    if (retryAfter === null) return;
    const error = reasonError(429, 'rate_limited', MED_MESSAGE.rate_limited);
    error.headers['Retry-After'] = String(retryAfter);
    throw error;
  };

  router.add('POST', '/v2/payout_meds', (req): Reply => {
    const p = guard(req, ACCESS.payOut);
    limit('open', req);
    const f = Fields.body(req.body);
    const serviceId = f.string('service_id', { min: 1 });
    const payoutExternalId = f.string('payout_external_id', { min: 1 });
    const reason = f.literal('reason', MED_REASONS, { required: true, type: 'enum' });
    const details = f.string('details', { required: true, min: DETAILS_MIN, max: DETAILS_MAX });
    const externalId = f.string('external_id', { min: 1, max: EXTERNAL_ID_MAX });
    // reference 4.6: exactly one of service_id and payout_external_id, else 422
    const isObject = typeof req.body === 'object' && req.body !== null && !Array.isArray(req.body);
    if (isObject && f.present('service_id') === f.present('payout_external_id')) {
      f.valueError(null, 'send exactly one of service_id and payout_external_id', req.body);
    }
    f.check();
    const payout =
      serviceId !== undefined
        ? findPayout(ctx.state, p.merchantId, { service_id: serviceId })
        : findPayout(ctx.state, p.merchantId, { external_id: payoutExternalId as string });
    const outcome = openClaim(medBookOf(ctx.state), {
      merchantId: p.merchantId,
      payout,
      request: {
        reason: reason as (typeof MED_REASONS)[number],
        details: details as string,
        external_id: externalId,
        // reference 4.6: files are not supported; sending the field at all is refused
        filesSent: f.raw('files') !== undefined,
      },
      now: ctx.clock.now(),
      newId: newMedCaseId,
    });
    if (outcome.kind === 'error') throw reasonError(outcome.status, outcome.reason, outcome.message, outcome.extra);
    ctx.persist();
    return { status: 202, body: outcome.body };
  });

  router.add('GET', '/v2/payout_meds/:med_case_id', (req): Reply => {
    const p = guard(req, ACCESS.payOut);
    limit('get', req);
    const id = req.params['med_case_id'] ?? '';
    if (!MED_CASE_ID_PATTERN.test(id)) {
      // reference 4.6: "send exactly as returned, case unchanged; malformed value gives 422"
      const pattern = MED_CASE_ID_PATTERN.source;
      throw validationError([
        { type: 'string_pattern_mismatch', loc: ['path', 'med_case_id'], msg: `String should match pattern '${pattern}'`, input: id, ctx: { pattern } },
      ]);
    }
    const claim = findClaim(medBookOf(ctx.state), p.merchantId, id);
    if (claim === null) throw reasonError(404, 'not_found', MED_MESSAGE.not_found);
    return { status: 200, body: claimView(claim) };
  });

  router.add('GET', '/v2/payout_meds', (req): Reply => {
    const p = guard(req, ACCESS.payOut);
    limit('list', req);
    const q = Fields.query(req.query);
    const max = q.int('limit', { default: LIST_LIMIT.default, ge: LIST_LIMIT.min, le: LIST_LIMIT.max }) as number;
    q.check();
    return { status: 200, body: listClaims(medBookOf(ctx.state), p.merchantId, max).map(claimView) };
  });

  if (!ctx.control) return;

  router.add('POST', '/_sandbox/med/:med_case_id/advance', (req): Reply => {
    const f = Fields.body(req.body);
    const status = f.literal('status', MED_STATUSES, { required: true });
    const moneyRefunded = f.boolean('money_refunded');
    const refundedCents = f.cents('refunded_amount', { gt: 0 });
    const resultId = f.raw('result_id') === null ? null : f.literal('result_id', MED_RESULTS);
    const retryable = f.boolean('retryable');
    f.check();
    const book = medBookOf(ctx.state);
    const id = req.params['med_case_id'] ?? '';
    const claim = Object.hasOwn(book.claims, id) ? book.claims[id] : undefined;
    if (claim === undefined) throw detailError(404, 'MED claim not found');
    const request: AdvanceRequest = { status: status as (typeof MED_STATUSES)[number] };
    if (moneyRefunded !== undefined) request.money_refunded = moneyRefunded;
    if (refundedCents !== undefined) request.refunded_cents = refundedCents;
    if (resultId !== undefined) request.result_id = resultId as MedResult | null;
    if (retryable !== undefined) request.retryable = retryable;
    const payoutCents = ctx.state.payouts[claim.service_id]?.amount_cents ?? Number.MAX_SAFE_INTEGER;
    const outcome = advanceClaim(claim, payoutCents, request);
    if (!outcome.ok) {
      if (outcome.status === 409) throw detailError(409, outcome.detail);
      f.valueError(outcome.field, outcome.message, f.raw(outcome.field) ?? null);
      f.check();
    }
    ctx.persist();
    return { status: 200, body: claimView(claim) };
  });
}
