// Contract 4 (webhooks): Standard Webhooks signatures (with the published test vector),
// charge.paid and charge.done payloads, no event for a displacement, at-least-once delivery
// with the retry schedule on sandbox time, the 10 s answer limit, and the webhook faults of
// POST /_sandbox/faults. A real receiver on 127.0.0.1:0 captures every delivery.
import { beforeEach, describe, expect, it } from 'vitest';
import { signWebhook, verifyWebhook } from '../../shared/standard-webhooks.ts';
import { FIXTURE_WEBHOOK_SECRET, Receiver, waitFor, waitForAttempts } from './harness.ts';
import type { Delivery, Json } from './harness.ts';
import { useSandbox } from './fixtures/sandbox.ts';

const fixture = useSandbox({ receiver: true });
const { api, receiver } = fixture;
beforeEach(async () => {
  await api.control('PUT', '/webhook', { url: receiver.url });
});

async function sandboxNowSec(): Promise<number> {
  return Math.floor(Date.parse((await api.control('GET', '/clock')).body.now) / 1000);
}

async function paidSale(amount = '12.50', externalId = 'order-1'): Promise<Json> {
  const sale = await api.sale({ amount, external_id: externalId });
  const pay = await api.control('POST', '/pay', { emv: sale.body.emv });
  expect(pay.status).toBe(200);
  return { sale: sale.body, pay: pay.body };
}

function deliveriesOf(event: string): Delivery[] {
  return receiver.deliveries.filter((d) => d.json?.event === event);
}

describe('signatures (Standard Webhooks)', () => {
  it('the published test vector signs and verifies', () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const headers = { 'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek', 'webhook-timestamp': '1614265330', 'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=' };
    expect(signWebhook(secret, headers['webhook-id'], 1614265330, '{"test": 2432232314}')).toBe(headers['webhook-signature']);
    expect(verifyWebhook(secret, headers, '{"test": 2432232314}', 1614265330).ok).toBe(true);
  });

  it('every delivery carries webhook-id, webhook-timestamp and a v1 signature over the raw body with the fixture secret', async () => {
    await paidSale();
    await waitFor(() => (receiver.deliveries.length >= 2 ? true : undefined), 'two deliveries');
    const now = await sandboxNowSec();
    for (const d of receiver.deliveries) {
      expect(d.headers['content-type']).toBe('application/json');
      expect(d.headers['webhook-id']).toMatch(/^msg_/);
      expect(d.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(verifyWebhook(FIXTURE_WEBHOOK_SECRET, d.headers, d.body, now)).toMatchObject({ ok: true, id: d.headers['webhook-id'] });
      expect(verifyWebhook(FIXTURE_WEBHOOK_SECRET, d.headers, d.body + ' ', now).ok).toBe(false);
    }
    expect(new Set(receiver.deliveries.map((d) => d.headers['webhook-id'])).size).toBe(2);
  });

  it('PUT /_sandbox/webhook with a secret signs with that secret', async () => {
    const secret = 'whsec_' + Buffer.from('a brand new secret for this test').toString('base64');
    await api.control('PUT', '/webhook', { url: receiver.url, secret });
    await paidSale();
    const [d] = await waitFor(() => (receiver.deliveries.length >= 1 ? receiver.deliveries : undefined), 'a delivery');
    const now = await sandboxNowSec();
    expect(verifyWebhook(secret, (d as Delivery).headers, (d as Delivery).body, now).ok).toBe(true);
    expect(verifyWebhook(FIXTURE_WEBHOOK_SECRET, (d as Delivery).headers, (d as Delivery).body, now)).toEqual({ ok: false, reason: 'no_matching_signature' });
  });
});

