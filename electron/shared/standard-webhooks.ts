/**
 * Standard Webhooks signatures (contract section 4): headers `webhook-id`,
 * `webhook-timestamp` (epoch seconds) and `webhook-signature` ("v1,<base64>", several
 * space-separated entries during a secret rotation); signature = base64(HMAC-SHA256(secret
 * bytes, `${id}.${timestamp}.${raw body}`)); the secret is "whsec_" + base64 of its bytes.
 *
 * The sandbox signs with signWebhook; the app's webhook receiver checks with verifyWebhook
 * before it processes anything. Both are pure functions of their arguments (the caller
 * passes "now"), so the nasty cases are table-tested.
 */
// eslint-disable-next-line no-restricted-imports -- HMAC and constant-time compare need node:crypto; this module runs in the core and the sandbox, never in the renderer (the one shared exception the project allows)
import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';

export const DEFAULT_TOLERANCE_SEC = 300;
const SECRET_PREFIX = 'whsec_';

/** Decodes "whsec_<base64>" (prefix optional) to the key bytes; null when it is not valid base64 or empty. */
export function secretBytes(secret: string): Uint8Array | null {
  const b64 = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  if (b64.length === 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(b64) || b64.length % 4 === 1) return null;
  const bytes = Uint8Array.from(atob(b64.padEnd(Math.ceil(b64.length / 4) * 4, '=')), (c) => c.charCodeAt(0));
  return bytes.length === 0 ? null : bytes;
}

/**
 * The HMAC key of the last secret used: decoding the secret and making its key for every
 * delivery was a fortieth of the core's time with 64 tills (issue 9). One entry, since a
 * receiver checks one secret (two during a rotation, which then decodes again; still right).
 */
let lastKey: { secret: string; key: KeyObject | null } | null = null;

function hmacKey(secret: string): KeyObject | null {
  if (lastKey?.secret !== secret) {
    const bytes = secretBytes(secret);
    lastKey = { secret, key: bytes === null ? null : createSecretKey(bytes) };
  }
  return lastKey.key;
}

function hmac(key: KeyObject, id: string, timestampSec: number, rawBody: string | Uint8Array): Buffer {
  const mac = createHmac('sha256', key);
  mac.update(`${id}.${timestampSec}.`);
  mac.update(rawBody);
  return mac.digest();
}

/** The `webhook-signature` value for one secret: "v1,<base64 HMAC>". Throws on an unusable secret. */
export function signWebhook(secret: string, id: string, timestampSec: number, rawBody: string | Uint8Array): string {
  const key = hmacKey(secret);
  if (key === null) throw new TypeError('webhook secret must be "whsec_" followed by base64');
  if (!Number.isSafeInteger(timestampSec) || timestampSec < 0) throw new RangeError('timestamp must be epoch seconds');
  return `v1,${hmac(key, id, timestampSec, rawBody).toString('base64')}`;
}

/** The three headers of one delivery attempt. */
export function webhookHeaders(secret: string, id: string, timestampSec: number, rawBody: string | Uint8Array): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSec),
    'webhook-signature': signWebhook(secret, id, timestampSec, rawBody),
  };
}

export type WebhookVerifyFailure =
  /** The secret configured in the receiver is not "whsec_" + base64. */
  | 'bad_secret'
  /** A header is absent, empty or repeated. */
  | 'missing_headers'
  /** webhook-timestamp is not a plain integer of seconds. */
  | 'bad_timestamp'
  /** The timestamp is more than the tolerance before now (a replay or a stale retry). */
  | 'timestamp_too_old'
  /** The timestamp is more than the tolerance after now. */
  | 'timestamp_too_new'
  /** No v1 entry of webhook-signature matches. */
  | 'no_matching_signature';

export type WebhookVerifyResult =
  | { ok: true; id: string; timestampSec: number }
  | { ok: false; reason: WebhookVerifyFailure };

/** A headers object (Node's IncomingHttpHeaders or a plain record) or a fetch Headers. */
export type WebhookHeaderSource =
  | { get(name: string): string | null }
  | Readonly<Record<string, string | readonly string[] | undefined>>;

function header(source: WebhookHeaderSource, name: string): string | null | 'repeated' {
  if (typeof (source as { get?: unknown }).get === 'function') {
    return (source as { get(name: string): string | null }).get(name);
  }
  const record = source as Readonly<Record<string, string | readonly string[] | undefined>>;
  let found: string | readonly string[] | undefined;
  for (const key of Object.keys(record)) {
    if (key.toLowerCase() !== name) continue;
    if (found !== undefined) return 'repeated';
    found = record[key];
  }
  if (found === undefined) return null;
  if (typeof found === 'string') return found;
  return found.length === 1 ? (found[0] ?? null) : 'repeated';
}

/**
 * Verifies one delivery. `nowSec` is the receiver's clock in epoch seconds; a timestamp
 * further than `toleranceSec` from it is refused (replay protection). Signatures are
 * compared in constant time; any one matching "v1," entry suffices (secret rotation).
 */
export function verifyWebhook(
  secret: string,
  headers: WebhookHeaderSource,
  rawBody: string | Uint8Array,
  nowSec: number,
  toleranceSec: number = DEFAULT_TOLERANCE_SEC,
): WebhookVerifyResult {
  const key = hmacKey(secret);
  if (key === null) return { ok: false, reason: 'bad_secret' };
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (id === null || id === 'repeated' || id === '' || timestamp === null || timestamp === 'repeated' || signatures === null || signatures === 'repeated' || signatures.trim() === '') {
    return { ok: false, reason: 'missing_headers' };
  }
  if (!/^\d{1,15}$/.test(timestamp)) return { ok: false, reason: 'bad_timestamp' };
  const timestampSec = Number(timestamp);
  if (nowSec - timestampSec > toleranceSec) return { ok: false, reason: 'timestamp_too_old' };
  if (timestampSec - nowSec > toleranceSec) return { ok: false, reason: 'timestamp_too_new' };
  const expected = hmac(key, id, timestampSec, rawBody);
  let matched = false;
  for (const entry of signatures.split(' ')) {
    const comma = entry.indexOf(',');
    if (comma < 0 || entry.slice(0, comma) !== 'v1') continue;
    const candidate = decodeBase64(entry.slice(comma + 1));
    // Every entry is compared (no early exit) so timing does not reveal which one matched.
    if (candidate !== null && candidate.length === expected.length && timingSafeEqual(candidate, expected)) matched = true;
  }
  return matched ? { ok: true, id, timestampSec } : { ok: false, reason: 'no_matching_signature' };
}

function decodeBase64(text: string): Uint8Array | null {
  // Checked first: Buffer skips what is not base64 where atob refused it.
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) return null;
  return Buffer.from(text, 'base64');
}
