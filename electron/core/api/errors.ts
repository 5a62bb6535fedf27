/**
 * Every way a call to the payment service can fail becomes one ServiceError, whose message
 * is a sentence a cashier or manager can act on (in the UI and in the log alike).
 *
 * The body shapes of reference section 7 are all read: `{detail: "<string>"}`,
 * `{detail: {reason, message, ...}}` (MED claims), the 422 validation list, and a
 * plain-text `Internal Server Error`; so are what a proxy or a broken server may send
 * instead (an HTML page, nothing, invalid JSON, a huge body). Decisions branch on the HTTP
 * status, the route and the MED `reason`; a MED `message` is never branched on (reference
 * 4.6: it is for people and may change). The few documented `detail` strings the
 * reference gives as the only discriminator (reference 5 rule 3, reference 7) are matched
 * exactly, and every one of them has a status-based fallback.
 */
import { CoreError } from '../errors.ts';
import type { ErrorCode, ErrorParams } from '../errors.ts';
import { isWrite, routeInfo } from './routes.ts';
import type { Access } from './routes/route.ts';
import type { RouteName } from './routes.ts';
import { cut, MAX_DETAIL_CHARS, parseErrorBody, snippet, type BodyShape, type ParsedErrorBody, type ReasonDetail, type ReceivedDetail, type ValidationIssue } from './error-body.ts';

export { MAX_DETAIL_CHARS, parseErrorBody, type BodyShape, type ParsedErrorBody, type ReasonDetail, type ReceivedDetail, type ValidationIssue } from './error-body.ts';

export type ServiceErrorKind = 'network' | 'timeout' | 'http';

/**
 * Whether a failed write may have taken effect at the service. `not_created`: certainly
 * not (refused before processing, or never sent). `unknown`: it may have (timed out after
 * sending, a 5xx, a broken connection); the sale lifecycle must check before repeating.
 * A read is always `not_created`: it has nothing to create.
 */
export type ServiceOutcome = 'not_created' | 'unknown';

// ── Validation lists (reference 7, third shape) ──────────────────────────────────────────

const LOC_SOURCES = new Set(['body', 'query', 'path', 'header', 'cookie']);

/** `['body','config_value']` → `config_value`; `['body','items',0,'name']` → `items[0].name`. */
export function fieldName(loc: readonly (string | number)[]): string {
  const rest = typeof loc[0] === 'string' && LOC_SOURCES.has(loc[0]) ? loc.slice(1) : loc;
  if (rest.length === 0) return 'the request';
  return rest.reduce<string>((acc, part) => (typeof part === 'number' ? `${acc}[${part}]` : acc === '' ? part : `${acc}.${part}`), '');
}

function ctxValue(issue: ValidationIssue, key: string): string | null {
  const v = issue.ctx?.[key];
  if (typeof v === 'number' || typeof v === 'string') return String(v);
  return null;
}

function plural(n: string, one: string, many: string): string {
  return `${n} ${n === '1' ? one : many}`;
}

/** One validation issue as a clause a person can act on: "config_value must have at least 1 character". */
export function describeValidationIssue(issue: ValidationIssue): string {
  const field = fieldName(issue.loc);
  const msg = snippet(issue.msg.replace(/^Value error,\s*/i, ''));
  const c = (key: string) => ctxValue(issue, key);
  switch (issue.type) {
    case 'missing':
      return `${field} is required`;
    case 'string_too_short':
      return c('min_length') === null ? `${field} is too short` : `${field} must have at least ${plural(c('min_length') as string, 'character', 'characters')}`;
    case 'string_too_long':
      return c('max_length') === null ? `${field} is too long` : `${field} must have at most ${plural(c('max_length') as string, 'character', 'characters')}`;
    case 'too_short':
      return c('min_length') === null ? `${field} has too few items` : `${field} must have at least ${plural(c('min_length') as string, 'item', 'items')}`;
    case 'too_long':
      return c('max_length') === null ? `${field} has too many items` : `${field} must have at most ${plural(c('max_length') as string, 'item', 'items')}`;
    case 'less_than_equal':
      return c('le') === null ? `${field} is too large` : `${field} must be at most ${c('le') as string}`;
    case 'less_than':
      return c('lt') === null ? `${field} is too large` : `${field} must be less than ${c('lt') as string}`;
    case 'greater_than_equal':
      return c('ge') === null ? `${field} is too small` : `${field} must be at least ${c('ge') as string}`;
    case 'greater_than':
      return c('gt') === null ? `${field} is too small` : `${field} must be greater than ${c('gt') as string}`;
    case 'int_parsing':
    case 'int_type':
    case 'int_from_float':
      return `${field} must be a whole number`;
    case 'float_parsing':
    case 'float_type':
    case 'decimal_parsing':
    case 'decimal_type':
      return `${field} must be a number`;
    case 'decimal_max_places':
      return c('decimal_places') === null ? `${field} has too many decimal places` : `${field} must have at most ${plural(c('decimal_places') as string, 'decimal place', 'decimal places')}`;
    case 'string_type':
      return `${field} must be text`;
    case 'bool_type':
    case 'bool_parsing':
      return `${field} must be true or false`;
    case 'literal_error':
    case 'enum':
      // Reference 7: for default_qr the service names the allowed values.
      return c('expected') === null ? `${field}: ${msg}` : `${field} must be ${c('expected') as string}`;
    case 'extra_forbidden':
      return `${field} is not accepted`;
    case 'timezone_aware':
    case 'datetime_parsing':
    case 'datetime_type':
      return `${field} must be a date and time with a UTC offset`;
    default:
      // value_error and the rest: the service's own words, which name the rule broken.
      if (msg === '') return `${field} is not valid`;
      return field === 'the request' ? msg : `${field}: ${msg}`;
  }
}