describe('events', () => {
  it('charge.paid then charge.done, with exactly the payload fields of the contract table', async () => {
    const { sale, pay } = await paidSale('12.50', 'order-1042');
    await waitFor(() => (receiver.deliveries.length >= 2 ? true : undefined), 'two deliveries');
    const [paid, done] = receiver.deliveries.map((d) => d.json);
    expect(paid).toEqual({
      event: 'charge.paid',
      pix_id: sale.pix_id,
      service_id: sale.service_id,
      external_id: 'order-1042',
      amount_brl: '12.50',
      paid_at: pay.paid_at,
      e2e_id: pay.e2e_id,
      store_id: 1,
      checkout_id: 1,
    });
    expect(done).toEqual({ event: 'charge.done', pix_id: sale.pix_id, service_id: sale.service_id, external_id: 'order-1042', amount_brl: '12.50', settlement_id: done.settlement_id, tx_hash: null });
    expect(done.settlement_id === null || Number.isInteger(done.settlement_id)).toBe(true);
  });

  it('a displacement produces no event; the paid newest sale produces its two', async () => {
    await api.printedCheckout(1);
    await api.sale({ amount: '1.00' });
    await api.sale({ amount: '2.00' });
    expect((await api.control('GET', '/events')).body).toEqual([]);
    const newest = await api.sale({ amount: '3.00' });
    await api.control('POST', '/pay', { store_id: 1, checkout_id: 1 });
    await waitFor(() => (receiver.deliveries.length >= 2 ? true : undefined), 'two deliveries');
    expect(receiver.deliveries.map((d) => [d.json.event, d.json.pix_id])).toEqual([
      ['charge.paid', newest.body.pix_id],
      ['charge.done', newest.body.pix_id],
    ]);
  });

  it('without a configured endpoint nothing is sent; the event is recorded as no_endpoint', async () => {
    await api.control('PUT', '/webhook', { url: null });
    await paidSale();
    const events = (await api.control('GET', '/events')).body;
    expect(events.map((e: Json) => e.state)).toEqual(['no_endpoint', 'no_endpoint']);
    expect((await api.control('GET', '/webhooks')).body).toEqual([]);
  });
});

describe('delivery: at least once, retried on sandbox time', () => {
  it('retries a failing endpoint 5 more times after 5 s, 30 s, 2 min, 10 min and 1 h, same id, then gives up', async () => {
    receiver.respond = () => 500;
    await api.control('PUT', '/webhook', { url: receiver.url });
    const { sale } = await paidSale();
    await waitForAttempts(api, 2, 'the first attempts');
    const schedule = [5, 30, 120, 600, 3600];
    for (const [i, seconds] of schedule.entries()) {
      await api.advance(seconds - 1);
      await new Promise((r) => setTimeout(r, 50));
      expect(deliveriesOf('charge.paid')).toHaveLength(i + 1);
      await api.advance(1);
      await waitFor(() => (deliveriesOf('charge.paid').length === i + 2 ? true : undefined), `attempt ${i + 2}`);
    }
    await api.advance(86_400);
    await new Promise((r) => setTimeout(r, 50));
    const paid = deliveriesOf('charge.paid');
    expect(paid).toHaveLength(6);
    expect(new Set(paid.map((d) => d.headers['webhook-id'])).size).toBe(1);
    expect(new Set(paid.map((d) => d.body)).size).toBe(1);
    expect(paid[0]?.json.pix_id).toBe(sale.pix_id);
    // Each attempt is signed for its own (sandbox) time.
    const stamps = paid.map((d) => Number(d.headers['webhook-timestamp']));
    for (let i = 1; i < stamps.length; i++) expect((stamps[i] as number) - (stamps[i - 1] as number)).toBeGreaterThanOrEqual(schedule[i - 1] as number);
    for (const d of paid) expect(verifyWebhook(FIXTURE_WEBHOOK_SECRET, d.headers, d.body, Number(d.headers['webhook-timestamp'])).ok).toBe(true);
    const log = (await api.control('GET', '/webhooks')).body.filter((a: Json) => a.event === 'charge.paid');
    expect(log.map((a: Json) => [a.attempt, a.status])).toEqual([1, 2, 3, 4, 5, 6].map((n) => [n, 500]));
    expect(log.every((a: Json) => a.url === receiver.url && typeof a.at === 'string' && a.webhook_id === paid[0]?.headers['webhook-id'])).toBe(true);
    const events = (await api.control('GET', '/events')).body;
    expect(events.map((e: Json) => [e.event, e.state, e.attempts])).toEqual([
      ['charge.paid', 'failed', 6],
      ['charge.done', 'failed', 6],
    ]);
  });

  it('any non-2xx is a failure; the retry after 5 s delivers once the receiver recovers', async () => {
    receiver.respond = (_d, index) => (index < 2 ? 410 : 204);
    await paidSale();
    await waitForAttempts(api, 2);
    await api.advance(5);
    await waitFor(() => (receiver.deliveries.length >= 4 ? true : undefined), 'the retries');
    const events = (await api.control('GET', '/events')).body;
    expect(events.map((e: Json) => [e.state, e.attempts])).toEqual([
      ['delivered', 2],
      ['delivered', 2],
    ]);
    await api.advance(3600);
    await new Promise((r) => setTimeout(r, 50));
    expect(receiver.deliveries).toHaveLength(4);
  });

  it('no answer within 10 s of sandbox time is a failure, retried 5 s later', async () => {
    receiver.respond = (_d, index) => (index === 0 ? 'hang' : 200);
    await paidSale();
    await waitFor(() => (receiver.deliveries.length >= 1 ? true : undefined), 'the hanging attempt');
    const pending = (await api.control('GET', '/webhooks')).body;
    expect(pending[0]).toMatchObject({ event: 'charge.paid', attempt: 1, status: null });
    await api.advance(10);
    const log = await waitForAttempts(api, 2, 'the timeout and the next first attempt');
    expect(log[0]).toMatchObject({ event: 'charge.paid', attempt: 1, status: null, error: 'timeout' });
    await api.advance(5);
    await waitFor(() => (deliveriesOf('charge.paid').length >= 2 ? true : undefined), 'the retry');
    const events = await waitFor(async () => {
      const e = (await api.control('GET', '/events')).body;
      return e[0].state === 'delivered' ? e : undefined;
    }, 'delivery');
    expect(events[0]).toMatchObject({ event: 'charge.paid', attempts: 2 });
  });

  it('a refused connection is a failure with status null, retried', async () => {
    const gone = await new Receiver().start();
    const url = gone.url;
    await gone.close();
    await api.control('PUT', '/webhook', { url });
    await paidSale();
    const log = await waitForAttempts(api, 2);
    expect(log[0]).toMatchObject({ status: null, attempt: 1 });
    expect(log[0].error).toBeTruthy();
    const events = (await api.control('GET', '/events')).body;
    expect(events[0].state).toBe('pending');
  });
});

