// Reference 5 (authentication, scopes, roles, isolation) and contract 1, through HTTP.
import { describe, expect, it } from 'vitest';
import { TOKENS } from './harness.ts';
import { useSandbox } from './fixtures/sandbox.ts';

const { api } = useSandbox();

const BAD_CREDENTIALS = { detail: 'Could not validate credentials' };
const NO_SCOPE = { detail: 'Token Profile Not Authorized for this Endpoint' };
const NO_ROLE = { detail: 'User role not authorized for this endpoint' };

/** One request per endpoint of this part of the service. */
const ADMIN: [string, string, unknown?][] = [
  ['GET', '/v2/stores'],
  ['POST', '/v2/stores', { store_name: 'x' }],
  ['PATCH', '/v2/stores/1', { store_name: 'x' }],
  ['GET', '/v2/stores/1/checkouts'],
  ['POST', '/v2/stores/1/checkouts', { checkout_desc: 'x', wallet_id: 101 }],
  ['PATCH', '/v2/stores/1/checkouts/1', { checkout_desc: 'x' }],
  ['GET', '/v2/stores/1/checkouts/1/configs'],
  ['POST', '/v2/stores/1/checkouts/1/configs', { config_type: 'a', config_value: 'b' }],
  ['GET', '/v2/printed_dynamic_qrs'],
  ['POST', '/v2/printed_dynamic_qrs', { checkout_id: 1 }],
];
const PAY_IN: [string, string, unknown?][] = [
  ['POST', '/v2/create_dynamic_pix', { amount: '1.00' }],
  ['GET', '/v2/tx_status/pix_unknown'],
];

describe('rule 3 / contract 1: invalid, missing or expired token', () => {
  it.each([...ADMIN, ...PAY_IN])('%s %s: 401 Could not validate credentials with WWW-Authenticate: Bearer', async (method, path, body) => {
    for (const headers of [{} as Record<string, string>, { authorization: 'Bearer nope' }, { authorization: 'Basic c2FuZGJveA==' }, { authorization: `Bearer` }, { authorization: `${TOKENS.manager}` }, { authorization: `Bearer ${TOKENS.manager} extra` }]) {
      const res = await api.call(method, path, { token: null, body, headers });
      expect(res.status).toBe(401);
      expect(res.body).toEqual(BAD_CREDENTIALS);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
    }
  });

  it('the scheme is case-insensitive', async () => {
    const res = await api.get('/v2/stores', { token: null, headers: { authorization: `bearer ${TOKENS.manager}` } });
    expect(res.status).toBe(200);
  });

  it('an expired token gets the same 401', async () => {
    await api.control('POST', '/tokens', { token: 'short-lived-token', merchant_id: 1, scopes: ['pay_in'], role: 'manager', expires_in_seconds: 60 });
    expect((await api.get('/v2/stores', { token: 'short-lived-token' })).status).toBe(200);
    await api.advance(61);
    const res = await api.get('/v2/stores', { token: 'short-lived-token' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(BAD_CREDENTIALS);
  });

  it('authentication comes before validation: a bad body without a token is still 401', async () => {
    const res = await api.post('/v2/create_dynamic_pix', { amount: 'nonsense' }, { token: null });
    expect(res.status).toBe(401);
  });
});

describe('rule 2: administration needs scope pay_in (401) and a management role (403)', () => {
  it.each(ADMIN)('%s %s', async (method, path, body) => {
    const noScope = await api.call(method, path, { token: TOKENS.payout, body });
    expect(noScope.status).toBe(401);
    expect(noScope.body).toEqual(NO_SCOPE);
    for (const token of [TOKENS.cashier, TOKENS.supervisor]) {
      const noRole = await api.call(method, path, { token, body });
      expect(noRole.status).toBe(403);
      expect(noRole.body).toEqual(NO_ROLE);
    }
    const ok = await api.call(method, path, { token: TOKENS.manager, body });
    expect(ok.status).toBeLessThan(300);
  });

  it('nothing is changed by a refused request', async () => {
    await api.post('/v2/stores', { store_name: 'cashier store' }, { token: TOKENS.cashier });
    await api.patch('/v2/stores/1', { store_name: 'payout store' }, { token: TOKENS.payout });
    expect((await api.get('/v2/stores')).body.map((s: { store_name: string }) => s.store_name)).toEqual(['Loja Centro']);
  });

  it('the scope is checked before the role', async () => {
    await api.control('POST', '/tokens', { token: 'payout-cashier-token', merchant_id: 1, scopes: ['pay_out'], role: 'cashier' });
    const res = await api.get('/v2/stores', { token: 'payout-cashier-token' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(NO_SCOPE);
  });
});

describe('contract 1: sales and Tx Status need scope pay_in, any role', () => {
  it.each([TOKENS.manager, TOKENS.supervisor, TOKENS.cashier])('%s may sell and read Tx Status', async (token) => {
    const sale = await api.sale({ amount: '1.00' }, { token });
    expect(sale.status).toBe(201);
    expect((await api.get(`/v2/tx_status/${sale.body.pix_id}`, { token })).status).toBe(200);
  });

  it.each(PAY_IN)('%s %s without pay_in: 401 Token Profile Not Authorized', async (method, path, body) => {
    const res = await api.call(method, path, { token: TOKENS.payout, body });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(NO_SCOPE);
  });
});

describe('rule 4: a merchant sees only its own resources', () => {
  it('another merchant sale is "TX not found", and its checkouts and configs do not exist', async () => {
    const sale = await api.sale({ amount: '1.00' });
    const tx = await api.get(`/v2/tx_status/${sale.body.pix_id}`, { token: TOKENS.otherMerchant });
    expect(tx.status).toBe(404);
    expect(tx.body).toEqual({ detail: 'TX not found' });
    await api.post('/v2/stores/1/checkouts', { checkout_desc: 'M1 only', wallet_id: 101 });
    const foreign = await api.get('/v2/stores/1/checkouts/2/configs', { token: TOKENS.otherMerchant });
    const missing = await api.get('/v2/stores/1/checkouts/3/configs', { token: TOKENS.otherMerchant });
    // Answered exactly as if it did not exist: same status, same body.
    expect([foreign.status, foreign.text]).toEqual([missing.status, missing.text]);
  });

  it('merchant 2 sells on its own checkout 1, never on merchant 1 checkout', async () => {
    await api.printedCheckout(1);
    const m2 = await api.sale({ amount: '2.00' }, { token: TOKENS.otherMerchant });
    expect(m2.body.qr_type).toBe('dynamic');
    const m1Sales = (await api.control('GET', '/sales?merchant_id=1')).body;
    expect(m1Sales).toEqual([]);
  });

  it('another merchant wallet cannot be assigned (4.2)', async () => {
    const res = await api.patch('/v2/stores/1/checkouts/1', { wallet_id: 201 });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: 'Wallet not found' });
  });
});