const MAX_ISSUES_SHOWN = 4;

function describeValidation(issues: readonly ValidationIssue[]): string {
  if (issues.length === 0) return 'the request is not valid';
  const shown = issues.slice(0, MAX_ISSUES_SHOWN).map(describeValidationIssue);
  const more = issues.length - shown.length;
  return more > 0 ? `${shown.join('; ')}; and ${more} more` : shown.join('; ');
}

// ── Sentences ────────────────────────────────────────────────────────────────────────────

/** Reference 7: the two 502 details of a printed QR gateway failure, after which nothing exists. */
const PRINTED_QR_GATEWAY_DETAILS = new Set([
  'Gateway error during printed dynamic QR creation',
  'Gateway did not return expected fields for printed dynamic QR creation',
]);
/** Reference 7: 503 detail while printed QRs are switched off. */
const PRINTED_QR_DISABLED = 'printed_qr_disabled';
/** Reference 5 rule 3: an invalid or expired token. */
const DETAIL_BAD_CREDENTIALS = 'Could not validate credentials';
/** Reference 5 rule 3: the 401 of a valid token without the endpoint's scope. */
const DETAIL_SCOPE = 'Token Profile Not Authorized for this Endpoint';

/** Known 400 `detail` strings (reference 4.2, 7) rewritten as what a person should do. */
const KNOWN_DETAILS: Readonly<Record<string, { problem: string; advice: string }>> = {
  'Wallet not found': { problem: 'wallet_not_found', advice: "the wallet is not one of this merchant's wallets; choose one of the merchant's wallets" },
  'Wallet network deprecated': {
    problem: 'wallet_network_deprecated',
    advice: 'the wallet is on a network that is no longer supported; choose a wallet on a supported network',
  },
  'User does not have access to this store': { problem: 'no_store_access', advice: 'this user has no access to the store; ask a manager with access to do it' },
  'store_id does not exist': { problem: 'store_not_found', advice: 'the store does not exist for this merchant; check the store number' },
};

/** MED claim reasons (reference 4.6) as what a manager should do. */
const MED_REASONS: Readonly<Record<string, string>> = {
  payout_not_found: "The pay-out was not found among this merchant's pay-outs; check the pay-out id or its reference.",
  not_found: "The MED claim was not found among this merchant's claims; check the claim id.",
  already_exists: 'A MED claim already exists for this pay-out; follow that claim instead of opening another.',
  duplicate_external_id: 'Another MED claim already uses this reference (external_id); give this claim a different reference.',
  manual_claim_already_sent: 'The operator already received a claim for this pay-out; contact support for its outcome.',
  manual_claim_in_progress: 'A previous claim request for this pay-out is still being processed; try again in a few minutes.',
  outside_window: 'This pay-out is older than the claim window (79 days); a claim can no longer be opened through the app; contact support.',
  payout_date_unknown: 'This pay-out has no date, so a claim cannot be opened through the app; contact support.',
  e2e_not_resolved: 'The bank has not finished processing this pay-out yet (no end-to-end id); try again later.',
  evidence_upload_unavailable: 'Attaching files to a claim is not supported; send the claim without files.',
  claim_not_confirmed:
    'The payment service could not confirm the claim was registered; do not repeat it now (a repeat may open a second claim): check the claims list in a few minutes, then contact support if it is missing.',
};