describe('webhook faults (POST /_sandbox/faults, target webhooks)', () => {
  it('duplicate: the same event arrives twice, same id and body', async () => {
    await api.control('POST', '/faults', { target: 'webhooks', fault: 'duplicate', event: 'charge.paid' });
    await paidSale();
    await waitFor(() => (receiver.deliveries.length >= 3 ? true : undefined), 'three deliveries');
    const paid = deliveriesOf('charge.paid');
    expect(paid).toHaveLength(2);
    expect(paid[0]?.headers['webhook-id']).toBe(paid[1]?.headers['webhook-id']);
    expect(paid[0]?.body).toBe(paid[1]?.body);
  });

  it('reorder: the next two events arrive newest first', async () => {
    await api.control('POST', '/faults', { target: 'webhooks', fault: 'reorder', count: 2 });
    await paidSale();
    await waitFor(() => (receiver.deliveries.length >= 2 ? true : undefined), 'two deliveries');
    expect(receiver.deliveries.map((d) => d.json.event)).toEqual(['charge.done', 'charge.paid']);
  });

  it('delay: the first attempt waits the given sandbox seconds', async () => {
    await api.control('POST', '/faults', { target: 'webhooks', fault: 'delay', delay_seconds: 120, count: 2 });
    await paidSale();
    await api.advance(119);
    await new Promise((r) => setTimeout(r, 100));
    expect(receiver.deliveries).toHaveLength(0);
    await api.advance(1);
    await waitFor(() => (receiver.deliveries.length >= 2 ? true : undefined), 'the delayed deliveries');
  });

  it('drop: the event is never sent', async () => {
    await api.control('POST', '/faults', { target: 'webhooks', fault: 'drop', event: 'charge.paid' });
    await paidSale();
    await waitFor(() => (receiver.deliveries.length >= 1 ? true : undefined), 'charge.done');
    await api.advance(2 * 3600);
    await new Promise((r) => setTimeout(r, 50));
    expect(receiver.deliveries.map((d) => d.json.event)).toEqual(['charge.done']);
    const events = (await api.control('GET', '/events')).body;
    expect(events.map((e: Json) => [e.event, e.state])).toEqual([
      ['charge.paid', 'dropped'],
      ['charge.done', 'delivered'],
    ]);
  });
});
