import { Agent, request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { signWebhook } from '../../shared/standard-webhooks.ts';
import { memoryLogger } from '../log.ts';
import { readPayload, startWebhookReceiver, type AcceptOutcome, type WebhookDelivery, type WebhookReceiver } from './receiver.ts';

const SECRET = 'whsec_c2FuZGJveC13ZWJob29rLXNlY3JldC0zMmJ5dGVzISE=';
const OTHER_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const clock = new ManualClock(Date.UTC(2026, 10, 21, 14, 0, 0));
const log = memoryLogger(clock);
const accepted: WebhookDelivery[] = [];
let nextAccept: (d: WebhookDelivery) => Promise<AcceptOutcome> = async () => 'recorded';
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver({
    host: '127.0.0.1',
    port: 0,
    secret: SECRET,
    clock,
    log,
    maxBodyBytes: 4096,
    accept: async (d) => {
      const outcome = await nextAccept(d);
      accepted.push(d);
      return outcome;
    },
  });
});
afterAll(() => receiver.close());

const nowSec = () => Math.floor(clock.now() / 1000);

function post(body: string, opts: { id?: string; ts?: number; secret?: string; signature?: string; headers?: Record<string, string>; url?: string; method?: string } = {}) {
  const id = opts.id ?? `msg_${Math.random().toString(36).slice(2)}`;
  const ts = opts.ts ?? nowSec();
  return fetch(opts.url ?? receiver.url, {
    method: opts.method ?? 'POST',
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(ts),
      'webhook-signature': opts.signature ?? signWebhook(opts.secret ?? SECRET, id, ts, body),
      ...opts.headers,
    },
    body: opts.method === 'GET' ? undefined : body,
  });
}

const paid = JSON.stringify({ event: 'charge.paid', pix_id: 'pix_1', service_id: 'svc_1', amount_brl: '12.50' });

