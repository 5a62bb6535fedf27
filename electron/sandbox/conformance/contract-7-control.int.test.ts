// Contract 7: the control API (every endpoint, its body and its errors) and the default
// fixture, through HTTP.
import { describe, expect, it } from 'vitest';
import { buildPixBrCode } from '../../shared/emv.ts';
import { FIXTURE_WEBHOOK_SECRET, Receiver, startTestSandbox, TOKENS, waitFor } from './harness.ts';
import type { Json } from './harness.ts';
import { useSandbox } from './fixtures/sandbox.ts';

const { api } = useSandbox();

describe('the default fixture', () => {
  it('merchant 1: store 1 "Loja Centro", checkout 1 "Caixa 1" on wallet 101, dynamic, no printed QR', async () => {
    expect((await api.get('/v2/stores')).body).toEqual([{ merchant_id: 1, store_id: 1, store_name: 'Loja Centro', address: '', phone_number: '', email: '' }]);
    expect((await api.get('/v2/stores/1/checkouts')).body).toEqual([{ merchant_id: 1, store_id: 1, checkout_id: 1, checkout_desc: 'Caixa 1', wallet_id: 101, default_qr: null }]);
    expect((await api.get('/v2/printed_dynamic_qrs')).body.total).toBe(0);
  });

  it('wallets 101 and 102 usable, 103 on a deprecated network; 201 is merchant 2', async () => {
    expect((await api.patch('/v2/stores/1/checkouts/1', { wallet_id: 102 })).status).toBe(200);
    expect((await api.patch('/v2/stores/1/checkouts/1', { wallet_id: 101 })).status).toBe(200);
    expect((await api.patch('/v2/stores/1/checkouts/1', { wallet_id: 103 })).body).toEqual({ detail: 'Wallet network deprecated' });
    expect((await api.patch('/v2/stores/1/checkouts/1', { wallet_id: 201 })).body).toEqual({ detail: 'Wallet not found' });
  });

  it('merchant 2: store 1 with checkout 1 on wallet 201', async () => {
    const res = await api.get('/v2/stores/1/checkouts', { token: TOKENS.otherMerchant });
    expect(res.body).toEqual([expect.objectContaining({ merchant_id: 2, store_id: 1, checkout_id: 1, wallet_id: 201 })]);
  });

  it('the five tokens of the table', async () => {
    const expectations: [string, number, number][] = [
      // token, GET /v2/stores (pay_in + manager), create_dynamic_pix (pay_in)
      [TOKENS.manager, 200, 201],
      [TOKENS.supervisor, 403, 201],
      [TOKENS.cashier, 403, 201],
      [TOKENS.payout, 401, 401],
      [TOKENS.otherMerchant, 200, 201],
    ];
    for (const [token, admin, sale] of expectations) {
      expect([token, (await api.get('/v2/stores', { token })).status]).toEqual([token, admin]);
      expect([token, (await api.sale({ amount: '1.00' }, { token })).status]).toEqual([token, sale]);
    }
  });

  it('the webhook secret of the fixture and no URL', async () => {
    const res = await api.control('GET', '/webhook');
    expect(res.body).toEqual({ '1': { url: null, secret: FIXTURE_WEBHOOK_SECRET }, '2': { url: null, secret: FIXTURE_WEBHOOK_SECRET } });
  });

  it('the sandbox clock starts at the real time', async () => {
    const fresh = await startTestSandbox();
    try {
      const res = await fresh.api.control('GET', '/clock');
      expect(res.body.offset_ms).toBe(0);
      expect(Math.abs(Date.parse(res.body.now) - Date.now())).toBeLessThan(60_000);
    } finally {
      await fresh.close();
    }
  });
});

