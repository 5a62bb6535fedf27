// Reference 7 (errors): the three body shapes, every row of the administration and
// printed-QR tables with its status and detail character for character, and the plain-text
// 500. Each request is made through HTTP and checked to change nothing.
import { describe, expect, it } from 'vitest';
import { TOKENS } from './harness.ts';
import { useSandbox } from './fixtures/sandbox.ts';

const { api } = useSandbox();

/** A fingerprint of what the merchant can see, to show an error changed nothing. */
async function snapshot(): Promise<string> {
  const parts = await Promise.all([api.get('/v2/stores'), api.get('/v2/stores/1/checkouts'), api.get('/v2/stores/1/checkouts/1/configs'), api.get('/v2/printed_dynamic_qrs'), api.control('GET', '/sales')]);
  return parts.map((p) => p.text).join('\n');
}

interface Row {
  name: string;
  setup?: () => Promise<unknown>;
  method: string;
  path: string;
  body?: unknown;
  token?: string;
  status: number;
  detail: string;
}

const ADMIN_ROWS: Row[] = [
  { name: 'valid token without pay_in', method: 'GET', path: '/v2/stores', token: TOKENS.payout, status: 401, detail: 'Token Profile Not Authorized for this Endpoint' },
  { name: 'user without a management role', method: 'POST', path: '/v2/stores', body: { store_name: 'x' }, token: TOKENS.cashier, status: 403, detail: 'User role not authorized for this endpoint' },
  { name: 'store missing (checkout list)', method: 'GET', path: '/v2/stores/3/checkouts', status: 404, detail: 'Store not found' },
  { name: 'checkout missing (configs)', method: 'GET', path: '/v2/stores/1/checkouts/3/configs', status: 404, detail: 'Checkout not found' },
  { name: 'wallet missing (create checkout)', method: 'POST', path: '/v2/stores/1/checkouts', body: { checkout_desc: 'x', wallet_id: 404 }, status: 400, detail: 'Wallet not found' },
  { name: 'wallet of another merchant (update checkout)', method: 'PATCH', path: '/v2/stores/1/checkouts/1', body: { wallet_id: 201 }, status: 400, detail: 'Wallet not found' },
  { name: 'wallet off the supported network', method: 'POST', path: '/v2/stores/1/checkouts', body: { checkout_desc: 'x', wallet_id: 103 }, status: 400, detail: 'Wallet network deprecated' },
];

