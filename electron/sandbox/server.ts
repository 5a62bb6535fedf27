/**
 * The embedded payment-service sandbox: a stateful implementation of the service of
 * /work/shared/reference/service-reference.md and contract.md over real HTTP (node:http).
 *
 * FRAMEWORK, for whoever adds a domain module (S2: wallets, pay-outs, MED, refunds,
 * settlements):
 *
 * - A route module exports `register(router: Router, ctx: SandboxContext)` and is listed
 *   once in routes/index.ts. It calls `router.add('GET', '/v2/payout_meds/:med_case_id',
 *   handler)`; a handler gets a SandboxRequest (params, query, parsed JSON body, headers,
 *   principal, ip) and returns a Reply `{status, body?, headers?}` or throws an ApiError
 *   (http.ts: detailError, reasonError, validationError). Any other throw becomes the
 *   plain-text 500 `Internal Server Error`; the process stays up.
 * - Auth: start each handler with `const p = guard(req, ACCESS.payOut)` (auth.ts): 401 bad
 *   token, 401 missing scope, 403 missing role, with the exact details of reference 5.
 * - Validation: declare each part's shape once with validate.ts (`body({...})`, `fields({...})`
 *   of `field.int()`, `field.cents()`, ...), then `readRequest(req, { path, query, header, body })`
 *   gives the typed values or throws the 422 validation list with every problem at once.
 * - State: `ctx.state` (state.ts) is plain JSON data; S2's corner is payouts, medClaims,
 *   settlements, refunds, pendingPool, ext and SaleRecord.ext. Call `ctx.persist()` after
 *   changing it. A reset rebuilds it from fixture.ts in place (read it at request time).
 * - Time: `ctx.clock.now()` (sandbox time); `ctx.timers.at(ms, fn)` runs fn when the
 *   sandbox clock reaches ms; `ctx.onClockAdvance(fn)` after each control-API advance.
 * - Webhooks: `ctx.webhooks.enqueueEvent(merchantId, 'settlement.settled', payload)` signs and
 *   delivers with retries (webhooks.ts) and returns the webhook-id.
 * - Sales: `ctx.onSaleCreated(fn)` and `ctx.onSalePaid(fn)` (context.ts); a paid-listener can
 *   return `{settlement_id}` for charge.done (legacy 1:1 mode).
 * - Control routes go under '/_sandbox/'. Register them only when `ctx.control` is true;
 *   the server also refuses every '/_sandbox/' path when control is off.
 *
 * Request pipeline: control caller check (control-guard.ts: no Origin, loopback Host and
 * peer, else 403/421) -> route match (404/405) -> route faults -> body (<= 1 MiB, JSON only,
 * else 413/415/422) -> bearer token -> handler -> reply. Nothing is changed by a request
 * that fails before its handler.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { OffsetClock } from '../shared/clock.ts';
import { tryAuthenticate } from './auth.ts';
import { createHooks } from './context.ts';
import { isLoopbackAddress, refuseControlBody, refuseControlCaller } from './control-guard.ts';
import { FaultBook } from './faults.ts';
import { buildFixture } from './fixture.ts';
import { ApiError, INTERNAL_SERVER_ERROR, Router } from './http.ts';
import type { Reply, SandboxRequest, ValidationItem } from './http.ts';
import { loadState, StatePersister } from './persist.ts';
import * as control from './routes/control.ts';
import type { ControlContext } from './routes/control.ts';
import { routeModules } from './routes/index.ts';
import type { SandboxState } from './state.ts';
import { SandboxTimers } from './timers.ts';
import { WebhookDispatcher } from './webhooks.ts';

export interface SandboxOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1: the sandbox binds loopback unless told otherwise. */
  host?: string;
  clock?: OffsetClock;
  /** Serve the `/_sandbox/` control API (contract 7). Default true. */
  control?: boolean;
  /** Keep the state in this JSON file across restarts. */
  persistFile?: string;
  /**
   * The merchants' webhook endpoint from the start (and after every reset). 'later': the
   * receiver is not listening yet; deliveries wait for `deliverWebhooksTo`.
   */
  webhook?: { url: string; secret?: string } | { later: true; secret?: string };
  /** Webhook attempts under way at once (default 8, webhooks.ts); 1 sends one at a time. */
  webhookConcurrency?: number;
  log?: (line: string) => void;
}

