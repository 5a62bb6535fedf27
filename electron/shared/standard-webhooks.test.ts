import { describe, expect, it } from 'vitest';
import { secretBytes, signWebhook, verifyWebhook, webhookHeaders } from './standard-webhooks.ts';

// The published Standard Webhooks test vector.
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  payload: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

const headersOf = (signature: string, id = VECTOR.id, timestamp = String(VECTOR.timestamp)): Record<string, string> => ({
  'webhook-id': id,
  'webhook-timestamp': timestamp,
  'webhook-signature': signature,
});

describe('signWebhook', () => {
  it('reproduces the published test vector', () => {
    expect(signWebhook(VECTOR.secret, VECTOR.id, VECTOR.timestamp, VECTOR.payload)).toBe(VECTOR.signature);
  });

  it('signs bytes and text alike, and accepts the secret without its prefix', () => {
    const bytes = new TextEncoder().encode(VECTOR.payload);
    expect(signWebhook(VECTOR.secret, VECTOR.id, VECTOR.timestamp, bytes)).toBe(VECTOR.signature);
    expect(signWebhook(VECTOR.secret.slice('whsec_'.length), VECTOR.id, VECTOR.timestamp, VECTOR.payload)).toBe(VECTOR.signature);
  });

  it.each(['', 'whsec_', 'whsec_!!!!', 'whsec_a', 'not base64 at all'])('refuses the unusable secret %j', (secret) => {
    expect(() => signWebhook(secret, 'id', 1, 'x')).toThrow(TypeError);
  });

  it('builds the three headers', () => {
    expect(webhookHeaders(VECTOR.secret, VECTOR.id, VECTOR.timestamp, VECTOR.payload)).toEqual(headersOf(VECTOR.signature));
  });
});

describe('secretBytes', () => {
  it('decodes whsec_ + base64 (padding optional)', () => {
    expect(secretBytes('whsec_AAEC')).toEqual(new Uint8Array([0, 1, 2]));
    expect(secretBytes('whsec_AAE=')).toEqual(new Uint8Array([0, 1]));
    expect(secretBytes('whsec_AAE')).toEqual(new Uint8Array([0, 1]));
    expect(secretBytes('whsec_')).toBeNull();
  });
});

