// Audit (QA): checks of contract 7, reference 7 and the sale/webhook rules that the other
// conformance files do not already make. Where those files lean on the project's own helpers
// (shared/emv.ts, shared/standard-webhooks.ts), the checks here are independent: their own
// CRC16 and TLV reader, their own HMAC with node:crypto. Everything goes through HTTP.
//
// The discrepancies the audit found are fixed; their checks are at the end.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { FIXTURE_WEBHOOK_SECRET, TOKENS, waitFor } from './harness.ts';
import type { Delivery, Json } from './harness.ts';
import { useSandbox } from './fixtures/sandbox.ts';

const t = useSandbox({ receiver: true });
const { api, receiver } = t;

// ---------------------------------------------------------------------------------------
// Independent helpers

/** CRC16-CCITT-FALSE (poly 0x1021, init 0xFFFF), written here from the BR Code manual. */
function crc16(text: string): string {
  let crc = 0xffff;
  for (const byte of Buffer.from(text, 'utf8')) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

function tlv(text: string): [string, string][] {
  const out: [string, string][] = [];
  let i = 0;
  while (i < text.length) {
    const id = text.slice(i, i + 2);
    const len = Number(text.slice(i + 2, i + 4));
    expect(id).toMatch(/^\d\d$/);
    expect(Number.isInteger(len)).toBe(true);
    out.push([id, text.slice(i + 4, i + 4 + len)]);
    i += 4 + len;
  }
  expect(i).toBe(text.length);
  return out;
}

/** Contract 2's BR Code rules, checked field by field; returns field 54 (or null). */
function expectPixBrCode(emv: unknown): string | null {
  expect(typeof emv).toBe('string');
  const text = emv as string;
  expect(text.slice(-8, -4)).toBe('6304');
  expect(text.slice(-4)).toBe(crc16(text.slice(0, -4)));
  const fields = tlv(text);
  const ids = fields.map(([id]) => id);
  expect(new Set(ids).size).toBe(ids.length);
  const f = new Map(fields);
  expect(fields[0]).toEqual(['00', '01']);
  expect(fields.at(-1)?.[0]).toBe('63');
  const account = new Map(tlv(f.get('26') ?? ''));
  expect(account.get('00')?.toLowerCase()).toBe('br.gov.bcb.pix');
  expect(account.get('25')).toMatch(/\S/); // a location URL: these are dynamic codes
  expect(f.get('52')).toMatch(/^\d{4}$/);
  expect(f.get('53')).toBe('986');
  expect(f.get('58')).toBe('BR');
  expect((f.get('59') ?? '').length).toBeGreaterThanOrEqual(1);
  expect((f.get('59') ?? '').length).toBeLessThanOrEqual(25);
  expect((f.get('60') ?? '').length).toBeGreaterThanOrEqual(1);
  expect((f.get('60') ?? '').length).toBeLessThanOrEqual(15);
  expect(f.has('62')).toBe(true);
  return f.get('54') ?? null;
}

/** Contract 4's signature, computed here with node:crypto from the secret's base64 bytes. */
function expectedSignature(secret: string, id: string, timestamp: string, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return 'v1,' + createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
}

function expectSigned(d: Delivery, secret: string): void {
  const id = d.headers['webhook-id'];
  const ts = d.headers['webhook-timestamp'];
  const sig = d.headers['webhook-signature'];
  expect(typeof id).toBe('string');
  expect(ts).toMatch(/^\d{10}$/);
  expect(typeof sig).toBe('string');
  const entries = (sig as string).split(' ');
  expect(entries).toContain(expectedSignature(secret, id as string, ts as string, d.body));
}

async function sandboxNowMs(): Promise<number> {
  return Date.parse((await api.control('GET', '/clock')).body.now);
}

async function deliveries(n: number): Promise<Delivery[]> {
  return waitFor(() => (receiver.deliveries.length >= n ? [...receiver.deliveries] : undefined), `${n} deliveries`);
}

// ---------------------------------------------------------------------------------------

describe('contract 7: every control path and method, with the bodies as written', () => {
  it('answers each path with its contract body; the wrong method is a 405 (the path exists exactly)', async () => {
    expect((await api.control('POST', '/reset')).status).toBe(200);
    expect((await api.control('PUT', '/webhook', { url: receiver.url, secret: FIXTURE_WEBHOOK_SECRET })).status).toBe(200);
    const gateway = await api.control('PUT', '/gateway', { variant: 'same_emv', printed_supported: true, printed_disabled: false, printed_fallback_dynamic: false });
    expect(gateway.status).toBe(200);
    expect(gateway.body).toEqual({ variant: 'same_emv', printed_supported: true, printed_disabled: false, printed_fallback_dynamic: false });
    expect((await api.control('PUT', '/checkouts/1/1/mode', { mode: 'ars_batched' })).status).toBe(200);

    const first = await api.sale({ amount: '3.00' });
    const byCheckout = await api.control('POST', '/pay', { store_id: 1, checkout_id: 1 });
    expect(byCheckout.status).toBe(200);
    expect(byCheckout.body).toMatchObject({ pix_id: first.body.pix_id, service_id: first.body.service_id, amount_brl: '3.00' });
    const second = await api.sale({ amount: '4.00' });
    const byEmv = await api.control('POST', '/pay', { emv: second.body.emv, amount: '4.50' });
    expect(byEmv.status).toBe(200);
    expect(byEmv.body).toMatchObject({ pix_id: second.body.pix_id, amount_brl: '4.50' });

    expect((await api.control('POST', '/clock/advance', { seconds: 1 })).status).toBe(200);
    // No body at all: "close the current window now".
    const run = await api.call('POST', '/_sandbox/settlements/run', { token: null });
    expect(run.status).toBe(200);
    expect(run.body.created).toHaveLength(1);

    const fault = await api.control('POST', '/faults', { target: 'webhooks', fault: 'drop' });
    expect(fault.status).toBeGreaterThanOrEqual(200);
    expect(fault.status).toBeLessThan(300);

    const claim = await api.post('/v2/payout_meds', { service_id: 'po_fixture_ok', reason: 'scam', details: 'ten chars or more' }, { token: TOKENS.payout });
    expect(claim.status).toBe(202);
    const moved = await api.control('POST', `/med/${claim.body.med_case_id}/advance`, { status: 'open' });
    expect(moved.status).toBe(200);
    expect(moved.body.status_id).toBe('open');

    const sales = await api.control('GET', '/sales?store_id=1&checkout_id=1');
    expect(sales.status).toBe(200);
    expect(sales.body.map((s: Json) => s.pix_id)).toEqual([second.body.pix_id, first.body.pix_id]);
    const hooks = await api.control('GET', '/webhooks');
    expect(hooks.status).toBe(200);
    expect(Array.isArray(hooks.body)).toBe(true);
    expect((await api.control('POST', '/reset')).status).toBe(200);
    expect((await api.control('GET', '/sales')).body).toEqual([]);

    for (const [method, path] of [
      ['GET', '/pay'],
      ['GET', '/clock/advance'],
      ['GET', '/settlements/run'],
      ['POST', '/webhook'],
      ['POST', '/checkouts/1/1/mode'],
      ['POST', '/gateway'],
      ['GET', '/med/med_000000000000000000000000/advance'],
      ['PUT', '/faults'],
      ['POST', '/sales'],
      ['POST', '/webhooks'],
      ['GET', '/reset'],
    ] as const) {
      const res = await api.control(method, path, method === 'GET' ? undefined : {});
      expect([method, path, res.status]).toEqual([method, path, 405]);
    }
  });

  it('sales rows: pix_id, service_id, amount_brl (two places), status among the four, displaced a boolean; newest first', async () => {
    expect((await api.control('GET', '/sales?store_id=1&checkout_id=1')).body).toEqual([]);
    await api.printedCheckout(1);
    const a = await api.sale({ amount: 1 }); // displaced, then paid late
    const b = await api.sale({ amount: '2.5' }); // paid
    await api.control('POST', '/pay', { store_id: 1, checkout_id: 1 });
    await api.control('POST', '/pay', { late_for: a.body.pix_id });
    const c = await api.sale({ amount: '3.00' }); // expires
    await api.advance(300);
    const d = await api.sale({ amount: '4.00' }); // pending
    const rows: Json[] = (await api.control('GET', '/sales?store_id=1&checkout_id=1')).body;
    expect(rows.map((r) => [r.pix_id, r.amount_brl, r.status, r.displaced])).toEqual([
      [d.body.pix_id, '4.00', 'pending', false],
      [c.body.pix_id, '3.00', 'expired', false],
      [b.body.pix_id, '2.50', 'paid', false],
      [a.body.pix_id, '1.00', 'paid', true],
    ]);
    for (const r of rows) {
      expect(r.pix_id).toMatch(/^pix_/);
      expect(r.service_id).toMatch(/^svc_/);
      expect(r.amount_brl).toMatch(/^\d+\.\d{2}$/);
      expect(['pending', 'paid', 'expired', 'refunded']).toContain(r.status);
      expect(typeof r.displaced).toBe('boolean');
    }
  });

  it('webhook attempts: oldest first, each with webhook_id, event, attempt, url, status (answered or null) and at', async () => {
    await api.control('PUT', '/webhook', { url: receiver.url });
    receiver.respond = (_d, index) => (index === 0 ? 503 : 200);
    const sale = await api.sale({ amount: '1.00' });
    await api.control('POST', '/pay', { emv: sale.body.emv });
    await deliveries(2);
    await api.advance(5);
    await deliveries(3);
    const rows: Json[] = await waitFor(async () => {
      const body: Json[] = (await api.control('GET', '/webhooks')).body;
      return body.length === 3 && body.every((r) => r.status !== null) ? body : undefined;
    }, 'three answered attempts');
    expect(rows.map((r) => [r.event, r.attempt, r.status])).toEqual([
      ['charge.paid', 1, 503],
      ['charge.done', 1, 200],
      ['charge.paid', 2, 200],
    ]);
    expect(rows[2].webhook_id).toBe(rows[0].webhook_id);
    for (const r of rows) {
      expect(typeof r.webhook_id).toBe('string');
      expect(r.url).toBe(receiver.url);
      expect(Number.isInteger(r.attempt)).toBe(true);
      expect(new Date(r.at).toISOString()).toBe(r.at);
    }
    const at = rows.map((r) => Date.parse(r.at));
    expect([...at].sort((x, y) => x - y)).toEqual(at);
  });
});

describe('contract 7 fixture: the token table against every endpoint family (contract 1)', () => {
  const CREDENTIALS = { status: 401, detail: 'Could not validate credentials' };
  const SCOPE = { status: 401, detail: 'Token Profile Not Authorized for this Endpoint' };
  const ROLE = { status: 403, detail: 'User role not authorized for this endpoint' };
  type Expect = { status: number; detail?: string };
  const ok = (status = 200): Expect => ({ status });
  // [name, method, path, body]
  const ENDPOINTS: [string, string, string, unknown][] = [
    ['stores', 'GET', '/v2/stores', undefined],
    ['printed QR list', 'GET', '/v2/printed_dynamic_qrs', undefined],
    ['sale', 'POST', '/v2/create_dynamic_pix', { amount: '1.00' }],
    ['wallets', 'GET', '/v2/wallets', undefined],
    ['pay-outs', 'GET', '/v2/payouts', undefined],
    ['MED list', 'GET', '/v2/payout_meds', undefined],
    ['pending charges', 'GET', '/v1/settlements/pending-charges', undefined],
  ];
  const MATRIX: [string, string | null, Expect[]][] = [
    ['sandbox-manager-token', TOKENS.manager, [ok(), ok(), ok(201), ok(), ok(), ok(), ok()]],
    ['sandbox-supervisor-token', TOKENS.supervisor, [ROLE, ROLE, ok(201), ok(), ok(), ok(), ok()]],
    ['sandbox-cashier-token', TOKENS.cashier, [ROLE, ROLE, ok(201), ok(), SCOPE, SCOPE, ok()]],
    ['sandbox-payout-token', TOKENS.payout, [SCOPE, SCOPE, SCOPE, ok(), ok(), ok(), SCOPE]],
    ['sandbox-other-merchant-token', TOKENS.otherMerchant, [ok(), ok(), ok(201), ok(), ok(), ok(), ok()]],
    ['no token', null, ENDPOINTS.map(() => CREDENTIALS)],
    ['unknown token', 'sandbox-unknown-token', ENDPOINTS.map(() => CREDENTIALS)],
  ];

  it.each(MATRIX)('%s', async (_name, token, expectations) => {
    for (const [i, [what, method, path, body]] of ENDPOINTS.entries()) {
      const want = expectations[i] as Expect;
      const res = await api.call(method, path, { token, body });
      expect([what, res.status]).toEqual([what, want.status]);
      if (want.detail !== undefined) expect([what, res.body]).toEqual([what, { detail: want.detail }]);
      // contract 1: only the bad-credentials 401 carries WWW-Authenticate: Bearer.
      expect([what, res.headers.get('www-authenticate')]).toEqual([what, want === CREDENTIALS ? 'Bearer' : null]);
    }
  });

  it('merchants, wallets and pay-outs of the fixture, seen by each merchant', async () => {
    expect((await api.get('/v2/wallets')).body.map((w: Json) => [w.wallet_id, w.deprecated])).toEqual([
      [101, false],
      [102, false],
      [103, true],
    ]);
    expect((await api.get('/v2/wallets', { token: TOKENS.otherMerchant })).body.map((w: Json) => w.wallet_id)).toEqual([201]);
    const m1 = (await api.get('/v2/payouts', { token: TOKENS.payout })).body;
    const m2 = (await api.get('/v2/payouts', { token: TOKENS.otherMerchant })).body;
    expect(m1.map((p: Json) => p.service_id).sort()).toEqual(['po_fixture_no_doc', 'po_fixture_no_e2e', 'po_fixture_ok', 'po_fixture_old', 'po_fixture_undated']);
    expect(m2.map((p: Json) => p.service_id)).toEqual(['po_fixture_m2']);
    for (const p of [...m1, ...m2]) expect(p.external_id).toBe(`ext_${p.service_id}`);
    expect((await api.get('/v2/stores', { token: TOKENS.otherMerchant })).body).toEqual([expect.objectContaining({ merchant_id: 2, store_id: 1 })]);
    expect((await api.get('/v2/stores/1/checkouts/1/configs')).body).toEqual([]);
  });
});

describe('contract 2: every EMV the service hands out is a valid Pix BR Code (independent CRC16 and TLV)', () => {
  it('printed QR (created, returned again, listed), sales in both gateway variants, fallback, standard charges, both merchants', async () => {
    const seen: { what: string; emv: unknown; amount: string | null }[] = [];
    const created = await api.post('/v2/printed_dynamic_qrs', { checkout_id: 1, auto_create_checkout: true });
    expect(created.status).toBe(201);
    seen.push({ what: 'printed QR', emv: created.body.qr_emvcode, amount: null });
    const again = await api.post('/v2/printed_dynamic_qrs', { checkout_id: 1, auto_create_checkout: true });
    expect(again.status).toBe(200);
    expect(again.body.qr_emvcode).toBe(created.body.qr_emvcode);
    const listed = (await api.get('/v2/printed_dynamic_qrs')).body.stores[0].checkouts[0].printed_dynamic_qrs[0];
    seen.push({ what: 'listed printed QR', emv: listed.qr_emvcode, amount: null });

    const same = await api.sale({ amount: '12.34' });
    expect(same.body.qr_type).toBe('printed_dynamic');
    seen.push({ what: 'same_emv sale emv', emv: same.body.emv, amount: null });
    seen.push({ what: 'pqr_emv', emv: same.body.printed_dynamic_qr_data.pqr_emv, amount: null });

    await api.control('PUT', '/gateway', { variant: 'amount_emv' });
    const amountEmv = await api.sale({ amount: '0.01' });
    seen.push({ what: 'amount_emv sale emv', emv: amountEmv.body.emv, amount: '0.01' });
    seen.push({ what: 'amount_emv pqr_emv', emv: amountEmv.body.printed_dynamic_qr_data.pqr_emv, amount: null });

    await api.control('PUT', '/gateway', { printed_fallback_dynamic: true });
    const fallback = await api.sale({ amount: '1000000.00' });
    expect(fallback.body.qr_type).toBe('dynamic');
    expect(fallback.body.printed_dynamic_qr_data).toBeNull();
    seen.push({ what: 'fallback emv', emv: fallback.body.emv, amount: '1000000.00' });

    await api.post('/v2/stores/1/checkouts', { checkout_desc: 'Caixa 2', wallet_id: 102 });
    const standard = await api.sale({ amount: 7, checkout_id: 2 });
    seen.push({ what: 'standard charge', emv: standard.body.emv, amount: '7.00' });
    const other = await api.sale({ amount: '99.90' }, { token: TOKENS.otherMerchant });
    seen.push({ what: 'merchant 2 charge', emv: other.body.emv, amount: '99.90' });

    for (const s of seen) {
      const field54 = expectPixBrCode(s.emv);
      if (s.amount !== null) expect([s.what, field54]).toEqual([s.what, s.amount]);
    }
    // Every one of them is payable by the control API's scan (resolves through its location).
    expect((await api.control('POST', '/pay', { emv: standard.body.emv })).status).toBe(200);
    expect((await api.control('POST', '/pay', { emv: other.body.emv })).status).toBe(200);
    const newest = await api.control('POST', '/pay', { emv: created.body.qr_emvcode });
    expect(newest.body.pix_id).toBe(fallback.body.pix_id);
  });
});

describe('contract 4: signatures checked with node:crypto, on first attempts and on retries', () => {
  it('the fixture secret signs `${id}.${timestamp}.${body}`; a retry keeps the id and is signed again for its timestamp', async () => {
    await api.control('PUT', '/webhook', { url: receiver.url, secret: FIXTURE_WEBHOOK_SECRET });
    receiver.respond = (d) => (d.json?.event === 'charge.paid' && receiver.deliveries.filter((x) => x.json?.event === 'charge.paid').length === 0 ? 500 : 200);
    const sale = await api.sale({ amount: '2.00', external_id: 'sig-1' });
    await api.control('POST', '/pay', { emv: sale.body.emv });
    await deliveries(2);
    await api.advance(5);
    const all = await deliveries(3);
    const paid = all.filter((d) => d.json.event === 'charge.paid');
    expect(paid).toHaveLength(2);
    expect(paid[1]?.headers['webhook-id']).toBe(paid[0]?.headers['webhook-id']);
    expect(paid[1]?.body).toBe(paid[0]?.body);
    expect(Number(paid[1]?.headers['webhook-timestamp'])).toBeGreaterThanOrEqual(Number(paid[0]?.headers['webhook-timestamp']) + 5);
    for (const d of all) {
      expectSigned(d, FIXTURE_WEBHOOK_SECRET);
      expect(d.headers['content-type']).toBe('application/json');
    }
    // Timestamps are epoch seconds of the sandbox clock.
    const now = Math.floor((await sandboxNowMs()) / 1000);
    expect(Math.abs(Number(paid[1]?.headers['webhook-timestamp']) - now)).toBeLessThanOrEqual(5);
    // The ids differ between events (one per event).
    expect(new Set(all.map((d) => d.headers['webhook-id'])).size).toBe(2);
  });

  it('a secret set with PUT /_sandbox/webhook {url, secret} is the key (whsec_ + base64 of its bytes)', async () => {
    const secret = 'whsec_' + Buffer.from('audit secret bytes \u00ff\u0000\u0001').toString('base64');
    await api.control('PUT', '/webhook', { url: receiver.url, secret });
    const sale = await api.sale({ amount: '1.00' });
    await api.control('POST', '/pay', { emv: sale.body.emv });
    for (const d of await deliveries(2)) {
      expectSigned(d, secret);
      expect(d.headers['webhook-signature']).not.toBe(expectedSignature(FIXTURE_WEBHOOK_SECRET, d.headers['webhook-id'] as string, d.headers['webhook-timestamp'] as string, d.body));
    }
  });
});

describe('reference 4.5 / contract 4: a late payment, end to end at a receiver', () => {
  it('nothing at displacement; the newest sale paid through the printed QR; then the late charge.paid and charge.done with the displaced ids', async () => {
    await api.control('PUT', '/webhook', { url: receiver.url });
    const qr = await api.printedCheckout(1);
    const a = await api.sale({ amount: '10.00', external_id: 'order-A' });
    const b = await api.sale({ amount: '10.50', external_id: 'order-B' });
    // Displacement: no event at all.
    expect((await api.control('GET', '/events')).body).toEqual([]);
    expect((await api.get(`/v2/tx_status/${a.body.pix_id}`)).body).toEqual({ detail: 'TX not found' });

    // The payer scans the older sale's emv (same_emv: the printed QR's): the newest sale is paid.
    const paidB = await api.control('POST', '/pay', { emv: a.body.emv });
    expect(paidB.body.pix_id).toBe(b.body.pix_id);
    // The printed QR now has no pending sale: it cannot be read.
    expect((await api.control('POST', '/pay', { emv: qr.qr_emvcode })).status).toBe(409);

    const late = await api.control('POST', '/pay', { late_for: a.body.pix_id });
    expect(late.status).toBe(200);
    const got = (await deliveries(4)).map((d) => d.json);
    expect(got.map((j: Json) => [j.event, j.pix_id, j.service_id, j.external_id, j.amount_brl])).toEqual([
      ['charge.paid', b.body.pix_id, b.body.service_id, 'order-B', '10.50'],
      ['charge.done', b.body.pix_id, b.body.service_id, 'order-B', '10.50'],
      ['charge.paid', a.body.pix_id, a.body.service_id, 'order-A', '10.00'],
      ['charge.done', a.body.pix_id, a.body.service_id, 'order-A', '10.00'],
    ]);
    expect(got[2]).toMatchObject({ store_id: 1, checkout_id: 1, e2e_id: late.body.e2e_id, paid_at: late.body.paid_at });
    // Tx Status: still TX not found for the displaced sale, for ever; the newest reads paid.
    await api.advance(86_400);
    expect((await api.get(`/v2/tx_status/${a.body.pix_id}`)).status).toBe(404);
    expect((await api.get(`/v2/tx_status/${a.body.pix_id}`)).body).toEqual({ detail: 'TX not found' });
    expect((await api.get(`/v2/tx_status/${b.body.pix_id}`)).body.status).toBe('paid');
  });
});

describe('contract 2: expire on a standard dynamic checkout', () => {
  it('defaults to 3,600 s: pending at 3,599 s, expired at 3,600 s, then the payer cannot pay it', async () => {
    const sale = await api.sale({ amount: '1.00' });
    expect(Date.parse(sale.body.expires_at) - Date.parse(sale.body.created_at)).toBe(3_600_000);
    await api.advance(3_599);
    expect((await api.get(`/v2/tx_status/${sale.body.pix_id}`)).body.status).toBe('pending');
    await api.advance(1);
    expect((await api.get(`/v2/tx_status/${sale.body.pix_id}`)).body.status).toBe('expired');
    expect((await api.control('POST', '/pay', { emv: sale.body.emv })).status).toBe(409);
  });
});

describe('reference 7: the validation list', () => {
  it('each element has type, loc (an array rooted at body/query/path/header), msg and input, across endpoints', async () => {
    const answers = await Promise.all([
      api.sale({ amount: 'abc', store_id: 'x', external_id: '' }),
      api.sale({}),
      api.get('/v2/printed_dynamic_qrs?page=0&page_size=101'),
      api.patch('/v2/stores/abc', { store_name: '' }),
      api.post('/v2/payout_meds', { reason: 'nope' }, { token: TOKENS.payout }),
      api.get('/v1/settlements?start_date=yesterday&end_date=2026-01-01T00:00:00Z&limit=0'),
      api.sale({ amount: '1.00' }, { headers: { 'Idempotency-Key': 'k'.repeat(256) } }),
    ]);
    for (const res of answers) {
      expect(res.status).toBe(422);
      expect(Array.isArray(res.body.detail)).toBe(true);
      expect(res.body.detail.length).toBeGreaterThan(0);
      for (const item of res.body.detail) {
        expect(typeof item.type).toBe('string');
        expect(Array.isArray(item.loc)).toBe(true);
        expect(['body', 'query', 'path', 'header']).toContain(item.loc[0]);
        expect(typeof item.msg).toBe('string');
        expect(Object.hasOwn(item, 'input')).toBe(true);
      }
    }
  });
});

describe('audit findings, fixed', () => {
  it('contract 7: POST /_sandbox/pay takes the optional late_for together with {store_id, checkout_id}', async () => {
    await api.printedCheckout();
    const first = await api.sale({ amount: '10.00' });
    await api.sale({ amount: '12.00' });
    const late = await api.control('POST', '/pay', { store_id: 1, checkout_id: 1, late_for: first.body.pix_id });
    expect(late.status).toBe(200);
    expect(late.body).toMatchObject({ pix_id: first.body.pix_id, late: true, amount_brl: '10.00' });
    // A late_for of another checkout than the one named is refused, not guessed.
    const other = await api.control('POST', '/pay', { store_id: 1, checkout_id: 2, late_for: first.body.pix_id });
    expect(other.status).toBe(409);
  });

  it('reference 7: every validation-list element carries ctx', async () => {
    for (const body of [{}, { amount: 'abc' }, { amount: '1.00', store_id: 'x' }]) {
      const res = await api.sale(body);
      expect(res.status).toBe(422);
      for (const item of res.body.detail) expect(Object.keys(item).sort()).toEqual(['ctx', 'input', 'loc', 'msg', 'type']);
    }
  });

  it('contract 7: GET /_sandbox/sales?store_id&checkout_id lists merchant 1 checkout, like the other control routes', async () => {
    await api.sale({ amount: '2.00' });
    await api.sale({ amount: '1.00' }, { token: TOKENS.otherMerchant });
    const sales = (await api.control('GET', '/sales?store_id=1&checkout_id=1')).body;
    expect(sales.map((x: Json) => x.amount_brl)).toEqual(['2.00']);
    expect((await api.control('GET', '/sales?merchant_id=2&store_id=1&checkout_id=1')).body.map((x: Json) => x.amount_brl)).toEqual(['1.00']);
  });

  it('control bodies must be labelled JSON: a string sent by fetch (text/plain) is what a web page could send (control-guard.ts)', async () => {
    const res = await fetch(`${t.sandbox.url}/_sandbox/clock/advance`, { method: 'POST', body: JSON.stringify({ seconds: 1 }) });
    expect(res.status).toBe(415);
    const labelled = await fetch(`${t.sandbox.url}/_sandbox/clock/advance`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ seconds: 1 }) });
    expect(labelled.status).toBe(200);
    // The service's own endpoints keep the rule.
    const svc = await fetch(`${t.sandbox.url}/v2/create_dynamic_pix`, { method: 'POST', headers: { authorization: `Bearer ${TOKENS.manager}`, 'content-type': 'text/plain' }, body: '{"amount":"1.00"}' });
    expect(svc.status).toBe(415);
  });
});