export interface Sandbox {
  url: string;
  port: number;
  clock: OffsetClock;
  /** Points every merchant's webhook endpoint here (also after a reset) and sends what waited. */
  deliverWebhooksTo(url: string): void;
  close(): Promise<void>;
}

/** Reference 7 / issue: bodies over 1 MiB are refused. */
export const MAX_BODY_BYTES = 1024 * 1024;

class BodyError extends Error {
  readonly status: number;
  readonly body: unknown;
  constructor(status: number, body: unknown) {
    super('body refused');
    this.status = status;
    this.body = body;
  }
}

export async function startSandbox(opts: SandboxOptions = {}): Promise<Sandbox> {
  const clock = opts.clock ?? new OffsetClock();
  const log = opts.log ?? (() => undefined);
  const controlEnabled = opts.control ?? true;
  // The control API has no credential (contract 7): it is served on loopback or not at all.
  if (controlEnabled && !isLoopbackAddress(opts.host ?? '127.0.0.1') && opts.host !== 'localhost') {
    throw new Error(`the control API is loopback-only: bind 127.0.0.1, or turn control off to bind ${opts.host}`);
  }
  const state: SandboxState = buildFixture(clock.now());

  let startupWebhook = opts.webhook;
  const applyStartupWebhook = (): void => {
    if (startupWebhook === undefined) return;
    for (const endpoint of Object.values(state.webhookEndpoints)) {
      // A URL kept from an earlier run would point at a receiver that is gone.
      endpoint.url = 'url' in startupWebhook ? startupWebhook.url : null;
      if (startupWebhook.secret !== undefined) endpoint.secret = startupWebhook.secret;
    }
  };

  if (opts.persistFile !== undefined) {
    const loaded = await loadState(opts.persistFile, buildFixture(clock.now()));
    if (loaded.kind === 'loaded') {
      replaceContents(state, loaded.state);
      // The clock only moves forward, also across a restart (contract 7).
      clock.restoreOffset(state.clockOffsetMs);
    } else if (loaded.kind === 'corrupt') {
      log(`sandbox state file was unreadable (${loaded.error}); moved to ${loaded.movedTo ?? '(could not move)'}; starting from the fixture`);
    }
  }
  applyStartupWebhook();

  const persister =
    opts.persistFile === undefined
      ? null
      : new StatePersister(opts.persistFile, () => {
          state.clockOffsetMs = clock.offsetMs;
          return JSON.stringify(state);
        }, log);
  const persist = (): void => persister?.markDirty();
  const timers = new SandboxTimers(clock, (error) => log(`sandbox timer failed: ${String(error)}`));
  const faults = new FaultBook();
  const dispatcher = new WebhookDispatcher({ state: () => state, clock, timers, faults, persist, log, concurrency: opts.webhookConcurrency });
  let deliveriesWait = startupWebhook !== undefined && !('url' in startupWebhook);
  if (deliveriesWait) dispatcher.hold();
  const router = new Router();
  // The hooks hand listeners the context, which is built just below (called only later).
  const hooks = createHooks(() => ctx, log);
  const ctx: ControlContext = {
    state,
    clock,
    webhooks: dispatcher,
    control: controlEnabled,
    persist,
    timers,
    faults,
    log,
    ...hooks.register,
    dispatcher,
    router,
    hooks: hooks.fire,
    reset() {
      // Reset = rebuild the whole state from the fixture (S2's domains included); the clock
      // keeps its time (it only moves forward) and the startup webhook endpoint is re-applied.
      dispatcher.reset();
      faults.clear();
      replaceContents(state, buildFixture(clock.now()));
      applyStartupWebhook();
      hooks.fire.reset();
      persist();
    },
  };
  for (const module of routeModules) module.register(router, ctx);
  if (controlEnabled) control.register(router, ctx);

  /** Set once listening: the control API's Host check names this port. */
  let listeningPort = 0;
  const held = new Set<ServerResponse>();
  const server: Server = createServer({ keepAliveTimeout: 5_000, requestTimeout: 60_000, headersTimeout: 20_000 }, (req, res) => {
    handle(req, res).catch((error: unknown) => {
      // handle() answers every failure itself; this is the last guard so nothing escapes.
      log(`sandbox request crashed: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
      if (!res.headersSent) sendText(res, 500, INTERNAL_SERVER_ERROR);
      else res.destroy();
    });
  });
  // Malformed HTTP never reaches a handler; answer 400 and drop the connection.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (socket.writable && !socket.destroyed) {
      const status = error.code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : '400 Bad Request';
      socket.end(`HTTP/1.1 ${status}\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n{"detail":"Bad Request"}`);
    } else {
      socket.destroy();
    }
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = (req.method ?? 'GET').toUpperCase();
    const target = splitTarget(req.url ?? '/');
    if (target === null) {
      sendJson(res, 400, { detail: 'Bad Request' });
      return;
    }
    const { path, query } = target;
    const isControl = path === '/_sandbox' || path.startsWith('/_sandbox/');
    if (isControl && !controlEnabled) {
      sendJson(res, 404, { detail: 'Not Found' });
      return;
    }
    if (isControl) {
      const refusal = refuseControlCaller({ headers: req.headers, remoteAddress: req.socket.remoteAddress ?? '', port: listeningPort });
      if (refusal !== null) {
        req.resume();
        sendJson(res, refusal.status, { detail: refusal.detail }, { Connection: 'close' });
        return;
      }
    }
    const match = router.match(method, path);
    if (match.kind === 'not_found') {
      sendJson(res, 404, { detail: 'Not Found' });
      return;
    }
    if (match.kind === 'method_not_allowed') {
      sendJson(res, 405, { detail: 'Method Not Allowed' }, { Allow: match.allow.join(', ') });
      return;
    }
    const fault = isControl ? null : faults.takeRouteFault(method, path, match.pattern);
    // An ignored key: the route sees the request as if it carried none.
    if (!isControl && faults.takeIgnoredKey(method, path, match.pattern)) delete req.headers['idempotency-key'];
    if (fault === 'http_502') return sendJson(res, 502, { detail: 'Bad Gateway' });
    if (fault === 'http_503') return sendJson(res, 503, { detail: 'Service Unavailable' });
    if (fault === 'http_500') return sendText(res, 500, INTERNAL_SERVER_ERROR);
    if (fault === 'timeout') {
      // No answer at all; the client's own timeout decides. Bounded so nothing leaks.
      held.add(res);
      req.resume();
      const timer = setTimeout(() => res.destroy(), 300_000);
      timer.unref();
      res.on('close', () => {
        clearTimeout(timer);
        held.delete(res);
      });
      return;
    }

    let body: unknown;
    try {
      body = await readJsonBody(req, method, isControl);
    } catch (error) {
      if (error instanceof BodyError) {
        sendJson(res, error.status, error.body, error.status === 413 ? { Connection: 'close' } : {});
        return;
      }
      throw error;
    }

    const sreq: SandboxRequest = {
      method,
      path,
      params: match.params,
      query,
      body,
      headers: req.headers,
      principal: tryAuthenticate(req.headers, state.tokens, clock.now()),
      ip: req.socket.remoteAddress ?? '',
      route: match.pattern,
    };
    let reply: Reply;
    try {
      reply = await match.handler(sreq);
    } catch (error) {
      if (error instanceof ApiError) {
        reply = { status: error.status, body: error.body, headers: error.headers };
      } else {
        log(`sandbox handler ${method} ${match.pattern} failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
        reply = { status: 500, body: INTERNAL_SERVER_ERROR };
      }
    }
    if (method !== 'GET' && reply.status < 400) persist();
    if (fault === 'lost_response') {
      // Processed, but the answer never arrives (faults.ts).
      res.destroy();
      return;
    }
    sendReply(res, reply);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (error) => log(`sandbox server error: ${error.message}`));
  if (!deliveriesWait) dispatcher.resume();

  const address = server.address() as AddressInfo;
  listeningPort = address.port;
  const hostForUrl = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closing: Promise<void> | null = null;
  return {
    url: `http://${hostForUrl}:${address.port}`,
    port: address.port,
    clock,
    deliverWebhooksTo(url) {
      startupWebhook = { url, ...(startupWebhook?.secret === undefined ? {} : { secret: startupWebhook.secret }) };
      applyStartupWebhook();
      persist();
      // Resumed once: a second resume would schedule every open delivery twice.
      if (deliveriesWait) dispatcher.resume();
      deliveriesWait = false;
    },
    close() {
      closing ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        for (const res of held) res.destroy();
        server.closeAllConnections();
        await dispatcher.close();
        timers.stop();
        await closed;
        await persister?.close();
      })();
      return closing;
    },
  };
}