describe('POST /_sandbox/pay', () => {
  it('pays by store_id/checkout_id and answers the payment', async () => {
    const sale = await api.sale({ amount: '4.20' });
    const res = await api.control('POST', '/pay', { store_id: 1, checkout_id: 1 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ pix_id: sale.body.pix_id, service_id: sale.body.service_id, amount_brl: '4.20', late: false });
    expect(res.body.webhook_ids).toHaveLength(2);
  });

  it('pays another merchant checkout with merchant_id', async () => {
    const sale = await api.sale({ amount: '1.00' }, { token: TOKENS.otherMerchant });
    const res = await api.control('POST', '/pay', { merchant_id: 2, store_id: 1, checkout_id: 1 });
    expect(res.body.pix_id).toBe(sale.body.pix_id);
  });

  it.each<[string, unknown, number]>([
    ['no way to pay', {}, 422],
    ['two ways at once', { emv: 'x', store_id: 1 }, 422],
    ['a bad amount', { store_id: 1, amount: '1.001' }, 422],
    ['a zero amount', { store_id: 1, amount: 0 }, 422],
    ['a code with a wrong CRC', { emv: '0002016304FFFF' }, 422],
    ['a code of an unknown location', { emv: buildPixBrCode({ merchantName: 'x', merchantCity: 'y', locationUrl: 'pix.sandbox.local/qr/v2/nowhere' }) }, 404],
    ['a missing checkout', { store_id: 1, checkout_id: 77 }, 404],
    ['a checkout with nothing to pay', { store_id: 1, checkout_id: 1 }, 409],
    ['late_for an unknown sale', { late_for: 'pix_nope' }, 404],
  ])('refuses %s (%i) and pays nothing', async (_name, body, status) => {
    const res = await api.control('POST', '/pay', body);
    expect(res.status).toBe(status);
    expect(res.body.detail).toBeDefined();
    expect((await api.control('GET', '/events')).body).toEqual([]);
  });

  it('late_for needs a displaced, unpaid sale', async () => {
    await api.printedCheckout(1);
    const first = await api.sale({ amount: '1.00' });
    const second = await api.sale({ amount: '2.00' });
    expect((await api.control('POST', '/pay', { late_for: second.body.pix_id })).status).toBe(409);
    expect((await api.control('POST', '/pay', { late_for: first.body.pix_id })).status).toBe(200);
    expect((await api.control('POST', '/pay', { late_for: first.body.pix_id })).status).toBe(409);
  });

  it('an expired dynamic charge cannot be paid', async () => {
    const sale = await api.sale({ amount: '1.00', expire: 60 });
    await api.advance(60);
    const res = await api.control('POST', '/pay', { emv: sale.body.emv });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ detail: 'Charge expired' });
  });
});

describe('POST /_sandbox/clock/advance', () => {
  it('moves the clock forward only', async () => {
    const before = Date.parse((await api.control('GET', '/clock')).body.now);
    const res = await api.advance(3600);
    expect(res.status).toBe(200);
    expect(Date.parse(res.body.now) - before).toBeGreaterThanOrEqual(3_600_000);
    for (const body of [{ seconds: -1 }, { seconds: '10' }, {}, { seconds: null }, { seconds: 1e12 }]) {
      const bad = await api.control('POST', '/clock/advance', body);
      expect(bad.status).toBe(422);
    }
    const after = Date.parse((await api.control('GET', '/clock')).body.now);
    expect(after - before).toBeLessThan(3_600_000 + 60_000);
  });

  it('a reset does not move the clock back', async () => {
    await api.advance(7200);
    await api.reset();
    expect((await api.control('GET', '/clock')).body.offset_ms).toBeGreaterThanOrEqual(7_200_000);
  });
});

describe('PUT /_sandbox/webhook', () => {
  it('sets the endpoint of every merchant, or of one merchant', async () => {
    const all = await api.control('PUT', '/webhook', { url: 'http://127.0.0.1:9/hooks' });
    expect(all.status).toBe(200);
    const one = await api.control('PUT', '/webhook', { url: 'http://127.0.0.1:9/m2', merchant_id: 2 });
    expect(one.body).toEqual({ '2': { url: 'http://127.0.0.1:9/m2', secret: FIXTURE_WEBHOOK_SECRET } });
    const state = (await api.control('GET', '/webhook')).body;
    expect([state['1'].url, state['2'].url]).toEqual(['http://127.0.0.1:9/hooks', 'http://127.0.0.1:9/m2']);
  });

  it.each([[{}], [{ url: 'ftp://x' }], [{ url: 'not a url' }], [{ url: 'http://x', secret: 'plain' }], [{ url: 'http://x', merchant_id: 9 }]])('refuses %j', async (body) => {
    expect((await api.control('PUT', '/webhook', body)).status).toBe(422);
    expect((await api.control('GET', '/webhook')).body['1'].url).toBeNull();
  });

  it('delivers to the merchant own endpoint', async () => {
    const r = await new Receiver().start();
    try {
      await api.control('PUT', '/webhook', { url: r.url, merchant_id: 2 });
      await api.sale({ amount: '1.00' }, { token: TOKENS.otherMerchant });
      await api.control('POST', '/pay', { merchant_id: 2 , store_id: 1, checkout_id: 1 });
      await waitFor(() => (r.deliveries.length >= 2 ? true : undefined), 'merchant 2 deliveries');
      expect(r.deliveries.map((d) => d.json.event)).toEqual(['charge.paid', 'charge.done']);
    } finally {
      await r.close();
    }
  });
});