function listOr(words: readonly string[]): string {
  if (words.length <= 1) return words.join('');
  return `${words.slice(0, -1).join(', ')} or ${words[words.length - 1] as string}`;
}

function rolesOf(access: Access): string {
  return access.roles === 'any' ? 'user with access' : listOr(access.roles);
}

function scopesOf(access: Access): string {
  return listOr(access.scopes.map((s) => (s === 'pay_in' ? 'pay-in' : 'pay-out')));
}

/** What to do when a write failed without a definite answer. */
function unknownOutcomeAdvice(route: RouteName): string {
  if (route === 'sales.create') return 'The sale may or may not have been created: check its status before charging again.';
  if (route === 'refunds.request') return 'The refund may or may not have been requested: check the charge before asking again.';
  if (route === 'meds.open') return 'The claim may or may not have been opened: check the claims list before trying again.';
  return 'It may have been done anyway: check before repeating it.';
}

function retryAdvice(route: RouteName, outcome: ServiceOutcome): string {
  return outcome === 'unknown' && isWrite(route) ? unknownOutcomeAdvice(route) : 'Try again in a moment.';
}

function waitFor(retryAfterMs: number | null | undefined, route: RouteName): string {
  if (retryAfterMs !== null && retryAfterMs !== undefined && retryAfterMs > 0) {
    const s = Math.ceil(retryAfterMs / 1000);
    return s >= 90 ? `${Math.ceil(s / 60)} minutes` : `${s} second${s === 1 ? '' : 's'}`;
  }
  // Reference 8: after a 429 on claim opening, wait a minute.
  return route === 'meds.open' ? 'a minute' : 'a few seconds';
}

export interface ServiceErrorDescription {
  code: ErrorCode;
  /**
   * A stable identifier of what went wrong, chosen here, for code and translations: a MED
   * `reason` as sent, else e.g. `no_printed_qr`, `printed_qr_disabled`, `validation`,
   * `credentials`, `scope`, `role`, `not_found`, `rate_limited`, `server_error`,
   * `bad_gateway`, `unavailable`, or a transport problem (`refused`, `deadline`, ...).
   */
  problem: string;
  /** The sentence for a person. */
  message: string;
  outcome: ServiceOutcome;
  /** Worth repeating the same request (5xx, 429); still subject to the route's retry policy. */
  transient: boolean;
  shape: BodyShape;
  detail: ReceivedDetail;
  reason: string | null;
}

function codeFor(status: number, parsed: ParsedErrorBody): ErrorCode {
  if (status >= 500) return 'service_failed';
  if (status === 400) return 'invalid_argument';
  if (status === 404) return 'not_found';
  if (status === 409) return 'conflict';
  if (status === 422 && parsed.shape === 'detail_validation') return 'invalid_argument';
  return 'service_rejected';
}

function outcomeFor(status: number, parsed: ParsedErrorBody, route: RouteName): ServiceOutcome {
  if (!isWrite(route)) return 'not_created';
  // Reference 4.6: the registration may have reached the operator.
  if (parsed.reason === 'claim_not_confirmed') return 'unknown';
  // 408: the service gave up waiting on the request; treated like a timeout, as the sales core does.
  if (status < 500 && status !== 408) return 'not_created';
  // Reference 7: printed QRs switched off is a refusal; a printed QR gateway failure creates nothing.
  if (status === 503 && parsed.detail === PRINTED_QR_DISABLED) return 'not_created';
  if (status === 502 && route === 'printedQrs.create' && typeof parsed.detail === 'string' && PRINTED_QR_GATEWAY_DETAILS.has(parsed.detail)) {
    return 'not_created';
  }
  return 'unknown';
}

function transientFor(status: number, parsed: ParsedErrorBody): boolean {
  if (parsed.reason === 'claim_not_confirmed') return false;
  // Reference 7: "temporarily disabled ... retry later" is a switch, not a blip.
  if (status === 503 && parsed.detail === PRINTED_QR_DISABLED) return false;
  // Issue: no 4xx is repeated except 429.
  return status === 429 || (status >= 500 && status !== 501 && status !== 505);
}

/** A stable identifier of what went wrong, plus the sentence for a person. */
interface Said {
  problem: string;
  message: string;
}

