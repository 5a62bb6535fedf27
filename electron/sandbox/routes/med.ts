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
import * as v from 'valibot';
import { ACCESS, guard } from '../auth.ts';
import type { SandboxContext } from '../context.ts';
import { detailError, reasonError } from '../http.ts';
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
} from '../med.ts';
import { findPayout } from '../payouts.ts';
import { body, field, fields, optional, readRequest, refuse, sentField, valueError } from '../validate.ts';

const OpenClaimBody = body(
  {
    service_id: optional(field.string({ min: 1 })),
    payout_external_id: optional(field.string({ min: 1 })),
    reason: field.literal(MED_REASONS, 'enum'),
    details: field.string({ min: DETAILS_MIN, max: DETAILS_MAX }),
    external_id: optional(field.string({ min: 1, max: EXTERNAL_ID_MAX })),
  },
  {
    rules: [
      {
        // reference 4.6: exactly one of service_id and payout_external_id, else 422
        needs: [],
        check: (c) => ((c.service_id !== undefined) === (c.payout_external_id !== undefined) ? valueError(null, 'send exactly one of service_id and payout_external_id') : null),
      },
    ],
  },
);

// reference 4.6: "send exactly as returned, case unchanged; malformed value gives 422"
const ClaimPath = fields({ med_case_id: field.pattern(MED_CASE_ID_PATTERN) });

const ClaimListQuery = fields({ limit: optional(field.int({ ge: LIST_LIMIT.min, le: LIST_LIMIT.max }), LIST_LIMIT.default) });

const AdvanceBody = body({
  status: field.literal(MED_STATUSES),
  money_refunded: optional(field.boolean()),
  refunded_amount: optional(field.cents({ gt: 0 })),
  // null clears the result; left out keeps it.
  result_id: v.nullish(field.literal(MED_RESULTS)),
  retryable: optional(field.boolean()),
});

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
    const sent = readRequest(req, { body: OpenClaimBody }).body;
    const payout =
      sent.service_id !== undefined
        ? findPayout(ctx.state, p.merchantId, { service_id: sent.service_id })
        : findPayout(ctx.state, p.merchantId, { external_id: sent.payout_external_id ?? '' });
    const outcome = openClaim(medBookOf(ctx.state), {
      merchantId: p.merchantId,
      payout,
      request: {
        reason: sent.reason,
        details: sent.details,
        external_id: sent.external_id,
        // reference 4.6: files are not supported; sending the field at all is refused
        filesSent: sent['files'] !== undefined,
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
    const id = readRequest(req, { path: ClaimPath }).path.med_case_id;
    const claim = findClaim(medBookOf(ctx.state), p.merchantId, id);
    if (claim === null) throw reasonError(404, 'not_found', MED_MESSAGE.not_found);
    return { status: 200, body: claimView(claim) };
  });

  router.add('GET', '/v2/payout_meds', (req): Reply => {
    const p = guard(req, ACCESS.payOut);
    limit('list', req);
    const max = readRequest(req, { query: ClaimListQuery }).query.limit;
    return { status: 200, body: listClaims(medBookOf(ctx.state), p.merchantId, max).map(claimView) };
  });

  if (!ctx.control) return;

  router.add('POST', '/_sandbox/med/:med_case_id/advance', (req): Reply => {
    const sent = readRequest(req, { body: AdvanceBody }).body;
    const { money_refunded: moneyRefunded, refunded_amount: refundedCents, result_id: resultId, retryable } = sent;
    const book = medBookOf(ctx.state);
    const id = req.params['med_case_id'] ?? '';
    const claim = Object.hasOwn(book.claims, id) ? book.claims[id] : undefined;
    if (claim === undefined) throw detailError(404, 'MED claim not found');
    const request: AdvanceRequest = { status: sent.status };
    if (moneyRefunded !== undefined) request.money_refunded = moneyRefunded;
    if (refundedCents !== undefined) request.refunded_cents = refundedCents;
    if (resultId !== undefined) request.result_id = resultId;
    if (retryable !== undefined) request.retryable = retryable;
    const payoutCents = ctx.state.payouts[claim.service_id]?.amount_cents ?? Number.MAX_SAFE_INTEGER;
    const outcome = advanceClaim(claim, payoutCents, request);
    if (!outcome.ok) {
      if (outcome.status === 409) throw detailError(409, outcome.detail);
      refuse('body', valueError(outcome.field, outcome.message), sentField(req.body, outcome.field) ?? null);
    }
    ctx.persist();
    return { status: 200, body: claimView(claim) };
  });
}