describe('PUT /_sandbox/gateway', () => {
  it('defaults to same_emv, supported, enabled, no fallback, and takes partial updates', async () => {
    expect((await api.control('GET', '/gateway')).body).toEqual({ variant: 'same_emv', printed_supported: true, printed_disabled: false, printed_fallback_dynamic: false });
    const res = await api.control('PUT', '/gateway', { variant: 'amount_emv', printed_disabled: true });
    expect(res.body).toEqual({ variant: 'amount_emv', printed_supported: true, printed_disabled: true, printed_fallback_dynamic: false });
  });

  it.each([[{ variant: 'other' }], [{ printed_disabled: 'yes' }], [{ unknown_switch: true }]])('refuses %j', async (body) => {
    const res = await api.control('PUT', '/gateway', body);
    expect(res.status).toBe(422);
    expect((await api.control('GET', '/gateway')).body.variant).toBe('same_emv');
  });
});

describe('POST /_sandbox/faults', () => {
  it.each<[string, number, string | null]>([
    ['http_502', 502, '{"detail":"Bad Gateway"}'],
    ['http_503', 503, '{"detail":"Service Unavailable"}'],
    ['http_500', 500, 'Internal Server Error'],
  ])('%s answers the next N requests of the route without processing them', async (fault, status, text) => {
    const armed = await api.control('POST', '/faults', { target: 'route', method: 'POST', path: '/v2/create_dynamic_pix', fault, count: 2 });
    expect(armed.status).toBe(201);
    for (let i = 0; i < 2; i++) {
      const res = await api.sale({ amount: '1.00' });
      expect(res.status).toBe(status);
      expect(res.text).toBe(text);
    }
    expect((await api.control('GET', '/sales')).body).toEqual([]);
    expect((await api.sale({ amount: '1.00' })).status).toBe(201);
    expect((await api.control('GET', '/faults')).body).toEqual([]);
  });

  it('a route is named by its pattern or by a concrete path', async () => {
    const sale = await api.sale({ amount: '1.00' });
    await api.control('POST', '/faults', { target: 'route', method: 'GET', path: '/v2/tx_status/:pix_id', fault: 'http_503' });
    await api.control('POST', '/faults', { target: 'route', method: 'GET', path: `/v2/tx_status/${sale.body.pix_id}`, fault: 'http_502' });
    expect((await api.get(`/v2/tx_status/${sale.body.pix_id}`)).status).toBe(503);
    expect((await api.get(`/v2/tx_status/${sale.body.pix_id}`)).status).toBe(502);
    expect((await api.get(`/v2/tx_status/${sale.body.pix_id}`)).status).toBe(200);
  });

  it('timeout: no answer at all, and nothing processed', async () => {
    await api.control('POST', '/faults', { target: 'route', method: 'POST', path: '/v2/create_dynamic_pix', fault: 'timeout' });
    await expect(fetch(`${api.baseUrl}/v2/create_dynamic_pix`, { method: 'POST', headers: { authorization: `Bearer ${TOKENS.manager}`, 'content-type': 'application/json' }, body: '{"amount":"1.00"}', signal: AbortSignal.timeout(300) })).rejects.toThrow();
    expect((await api.control('GET', '/sales')).body).toEqual([]);
  });

  it('lost_response: processed, but the connection is cut before the answer', async () => {
    await api.control('POST', '/faults', { target: 'route', method: 'POST', path: '/v2/create_dynamic_pix', fault: 'lost_response' });
    await expect(api.sale({ amount: '1.00' })).rejects.toThrow();
    expect((await api.control('GET', '/sales')).body).toHaveLength(1);
  });

  it.each<[string, unknown]>([
    ['an unknown target', { target: 'disk', fault: 'http_500' }],
    ['an unknown route', { target: 'route', method: 'GET', path: '/v9/nothing', fault: 'http_500' }],
    ['a control route', { target: 'route', method: 'POST', path: '/_sandbox/reset', fault: 'http_500' }],
    ['an unknown fault', { target: 'route', method: 'GET', path: '/v2/stores', fault: 'http_418' }],
    ['a zero count', { target: 'route', method: 'GET', path: '/v2/stores', fault: 'http_500', count: 0 }],
    ['a delay without seconds', { target: 'webhooks', fault: 'delay' }],
    ['a reorder of one', { target: 'webhooks', fault: 'reorder', count: 1 }],
    ['an unknown gateway fault', { target: 'gateway', fault: 'slow' }],
  ])('refuses %s with 422, arming nothing', async (_name, body) => {
    expect((await api.control('POST', '/faults', body)).status).toBe(422);
    expect((await api.control('GET', '/faults')).body).toEqual([]);
  });

  it('GET lists armed faults; DELETE clears them', async () => {
    await api.control('POST', '/faults', { target: 'gateway', fault: 'printed_qr_error', count: 3 });
    const listed = (await api.control('GET', '/faults')).body;
    expect(listed).toEqual([{ id: expect.any(String), target: 'gateway', fault: 'printed_qr_error', remaining: 3 }]);
    expect((await api.control('DELETE', '/faults')).status).toBe(200);
    expect((await api.control('GET', '/faults')).body).toEqual([]);
    expect((await api.post('/v2/printed_dynamic_qrs', { checkout_id: 1 })).status).toBe(201);
  });
});

