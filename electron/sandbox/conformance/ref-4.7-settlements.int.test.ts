/**
 * Reference 4.7 (settlement reads), with 2.7-2.9 (fields), 3.3 (statuses), 7 and 8 (date
 * rules, page bounds), through HTTP against a sandbox started in-process on loopback.
 */
import { describe, expect, it } from 'vitest';
import { TOKENS, addCheckout, paidCharge, q, setMode, useHarness, type Answer, type Harness } from './payout-settlement-harness.ts';

const DAY = 86_400_000;
const SETTLEMENT_FIELDS = [
  'address_from',
  'address_to',
  'amount',
  'created_at',
  'currency',
  'external_settlement_id',
  'provider_settlement_id',
  'settled_at',
  'settlement_id',
  'settlement_message',
  'settlement_provider_name',
  'status',
];
const CHARGE_FIELDS = [
  'charged_amount',
  'charged_currency',
  'charged_timestamp',
  'external_id',
  'received_timestamp',
  'service_id',
  'service_request_id',
  'settlement_amount',
  'settlement_currency',
];
const TRANSACTION_FIELDS = [
  'charged_amount',
  'charged_currency',
  'charged_timestamp',
  'external_id',
  'external_settlement_id',
  'provider_settlement_id',
  'received_timestamp',
  'service_id',
  'service_request_id',
  'settled_at',
  'settlement_amount',
  'settlement_currency',
  'settlement_id',
  'settlement_provider_name',
];

const h: Harness = useHarness();

async function run(confirm = true): Promise<Answer> {
  const r = await h.control('POST', '/_sandbox/settlements/run', { confirm });
  expect(r.status).toBe(200);
  return r;
}

/** A settled batch of the given charges in ars_batched mode; returns its id. */
async function settledBatch(amounts: string[]): Promise<number> {
  await setMode(h, 'ars_batched');
  for (const [i, amount] of amounts.entries()) await paidCharge(h, amount, { externalId: `order-${i}` });
  const r = await run();
  expect(r.body.created).toHaveLength(1);
  return r.body.created[0].settlement_id;
}

async function list(query: string, token: string = TOKENS.cashier): Promise<Answer> {
  return h.api('GET', `/v1/settlements?${query}`, token);
}

async function around(): Promise<string> {
  const now = await h.now();
  return `start_date=${q(now - DAY)}&end_date=${q(now + DAY)}`;
}

