/**
 * The terminal core's client of the payment service, on undici: one keep-alive Pool with
 * a connection cap and connect/header/body timeouts, a deadline per call, retries where
 * the route table allows them, and one typed method per endpoint of the route table.
 *
 * Retries (issue; reference 4.5, contract 2): a read is sent again after a network error,
 * a timeout, a 5xx or a 429, with exponential backoff and jitter, never sooner than the
 * service's Retry-After and never past the deadline. A create is sent again only when the
 * caller gives an Idempotency-Key, journaled with the intent before the first attempt,
 * and the same key goes with every attempt (and with any attempt after a restart). A refund
 * carries its key but is never repeated here: its follow-up (or a person) decides. No
 * other 4xx is ever repeated.
 *
 * The token goes in the Authorization header and nowhere else: no header is ever logged.
 */
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { Pool } from 'undici';
import type { Clock } from '../../shared/clock.ts';
import { CoreError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { DecodeError } from './decode.ts';
import {
  describeServiceError,
  describeTransportFailure,
  describeUnreadableAnswer,
  parseErrorBody,
  ServiceError,
  transportKind,
  transportProblem,
} from './errors.ts';
import type { ParsedErrorBody, ServiceErrorDescription, ServiceErrorKind, TransportProblem } from './errors.ts';
import { DEFAULT_RETRY, nextRetryDelay, parseRetryAfter } from './retry.ts';
import type { RetryOptions } from './retry.ts';
import { isWrite, ROUTES } from './routes.ts';
import type { RouteInput, RouteName, RouteResult } from './routes.ts';
import type { MedClaim, MedOpening, OpenMedClaimInput, PageQuery, Payout } from './routes/payouts.ts';
import type { CreatePrintedQrBody, PrintedDynamicQr, PrintedQrListQuery, PrintedQrPage } from './routes/printed-qrs.ts';
import type { Refund, RefundRequestInput } from './routes/refunds.ts';
import { buildPath, buildQuery } from './routes/route.ts';
import type { HttpMethod, QueryValue, RetryPolicy } from './routes/route.ts';
import type { CreateSaleInput, DynamicPixCharge, TxStatus } from './routes/sales.ts';
import type {
  PendingCharges,
  PendingChargesQuery,
  SettlementDetail,
  SettlementPage,
  SettlementRange,
  SettlementTransactionPage,
  SettlementTransactionsQuery,
} from './routes/settlements.ts';
import type { Checkout, CheckoutConfig, CheckoutPatch, CheckoutRecord, ConfigBody, CreateCheckoutBody, CreateStoreBody, Store, StorePatch } from './routes/stores.ts';
import type { Wallet } from './routes/wallets.ts';

export interface Timeouts {
  /** TCP/TLS connection set-up. */
  connectMs: number;
  /** From sending the request to the complete response headers. */
  headersMs: number;
  /** Longest silence between two chunks of the body. */
  bodyMs: number;
  /** How long an idle connection is kept for the next call (the server's hint may lower it). */
  keepAliveMs: number;
  /** The whole call, every retry and wait included. */
  deadlineMs: number;
}

/**
 * A cashier waits at the counter: a sale must fail with a sentence within seconds, not
 * minutes (undici's defaults are 300 s).
 */
export const DEFAULT_TIMEOUTS: Timeouts = {
  connectMs: 3_000,
  headersMs: 8_000,
  bodyMs: 8_000,
  keepAliveMs: 30_000,
  deadlineMs: 15_000,
};

/**
 * One core serves every till of the merchant (issue 9): with 4, 64 tills' creates queued
 * behind one another in the pool. The service's limits for these endpoints are not shown
 * (reference 8); 16 keep a busy store's creates from waiting on each other without
 * opening a connection per till.
 */
export const DEFAULT_CONNECTIONS = 16;

export interface ServiceClientOptions {
  /** Where the service answers, e.g. `http://127.0.0.1:8787`; a path prefix is kept. */
  baseUrl: string;
  /** Bearer access token; sent in the Authorization header only, never logged. */
  token: string;
  clock: Clock;
  log: Logger;
  /** Most connections open to the service at once. */
  connections?: number;
  timeouts?: Partial<Timeouts>;
  retry?: Partial<RetryOptions>;
  /**
   * Told after every call whether the service answered (`error` null: it succeeded), so the
   * status never shows the service reachable while its last calls failed.
   */
  onAnswer?: (reached: boolean, error: ServiceError | null) => void;
}

export interface CallOptions {
  /** Overrides the client's deadline for this call. */
  deadlineMs?: number;
}

export interface WriteOptions extends CallOptions {
  /**
   * Contract 2: makes the create safe to repeat. Generate it with `newIdempotencyKey()`
   * when the intent is journaled; pass the same key on every attempt and after a restart.
   */
  idempotencyKey?: string;
}

export interface PoolStats {
  connected: number;
  free: number;
  pending: number;
  running: number;
  size: number;
}

export interface ServiceClient {
  listStores(options?: CallOptions): Promise<Store[]>;
  createStore(store: CreateStoreBody, options?: CallOptions): Promise<Store>;
  patchStore(storeId: number, patch: StorePatch, options?: CallOptions): Promise<Store>;
  listCheckouts(storeId: number, options?: CallOptions): Promise<Checkout[]>;
  createCheckout(storeId: number, checkout: CreateCheckoutBody, options?: CallOptions): Promise<CheckoutRecord>;
  patchCheckout(storeId: number, checkoutId: number, patch: CheckoutPatch, options?: CallOptions): Promise<CheckoutRecord>;
  listConfigs(storeId: number, checkoutId: number, options?: CallOptions): Promise<CheckoutConfig[]>;
  setConfig(storeId: number, checkoutId: number, config: ConfigBody, options?: CallOptions): Promise<CheckoutConfig>;
  createPrintedQr(body: CreatePrintedQrBody, options?: CallOptions): Promise<PrintedDynamicQr>;
  listPrintedQrs(query?: PrintedQrListQuery, options?: CallOptions): Promise<PrintedQrPage>;
  createDynamicPix(sale: CreateSaleInput, options?: WriteOptions): Promise<DynamicPixCharge>;
  /** Contract 3: `{found: false}` for a displaced or foreign sale; never an error for that. */
  txStatus(pixId: string, options?: CallOptions): Promise<TxStatus>;
  requestRefund(refund: RefundRequestInput, options?: WriteOptions): Promise<Refund>;
  listWallets(options?: CallOptions): Promise<Wallet[]>;
  listPayouts(query?: PageQuery, options?: CallOptions): Promise<Payout[]>;
  getPayout(serviceId: string, options?: CallOptions): Promise<Payout>;
  openMedClaim(claim: OpenMedClaimInput, options?: CallOptions): Promise<MedOpening>;
  getMedClaim(medCaseId: string, options?: CallOptions): Promise<MedClaim>;
  listMedClaims(query?: { limit?: number }, options?: CallOptions): Promise<MedClaim[]>;
  listSettlements(range: SettlementRange, options?: CallOptions): Promise<SettlementPage>;
  listSettlementTransactions(query: SettlementTransactionsQuery, options?: CallOptions): Promise<SettlementTransactionPage>;
  listPendingCharges(query?: PendingChargesQuery, options?: CallOptions): Promise<PendingCharges>;
  getSettlement(settlementId: number, options?: CallOptions): Promise<SettlementDetail>;
  /** Any route of the table by name: what every method above is made of. */
  call<K extends RouteName>(name: K, input: RouteInput<K>, options?: WriteOptions): Promise<RouteResult<K>>;
  /** The pool's connection counts (for the status screen and the connection-cap test). */
  stats(): PoolStats;
  /** Waits for calls in flight, then closes every connection. */
  close(): Promise<void>;
}

/** Contract 2: an Idempotency-Key is at most 255 characters; visible ASCII keeps it a valid header. */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** A fresh Idempotency-Key, to be journaled with the intent before the first attempt. */
export function newIdempotencyKey(): string {
  return randomUUID();
}

/** A success body larger than this is refused (the largest, a 1000-row settlement page, is far below). */
const MAX_SUCCESS_BYTES = 8 * 1024 * 1024;
/** Of an error body only the start is kept (errors.ts cuts further). */
const MAX_ERROR_BYTES = 64 * 1024;

/** The route table's entries seen without their per-route types, for the one generic call path. */
interface AnyRoute {
  method: HttpMethod;
  path: string;
  retry: RetryPolicy;
  success: readonly number[];
  encode(input: unknown): { params?: Readonly<Record<string, string | number>>; query?: Readonly<Record<string, QueryValue>>; body?: object };
  decode(body: unknown, status: number, input: unknown): unknown;
  answer?(status: number, body: ParsedErrorBody, input: unknown): unknown;
}

/** Why an attempt failed, before it becomes (or not) the call's ServiceError. */
interface Failure {
  desc: ServiceErrorDescription;
  kind: ServiceErrorKind;
  httpStatus: number | null;
  retryAfterMs: number | null;
  cause?: unknown;
}

type Attempt = { ok: true; value: unknown } | { ok: false; failure: Failure };

interface AttemptInput {
  name: RouteName;
  route: AnyRoute;
  input: unknown;
  /** Path and query, base path included. */
  path: string;
  body: string | undefined;
  key: string | undefined;
  /** Aborted by the call's deadline. */
  signal: AbortSignal;
  deadlineMs: number;
}

/** Thrown into an aborted request so the deadline is told apart from every other failure. */
class DeadlineReached extends Error {
  override name = 'DeadlineReached';
}

/** The options actually given: an explicit `undefined` keeps the default. */
function defined<T extends object>(partial: Partial<T> | undefined): Partial<T> {
  if (partial === undefined) return {};
  return Object.fromEntries(Object.entries(partial).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function header(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? (value[0] ?? null) : value;
}

/** Reads at most `limit` bytes; `over` tells whether more was there (then the rest is dropped). */
async function readCapped(body: Readable, limit: number): Promise<{ text: string; over: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    const room = limit - size;
    if (chunk.length > room) {
      chunks.push(chunk.subarray(0, room));
      body.destroy();
      return { text: Buffer.concat(chunks).toString('utf8'), over: true };
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  return { text: Buffer.concat(chunks).toString('utf8'), over: false };
}

export function createServiceClient(options: ServiceClientOptions): ServiceClient {
  let base: URL;
  try {
    base = new URL(options.baseUrl);
  } catch {
    throw new CoreError('invalid_argument', 'The payment service address is not a valid URL; correct it in the settings.');
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') {
    throw new CoreError('invalid_argument', 'The payment service address must start with http:// or https://; correct it in the settings.');
  }
  // The token becomes a header value: an empty one, or one with spaces or line breaks, is refused
  // (and the message never repeats it).
  if (!/^[\x21-\x7e]+$/.test(options.token)) {
    throw new CoreError('invalid_argument', 'The payment service token is empty or contains spaces or line breaks; set it again.');
  }
  const basePath = base.pathname.replace(/\/+$/, '');
  const { clock, log } = options;
  const timeouts: Timeouts = { ...DEFAULT_TIMEOUTS, ...defined(options.timeouts) };
  const retry: RetryOptions = { ...DEFAULT_RETRY, ...defined(options.retry) };
  for (const [name, ms] of Object.entries(timeouts)) {
    if (!Number.isFinite(ms) || ms <= 0) throw new CoreError('invalid_argument', `The payment service client's ${name} must be a positive number of milliseconds.`);
  }
  if (!Number.isSafeInteger(retry.maxAttempts) || retry.maxAttempts < 1) {
    throw new CoreError('invalid_argument', "The payment service client's maxAttempts must be a whole number of at least 1.");
  }
  const connections = options.connections ?? DEFAULT_CONNECTIONS;
  if (!Number.isSafeInteger(connections) || connections < 1) {
    throw new CoreError('invalid_argument', 'The connection cap of the payment service client must be a whole number of at least 1.');
  }
  const authorization = `Bearer ${options.token}`;

  const pool = new Pool(base.origin, {
    connections,
    keepAliveTimeout: timeouts.keepAliveMs,
    connectTimeout: timeouts.connectMs,
    headersTimeout: timeouts.headersMs,
    bodyTimeout: timeouts.bodyMs,
    // One request at a time per connection: a slow answer must not hold up the next call.
    pipelining: 1,
  });
  let closed = false;

  /** One request and its answer, read and classified; never throws. */
  async function attempt(a: AttemptInput): Promise<Attempt> {
    const { name, route, input, path, body, key, signal, deadlineMs } = a;
    const headers: Record<string, string> = { authorization, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (key !== undefined) headers['idempotency-key'] = key;

    const transport = (err: unknown): Attempt => {
      // An abort is ours: the deadline (undici rejects with the abort reason).
      const problem: TransportProblem = signal.aborted ? 'deadline' : transportProblem(err);
      return { ok: false, failure: { desc: describeTransportFailure(problem, name, deadlineMs), kind: transportKind(problem), httpStatus: null, retryAfterMs: null, cause: err } };
    };

    let status: number;
    let text: string;
    let over: boolean;
    let contentType: string | null;
    let retryAfter: string | null;
    try {
      const res = await pool.request({ method: route.method, path, headers, body: body ?? null, signal });
      status = res.statusCode;
      contentType = header(res.headers['content-type']);
      retryAfter = header(res.headers['retry-after']);
      const ok = status >= 200 && status < 300;
      ({ text, over } = await readCapped(res.body, ok ? MAX_SUCCESS_BYTES : MAX_ERROR_BYTES));
      if (ok && over) return transport(Object.assign(new Error('answer too large'), { code: 'UND_ERR_RES_EXCEEDED_MAX_SIZE' }));
    } catch (err) {
      return transport(err);
    }

    if (status >= 200 && status < 300) {
      if (!route.success.includes(status)) log.warn('payment service answered an unexpected success status', { route: name, status });
      try {
        const json: unknown = text.trim() === '' ? null : JSON.parse(text);
        return { ok: true, value: route.decode(json, status, input) };
      } catch (err) {
        const problem = err instanceof DecodeError ? err.message : 'the body is not valid JSON';
        return { ok: false, failure: { desc: describeUnreadableAnswer(name, problem), kind: 'http', httpStatus: status, retryAfterMs: null, cause: err } };
      }
    }

    // A non-2xx that is a normal answer of this route (contract 3: Tx Status 404 `TX not found`).
    if (route.answer !== undefined) {
      const answered = route.answer(status, parseErrorBody(text, contentType), input);
      if (answered !== undefined) return { ok: true, value: answered };
    }
    const retryAfterMs = parseRetryAfter(retryAfter ?? undefined, clock.now());
    return {
      ok: false,
      failure: { desc: describeServiceError(status, text, contentType, name, retryAfterMs), kind: 'http', httpStatus: status, retryAfterMs },
    };
  }

  async function call<K extends RouteName>(name: K, input: RouteInput<K>, callOptions: WriteOptions = {}): Promise<RouteResult<K>> {
    if (closed) throw new CoreError('not_ready', 'The payment service client was closed; restart the app to reconnect.');
    const route = ROUTES[name] as unknown as AnyRoute;
    const key = callOptions.idempotencyKey;
    if (key !== undefined) {
      // Only a route the service de-duplicates may be repeated on the strength of a key.
      if (route.retry !== 'idempotency_key' && route.retry !== 'key_sent_once') throw new CoreError('invalid_argument', `The ${name} call does not take an idempotency key.`);
      if (!IDEMPOTENCY_KEY.test(key)) throw new CoreError('invalid_argument', 'The idempotency key must be 1 to 255 visible ASCII characters; nothing was sent.');
    }
    // Bad input (an id, an amount) is refused here, before anything is sent.
    const encoded = route.encode(input);
    const path = basePath + buildPath(route.path, encoded.params) + buildQuery(encoded.query);
    const body = encoded.body === undefined ? undefined : JSON.stringify(encoded.body);
    const repeatable = route.retry === 'always' || (route.retry === 'idempotency_key' && key !== undefined);

    const deadlineMs = callOptions.deadlineMs ?? timeouts.deadlineMs;
    if (!Number.isFinite(deadlineMs) || deadlineMs <= 0) throw new CoreError('invalid_argument', 'A call deadline must be a positive number of milliseconds; nothing was sent.');
    // The deadline is a span of real time: measured on a monotonic clock, not on the domain
    // clock (which tests move forward and a wall clock may jump).
    const deadlineAt = performance.now() + deadlineMs;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new DeadlineReached(`deadline of ${deadlineMs} ms reached`)), deadlineMs);
    const signal = controller.signal;

    // Once an attempt of a write may have taken effect, the call's outcome stays unknown
    // whatever later attempts answer, unless one succeeds.
    let unknownSeen = false;
    try {
      for (let attempts = 1; ; attempts++) {
        const result = await attempt({ name, route, input, path, body, key, signal, deadlineMs });
        if (result.ok) {
          if (attempts > 1) log.info('payment service call succeeded after retrying', { route: name, attempts });
          options.onAnswer?.(true, null);
          return result.value as RouteResult<K>;
        }
        const f = result.failure;
        if (f.desc.outcome === 'unknown') unknownSeen = true;
        const deadlineHit = signal.aborted;
        if (repeatable && f.desc.transient && !deadlineHit) {
          const wait = nextRetryDelay({ attempts, retryAfterMs: f.retryAfterMs, nowMs: performance.now(), deadlineAt, options: retry });
          if (wait !== null) {
            log.warn('payment service call failed; retrying', { route: name, attempt: attempts, status: f.httpStatus, kind: f.kind, wait_ms: wait });
            try {
              await retry.sleep(wait, signal);
            } catch {
              throw fail(name, describeTransportFailure('deadline', name, deadlineMs), 'timeout', null, null, attempts, unknownSeen);
            }
            if (!signal.aborted) continue;
            throw fail(name, describeTransportFailure('deadline', name, deadlineMs), 'timeout', null, null, attempts, unknownSeen);
          }
        }
        throw fail(name, f.desc, f.kind, f.httpStatus, f.retryAfterMs, attempts, unknownSeen, f.cause);
      }
    } catch (err) {
      if (err instanceof ServiceError) options.onAnswer?.(err.httpStatus !== null, err);
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  function fail(
    name: RouteName,
    desc: ServiceErrorDescription,
    kind: ServiceErrorKind,
    httpStatus: number | null,
    retryAfterMs: number | null,
    attempts: number,
    unknownSeen: boolean,
    cause?: unknown,
  ): ServiceError {
    let message = desc.message;
    let outcome = desc.outcome;
    if (unknownSeen && isWrite(name) && outcome !== 'unknown') {
      // An earlier attempt may have gone through even though this one was refused.
      outcome = 'unknown';
      message = `${message} An earlier attempt got no answer, so it may have been done anyway: check before repeating it.`;
    }
    const error = new ServiceError({ ...desc, message, outcome, route: name, kind, httpStatus, retryAfterMs, attempts, cause });
    const fields = { ...error.logFields(), message: error.message };
    if (kind === 'http' && httpStatus !== null && httpStatus < 500) log.warn('payment service call refused', fields);
    else log.error('payment service call failed', fields);
    return error;
  }

  const client: ServiceClient = {
    listStores: (o) => call('stores.list', undefined, o),
    createStore: (store, o) => call('stores.create', store, o),
    patchStore: (storeId, patch, o) => call('stores.patch', { store_id: storeId, patch }, o),
    listCheckouts: (storeId, o) => call('checkouts.list', { store_id: storeId }, o),
    createCheckout: (storeId, checkout, o) => call('checkouts.create', { store_id: storeId, checkout }, o),
    patchCheckout: (storeId, checkoutId, patch, o) => call('checkouts.patch', { store_id: storeId, checkout_id: checkoutId, patch }, o),
    listConfigs: (storeId, checkoutId, o) => call('configs.list', { store_id: storeId, checkout_id: checkoutId }, o),
    setConfig: (storeId, checkoutId, config, o) => call('configs.set', { store_id: storeId, checkout_id: checkoutId, config }, o),
    createPrintedQr: (body, o) => call('printedQrs.create', body, o),
    listPrintedQrs: (query = {}, o) => call('printedQrs.list', query, o),
    createDynamicPix: (sale, o) => call('sales.create', sale, o),
    txStatus: (pixId, o) => call('sales.status', { pix_id: pixId }, o),
    requestRefund: (refund, o) => call('refunds.request', refund, o),
    listWallets: (o) => call('wallets.list', undefined, o),
    listPayouts: (query = {}, o) => call('payouts.list', query, o),
    getPayout: (serviceId, o) => call('payouts.get', { service_id: serviceId }, o),
    openMedClaim: (claim, o) => call('meds.open', claim, o),
    getMedClaim: (medCaseId, o) => call('meds.get', { med_case_id: medCaseId }, o),
    listMedClaims: (query = {}, o) => call('meds.list', query, o),
    listSettlements: (range, o) => call('settlements.list', range, o),
    listSettlementTransactions: (query, o) => call('settlements.transactions', query, o),
    listPendingCharges: (query = {}, o) => call('settlements.pendingCharges', query, o),
    getSettlement: (settlementId, o) => call('settlements.get', { settlement_id: settlementId }, o),
    call,
    stats: () => {
      const s = pool.stats;
      return { connected: s.connected, free: s.free, pending: s.pending, running: s.running, size: s.size };
    },
    close: async () => {
      if (closed) return;
      closed = true;
      await pool.close();
    },
  };
  return client;
}
