import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../../shared/clock.ts';
import { DEFAULT_TOLERANCE_SEC, verifyWebhook, type WebhookVerifyFailure } from '../../shared/standard-webhooks.ts';
import type { Logger } from '../log.ts';

/**
 * The core's webhook receiver (contract 4): raw body, signature verified BEFORE anything
 * is parsed or processed, and a 2xx only once `accept` has the event durably (the journal).
 * Anything invalid gets a 4xx and changes nothing; a failure to record gets a 503 so the
 * service delivers again. It never throws out of a request.
 */
export interface WebhookDelivery {
  webhookId: string;
  timestampSec: number;
  /** The parsed JSON object; `event` is a string. */
  payload: Record<string, unknown> & { event: string };
}

export type AcceptOutcome = 'recorded' | 'duplicate';

export interface WebhookReceiverOptions {
  host: string;
  port: number;
  secret: string;
  clock: Clock;
  log: Logger;
  /** `raw`: the body's bytes as received, which the signature covers (a standby's inbox keeps them). */
  accept(delivery: WebhookDelivery, raw: Buffer): Promise<AcceptOutcome>;
  path?: string;
  maxBodyBytes?: number;
  toleranceSec?: number;
}

export interface WebhookStats {
  recorded: number;
  duplicates: number;
  refused: number;
  failed: number;
  /** Epoch ms of the last verified delivery, or null. */
  lastVerifiedAt: number | null;
  lastRefusal: { at: number; reason: string } | null;
}

export interface WebhookReceiver {
  url: string;
  port: number;
  stats(): WebhookStats;
  close(): Promise<void>;
}

export const WEBHOOK_PATH = '/webhooks';
// A settlement.settled lists every charge of a window: allow large bodies, within reason.
const DEFAULT_MAX_BODY = 1024 * 1024;
/** The journal keys deliveries by webhook-id; longer ids could never be recorded. */
const MAX_WEBHOOK_ID = 256;
/** Deeper JSON than any event of contract 4 has, and than the journal will store. */
const MAX_DEPTH = 32;
const BODY_TIMEOUT_MS = 10_000;

const REFUSAL_TEXT: Record<WebhookVerifyFailure, string> = {
  bad_secret: 'the receiver has no usable signing secret',
  missing_headers: 'webhook-id, webhook-timestamp and webhook-signature are required',
  bad_timestamp: 'webhook-timestamp must be epoch seconds',
  timestamp_too_old: 'webhook-timestamp is more than 5 minutes old',
  timestamp_too_new: 'webhook-timestamp is more than 5 minutes in the future',
  no_matching_signature: 'no signature matches',
};

class Refusal extends Error {
  readonly status: number;
  readonly reason: string;
  constructor(status: number, reason: string) {
    super(reason);
    this.status = status;
    this.reason = reason;
  }
}

function depth(value: unknown, level = 0): number {
  if (level > MAX_DEPTH || typeof value !== 'object' || value === null) return level;
  let deepest = level + 1;
  for (const child of Object.values(value)) deepest = Math.max(deepest, depth(child, level + 1));
  return deepest;
}

/**
 * A verified body as the receiver accepts it: a JSON object with a string `event`, no deeper
 * than the journal stores; else the reason it is refused. The inbox's applier reads a kept
 * body with it again.
 */
export function readPayload(raw: Buffer): WebhookDelivery['payload'] | string {
  let payload: unknown;
  try {
    payload = JSON.parse(raw.toString('utf8'));
  } catch {
    return 'body is not JSON';
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload) || typeof (payload as { event?: unknown }).event !== 'string') {
    return 'body must be a JSON object with an "event"';
  }
  if (depth(payload) > MAX_DEPTH) return `body nested deeper than ${MAX_DEPTH} levels`;
  return payload as WebhookDelivery['payload'];
}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      reject(new Refusal(413, `body larger than ${limit} bytes`));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(new Refusal(413, `body larger than ${limit} bytes`));
        req.pause();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export async function startWebhookReceiver(opts: WebhookReceiverOptions): Promise<WebhookReceiver> {
  const path = opts.path ?? WEBHOOK_PATH;
  const limit = opts.maxBodyBytes ?? DEFAULT_MAX_BODY;
  const tolerance = opts.toleranceSec ?? DEFAULT_TOLERANCE_SEC;
  const stats: WebhookStats = { recorded: 0, duplicates: 0, refused: 0, failed: 0, lastVerifiedAt: null, lastRefusal: null };

  const reply = (res: ServerResponse, status: number, body: object, headers: Record<string, string> = {}) => {
    if (res.headersSent) return;
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers });
    res.end(JSON.stringify(body));
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://receiver');
    if (url.pathname !== path) throw new Refusal(404, 'unknown path');
    if (req.method !== 'POST') throw new Refusal(405, 'only POST is accepted');
    const contentType = String(req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
    if (contentType !== 'application/json') throw new Refusal(415, 'content-type must be application/json');
    const raw = await readBody(req, limit);

    // Contract 4: the signature must be validated before any processing.
    const verified = verifyWebhook(opts.secret, req.headers, raw, Math.floor(opts.clock.now() / 1000), tolerance);
    if (!verified.ok) throw new Refusal(verified.reason === 'bad_secret' ? 500 : 401, REFUSAL_TEXT[verified.reason]);

    const payload = readPayload(raw);
    if (typeof payload === 'string') throw new Refusal(400, payload);
    // Refused now with a 4xx, rather than failing to record and asking for redelivery for ever.
    if (verified.id.length > MAX_WEBHOOK_ID) throw new Refusal(400, `webhook-id longer than ${MAX_WEBHOOK_ID} characters`);
    stats.lastVerifiedAt = opts.clock.now();

    let outcome: AcceptOutcome;
    try {
      outcome = await opts.accept({ webhookId: verified.id, timestampSec: verified.timestampSec, payload }, raw);
    } catch (err) {
      stats.failed++;
      opts.log.error('a verified webhook could not be recorded; the service will deliver it again', { webhookId: verified.id, error: err });
      reply(res, 503, { detail: 'not recorded; deliver again' }, { 'retry-after': '5' });
      return;
    }
    if (outcome === 'duplicate') stats.duplicates++;
    else stats.recorded++;
    reply(res, 200, { received: true, duplicate: outcome === 'duplicate' });
  }

  const server = createServer((req, res) => {
    req.setTimeout(BODY_TIMEOUT_MS, () => req.destroy());
    handle(req, res).catch((err: unknown) => {
      const refusal = err instanceof Refusal ? err : new Refusal(400, 'unreadable request');
      stats.refused++;
      stats.lastRefusal = { at: opts.clock.now(), reason: refusal.reason };
      opts.log.warn('webhook refused', { status: refusal.status, reason: refusal.reason, webhookId: String(req.headers['webhook-id'] ?? '').slice(0, 80) });
      reply(res, refusal.status, { detail: refusal.reason });
    });
  });
  server.headersTimeout = BODY_TIMEOUT_MS;
  server.requestTimeout = BODY_TIMEOUT_MS * 2;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return {
    url: `http://${host}:${port}${path}`,
    port,
    stats: () => ({ ...stats }),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