describe('GET /v1/settlements', () => {
  it('lists settled settlements in the settled_at range with total, limit and offset', async () => {
    const id = await settledBatch(['12.50', '7.00']);
    const r = await list(await around());
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ total: 1, limit: 100, offset: 0 });
    expect(r.body.settlements).toHaveLength(1);
    const s = r.body.settlements[0];
    expect(Object.keys(s).sort()).toEqual(SETTLEMENT_FIELDS);
    expect(s).toMatchObject({
      settlement_id: id,
      status: 'DONE',
      currency: 'ARS',
      amount: 4822.71, // 3091.48 + 1731.23 (7.00 x 247.3183 = 1731.2281)
      provider_settlement_id: expect.any(String),
      settlement_provider_name: expect.any(String),
      address_to: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', // checkout 1's wallet 101
      address_from: expect.any(String),
    });
    expect(Date.parse(s.settled_at)).toBeGreaterThanOrEqual(Date.parse(s.created_at));
  });

  it('selects on settled_at: a range that ends before it finds nothing', async () => {
    await settledBatch(['12.50']);
    const now = await h.now();
    const r = await list(`start_date=${q(now - 2 * DAY)}&end_date=${q(now - DAY)}`);
    expect(r.body).toMatchObject({ settlements: [], total: 0 });
  });

  it('leaves out settlements still in flight (settled_at null)', async () => {
    await setMode(h, 'ars_batched');
    await paidCharge(h, '12.50');
    await run(false);
    expect((await list(await around())).body.total).toBe(0);
    await h.advance(120);
    expect((await list(await around())).body.total).toBe(1);
  });

  it('pages newest first; total counts the whole range', async () => {
    await setMode(h, 'ars_batched');
    const ids: number[] = [];
    for (const amount of ['1.00', '2.00', '3.00']) {
      await paidCharge(h, amount);
      ids.push((await run()).body.created[0].settlement_id);
      await h.advance(1);
    }
    const range = await around();
    const page = await list(`${range}&limit=2&offset=1`);
    expect(page.body).toMatchObject({ total: 3, limit: 2, offset: 1 });
    expect(page.body.settlements.map((s: { settlement_id: number }) => s.settlement_id)).toEqual([ids[1], ids[0]]);
  });

  it('accepts a positive UTC offset (percent-encoded) and exactly 31 days', async () => {
    await settledBatch(['12.50']);
    const now = await h.now();
    const start = new Date(now - DAY).toISOString().replace('Z', '+00:00');
    const end = new Date(now - DAY + 31 * DAY).toISOString().replace('Z', '+00:00');
    const r = await list(`start_date=${encodeURIComponent(start)}&end_date=${encodeURIComponent(end)}`);
    expect(r.status).toBe(200);
    expect(r.body.total).toBe(1);
  });

  it.each([
    ['start_date without offset', 'start_date=2026-11-01T00:00:00&end_date=2026-11-02T00:00:00Z', 'start_date must be an ISO 8601 datetime with a UTC offset'],
    ['end_date without offset', 'start_date=2026-11-01T00:00:00Z&end_date=2026-11-02T00:00:00', 'end_date must be an ISO 8601 datetime with a UTC offset'],
    ['a date alone', 'start_date=2026-11-01&end_date=2026-11-02T00:00:00Z', 'start_date must be an ISO 8601 datetime with a UTC offset'],
    ['a range over 31 days', 'start_date=2026-10-01T00:00:00Z&end_date=2026-11-01T00:00:01Z', 'start_date and end_date must be at most 31 days apart'],
    ['end_date equal to start_date', 'start_date=2026-11-01T00:00:00Z&end_date=2026-11-01T00:00:00Z', 'end_date must be after start_date'],
    ['end_date before start_date', 'start_date=2026-11-02T00:00:00Z&end_date=2026-11-01T00:00:00%2B00:00', 'end_date must be after start_date'],
  ])('400 for %s, with a detail string', async (_name, query, detail) => {
    const r = await list(query);
    expect(r.status).toBe(400);
    expect(typeof r.body.detail).toBe('string');
    expect(r.body.detail.startsWith(detail)).toBe(true);
  });

  it.each([
    ['start_date missing', 'end_date=2026-11-02T00:00:00Z', 'missing', ['query', 'start_date']],
    ['end_date missing', 'start_date=2026-11-02T00:00:00Z', 'missing', ['query', 'end_date']],
    ['a malformed date', 'start_date=yesterday&end_date=2026-11-02T00:00:00Z', 'datetime_from_date_parsing', ['query', 'start_date']],
    ['an unencoded plus', 'start_date=2026-11-01T00:00:00+03:00&end_date=2026-11-02T00:00:00Z', 'datetime_from_date_parsing', ['query', 'start_date']],
    ['limit 0', 'start_date=2026-11-01T00:00:00Z&end_date=2026-11-02T00:00:00Z&limit=0', 'greater_than_equal', ['query', 'limit']],
    ['limit 1001', 'start_date=2026-11-01T00:00:00Z&end_date=2026-11-02T00:00:00Z&limit=1001', 'less_than_equal', ['query', 'limit']],
    ['offset -1', 'start_date=2026-11-01T00:00:00Z&end_date=2026-11-02T00:00:00Z&offset=-1', 'greater_than_equal', ['query', 'offset']],
  ])('422 for %s', async (_name, query, type, loc) => {
    const r = await list(query);
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual(expect.arrayContaining([expect.objectContaining({ type, loc })]));
  });

  it('accepts limit 1000', async () => {
    expect((await list(`${await around()}&limit=1000`)).status).toBe(200);
  });

  it('shows each merchant only its own settlements', async () => {
    await settledBatch(['12.50']);
    expect((await list(await around(), TOKENS.otherMerchant)).body.total).toBe(0);
  });

  it('needs scope pay_in, any role', async () => {
    const range = await around();
    const noScope = await list(range, TOKENS.payout);
    expect(noScope.status).toBe(401);
    expect(noScope.body).toEqual({ detail: 'Token Profile Not Authorized for this Endpoint' });
    expect((await list(range, null as unknown as string)).status).toBe(401);
    expect((await list(range, TOKENS.supervisor)).status).toBe(200);
  });
});