function sentence(status: number, parsed: ParsedErrorBody, route: RouteName, outcome: ServiceOutcome, retryAfterMs: number | null | undefined): Said {
  const info = routeInfo(route);
  const action = info.action;
  const detailString = parsed.shape === 'detail_string' ? (parsed.detail as string) : null;
  const quoted = detailString === null ? '' : ` ("${snippet(detailString)}")`;
  const said = (problem: string, message: string): Said => ({ problem, message });

  // MED claims: branch on reason (reference 4.6), never on message.
  if (parsed.shape === 'detail_reason' && parsed.reason !== null) {
    const known = MED_REASONS[parsed.reason];
    if (known !== undefined) {
      if (parsed.reason === 'already_exists') {
        const d = parsed.detail as ReasonDetail;
        const id = typeof d['med_case_id'] === 'string' ? d['med_case_id'] : null;
        const st = typeof d['status_id'] === 'string' ? d['status_id'] : null;
        // Reference 4.6: the loser of a race gets no med_case_id; it is in the list.
        return said(
          parsed.reason,
          id === null
            ? `${known} Find it in the claims list.`
            : `A MED claim already exists for this pay-out (${id}${st === null ? '' : `, ${st}`}); follow that claim instead of opening another.`,
        );
      }
      return said(parsed.reason, known);
    }
  }

  // Contract 1 fixes 401 for this detail (reference 7 leaves the status open): read the detail whatever the status.
  if (detailString === DETAIL_BAD_CREDENTIALS) {
    return said(
      'credentials',
      "The payment service did not accept this terminal's access token (it is invalid or has expired); ask a manager to check the service token in the settings.",
    );
  }

  if (status === 503 && detailString === PRINTED_QR_DISABLED) {
    return said('printed_qr_disabled', 'Printed QRs are temporarily disabled; try again later.');
  }

  switch (status) {
    case 400: {
      const known = detailString === null ? undefined : KNOWN_DETAILS[detailString];
      if (known !== undefined) return said(known.problem, `The payment service refused to ${action}: ${known.advice}.`);
      return said('bad_request', `The payment service refused to ${action}${quoted}; correct the request and try again.`);
    }
    case 401:
      if (detailString === DETAIL_SCOPE) {
        return said(
          'scope',
          `This terminal's access token is not allowed to ${action} (it lacks the ${scopesOf(info.access)} permission); ask a manager to set up a token with that permission.`,
        );
      }
      return said(
        'credentials',
        "The payment service did not accept this terminal's access token (it is invalid or has expired); ask a manager to check the service token in the settings.",
      );
    case 403:
      return said('role', `This user is not allowed to ${action}; ask a ${rolesOf(info.access)} to do it.`);
    case 404:
      if (route === 'sales.create') {
        return said('not_found', `The payment service does not know this terminal's checkout${quoted}; a manager must check the store and checkout numbers in the settings.`);
      }
      return said('not_found', `Could not ${action}: the payment service did not find it${quoted}. Check that it exists and belongs to this merchant.`);
    case 409:
      if (route === 'printedQrs.create') {
        return said(
          'checkout_wallet_differs',
          "The checkout already exists with a different wallet; a manager must first change the checkout's wallet (update the checkout), then create the printed QR.",
        );
      }
      if (route === 'sales.create') {
        return said('idempotency_key_reused', 'The payment service refused to create the sale: its request key was already used for a different sale; start the sale again.');
      }
      return said('conflict', `Could not ${action}: it conflicts with what the payment service already has${quoted}.`);
    case 422:
      if (parsed.shape === 'detail_validation') {
        return said('validation', `The payment service did not accept the request to ${action}: ${describeValidation(parsed.detail as ValidationIssue[])}.`);
      }
      // Reference 7: on sale creation, 422 means a printed checkout without its printed QR
      // (use the status code, not the text).
      if (route === 'sales.create') {
        return said(
          'no_printed_qr',
          "This checkout is set to use a printed QR but none has been created: a manager must print the checkout's QR (create its printed QR) or switch the checkout back to dynamic QRs before charging.",
        );
      }
      return said('unprocessable', `The payment service refused to ${action}${quoted}.`);
    case 429:
      return said('rate_limited', `The payment service is receiving too many requests; wait ${waitFor(retryAfterMs, route)} and try again.`);
    case 500:
      return said('server_error', `The payment service had an internal error while trying to ${action}. ${retryAdvice(route, outcome)}`);
    case 502:
      if (outcome === 'not_created' && route === 'printedQrs.create') {
        return said('gateway_failed', 'The payment gateway failed while creating the printed QR; nothing was created and the checkout was not switched; try again.');
      }
      return said('bad_gateway', `The payment service could not be reached through its gateway (HTTP 502) while trying to ${action}. ${retryAdvice(route, outcome)}`);
    case 503:
      return said('unavailable', `The payment service is temporarily unavailable (HTTP 503) and could not ${action}. ${retryAdvice(route, outcome)}`);
    case 504:
      return said('gateway_timeout', `The payment service's gateway timed out (HTTP 504) while trying to ${action}. ${retryAdvice(route, outcome)}`);
    default:
      if (status >= 500) return said('server_error', `The payment service failed (HTTP ${status}) while trying to ${action}. ${retryAdvice(route, outcome)}`);
      return said('rejected', `The payment service refused to ${action} (HTTP ${status})${quoted}.`);
  }
}