/** Splits a request target into path and query without URL's host heuristics ("//x" stays a path). */
function splitTarget(raw: string): { path: string; query: URLSearchParams } | null {
  let target = raw;
  if (/^https?:\/\//i.test(target)) {
    try {
      const url = new URL(target);
      target = url.pathname + url.search;
    } catch {
      return null;
    }
  }
  if (!target.startsWith('/')) return null;
  const q = target.indexOf('?');
  const path = q < 0 ? target : target.slice(0, q);
  const query = new URLSearchParams(q < 0 ? '' : target.slice(q + 1));
  return { path, query };
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The parsed JSON body (undefined when empty), or a BodyError with the 4xx to answer. */
async function readJsonBody(req: IncomingMessage, method: string, control: boolean): Promise<unknown> {
  const declared = Number(req.headers['content-length'] ?? '0');
  if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) {
    req.resume();
    throw new BodyError(413, { detail: 'Request body too large (limit 1 MiB)' });
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLarge = false;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      tooLarge = true;
      break;
    }
    chunks.push(chunk);
  }
  if (tooLarge) throw new BodyError(413, { detail: 'Request body too large (limit 1 MiB)' });
  if (!BODY_METHODS.has(method)) return undefined;
  const contentType = req.headers['content-type'];
  if (control) {
    // Stricter than the service: a body a web page could send without a preflight is refused.
    const refusal = refuseControlBody(req.headers, size);
    if (refusal !== null) throw new BodyError(refusal.status, { detail: refusal.detail });
  }
  if (size === 0) return undefined;
  if (!control && contentType !== undefined && !isJsonContentType(contentType)) {
    throw new BodyError(415, { detail: 'Unsupported Media Type: send Content-Type: application/json' });
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    throw new BodyError(422, { detail: [jsonInvalid(0, 'invalid UTF-8')] });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const position = /position (\d+)/.exec(message);
    throw new BodyError(422, { detail: [jsonInvalid(position === null ? 0 : Number(position[1]), message)] });
  }
}