const PRINTED_ROWS: Row[] = [
  { name: 'both wallet fields', method: 'POST', path: '/v2/printed_dynamic_qrs', body: { checkout_id: 2, auto_create_checkout: true, wallet_id: 101, address: 'a' }, status: 400, detail: 'send either wallet_id or address, not both' },
  { name: 'checkout_id missing', method: 'POST', path: '/v2/printed_dynamic_qrs', body: {}, status: 400, detail: 'checkout_id is required' },
  { name: 'store not the merchant (auto-create)', method: 'POST', path: '/v2/printed_dynamic_qrs', body: { store_id: 4, checkout_id: 1, auto_create_checkout: true }, status: 400, detail: 'store_id does not exist' },
  { name: 'no access to the store', method: 'POST', path: '/v2/printed_dynamic_qrs', body: { store_id: 4, checkout_id: 1 }, status: 400, detail: 'User does not have access to this store' },
  { name: 'wallet fields without auto-create', method: 'POST', path: '/v2/printed_dynamic_qrs', body: { checkout_id: 1, wallet_id: 101 }, status: 400, detail: 'wallet_id/address require auto_create_checkout' },
  { name: 'wallet missing', method: 'POST', path: '/v2/printed_dynamic_qrs', body: { checkout_id: 2, auto_create_checkout: true, wallet_id: 9 }, status: 400, detail: 'Wallet not found' },
  { name: 'wallet deprecated', method: 'POST', path: '/v2/printed_dynamic_qrs', body: { checkout_id: 2, auto_create_checkout: true, wallet_id: 103 }, status: 400, detail: 'Wallet network deprecated' },
  {
    name: 'no checkout 1 to derive the wallet',
    setup: () => api.post('/v2/stores', { store_name: 'Loja 2' }),
    method: 'POST',
    path: '/v2/printed_dynamic_qrs',
    body: { store_id: 2, checkout_id: 5, auto_create_checkout: true },
    status: 400,
    detail: 'Default checkout (store_id=1, checkout_id=1) not found; cannot derive wallet_id for auto-create',
  },
  { name: 'different wallet than the checkout', method: 'POST', path: '/v2/printed_dynamic_qrs', body: { checkout_id: 1, auto_create_checkout: true, wallet_id: 102 }, status: 409, detail: 'checkout already exists with a different wallet; update it via PATCH /v2/stores/{store_id}/checkouts/{checkout_id}' },
  {
    name: 'gateway failure',
    setup: () => api.control('POST', '/faults', { target: 'gateway', fault: 'printed_qr_error' }),
    method: 'POST',
    path: '/v2/printed_dynamic_qrs',
    body: { checkout_id: 1, auto_create_checkout: true },
    status: 502,
    detail: 'Gateway error during printed dynamic QR creation',
  },
  {
    name: 'gateway without the expected fields',
    setup: () => api.control('POST', '/faults', { target: 'gateway', fault: 'printed_qr_bad_fields' }),
    method: 'POST',
    path: '/v2/printed_dynamic_qrs',
    body: { checkout_id: 1 },
    status: 502,
    detail: 'Gateway did not return expected fields for printed dynamic QR creation',
  },
  { name: 'printed QRs disabled (QR creation)', setup: () => api.control('PUT', '/gateway', { printed_disabled: true }), method: 'POST', path: '/v2/printed_dynamic_qrs', body: { checkout_id: 1 }, status: 503, detail: 'printed_qr_disabled' },
  {
    name: 'printed QRs disabled (sale on a printed checkout)',
    setup: async () => {
      await api.printedCheckout(1);
      await api.control('PUT', '/gateway', { printed_disabled: true });
    },
    method: 'POST',
    path: '/v2/create_dynamic_pix',
    body: { amount: '1.00' },
    status: 503,
    detail: 'printed_qr_disabled',
  },
  {
    name: 'printed checkout without a printed QR',
    setup: () => api.post('/v2/stores/1/checkouts/1/configs', { config_type: 'default_qr', config_value: 'printed_dynamic_qr' }),
    method: 'POST',
    path: '/v2/create_dynamic_pix',
    body: { amount: '1.00' },
    status: 422,
    detail: 'This checkout does not have a printed dynamic QR assigned.Please create one or contact support if you need assistance.',
  },
];

describe.each([
  ['account administration', ADMIN_ROWS],
  ['printed dynamic QRs and sale creation', PRINTED_ROWS],
])('section 7, %s', (_table, rows) => {
  it.each(rows.map((r) => [r.name, r] as const))('%s', async (_name, row) => {
    await row.setup?.();
    const before = await snapshot();
    const res = await api.call(row.method, row.path, { body: row.body, token: row.token });
    expect(res.status).toBe(row.status);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.text).toBe(JSON.stringify({ detail: row.detail }));
    expect(await snapshot()).toBe(before);
  });
});

describe('section 7, body shapes', () => {
  it('the validation list: every element has type, loc (array), msg, input, and ctx where the rule has one', async () => {
    const res = await api.post('/v2/stores/1/checkouts/1/configs', { config_type: '', config_value: 'printed' });
    expect(res.status).toBe(422);
    expect(Array.isArray(res.body.detail)).toBe(true);
    for (const item of res.body.detail) {
      expect(Object.keys(item).sort()).toEqual(['ctx', 'input', 'loc', 'msg', 'type']);
      expect(Array.isArray(item.loc)).toBe(true);
    }
  });

  it('example types of the reference: value_error, string_too_short, less_than_equal', async () => {
    const types = new Set<string>();
    types.add((await api.post('/v2/stores/1/checkouts/1/configs', { config_type: 'default_qr', config_value: 'x' })).body.detail[0].type);
    types.add((await api.post('/v2/stores/1/checkouts/1/configs', { config_type: '', config_value: 'x' })).body.detail[0].type);
    types.add((await api.get('/v2/printed_dynamic_qrs?page_size=1000')).body.detail[0].type);
    expect([...types].sort()).toEqual(['less_than_equal', 'string_too_short', 'value_error']);
  });

  it('an unexpected failure is the plain-text body Internal Server Error, not JSON', async () => {
    await api.control('POST', '/faults', { target: 'route', method: 'GET', path: '/v2/stores', fault: 'http_500' });
    const res = await api.get('/v2/stores');
    expect(res.status).toBe(500);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(res.text).toBe('Internal Server Error');
    expect((await api.get('/v2/stores')).status).toBe(200);
  });
});