/**
 * The sentence, code and outcome of an HTTP error answer. Pure: the same status, body,
 * content type and route always give the same description.
 */
export function describeServiceError(
  status: number,
  body: string,
  contentType: string | null,
  route: RouteName,
  retryAfterMs?: number | null,
): ServiceErrorDescription {
  const parsed = parseErrorBody(body, contentType);
  const outcome = outcomeFor(status, parsed, route);
  const { problem, message } = sentence(status, parsed, route, outcome, retryAfterMs);
  return {
    code: codeFor(status, parsed),
    problem,
    message,
    outcome,
    transient: transientFor(status, parsed),
    shape: parsed.shape,
    detail: parsed.detail,
    reason: parsed.reason,
  };
}

// ── Transport failures ───────────────────────────────────────────────────────────────────

/**
 * What went wrong below HTTP. `refused`, `dns`, `unreachable` and `connect_timeout` happen
 * before anything was sent; the others may happen after the request left.
 */
export type TransportProblem = 'refused' | 'dns' | 'unreachable' | 'connect_timeout' | 'broken' | 'no_answer' | 'deadline' | 'too_large';

type BeforeSending = 'refused' | 'dns' | 'unreachable' | 'connect_timeout';

/** Why the service could not be reached, for the failures that happen before anything is sent. */
const NOT_REACHED: Readonly<Record<BeforeSending, string>> = {
  refused: 'the connection was refused',
  dns: 'its address could not be found',
  unreachable: 'the network is unreachable',
  connect_timeout: 'it did not accept a connection in time',
};

/** What happened, for the failures after the request may have left (the deadline says how long it waited). */
const CUT_SHORT: Readonly<Record<Exclude<TransportProblem, BeforeSending | 'deadline'>, string>> = {
  broken: 'The connection to the payment service broke',
  no_answer: 'The payment service stopped answering',
  too_large: 'The payment service sent an answer too large to read',
};

function beforeSending(problem: TransportProblem): problem is BeforeSending {
  return Object.hasOwn(NOT_REACHED, problem);
}

/** Classifies an error thrown by undici or Node's socket layer. */
export function transportProblem(err: unknown): TransportProblem {
  const code = (err as { code?: unknown } | null)?.code;
  switch (code) {
    case 'ECONNREFUSED':
      return 'refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'dns';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'EHOSTDOWN':
    case 'ENETDOWN':
      return 'unreachable';
    case 'UND_ERR_CONNECT_TIMEOUT':
      return 'connect_timeout';
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
      return 'no_answer';
    case 'UND_ERR_RES_EXCEEDED_MAX_SIZE':
      return 'too_large';
    default:
      return 'broken';
  }
}

export function transportKind(problem: TransportProblem): ServiceErrorKind {
  return problem === 'connect_timeout' || problem === 'no_answer' || problem === 'deadline' ? 'timeout' : 'network';
}

export function transportOutcome(problem: TransportProblem, route: RouteName): ServiceOutcome {
  if (!isWrite(route)) return 'not_created';
  return beforeSending(problem) ? 'not_created' : 'unknown';
}

/** ' within N seconds', or '' when the deadline is not known. */
function waitedFor(deadlineMs: number | undefined): string {
  if (deadlineMs === undefined) return '';
  const seconds = Math.max(1, Math.round(deadlineMs / 1000));
  return ` within ${seconds} second${seconds === 1 ? '' : 's'}`;
}

