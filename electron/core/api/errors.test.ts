import { describe, expect, it } from 'vitest';
import { CoreError, toWireError } from '../errors.ts';
import {
  describeServiceError,
  describeTransportFailure,
  describeUnreadableAnswer,
  describeValidationIssue,
  fieldName,
  MAX_DETAIL_CHARS,
  parseErrorBody,
  ServiceError,
  transportProblem,
} from './errors.ts';
import type { ValidationIssue } from './errors.ts';
import type { RouteName } from './routes.ts';

const JSON_TYPE = 'application/json';
const json = (v: unknown) => JSON.stringify(v);

const NO_QR_DETAIL = 'This checkout does not have a printed dynamic QR assigned.Please create one or contact support if you need assistance.';

interface Case {
  name: string;
  status: number;
  body: string;
  type: string | null;
  route: RouteName;
  retryAfterMs?: number;
  code: string;
  problem: string;
  outcome: 'not_created' | 'unknown';
  shape: string;
  transient: boolean;
  /** Every fragment must appear in the sentence. */
  says: (string | RegExp)[];
  /** None of these may appear in it. */
  never?: (string | RegExp)[];
}

// Every body shape of reference section 7 and 4.6, plus what a proxy or a broken server sends:
// each case is the service's answer, then the description it must get.
const CASES: Case[] = [
  { name: '400 string detail: Wallet not found', status: 400, body: json({ detail: 'Wallet not found' }), type: JSON_TYPE, route: 'checkouts.patch',
    code: 'invalid_argument', problem: 'wallet_not_found', outcome: 'not_created', shape: 'detail_string', transient: false, says: ['update the checkout', "choose one of the merchant's wallets"] },
  { name: '400 string detail: Wallet network deprecated', status: 400, body: json({ detail: 'Wallet network deprecated' }), type: JSON_TYPE, route: 'checkouts.create',
    code: 'invalid_argument', problem: 'wallet_network_deprecated', outcome: 'not_created', shape: 'detail_string', transient: false, says: ['no longer supported', 'choose a wallet on a supported network'] },
  { name: '400 an undocumented detail is quoted', status: 400, body: json({ detail: 'start_date must carry a UTC offset' }), type: JSON_TYPE, route: 'settlements.list',
    code: 'invalid_argument', problem: 'bad_request', outcome: 'not_created', shape: 'detail_string', transient: false, says: ['list the settlements', '"start_date must carry a UTC offset"', 'correct the request'] },
  { name: '401 Could not validate credentials', status: 401, body: json({ detail: 'Could not validate credentials' }), type: JSON_TYPE, route: 'sales.create',
    code: 'service_rejected', problem: 'credentials', outcome: 'not_created', shape: 'detail_string', transient: false, says: ['access token', 'invalid or has expired', 'ask a manager'] },
  { name: '401 token without the scope', status: 401, body: json({ detail: 'Token Profile Not Authorized for this Endpoint' }), type: JSON_TYPE, route: 'stores.list',
    code: 'service_rejected', problem: 'scope', outcome: 'not_created', shape: 'detail_string', transient: false, says: ['not allowed to list the stores', 'pay-in permission'] },
  { name: '403 role (administration needs a manager)', status: 403, body: json({ detail: 'User role not authorized for this endpoint' }), type: JSON_TYPE, route: 'stores.create',
    code: 'service_rejected', problem: 'role', outcome: 'not_created', shape: 'detail_string', transient: false, says: ['not allowed to create the store', 'ask a manager to do it'] },
  { name: '403 role (MED claims need a manager or supervisor)', status: 403, body: json({ detail: 'User role not authorized for this endpoint' }), type: JSON_TYPE, route: 'meds.open',
    code: 'service_rejected', problem: 'role', outcome: 'not_created', shape: 'detail_string', transient: false, says: ['ask a manager or supervisor'] },
  { name: '404 Store not found', status: 404, body: json({ detail: 'Store not found' }), type: JSON_TYPE, route: 'checkouts.list',
    code: 'not_found', problem: 'not_found', outcome: 'not_created', shape: 'detail_string', transient: false, says: ["list the store's checkouts", '"Store not found"', 'belongs to this merchant'] },
  { name: '404 on a sale: the checkout is unknown', status: 404, body: json({ detail: 'Checkout not found' }), type: JSON_TYPE, route: 'sales.create',
    code: 'not_found', problem: 'not_found', outcome: 'not_created', shape: 'detail_string', transient: false, says: ['store and checkout numbers'] },
  { name: '409 printed QR: checkout has another wallet', status: 409, body: json({ detail: 'checkout already exists with a different wallet; update it via PATCH /v2/stores/{store_id}/checkouts/{checkout_id}' }), type: JSON_TYPE, route: 'printedQrs.create',
    code: 'conflict', problem: 'checkout_wallet_differs', outcome: 'not_created', shape: 'detail_string', transient: false, says: ["change the checkout's wallet"] },
  { name: '409 Idempotency-Key reused with a different body', status: 409, body: json({ detail: 'Idempotency-Key reused with a different body' }), type: JSON_TYPE, route: 'sales.create',
    code: 'conflict', problem: 'idempotency_key_reused', outcome: 'not_created', shape: 'detail_string', transient: false, says: ['start the sale again'] },
  { name: '409 MED already_exists with med_case_id and status_id', status: 409, body: json({ detail: { reason: 'already_exists', message: 'Ya existe un reclamo', med_case_id: 'med_0123456789abcdef01234567', status_id: 'open' } }), type: JSON_TYPE, route: 'meds.open',
    code: 'conflict', problem: 'already_exists', outcome: 'not_created', shape: 'detail_reason', transient: false, says: ['already exists', 'med_0123456789abcdef01234567', 'open', 'follow that claim'], never: ['Ya existe'] },
  { name: '409 MED already_exists lost a race (no med_case_id)', status: 409, body: json({ detail: { reason: 'already_exists', message: 'x' } }), type: JSON_TYPE, route: 'meds.open',
    code: 'conflict', problem: 'already_exists', outcome: 'not_created', shape: 'detail_reason', transient: false, says: ['claims list'] },
  { name: '409 MED manual_claim_in_progress', status: 409, body: json({ detail: { reason: 'manual_claim_in_progress', message: 'en curso' } }), type: JSON_TYPE, route: 'meds.open',
    code: 'conflict', problem: 'manual_claim_in_progress', outcome: 'not_created', shape: 'detail_reason', transient: false, says: ['try again in a few minutes'] },
  { name: '404 MED payout_not_found', status: 404, body: json({ detail: { reason: 'payout_not_found', message: 'no existe' } }), type: JSON_TYPE, route: 'meds.open',
    code: 'not_found', problem: 'payout_not_found', outcome: 'not_created', shape: 'detail_reason', transient: false, says: ["pay-out was not found among this merchant's pay-outs"] },
  { name: '422 MED outside_window (reason object, not a list)', status: 422, body: json({ detail: { reason: 'outside_window', message: 'fuera de plazo' } }), type: JSON_TYPE, route: 'meds.open',
    code: 'service_rejected', problem: 'outside_window', outcome: 'not_created', shape: 'detail_reason', transient: false, says: ['79 days', 'contact support'] },
  { name: 'MED claim_not_confirmed: the claim may exist', status: 502, body: json({ detail: { reason: 'claim_not_confirmed', message: 'no confirmado' } }), type: JSON_TYPE, route: 'meds.open',
    code: 'service_failed', problem: 'claim_not_confirmed', outcome: 'unknown', shape: 'detail_reason', transient: false, says: ['do not repeat it now', 'second claim', 'claims list'] },
  { name: '422 validation list: string_too_short on body/config_value', status: 422, body: json({ detail: [{ type: 'string_too_short', loc: ['body', 'config_value'], msg: 'String should have at least 1 character', input: '', ctx: { min_length: 1 } }] }), type: JSON_TYPE, route: 'configs.set',
    code: 'invalid_argument', problem: 'validation', outcome: 'not_created', shape: 'detail_validation', transient: false, says: ["change the checkout's settings", 'config_value must have at least 1 character'], never: ['body', '1 characters'] },
  { name: '422 validation list: less_than_equal on query/page_size', status: 422, body: json({ detail: [{ type: 'less_than_equal', loc: ['query', 'page_size'], msg: 'Input should be less than or equal to 100', input: '1000', ctx: { le: 100 } }] }), type: JSON_TYPE, route: 'printedQrs.list',
    code: 'invalid_argument', problem: 'validation', outcome: 'not_created', shape: 'detail_validation', transient: false, says: ['page_size must be at most 100'] },
  { name: '422 validation list: default_qr names its allowed values', status: 422, body: json({ detail: [{ type: 'literal_error', loc: ['body', 'config_value'], msg: "Input should be 'printed_dynamic_qr' or 'dynamic'", input: 'x', ctx: { expected: "'printed_dynamic_qr' or 'dynamic'" } }] }), type: JSON_TYPE, route: 'configs.set',
    code: 'invalid_argument', problem: 'validation', outcome: 'not_created', shape: 'detail_validation', transient: false, says: ["config_value must be 'printed_dynamic_qr' or 'dynamic'"] },
  { name: '422 on a sale: the printed checkout has no printed QR (status decides, not the text)', status: 422, body: json({ detail: NO_QR_DETAIL }), type: JSON_TYPE, route: 'sales.create',
    code: 'service_rejected', problem: 'no_printed_qr', outcome: 'not_created', shape: 'detail_string', transient: false, says: ['manager', /print the checkout's QR/, 'create its printed QR'] },
  { name: '422 on a sale with a reworded detail still reads as no printed QR', status: 422, body: json({ detail: 'No printed QR for this checkout' }), type: JSON_TYPE, route: 'sales.create',
    code: 'service_rejected', problem: 'no_printed_qr', outcome: 'not_created', shape: 'detail_string', transient: false, says: [/print the checkout's QR/] },
  { name: '429 with Retry-After', status: 429, body: json({ detail: { reason: 'rate_limited', message: 'demasiadas' } }), type: JSON_TYPE, route: 'meds.get', retryAfterMs: 30_000,
    code: 'service_rejected', problem: 'rate_limited', outcome: 'not_created', shape: 'detail_reason', transient: true, says: ['too many requests', 'wait 30 seconds'] },
  { name: '429 on claim opening without Retry-After waits a minute (reference 8)', status: 429, body: '', type: null, route: 'meds.open',
    code: 'service_rejected', problem: 'rate_limited', outcome: 'not_created', shape: 'empty', transient: true, says: ['wait a minute'] },
  { name: '503 printed_qr_disabled', status: 503, body: json({ detail: 'printed_qr_disabled' }), type: JSON_TYPE, route: 'sales.create',
    code: 'service_failed', problem: 'printed_qr_disabled', outcome: 'not_created', shape: 'detail_string', transient: false, says: ['printed QRs are temporarily disabled; try again later'] },
  { name: '503 generic on a sale: may have been created', status: 503, body: json({ detail: 'Service Unavailable' }), type: JSON_TYPE, route: 'sales.create',
    code: 'service_failed', problem: 'unavailable', outcome: 'unknown', shape: 'detail_string', transient: true, says: ['temporarily unavailable', 'may or may not have been created', 'check its status'] },
  { name: '502 printed QR gateway failure: nothing created (reference 7)', status: 502, body: json({ detail: 'Gateway error during printed dynamic QR creation' }), type: JSON_TYPE, route: 'printedQrs.create',
    code: 'service_failed', problem: 'gateway_failed', outcome: 'not_created', shape: 'detail_string', transient: true, says: ['nothing was created', 'try again'] },
  { name: '502 HTML page from a proxy', status: 502, body: '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>', type: 'text/html', route: 'sales.create',
    code: 'service_failed', problem: 'bad_gateway', outcome: 'unknown', shape: 'html', transient: true, says: ['HTTP 502', 'may or may not have been created'], never: ['<', 'nginx'] },
  { name: '500 plain-text Internal Server Error on a read', status: 500, body: 'Internal Server Error', type: 'text/plain; charset=utf-8', route: 'sales.status',
    code: 'service_failed', problem: 'server_error', outcome: 'not_created', shape: 'text', transient: true, says: ["internal error while trying to read the sale's status", 'Try again in a moment'] },
  { name: '500 plain-text on a refund: may have been requested', status: 500, body: 'Internal Server Error', type: 'text/plain', route: 'refunds.request',
    code: 'service_failed', problem: 'server_error', outcome: 'unknown', shape: 'text', transient: true, says: ['refund may or may not have been requested'] },
  { name: '500 with an empty body', status: 500, body: '', type: null, route: 'wallets.list',
    code: 'service_failed', problem: 'server_error', outcome: 'not_created', shape: 'empty', transient: true, says: ["list the merchant's wallets"] },
  { name: 'invalid JSON with a JSON content type', status: 500, body: '{"detail": "Internal', type: JSON_TYPE, route: 'stores.list',
    code: 'service_failed', problem: 'server_error', outcome: 'not_created', shape: 'invalid_json', transient: true, says: ['list the stores'], never: ['{'] },
  { name: 'JSON without a detail', status: 418, body: json({ error: 'teapot' }), type: JSON_TYPE, route: 'stores.list',
    code: 'service_rejected', problem: 'rejected', outcome: 'not_created', shape: 'json_other', transient: false, says: ['HTTP 418'] },
  { name: '408 on a write is an unknown outcome, and like every 4xx but 429 not repeated', status: 408, body: '', type: null, route: 'sales.create',
    code: 'service_rejected', problem: 'rejected', outcome: 'unknown', shape: 'empty', transient: false, says: ['HTTP 408'] },
  { name: 'Could not validate credentials under another status is still a credentials problem', status: 403, body: json({ detail: 'Could not validate credentials' }), type: JSON_TYPE, route: 'wallets.list',
    code: 'service_rejected', problem: 'credentials', outcome: 'not_created', shape: 'detail_string', transient: false, says: ['access token'] },
];

describe('describeServiceError: every body shape becomes a sentence', () => {
  it.each(CASES)('$name', (c) => {
    const d = describeServiceError(c.status, c.body, c.type, c.route, c.retryAfterMs);
    expect(d.code).toBe(c.code);
    expect(d.problem).toBe(c.problem);
    expect(d.outcome).toBe(c.outcome);
    expect(d.shape).toBe(c.shape);
    expect(d.transient).toBe(c.transient);
    for (const s of c.says) {
      if (typeof s === 'string') expect(d.message.toLowerCase()).toContain(s.toLowerCase());
      else expect(d.message).toMatch(s);
    }
    for (const s of c.never ?? []) {
      if (typeof s === 'string') expect(d.message).not.toContain(s);
      else expect(d.message).not.toMatch(s);
    }
    // A sentence: one line, ends with a full stop, and short enough to show.
    expect(d.message).toMatch(/[.]$/);
    expect(d.message).not.toMatch(/\n/);
    expect(d.message.length).toBeLessThan(400);
  });

  it('keeps the detail as received for each shape', () => {
    expect(describeServiceError(400, json({ detail: 'Wallet not found' }), JSON_TYPE, 'checkouts.create').detail).toBe('Wallet not found');
    const reason = describeServiceError(409, json({ detail: { reason: 'already_exists', message: 'm', med_case_id: 'med_1', status_id: 'open' } }), JSON_TYPE, 'meds.open');
    expect(reason.detail).toEqual({ reason: 'already_exists', message: 'm', med_case_id: 'med_1', status_id: 'open' });
    expect(reason.reason).toBe('already_exists');
    const list = describeServiceError(
      422,
      json({ detail: [{ type: 'string_too_short', loc: ['body', 'config_value'], msg: 'short', input: '', ctx: { min_length: 1 } }] }),
      JSON_TYPE,
      'configs.set',
    );
    expect(list.detail).toEqual([{ type: 'string_too_short', loc: ['body', 'config_value'], msg: 'short', input: '', ctx: { min_length: 1 } }]);
    expect(describeServiceError(500, 'Internal Server Error', 'text/plain', 'stores.list').detail).toBe('Internal Server Error');
    expect(describeServiceError(500, '', null, 'stores.list').detail).toBeNull();
  });

  it('branches on the MED reason, never on the message', () => {
    const a = describeServiceError(422, json({ detail: { reason: 'e2e_not_resolved', message: 'Sin e2e' } }), JSON_TYPE, 'meds.open');
    const b = describeServiceError(422, json({ detail: { reason: 'e2e_not_resolved', message: 'totally different wording' } }), JSON_TYPE, 'meds.open');
    expect(a.message).toBe(b.message);
    expect(a.message).toContain('try again later');
  });

  it('cuts a huge body and keeps the sentence short', () => {
    const huge = 'x'.repeat(2_000_000);
    const d = describeServiceError(400, json({ detail: huge }), JSON_TYPE, 'stores.create');
    expect((d.detail as string).length).toBeLessThanOrEqual(MAX_DETAIL_CHARS + 1);
    expect(d.message.length).toBeLessThan(400);
    const text = describeServiceError(500, huge, 'text/plain', 'stores.list');
    expect((text.detail as string).length).toBeLessThanOrEqual(MAX_DETAIL_CHARS + 1);
  });

  it('keeps line breaks and control characters of a detail out of the sentence', () => {
    const d = describeServiceError(400, json({ detail: 'line one\nline two\u0007' }), JSON_TYPE, 'stores.create');
    expect(d.message).toContain('"line one line two"');
  });

  it('lists at most four validation issues, then counts the rest', () => {
    const items = ['a', 'b', 'c', 'd', 'e', 'f'].map((f) => ({ type: 'missing', loc: ['body', f], msg: 'Field required', input: {} }));
    const d = describeServiceError(422, json({ detail: items }), JSON_TYPE, 'stores.create');
    expect(d.message).toContain('a is required; b is required; c is required; d is required; and 2 more');
  });
});

describe('validation issues as clauses', () => {
  const issue = (type: string, loc: (string | number)[], ctx?: Record<string, unknown>, msg = 'msg'): ValidationIssue => ({ type, loc, msg, input: null, ...(ctx ? { ctx } : {}) });
  it.each([
    [issue('missing', ['body', 'store_name']), 'store_name is required'],
    [issue('string_too_short', ['body', 'details'], { min_length: 10 }), 'details must have at least 10 characters'],
    [issue('string_too_long', ['body', 'checkout_desc'], { max_length: 140 }), 'checkout_desc must have at most 140 characters'],
    [issue('greater_than', ['body', 'amount'], { gt: 0 }), 'amount must be greater than 0'],
    [issue('greater_than_equal', ['query', 'page'], { ge: 1 }), 'page must be at least 1'],
    [issue('decimal_max_places', ['body', 'amount'], { decimal_places: 2 }), 'amount must have at most 2 decimal places'],
    [issue('int_parsing', ['path', 'store_id']), 'store_id must be a whole number'],
    [issue('extra_forbidden', ['body', 'files']), 'files is not accepted'],
    [issue('enum', ['body', 'reason'], { expected: "'scam', 'coercion' or 'unknown'" }), "reason must be 'scam', 'coercion' or 'unknown'"],
    [issue('value_error', ['body'], undefined, 'Value error, send exactly one of service_id and payout_external_id'), 'send exactly one of service_id and payout_external_id'],
    [issue('value_error', ['body', 'address'], undefined, 'Value error, blank'), 'address: blank'],
    [issue('something_new', ['body', 'x'], undefined, 'Input is odd'), 'x: Input is odd'],
    [issue('string_too_short', ['body', 'items', 0, 'name'], { min_length: 1 }), 'items[0].name must have at least 1 character'],
  ])('%o → %s', (i, expected) => {
    expect(describeValidationIssue(i)).toBe(expected);
  });

  it('names fields without the body/query/path prefix', () => {
    expect(fieldName(['body', 'config_value'])).toBe('config_value');
    expect(fieldName(['query', 'page_size'])).toBe('page_size');
    expect(fieldName(['body'])).toBe('the request');
    expect(fieldName([])).toBe('the request');
  });

  it('reads a malformed validation list without throwing', () => {
    const parsed = parseErrorBody(json({ detail: [null, 3, { loc: 'nope', type: 5 }] }), JSON_TYPE);
    expect(parsed.shape).toBe('detail_validation');
    expect(parsed.detail).toHaveLength(3);
    const d = describeServiceError(422, json({ detail: [null] }), JSON_TYPE, 'stores.create');
    expect(d.message).toContain('the request is not valid');
  });
});

describe('transport failures', () => {
  it('maps socket and undici codes to a problem', () => {
    expect(transportProblem(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }))).toBe('refused');
    expect(transportProblem(Object.assign(new Error('x'), { code: 'ENOTFOUND' }))).toBe('dns');
    expect(transportProblem(Object.assign(new Error('x'), { code: 'UND_ERR_CONNECT_TIMEOUT' }))).toBe('connect_timeout');
    expect(transportProblem(Object.assign(new Error('x'), { code: 'UND_ERR_HEADERS_TIMEOUT' }))).toBe('no_answer');
    expect(transportProblem(Object.assign(new Error('x'), { code: 'UND_ERR_BODY_TIMEOUT' }))).toBe('no_answer');
    expect(transportProblem(Object.assign(new Error('x'), { code: 'UND_ERR_SOCKET' }))).toBe('broken');
    expect(transportProblem(null)).toBe('broken');
  });

  it('a refused connection sent nothing, even for a sale', () => {
    const d = describeTransportFailure('refused', 'sales.create');
    expect(d.code).toBe('service_unreachable');
    expect(d.outcome).toBe('not_created');
    expect(d.message).toContain('connection was refused');
    expect(d.message).toContain('Nothing was sent');
  });

  it('a connection broken after sending leaves a sale unknown', () => {
    const d = describeTransportFailure('broken', 'sales.create');
    expect(d.code).toBe('service_unreachable');
    expect(d.outcome).toBe('unknown');
    expect(d.message).toContain('may or may not have been created');
  });

  it('the deadline is a timeout and says how long was waited', () => {
    const d = describeTransportFailure('deadline', 'stores.list', 15_000);
    expect(d.code).toBe('service_timeout');
    expect(d.outcome).toBe('not_created');
    expect(d.message).toContain('within 15 seconds');
    expect(d.transient).toBe(true);
  });

  it('an unreadable 2xx on a write is an unknown outcome', () => {
    const d = describeUnreadableAnswer('sales.create', 'response.pix_id is not a string');
    expect(d.code).toBe('service_failed');
    expect(d.outcome).toBe('unknown');
    expect(d.message).toContain('response.pix_id is not a string');
    expect(d.transient).toBe(false);
  });
});

describe('ServiceError', () => {
  it('is a CoreError that crosses the bridge with its sentence and params, not its body', () => {
    const d = describeServiceError(409, json({ detail: { reason: 'already_exists', message: 'm', med_case_id: 'med_9', status_id: 'dispatching' } }), JSON_TYPE, 'meds.open');
    const err = new ServiceError({ ...d, route: 'meds.open', kind: 'http', httpStatus: 409, retryAfterMs: null, attempts: 1 });
    expect(err).toBeInstanceOf(CoreError);
    expect(err.reason).toBe('already_exists');
    expect(err.outcome).toBe('not_created');
    const wire = toWireError(err);
    expect(wire.code).toBe('conflict');
    expect(wire.message).toBe(d.message);
    expect(wire.params).toMatchObject({ route: 'meds.open', problem: 'already_exists', status: 409, reason: 'already_exists', med_case_id: 'med_9', status_id: 'dispatching' });
    expect(JSON.stringify(wire)).not.toContain('"m"');
  });

  it('gives log fields with the detail as JSON and no header', () => {
    const d = describeServiceError(422, json({ detail: [{ type: 'missing', loc: ['body', 'store_name'], msg: 'Field required', input: {} }] }), JSON_TYPE, 'stores.create');
    const err = new ServiceError({ ...d, route: 'stores.create', kind: 'http', httpStatus: 422, retryAfterMs: 2_000, attempts: 1 });
    const fields = err.logFields();
    expect(fields).toMatchObject({ route: 'stores.create', status: 422, problem: 'validation', shape: 'detail_validation' });
    expect(typeof fields['detail']).toBe('string');
    expect(Object.keys(fields).some((k) => /auth|token|header/i.test(k))).toBe(false);
    expect(err.params).toMatchObject({ retry_after_s: 2 });
  });
});