describe('GET /_sandbox/sales and GET /_sandbox/webhooks', () => {
  it('sales: every sale, newest first, with pix_id, service_id, amount_brl, status and displaced', async () => {
    await api.printedCheckout(1);
    const a = await api.sale({ amount: '1.00' });
    const b = await api.sale({ amount: '2.00' });
    await api.post('/v2/stores/1/checkouts', { checkout_desc: 'C2', wallet_id: 101 });
    const c = await api.sale({ amount: '3.00', checkout_id: 2 });
    await api.control('POST', '/pay', { emv: c.body.emv });
    const all = (await api.control('GET', '/sales')).body;
    expect(all.map((s: Json) => [s.pix_id, s.service_id, s.amount_brl, s.status, s.displaced])).toEqual([
      [c.body.pix_id, c.body.service_id, '3.00', 'paid', false],
      [b.body.pix_id, b.body.service_id, '2.00', 'pending', false],
      [a.body.pix_id, a.body.service_id, '1.00', 'pending', true],
    ]);
    const filtered = (await api.control('GET', '/sales?store_id=1&checkout_id=1')).body;
    expect(filtered.map((s: Json) => s.pix_id)).toEqual([b.body.pix_id, a.body.pix_id]);
    expect((await api.control('GET', '/sales?checkout_id=abc')).status).toBe(422);
  });

  it('webhooks: every attempt, oldest first, with webhook_id, event, attempt, url, status and at', async () => {
    const r = await new Receiver().start();
    try {
      await api.control('PUT', '/webhook', { url: r.url });
      const sale = await api.sale({ amount: '1.00' });
      await api.control('POST', '/pay', { emv: sale.body.emv });
      const log = await waitFor(async () => {
        const body = (await api.control('GET', '/webhooks')).body;
        return body.length === 2 && body.every((a: Json) => a.status !== null) ? body : undefined;
      }, 'two answered attempts');
      expect(log.map((a: Json) => [a.event, a.attempt, a.url, a.status])).toEqual([
        ['charge.paid', 1, r.url, 200],
        ['charge.done', 1, r.url, 200],
      ]);
      for (const a of log) {
        expect(a.webhook_id).toMatch(/^msg_/);
        expect(Number.isNaN(Date.parse(a.at))).toBe(false);
      }
    } finally {
      await r.close();
    }
  });
});

describe('POST /_sandbox/reset', () => {
  it('brings back the default fixture: stores, checkouts, configs, QRs, sales, gateway, faults, webhook URL', async () => {
    await api.post('/v2/stores', { store_name: 'temp' });
    await api.printedCheckout(3);
    await api.sale({ amount: '1.00' });
    await api.control('PUT', '/gateway', { variant: 'amount_emv' });
    await api.control('PUT', '/webhook', { url: 'http://127.0.0.1:9/x' });
    await api.control('POST', '/faults', { target: 'gateway', fault: 'printed_qr_error' });
    await api.control('POST', '/tokens', { token: 'temporary-token', merchant_id: 1, scopes: ['pay_in'], role: 'manager' });
    const res = await api.reset();
    expect(res.status).toBe(200);
    expect((await api.get('/v2/stores')).body).toHaveLength(1);
    expect((await api.get('/v2/stores/1/checkouts')).body).toHaveLength(1);
    expect((await api.get('/v2/printed_dynamic_qrs')).body.total).toBe(0);
    expect((await api.control('GET', '/sales')).body).toEqual([]);
    expect((await api.control('GET', '/gateway')).body.variant).toBe('same_emv');
    expect((await api.control('GET', '/faults')).body).toEqual([]);
    expect((await api.control('GET', '/webhook')).body['1'].url).toBeNull();
    expect((await api.get('/v2/stores', { token: 'temporary-token' })).status).toBe(401);
  });
});

describe('control off', () => {
  it('every /_sandbox/ path is 404 Not Found; the public API works', async () => {
    const closed = await startTestSandbox({ control: false });
    try {
      for (const [method, path] of [['POST', '/reset'], ['POST', '/pay'], ['GET', '/sales'], ['POST', '/clock/advance']] as const) {
        const res = await closed.api.control(method, path, method === 'GET' ? undefined : {});
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ detail: 'Not Found' });
      }
      expect((await closed.api.get('/v2/stores')).status).toBe(200);
    } finally {
      await closed.close();
    }
  });
});