function jsonInvalid(position: number, error: string): ValidationItem {
  // FastAPI's shape for a body that is not JSON.
  return { type: 'json_invalid', loc: ['body', position], msg: 'JSON decode error', input: {}, ctx: { error } };
}

function isJsonContentType(value: string): boolean {
  const type = (value.split(';')[0] ?? '').trim().toLowerCase();
  return type === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(type);
}

function sendReply(res: ServerResponse, reply: Reply): void {
  if (typeof reply.body === 'string') sendText(res, reply.status, reply.body, reply.headers);
  else if (reply.body === undefined) {
    res.writeHead(reply.status, { 'Content-Length': '0', ...reply.headers });
    res.end();
  } else sendJson(res, reply.status, reply.body, reply.headers);
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  let text: string;
  try {
    text = JSON.stringify(body);
  } catch {
    // A validation list echoes its inputs; one nested too deeply to serialise is not echoed.
    const detail = (body as { detail?: unknown } | null)?.detail;
    if (!Array.isArray(detail)) return sendText(res, 500, INTERNAL_SERVER_ERROR);
    text = JSON.stringify({ detail: detail.map((item: ValidationItem) => ({ ...item, input: null })) });
  }
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(text)), ...headers });
  res.end(text);
}

function sendText(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': String(Buffer.byteLength(text)), ...headers });
  res.end(text);
}

/** Replaces an object's contents in place, so every holder of the reference sees the new state. */
function replaceContents(target: SandboxState, source: SandboxState): void {
  for (const key of Object.keys(target)) delete (target as unknown as Record<string, unknown>)[key];
  Object.assign(target, source);
}