describe('webhook receiver', () => {
  it('acknowledges a verified event after handing it over', async () => {
    const before = accepted.length;
    const res = await post(paid, { id: 'msg_ok' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ received: true, duplicate: false });
    expect(accepted.slice(before)).toEqual([{ webhookId: 'msg_ok', timestampSec: nowSec(), payload: JSON.parse(paid) }]);
  });

  it('keeps the service’s connection open for its next delivery', async () => {
    // A new connection per delivery held every delivery slot of a busy store's service
    // several times longer than the delivery itself (issue 9: 64 tills).
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const deliver = (id: string) =>
      new Promise<{ status: number; reused: boolean }>((resolve, reject) => {
        const ts = nowSec();
        const req = request(receiver.url, {
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(ts), 'webhook-signature': signWebhook(SECRET, id, ts, paid) },
        });
        req.on('response', (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, reused: req.reusedSocket }));
        });
        req.on('error', reject);
        req.end(paid);
      });
    try {
      expect(await deliver('msg_keep_1')).toEqual({ status: 200, reused: false });
      expect(await deliver('msg_keep_2')).toEqual({ status: 200, reused: true });
    } finally {
      agent.destroy();
    }
  });

  it('says duplicate when the journal already had it, still with a 2xx', async () => {
    nextAccept = async () => 'duplicate';
    const res = await post(paid, { id: 'msg_ok' });
    nextAccept = async () => 'recorded';
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ received: true, duplicate: true });
  });

  it('answers only after the event is recorded', async () => {
    let release: () => void = () => undefined;
    nextAccept = () => new Promise((resolve) => (release = () => resolve('recorded')));
    let answered = false;
    const pending = post(paid).then((r) => {
      answered = true;
      return r;
    });
    await new Promise((r) => setTimeout(r, 100));
    expect(answered).toBe(false);
    release();
    expect((await pending).status).toBe(200);
    nextAccept = async () => 'recorded';
  });

  it('asks for a redelivery (503) when recording fails', async () => {
    nextAccept = async () => {
      throw new Error('disk full');
    };
    const res = await post(paid);
    nextAccept = async () => 'recorded';
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
  });

  it('accepts any one valid signature during a secret rotation', async () => {
    const ts = nowSec();
    const signature = `${signWebhook(OTHER_SECRET, 'msg_rot', ts, paid)} ${signWebhook(SECRET, 'msg_rot', ts, paid)}`;
    expect((await post(paid, { id: 'msg_rot', ts, signature })).status).toBe(200);
  });

  it.each([
    ['a signature made with another secret', { secret: OTHER_SECRET }, 401],
    ['a signature of another body', { signature: signWebhook(SECRET, 'msg_x', nowSec(), '{"event":"other"}'), id: 'msg_x' }, 401],
    ['a timestamp 6 minutes old', { ts: nowSec() - 360 }, 401],
    ['a timestamp 6 minutes ahead', { ts: nowSec() + 360 }, 401],
    ['no signature', { signature: '' }, 401],
    ['a v2 signature only', { signature: 'v2,abc' }, 401],
    ['text content', { headers: { 'content-type': 'text/plain' } }, 415],
    ['another path', { url: '' }, 404],
    ['a GET', { method: 'GET' }, 405],
  ])('refuses %s without processing it', async (_name, opts, status) => {
    const before = accepted.length;
    const o = opts as { url?: string };
    const res = await post(paid, { ...opts, url: o.url === '' ? receiver.url.replace('/webhooks', '/other') : undefined });
    expect(res.status).toBe(status);
    expect(accepted.length).toBe(before);
  });

  it('refuses a body over the limit', async () => {
    const before = accepted.length;
    const big = JSON.stringify({ event: 'charge.paid', pad: 'x'.repeat(5000) });
    expect((await post(big)).status).toBe(413);
    expect(accepted.length).toBe(before);
  });

  it('refuses with a 4xx, not a redelivery, what could never be recorded', async () => {
    const before = accepted.length;
    expect((await post(paid, { id: 'msg_' + 'x'.repeat(300) })).status).toBe(400);
    let nested: unknown = 'leaf';
    for (let i = 0; i < 40; i++) nested = { n: nested };
    expect((await post(JSON.stringify({ event: 'charge.paid', nested }))).status).toBe(400);
    expect(accepted.length).toBe(before);
  });

  it('refuses a correctly signed body that is not a JSON event', async () => {
    const before = accepted.length;
    expect((await post('not json')).status).toBe(400);
    expect((await post('[1,2]')).status).toBe(400);
    expect((await post('{"no_event":true}')).status).toBe(400);
    expect(accepted.length).toBe(before);
  });

  it('counts what it saw and never logs the secret', () => {
    const stats = receiver.stats();
    expect(stats.recorded).toBeGreaterThanOrEqual(3);
    expect(stats.duplicates).toBe(1);
    expect(stats.failed).toBe(1);
    expect(stats.refused).toBeGreaterThanOrEqual(12);
    expect(log.lines.join('\n')).not.toContain('c2FuZGJveC13ZWJob29r');
  });
});

describe('readPayload: a verified body as the receiver and the inbox’s applier read it', () => {
  const deep = (levels: number): string => '{"event":"x","a":' + '['.repeat(levels) + ']'.repeat(levels) + '}';
  it.each([
    ['{"event":"charge.paid","pix_id":"p1"}', { event: 'charge.paid', pix_id: 'p1' }],
    ['not json', 'body is not JSON'],
    ['', 'body is not JSON'],
    ['{"event":"x"', 'body is not JSON'],
    ['[{"event":"x"}]', 'body must be a JSON object with an "event"'],
    ['null', 'body must be a JSON object with an "event"'],
    ['"charge.paid"', 'body must be a JSON object with an "event"'],
    ['{"event":7}', 'body must be a JSON object with an "event"'],
    ['{"type":"charge.paid"}', 'body must be a JSON object with an "event"'],
    [deep(40), 'body nested deeper than 32 levels'],
    ['\ufeff{"event":"x"}', 'body is not JSON'],
  ])('%j', (body, expected) => {
    expect(readPayload(Buffer.from(body, 'utf8'))).toEqual(expected);
  });
});