describe('GET /v1/settlements/{settlement_id}', () => {
  it('answers the settlement with its nine-field charges and an empty refunds array', async () => {
    const id = await settledBatch(['12.50', '7.00']);
    const r = await h.api('GET', `/v1/settlements/${id}`, TOKENS.cashier);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual([...SETTLEMENT_FIELDS, 'charges', 'refunds'].sort());
    expect(r.body.refunds).toEqual([]);
    expect(r.body.charges.map((c: { external_id: string }) => c.external_id)).toEqual(['order-0', 'order-1']);
    for (const c of r.body.charges) {
      expect(Object.keys(c).sort()).toEqual(CHARGE_FIELDS);
      expect(c).toMatchObject({ charged_currency: 'BRL', settlement_currency: 'ARS', service_request_id: expect.stringMatching(/^pix_/) });
      expect(Date.parse(c.received_timestamp)).toBeGreaterThanOrEqual(Date.parse(c.charged_timestamp));
    }
    expect(r.body.charges[0]).toMatchObject({ charged_amount: 12.5, settlement_amount: 3091.48 });
  });

  it('works for a legacy 1:1 settlement, which has no webhook', async () => {
    const charge = await paidCharge(h, '12.50', { externalId: 'legacy-1' });
    const done = (await h.events()).find((e) => e.event === 'charge.done');
    const id = done?.payload['settlement_id'] as number;
    expect(typeof id).toBe('number');
    const r = await h.api('GET', `/v1/settlements/${id}`, TOKENS.cashier);
    expect(r.status).toBe(200);
    expect(r.body.charges).toEqual([expect.objectContaining({ service_id: charge.service_id, external_id: 'legacy-1', settlement_amount: 3091.48 })]);
    expect(r.body.refunds).toEqual([]);
  });

  it('shows the deductions with their request ids and attach time', async () => {
    await setMode(h, 'ars_batched');
    const charge = await paidCharge(h, '12.50', { externalId: 'o-r' });
    await paidCharge(h, '20.00');
    const refund = await h.api('POST', '/v2/pay_in_refunds/request', TOKENS.cashier, { service_id: charge.service_id, amount: '12.50' });
    const id = (await run()).body.created[0].settlement_id;
    const r = await h.api('GET', `/v1/settlements/${id}`, TOKENS.cashier);
    expect(r.body.refunds).toEqual([
      {
        service_refund_id: refund.body.service_refund_id,
        pay_in_refund_request_id: refund.body.pay_in_refund_request_id,
        service_id: charge.service_id,
        external_id: 'o-r',
        service_request_id: charge.pix_id,
        refunded_amount: 12.5,
        refunded_currency: 'BRL',
        deduction_amount: 3091.48,
        deduction_currency: 'ARS',
        created_at: r.body.created_at,
      },
    ]);
    // a full refund cancels its charge exactly: what is left is the 20.00 charge
    expect(r.body.amount).toBe(4946.37); // 20.00 x 247.3183 = 4946.366
  });

  it('404 Settlement not found for a missing id and, identically, another merchant', async () => {
    const id = await settledBatch(['12.50']);
    const foreign = await h.api('GET', `/v1/settlements/${id}`, TOKENS.otherMerchant);
    const missing = await h.api('GET', '/v1/settlements/999999', TOKENS.cashier);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ detail: 'Settlement not found' });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual(foreign.body);
  });

  it('422 for a settlement_id that is not an integer', async () => {
    const r = await h.api('GET', '/v1/settlements/abc', TOKENS.cashier);
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual([expect.objectContaining({ type: 'int_parsing', loc: ['path', 'settlement_id'] })]);
  });
});