describe('verifyWebhook', () => {
  const now = VECTOR.timestamp;
  const other = 'whsec_' + btoa('another secret of 32 bytes......');
  const otherSig = signWebhook(other, VECTOR.id, VECTOR.timestamp, VECTOR.payload);

  it('accepts the test vector', () => {
    expect(verifyWebhook(VECTOR.secret, headersOf(VECTOR.signature), VECTOR.payload, now)).toEqual({ ok: true, id: VECTOR.id, timestampSec: VECTOR.timestamp });
  });

  it.each<[string, Record<string, string | string[]>, string, number, string]>([
    ['a tampered body', headersOf(VECTOR.signature), '{"test": 2432232315}', now, 'no_matching_signature'],
    ['a body with different spacing', headersOf(VECTOR.signature), '{"test":2432232314}', now, 'no_matching_signature'],
    ['a changed id', headersOf(VECTOR.signature, 'msg_other'), VECTOR.payload, now, 'no_matching_signature'],
    ['a changed timestamp', headersOf(VECTOR.signature, VECTOR.id, String(now + 1)), VECTOR.payload, now, 'no_matching_signature'],
    ['a signature of another secret', headersOf(otherSig), VECTOR.payload, now, 'no_matching_signature'],
    ['a v2 entry with the right bytes', headersOf(VECTOR.signature.replace('v1,', 'v2,')), VECTOR.payload, now, 'no_matching_signature'],
    ['a signature without version', headersOf(VECTOR.signature.slice(3)), VECTOR.payload, now, 'no_matching_signature'],
    ['a truncated signature', headersOf(VECTOR.signature.slice(0, -4)), VECTOR.payload, now, 'no_matching_signature'],
    ['garbage base64', headersOf('v1,****'), VECTOR.payload, now, 'no_matching_signature'],
    ['an empty v1 entry', headersOf('v1,'), VECTOR.payload, now, 'no_matching_signature'],
    ['a blank signature header', headersOf('   '), VECTOR.payload, now, 'missing_headers'],
    ['no id', { 'webhook-timestamp': String(now), 'webhook-signature': VECTOR.signature }, VECTOR.payload, now, 'missing_headers'],
    ['an empty id', headersOf(VECTOR.signature, ''), VECTOR.payload, now, 'missing_headers'],
    ['no timestamp', { 'webhook-id': VECTOR.id, 'webhook-signature': VECTOR.signature }, VECTOR.payload, now, 'missing_headers'],
    ['no signature', { 'webhook-id': VECTOR.id, 'webhook-timestamp': String(now) }, VECTOR.payload, now, 'missing_headers'],
    ['two id headers', { ...headersOf(VECTOR.signature), 'webhook-id': [VECTOR.id, 'msg_x'] }, VECTOR.payload, now, 'missing_headers'],
    ['a timestamp in milliseconds', headersOf(VECTOR.signature, VECTOR.id, String(now * 1000)), VECTOR.payload, now, 'timestamp_too_new'],
    ['a non-numeric timestamp', headersOf(VECTOR.signature, VECTOR.id, '1614265330.5'), VECTOR.payload, now, 'bad_timestamp'],
    ['a negative timestamp', headersOf(VECTOR.signature, VECTOR.id, '-1614265330'), VECTOR.payload, now, 'bad_timestamp'],
    ['a timestamp 301 s old', headersOf(VECTOR.signature), VECTOR.payload, now + 301, 'timestamp_too_old'],
    ['a timestamp 301 s ahead', headersOf(VECTOR.signature), VECTOR.payload, now - 301, 'timestamp_too_new'],
  ])('refuses %s', (_name, headers, body, nowSec, reason) => {
    expect(verifyWebhook(VECTOR.secret, headers, body, nowSec)).toEqual({ ok: false, reason });
  });

  it('accepts the edges of the 5-minute tolerance', () => {
    expect(verifyWebhook(VECTOR.secret, headersOf(VECTOR.signature), VECTOR.payload, now + 300).ok).toBe(true);
    expect(verifyWebhook(VECTOR.secret, headersOf(VECTOR.signature), VECTOR.payload, now - 300).ok).toBe(true);
    expect(verifyWebhook(VECTOR.secret, headersOf(VECTOR.signature), VECTOR.payload, now + 10, 5)).toEqual({ ok: false, reason: 'timestamp_too_old' });
  });

  it('accepts any matching entry among several (secret rotation), whatever its place', () => {
    for (const value of [`${otherSig} ${VECTOR.signature}`, `${VECTOR.signature} ${otherSig}`, `v1a,xyz ${VECTOR.signature}`, `garbage ${VECTOR.signature}`]) {
      expect(verifyWebhook(VECTOR.secret, headersOf(value), VECTOR.payload, now).ok).toBe(true);
    }
  });

  it('reads headers in any case, from a fetch Headers or from bytes', () => {
    const upper = { 'Webhook-Id': VECTOR.id, 'WEBHOOK-TIMESTAMP': String(now), 'Webhook-Signature': VECTOR.signature };
    expect(verifyWebhook(VECTOR.secret, upper, VECTOR.payload, now).ok).toBe(true);
    expect(verifyWebhook(VECTOR.secret, new Headers(headersOf(VECTOR.signature)), new TextEncoder().encode(VECTOR.payload), now).ok).toBe(true);
    expect(verifyWebhook(VECTOR.secret, { ...headersOf(VECTOR.signature), 'webhook-signature': [VECTOR.signature] }, VECTOR.payload, now).ok).toBe(true);
  });

  it('refuses with an unusable secret instead of throwing', () => {
    expect(verifyWebhook('whsec_***', headersOf(VECTOR.signature), VECTOR.payload, now)).toEqual({ ok: false, reason: 'bad_secret' });
    expect(verifyWebhook('', headersOf(VECTOR.signature), VECTOR.payload, now)).toEqual({ ok: false, reason: 'bad_secret' });
  });

  it('round-trips whatever the body', () => {
    for (const body of ['', '{}', 'é ✓ \u0000', 'x'.repeat(100_000)]) {
      const headers = webhookHeaders(VECTOR.secret, 'msg_1', 1_700_000_000, body);
      expect(verifyWebhook(VECTOR.secret, headers, body, 1_700_000_000).ok).toBe(true);
      expect(verifyWebhook(VECTOR.secret, headers, body + ' ', 1_700_000_000).ok).toBe(false);
    }
  });
});