/** The sentence of a failure below HTTP. Pure. */
export function describeTransportFailure(problem: TransportProblem, route: RouteName, deadlineMs?: number): ServiceErrorDescription {
  const info = routeInfo(route);
  const outcome = transportOutcome(problem, route);
  const advice = retryAdvice(route, outcome);
  let message: string;
  if (beforeSending(problem)) {
    message = `Cannot reach the payment service (${NOT_REACHED[problem]}); check the network connection and the service address in the settings, then try again. Nothing was sent.`;
  } else {
    const what = problem === 'deadline' ? `The payment service did not answer${waitedFor(deadlineMs)}` : CUT_SHORT[problem];
    message = `${what} while trying to ${info.action}. ${advice}`;
  }
  return {
    code: transportKind(problem) === 'timeout' ? 'service_timeout' : 'service_unreachable',
    problem,
    message,
    outcome,
    transient: problem !== 'too_large',
    shape: 'empty',
    detail: null,
    reason: null,
  };
}

/** A 2xx whose body this app cannot read: the service answered, so a write probably took effect. */
export function describeUnreadableAnswer(route: RouteName, problem: string): ServiceErrorDescription {
  const info = routeInfo(route);
  const outcome: ServiceOutcome = isWrite(route) ? 'unknown' : 'not_created';
  return {
    code: 'service_failed',
    problem: 'unreadable_answer',
    message: `The payment service answered in a form this app does not understand while trying to ${info.action} (${snippet(problem)}). ${retryAdvice(route, outcome)}`,
    outcome,
    transient: false,
    shape: 'json_other',
    detail: cut(problem, MAX_DETAIL_CHARS),
    reason: null,
  };
}

// ── The error ────────────────────────────────────────────────────────────────────────────

export interface ServiceErrorInit extends ServiceErrorDescription {
  route: RouteName;
  kind: ServiceErrorKind;
  httpStatus: number | null;
  retryAfterMs: number | null;
  attempts: number;
  cause?: unknown;
}

export class ServiceError extends CoreError {
  override name = 'ServiceError';
  readonly route: RouteName;
  readonly httpStatus: number | null;
  readonly kind: ServiceErrorKind;
  /** Stable identifier of what went wrong (see ServiceErrorDescription). */
  readonly problem: string;
  readonly outcome: ServiceOutcome;
  readonly transient: boolean;
  readonly shape: BodyShape;
  /** As received: the detail string, reason object or validation list; the (cut) body text otherwise. */
  readonly detail: ReceivedDetail;
  /** The MED `reason` (reference 4.6), for branching; null for other bodies. */
  readonly reason: string | null;
  readonly retryAfterMs: number | null;
  /** Requests sent for this call, retries included. */
  readonly attempts: number;

  constructor(init: ServiceErrorInit) {
    super(init.code, init.message, errorParams(init), init.cause === undefined ? undefined : { cause: init.cause });
    this.route = init.route;
    this.httpStatus = init.httpStatus;
    this.kind = init.kind;
    this.problem = init.problem;
    this.outcome = init.outcome;
    this.transient = init.transient;
    this.shape = init.shape;
    this.detail = init.detail;
    this.reason = init.reason;
    this.retryAfterMs = init.retryAfterMs;
    this.attempts = init.attempts;
  }

  /** Fields for a log line: what happened, never a header or token. */
  logFields(): Record<string, unknown> {
    return {
      route: this.route,
      problem: this.problem,
      kind: this.kind,
      status: this.httpStatus,
      outcome: this.outcome,
      reason: this.reason,
      shape: this.shape,
      attempts: this.attempts,
      detail: typeof this.detail === 'string' || this.detail === null ? this.detail : cut(JSON.stringify(this.detail), MAX_DETAIL_CHARS),
    };
  }
}

/** Bridge params, so the renderer can say the same thing in the cashier's language. */
function errorParams(init: ServiceErrorInit): ErrorParams {
  const params: Record<string, string | number | boolean | null> = {
    route: init.route,
    problem: init.problem,
    kind: init.kind,
    status: init.httpStatus,
    outcome: init.outcome,
    reason: init.reason,
    attempts: init.attempts,
  };
  if (init.retryAfterMs !== null) params['retry_after_s'] = Math.ceil(init.retryAfterMs / 1000);
  if (init.shape === 'detail_reason' && init.detail !== null && typeof init.detail === 'object' && !Array.isArray(init.detail)) {
    const d = init.detail;
    if (typeof d['med_case_id'] === 'string') params['med_case_id'] = d['med_case_id'];
    if (typeof d['status_id'] === 'string') params['status_id'] = d['status_id'];
  }
  return params;
}