describe('settlement status (reference 3.3)', () => {
  it('blockchain batched: CREATED, then PROCESSING once broadcast (hash set), then DONE with settled_at', async () => {
    await setMode(h, 'blockchain_batched');
    await paidCharge(h, '12.50');
    const created = (await run(false)).body.created[0];
    const detail = async () => (await h.api('GET', `/v1/settlements/${created.settlement_id}`, TOKENS.cashier)).body;
    expect(await detail()).toMatchObject({ status: 'CREATED', settled_at: null, provider_settlement_id: null, external_settlement_id: null, currency: 'USDt' });
    await h.advance(60);
    const processing = await detail();
    expect(processing).toMatchObject({ status: 'PROCESSING', settled_at: null, provider_settlement_id: null });
    expect(processing.external_settlement_id).toMatch(/^0x[0-9a-f]{64}$/);
    await h.advance(60);
    const done = await detail();
    expect(done).toMatchObject({ status: 'DONE', provider_settlement_id: expect.any(String), external_settlement_id: processing.external_settlement_id });
    expect(Date.parse(done.settled_at) - Date.parse(done.created_at)).toBe(120_000);
  });

  it('ARS batched: PROCESSING then DONE when the provider confirms; no on-chain hash', async () => {
    await setMode(h, 'ars_batched');
    await paidCharge(h, '12.50');
    const id = (await run(false)).body.created[0].settlement_id;
    await h.advance(60);
    expect((await h.api('GET', `/v1/settlements/${id}`, TOKENS.cashier)).body).toMatchObject({ status: 'PROCESSING', external_settlement_id: null });
    await h.advance(60);
    expect((await h.api('GET', `/v1/settlements/${id}`, TOKENS.cashier)).body).toMatchObject({ status: 'DONE', external_settlement_id: null });
  });
});

describe('GET /v1/settlements/transactions', () => {
  it('lists settled charges over charged_timestamp with their settlement', async () => {
    const id = await settledBatch(['12.50', '7.00']);
    const r = await h.api('GET', `/v1/settlements/transactions?${await around()}`, TOKENS.cashier);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ total: 2, limit: 100, offset: 0 });
    for (const t of r.body.transactions) {
      expect(Object.keys(t).sort()).toEqual(TRANSACTION_FIELDS);
      expect(t).toMatchObject({ settlement_id: id, settled_at: expect.any(String), settlement_provider_name: expect.any(String) });
    }
    expect(r.body.transactions.map((t: { external_id: string }) => t.external_id)).toEqual(['order-0', 'order-1']);
  });

  it('filters by settlement_id and pages', async () => {
    const first = await settledBatch(['1.00', '2.00']);
    await paidCharge(h, '3.00');
    const second = (await run()).body.created[0].settlement_id;
    const range = await around();
    const only = await h.api('GET', `/v1/settlements/transactions?${range}&settlement_id=${second}`, TOKENS.cashier);
    expect(only.body.transactions.map((t: { settlement_id: number }) => t.settlement_id)).toEqual([second]);
    const page = await h.api('GET', `/v1/settlements/transactions?${range}&limit=1&offset=1`, TOKENS.cashier);
    expect(page.body).toMatchObject({ total: 3, limit: 1, offset: 1 });
    expect(page.body.transactions[0].settlement_id).toBe(first);
  });

  it('selects on charged_timestamp: charges created before the range are left out', async () => {
    await settledBatch(['12.50']);
    const now = await h.now();
    const r = await h.api('GET', `/v1/settlements/transactions?start_date=${q(now + 1000)}&end_date=${q(now + DAY)}`, TOKENS.cashier);
    expect(r.body.total).toBe(0);
  });

  it('includes charges of a settlement still in flight, with settled_at null', async () => {
    await setMode(h, 'ars_batched');
    await paidCharge(h, '12.50');
    await run(false);
    const r = await h.api('GET', `/v1/settlements/transactions?${await around()}`, TOKENS.cashier);
    expect(r.body.transactions).toEqual([expect.objectContaining({ settled_at: null, provider_settlement_id: null })]);
  });

  it('applies the same date rules: 400 without offset or over 31 days, 422 when missing', async () => {
    const noOffset = await h.api('GET', '/v1/settlements/transactions?start_date=2026-11-01T00:00:00&end_date=2026-11-02T00:00:00Z', TOKENS.cashier);
    expect(noOffset.status).toBe(400);
    const tooLong = await h.api('GET', '/v1/settlements/transactions?start_date=2026-09-01T00:00:00Z&end_date=2026-11-02T00:00:00Z', TOKENS.cashier);
    expect(tooLong.status).toBe(400);
    expect((await h.api('GET', '/v1/settlements/transactions?end_date=2026-11-02T00:00:00Z', TOKENS.cashier)).status).toBe(422);
    expect((await h.api('GET', '/v1/settlements/transactions?start_date=2026-11-01T00:00:00Z&end_date=2026-11-02T00:00:00Z&limit=1001', TOKENS.cashier)).status).toBe(422);
  });

  it('shows another merchant nothing', async () => {
    await settledBatch(['12.50']);
    expect((await h.api('GET', `/v1/settlements/transactions?${await around()}`, TOKENS.otherMerchant)).body.total).toBe(0);
  });
});

describe('GET /v1/settlements/pending-charges', () => {
  const pending = (query = '', token: string = TOKENS.cashier): Promise<Answer> => h.api('GET', `/v1/settlements/pending-charges${query}`, token);

  it('is always empty with no checkout enrolled (legacy 1:1), totals zero', async () => {
    await paidCharge(h, '12.50');
    const r = await pending();
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      items: [],
      pending_refunds: [],
      totals: { count: 0, settlement_amount: 0, refund_count: 0, refund_deduction: 0, net_settlement_amount: 0 },
      limit: 100,
      offset: 0,
    });
  });

  it('resolves the one enrolled checkout; lists done charges oldest first with totals', async () => {
    await setMode(h, 'ars_batched');
    const a = await paidCharge(h, '12.50', { externalId: 'a' });
    await h.advance(1);
    const b = await paidCharge(h, '7.00', { externalId: 'b' });
    await paidCharge(h, '9.00', { pay: false }); // not done: not pending
    const r = await pending();
    expect(r.body.items).toEqual([
      { service_request_id: a.pix_id, service_id: a.service_id, external_id: 'a', charged_amount: 12.5, charged_currency: 'BRL', settlement_amount: 3091.48, settlement_currency: 'ARS', charged_timestamp: expect.any(String) },
      { service_request_id: b.pix_id, service_id: b.service_id, external_id: 'b', charged_amount: 7, charged_currency: 'BRL', settlement_amount: 1731.23, settlement_currency: 'ARS', charged_timestamp: expect.any(String) },
    ]);
    expect(r.body.totals).toEqual({ count: 2, settlement_amount: 4822.71, refund_count: 0, refund_deduction: 0, net_settlement_amount: 4822.71 });
  });

  it('computes totals over the whole filtered set, not the page', async () => {
    await setMode(h, 'blockchain_batched');
    for (const amount of ['12.50', '0.10', '0.30']) await paidCharge(h, amount);
    const r = await pending('?limit=1&offset=1');
    expect(r.body.items).toHaveLength(1);
    expect(r.body.items[0].settlement_amount).toBe(0.018234);
    // 2.279312 + 0.018234 + 0.054704
    expect(r.body.totals).toMatchObject({ count: 3, settlement_amount: 2.35225, net_settlement_amount: 2.35225 });
    expect(r.body).toMatchObject({ limit: 1, offset: 1 });
  });

  it('needs checkout_id when several checkouts are enrolled (400), and takes it when given', async () => {
    const second = await addCheckout(h);
    await setMode(h, 'ars_batched', 1, 1);
    await setMode(h, 'blockchain_batched', 1, second);
    await paidCharge(h, '12.50', { checkoutId: second });
    const r = await pending();
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ detail: 'checkout_id is required when more than one checkout is enrolled in the batched settlement program' });
    const chosen = await pending(`?checkout_id=${second}`);
    expect(chosen.body.items).toEqual([expect.objectContaining({ settlement_currency: 'USDt', settlement_amount: 2.279312 })]);
    expect((await pending('?checkout_id=1')).body.items).toEqual([]);
  });

  it('answers a legacy checkout_id with an empty result', async () => {
    const second = await addCheckout(h);
    await setMode(h, 'ars_batched', 1, second);
    expect((await pending('?checkout_id=1')).body.totals.count).toBe(0);
  });

  it('lists refunds of charges settled earlier; a negative net means no settlement this cycle', async () => {
    await setMode(h, 'ars_batched');
    const charge = await paidCharge(h, '12.50', { externalId: 'old' });
    await run();
    const refund = await h.api('POST', '/v2/pay_in_refunds/request', TOKENS.cashier, { service_id: charge.service_id, amount: '5.00' });
    const r = await pending();
    expect(r.body.items).toEqual([]);
    expect(r.body.pending_refunds).toEqual([expect.objectContaining({ service_refund_id: refund.body.service_refund_id, external_id: 'old', deduction_amount: 1236.59 })]);
    expect(r.body.totals).toEqual({ count: 0, settlement_amount: 0, refund_count: 1, refund_deduction: 1236.59, net_settlement_amount: -1236.59 });
    expect((await run()).body.created).toEqual([]);
  });

  it('defaults to the last 30 days of charges; pending refunds are not windowed', async () => {
    await setMode(h, 'ars_batched');
    const start = await h.now();
    const charge = await paidCharge(h, '12.50');
    // a full refund: the net is zero, so the charge stays pending window after window
    await h.api('POST', '/v2/pay_in_refunds/request', TOKENS.cashier, { service_id: charge.service_id });
    expect((await pending()).body.totals.count).toBe(1);
    await h.advance(30 * 86_400 + 3_600);
    const later = await pending();
    expect(later.body.items).toEqual([]);
    expect(later.body.pending_refunds).toHaveLength(1);
    const explicit = await pending(`?from=${q(start - 60_000)}&to=${q(start + DAY)}`);
    expect(explicit.body.items.map((i: { service_id: string }) => i.service_id)).toEqual([charge.service_id]);
  });

  it.each([
    ['from without offset', '?from=2026-11-01T00:00:00', 400, 'from must be an ISO 8601 datetime with a UTC offset'],
    ['to without offset', '?from=2026-11-01T00:00:00Z&to=2026-11-02T00:00:00', 400, 'to must be an ISO 8601 datetime with a UTC offset'],
    ['a range over 31 days', '?from=2026-09-01T00:00:00Z&to=2026-11-01T00:00:00Z', 400, 'from and to must be at most 31 days apart'],
  ])('400 for %s', async (_name, query, status, detail) => {
    const r = await pending(query);
    expect(r.status).toBe(status);
    expect(r.body.detail.startsWith(detail)).toBe(true);
  });

  it.each(['?limit=0', '?limit=501', '?offset=-1', '?checkout_id=x', '?from=soon'])('422 for %s', async (query) => {
    expect((await pending(query)).status).toBe(422);
  });

  it('accepts limit 500', async () => {
    expect((await pending('?limit=500')).status).toBe(200);
  });

  it('needs scope pay_in', async () => {
    expect((await pending('', TOKENS.payout)).status).toBe(401);
  });
});
