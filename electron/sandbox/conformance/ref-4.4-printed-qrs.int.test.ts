// Reference 4.4 (printed dynamic QRs: every rule of creation, and the listing), 2.4 and the
// printed-QR rows of section 7, through HTTP.
import { describe, expect, it } from 'vitest';
import { validateBrCode } from '../../shared/emv.ts';
import { TOKENS } from './harness.ts';
import { useSandbox } from './fixtures/sandbox.ts';

const { api } = useSandbox();

const QRS = '/v2/printed_dynamic_qrs';
const WALLET_101 = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const WALLET_102 = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';
const WALLET_201 = '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb';

async function modeOf(checkoutId: number, storeId = 1): Promise<string | null | undefined> {
  const list = await api.get(`/v2/stores/${storeId}/checkouts`);
  return list.body.find((c: { checkout_id: number }) => c.checkout_id === checkoutId)?.default_qr;
}

/** Asks for a printed QR on checkout `checkoutId` (created if need be): refused with `status` and `detail`, the checkout left dynamic. */
async function refusedQr(checkoutId: number, status: number, detail: string): Promise<void> {
  const res = await api.post(QRS, { checkout_id: checkoutId, auto_create_checkout: true });
  expect(res.status).toBe(status);
  expect(res.body).toEqual({ detail });
  expect(await modeOf(checkoutId)).toBeNull();
}

describe('POST /v2/printed_dynamic_qrs: creation', () => {
  it('creates a printed QR (201) with every field of 2.4 and a valid dynamic BR Code', async () => {
    const before = Math.floor((await api.control('GET', '/clock')).body.offset_ms);
    expect(before).toBe(0);
    const res = await api.post(QRS, { checkout_id: 1 });
    expect(res.status).toBe(201);
    const qr = res.body;
    expect(Object.keys(qr).sort()).toEqual(['address', 'checkout_id', 'created_at', 'merchant_id', 'printed_dynamic_qr_id', 'qr_emvcode', 'qr_location_id', 'store_id']);
    expect(qr).toMatchObject({ checkout_id: 1, merchant_id: 1, store_id: 1 });
    expect(qr.printed_dynamic_qr_id).toMatch(/^pqr_/);
    expect(Number.isInteger(qr.created_at)).toBe(true);
    expect(Math.abs(qr.created_at - Date.now() / 1000)).toBeLessThan(3600);
    const check = validateBrCode(qr.qr_emvcode, { requireLocation: true });
    expect(check.ok).toBe(true);
    expect(check.ok && check.code.locationUrl?.endsWith(qr.qr_location_id)).toBe(true);
    expect(check.ok && check.code.amount).toBeNull();
    // Masked: prefix and suffix of wallet 101, not the whole address.
    expect(qr.address).not.toBe(WALLET_101);
    expect(qr.address.slice(0, 6)).toBe(WALLET_101.slice(0, 6));
    expect(qr.address.slice(-4)).toBe(WALLET_101.slice(-4));
    expect(qr.address).toContain('*');
  });

  it('rule 4: without auto_create_checkout the checkout stays dynamic', async () => {
    await api.post(QRS, { checkout_id: 1 });
    expect(await modeOf(1)).toBeNull();
    expect((await api.sale({ amount: '5.00' })).body.qr_type).toBe('dynamic');
  });

  it('rule 4: without auto_create_checkout the checkout must exist', async () => {
    const res = await api.post(QRS, { checkout_id: 2 });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Checkout not found for this merchant' });
    expect((await api.get('/v2/stores/1/checkouts')).body).toHaveLength(1);
  });

  it('auto_create_checkout: the new checkout gets exactly this id and desc, checkout 1 wallet, printed mode', async () => {
    const res = await api.post(QRS, { checkout_id: 42, auto_create_checkout: true, checkout_desc: 'Balcão' });
    expect(res.status).toBe(201);
    const checkouts = (await api.get('/v2/stores/1/checkouts')).body;
    expect(checkouts.find((c: { checkout_id: number }) => c.checkout_id === 42)).toEqual({ merchant_id: 1, store_id: 1, checkout_id: 42, checkout_desc: 'Balcão', wallet_id: 101, default_qr: 'printed_dynamic_qr' });
    expect((await api.sale({ checkout_id: 42, amount: '3.00' })).body.qr_type).toBe('printed_dynamic');
  });

  it('auto_create_checkout with wallet_id or address uses that wallet', async () => {
    const byId = await api.post(QRS, { checkout_id: 2, auto_create_checkout: true, wallet_id: 102 });
    expect(byId.status).toBe(201);
    const byAddress = await api.post(QRS, { checkout_id: 3, auto_create_checkout: true, address: WALLET_102 });
    expect(byAddress.status).toBe(201);
    const checkouts = (await api.get('/v2/stores/1/checkouts')).body;
    expect(checkouts.map((c: { wallet_id: number }) => c.wallet_id)).toEqual([101, 102, 102]);
  });

  it('checkout_desc is ignored when the checkout exists', async () => {
    await api.post(QRS, { checkout_id: 1, auto_create_checkout: true, checkout_desc: 'Novo nome' });
    expect((await api.get('/v2/stores/1/checkouts')).body[0].checkout_desc).toBe('Caixa 1');
  });

  it('rule 2: an existing QR is returned with 200, and auto_create_checkout re-enables printed mode', async () => {
    const first = await api.post(QRS, { checkout_id: 1, auto_create_checkout: true });
    await api.post('/v2/stores/1/checkouts/1/configs', { config_type: 'default_qr', config_value: 'dynamic' });
    const plain = await api.post(QRS, { checkout_id: 1 });
    expect(plain.status).toBe(200);
    expect(plain.body).toEqual(first.body);
    expect(await modeOf(1)).toBe('dynamic');
    const again = await api.post(QRS, { checkout_id: 1, auto_create_checkout: true });
    expect(again.status).toBe(200);
    expect(again.body.printed_dynamic_qr_id).toBe(first.body.printed_dynamic_qr_id);
    expect(await modeOf(1)).toBe('printed_dynamic_qr');
  });

  it('rule 2: request validation still runs first for an existing QR', async () => {
    await api.post(QRS, { checkout_id: 1, auto_create_checkout: true });
    const res = await api.post(QRS, { checkout_id: 1, auto_create_checkout: true, wallet_id: 103 });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: 'Wallet network deprecated' });
    const bad = await api.post(QRS, { checkout_id: 1, checkout_desc: '' });
    expect(bad.status).toBe(422);
  });

  it('rule 3: an existing checkout keeps its wallet; a different one is 409 naming PATCH', async () => {
    const res = await api.post(QRS, { checkout_id: 1, auto_create_checkout: true, wallet_id: 102 });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ detail: 'checkout already exists with a different wallet; update it via PATCH /v2/stores/{store_id}/checkouts/{checkout_id}' });
    expect(await modeOf(1)).toBeNull();
    const same = await api.post(QRS, { checkout_id: 1, auto_create_checkout: true, address: WALLET_101 });
    expect(same.status).toBe(201);
  });

  it('rule 1: a new checkout in a store without checkout 1 fails with 400', async () => {
    const store = await api.post('/v2/stores', { store_name: 'Vazia' });
    const res = await api.post(QRS, { store_id: store.body.store_id, checkout_id: 3, auto_create_checkout: true });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: 'Default checkout (store_id=1, checkout_id=1) not found; cannot derive wallet_id for auto-create' });
    expect((await api.get(`/v2/stores/${store.body.store_id}/checkouts`)).body).toEqual([]);
  });

  it('rule 5: a gateway failure creates no QR and leaves the (created) checkout dynamic; repeating completes', async () => {
    await api.control('POST', '/faults', { target: 'gateway', fault: 'printed_qr_error' });
    await refusedQr(7, 502, 'Gateway error during printed dynamic QR creation');
    expect((await api.get(QRS)).body.total).toBe(0);
    const retried = await api.post(QRS, { checkout_id: 7, auto_create_checkout: true });
    expect(retried.status).toBe(201);
    expect(await modeOf(7)).toBe('printed_dynamic_qr');
  });

  it('rule 5: a gateway answer without the expected fields is also a 502, nothing created', async () => {
    await api.control('POST', '/faults', { target: 'gateway', fault: 'printed_qr_bad_fields' });
    await refusedQr(1, 502, 'Gateway did not return expected fields for printed dynamic QR creation');
  });

  it('rule 6: a gateway without printed QRs creates none; a new checkout stays dynamic', async () => {
    await api.control('PUT', '/gateway', { printed_supported: false });
    await refusedQr(8, 400, "Printed dynamic QRs aren't available for this merchant");
    expect((await api.get(QRS)).body.total).toBe(0);
  });

  it('503 printed_qr_disabled while printed QRs are disabled; nothing created', async () => {
    await api.control('PUT', '/gateway', { printed_disabled: true });
    const res = await api.post(QRS, { checkout_id: 9, auto_create_checkout: true });
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ detail: 'printed_qr_disabled' });
    expect(await modeOf(9)).toBeUndefined();
  });
});

describe('POST /v2/printed_dynamic_qrs: the 400s and 422s of section 7', () => {
  it.each<[string, Record<string, unknown>, string]>([
    ['both wallet fields', { checkout_id: 2, auto_create_checkout: true, wallet_id: 101, address: WALLET_101 }, 'send either wallet_id or address, not both'],
    ['no checkout_id', { auto_create_checkout: true }, 'checkout_id is required'],
    ['a null checkout_id', { checkout_id: null }, 'checkout_id is required'],
    ['auto-create in a missing store', { store_id: 9, checkout_id: 1, auto_create_checkout: true }, 'store_id does not exist'],
    ['no auto-create in a missing store', { store_id: 9, checkout_id: 1 }, 'User does not have access to this store'],
    ['wallet_id without auto_create_checkout', { checkout_id: 1, wallet_id: 101 }, 'wallet_id/address require auto_create_checkout'],
    ['address with auto_create_checkout false', { checkout_id: 1, address: WALLET_101, auto_create_checkout: false }, 'wallet_id/address require auto_create_checkout'],
    ['an unknown wallet', { checkout_id: 2, auto_create_checkout: true, wallet_id: 555 }, 'Wallet not found'],
    ['another merchant wallet id', { checkout_id: 2, auto_create_checkout: true, wallet_id: 201 }, 'Wallet not found'],
    ['another merchant wallet address', { checkout_id: 2, auto_create_checkout: true, address: WALLET_201 }, 'Wallet not found'],
    ['a deprecated wallet sent', { checkout_id: 2, auto_create_checkout: true, wallet_id: 103 }, 'Wallet network deprecated'],
  ])('%s', async (_name, body, detail) => {
    const res = await api.post(QRS, body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail });
    expect((await api.get('/v2/stores/1/checkouts')).body).toHaveLength(1);
    expect((await api.get(QRS)).body.total).toBe(0);
  });

  it('another merchant store is answered like a missing one', async () => {
    const m2 = await api.post('/v2/stores', { store_name: 'M2 store 2' }, { token: TOKENS.otherMerchant });
    const res = await api.post(QRS, { store_id: m2.body.store_id, checkout_id: 1, auto_create_checkout: true });
    expect(res.body).toEqual({ detail: 'store_id does not exist' });
  });

  it('Wallet network deprecated on checkout 1 wallet for a new checkout, and on the existing checkout wallet', async () => {
    const qr = await api.post(QRS, { checkout_id: 1, auto_create_checkout: true });
    expect(qr.status).toBe(201);
    await api.control('PUT', '/wallets/101', { deprecated: true });
    const newCheckout = await api.post(QRS, { checkout_id: 2, auto_create_checkout: true });
    expect(newCheckout.status).toBe(400);
    expect(newCheckout.body).toEqual({ detail: 'Wallet network deprecated' });
    const existing = await api.post(QRS, { checkout_id: 1 });
    expect(existing.status).toBe(400);
    expect(existing.body).toEqual({ detail: 'Wallet network deprecated' });
  });

  it.each<[string, Record<string, unknown>, string, string]>([
    ['an empty checkout_desc', { checkout_id: 2, auto_create_checkout: true, checkout_desc: '' }, 'checkout_desc', 'string_too_short'],
    ['a 141-character checkout_desc', { checkout_id: 2, auto_create_checkout: true, checkout_desc: 'x'.repeat(141) }, 'checkout_desc', 'string_too_long'],
    ['a blank address', { checkout_id: 2, auto_create_checkout: true, address: '   ' }, 'address', 'string_too_short'],
    ['a 101-character address', { checkout_id: 2, auto_create_checkout: true, address: 'a'.repeat(101) }, 'address', 'string_too_long'],
    ['a string checkout_id', { checkout_id: 'two' }, 'checkout_id', 'int_parsing'],
    ['a non-boolean auto_create_checkout', { checkout_id: 2, auto_create_checkout: 'yes' }, 'auto_create_checkout', 'bool_type'],
  ])('422 for %s', async (_name, body, field, type) => {
    const res = await api.post(QRS, body);
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ type, loc: ['body', field] });
    expect((await api.get('/v2/stores/1/checkouts')).body).toHaveLength(1);
  });

  it('140 characters of checkout_desc and 100 of address are fine', async () => {
    const res = await api.post(QRS, { checkout_id: 2, auto_create_checkout: true, checkout_desc: 'd'.repeat(140) });
    expect(res.status).toBe(201);
  });
});

describe('GET /v2/printed_dynamic_qrs', () => {
  it('groups by store and checkout, with names and the current (masked) wallet address', async () => {
    const a = await api.printedCheckout(1);
    const b = await api.post(QRS, { checkout_id: 2, auto_create_checkout: true, wallet_id: 102, checkout_desc: 'Caixa 2' });
    await api.post('/v2/stores/1/checkouts', { checkout_desc: 'Sem QR', wallet_id: 101 });
    const res = await api.get(QRS);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      total: 2,
      page: 1,
      page_size: 100,
      stores: [
        {
          store_id: 1,
          store_name: 'Loja Centro',
          company_name: 'Sandbox Comercio Ltda',
          checkouts: [
            { checkout_id: 1, checkout_desc: 'Caixa 1', printed_dynamic_qrs: [{ printed_dynamic_qr_id: a.printed_dynamic_qr_id, qr_emvcode: a.qr_emvcode, address: a.address }] },
            { checkout_id: 2, checkout_desc: 'Caixa 2', printed_dynamic_qrs: [{ printed_dynamic_qr_id: b.body.printed_dynamic_qr_id, qr_emvcode: b.body.qr_emvcode, address: b.body.address }] },
          ],
        },
      ],
    });
  });

  it('filters by store_id and checkout_id (checkout_id alone means store 1)', async () => {
    await api.printedCheckout(1);
    await api.printedCheckout(2);
    const store2 = await api.post('/v2/stores', { store_name: 'Loja 2' });
    await api.post(`/v2/stores/${store2.body.store_id}/checkouts`, { checkout_desc: 'C1', wallet_id: 101 });
    await api.printedCheckout(2, store2.body.store_id);
    expect((await api.get(QRS)).body.total).toBe(3);
    const onlyStore2 = await api.get(`${QRS}?store_id=2`);
    expect(onlyStore2.body.total).toBe(1);
    expect(onlyStore2.body.stores.map((s: { store_id: number }) => s.store_id)).toEqual([2]);
    const checkout2 = await api.get(`${QRS}?checkout_id=2`);
    expect(checkout2.body.total).toBe(1);
    expect(checkout2.body.stores[0]).toMatchObject({ store_id: 1, checkouts: [{ checkout_id: 2 }] });
    const none = await api.get(`${QRS}?store_id=5`);
    expect(none.body).toEqual({ total: 0, page: 1, page_size: 100, stores: [] });
  });

  it('pages: total matches across pages; only stores and checkouts with a QR on the page appear', async () => {
    for (const c of [1, 2, 3]) await api.printedCheckout(c);
    const p1 = await api.get(`${QRS}?page=1&page_size=2`);
    const p2 = await api.get(`${QRS}?page=2&page_size=2`);
    const p3 = await api.get(`${QRS}?page=3&page_size=2`);
    expect([p1.body.total, p2.body.total, p3.body.total]).toEqual([3, 3, 3]);
    expect(p1.body.stores[0].checkouts.map((c: { checkout_id: number }) => c.checkout_id)).toEqual([1, 2]);
    expect(p2.body.stores[0].checkouts.map((c: { checkout_id: number }) => c.checkout_id)).toEqual([3]);
    expect(p3.body.stores).toEqual([]);
  });

  it.each<[string, string, string]>([
    ['page=0', 'page', 'greater_than_equal'],
    ['page_size=0', 'page_size', 'greater_than_equal'],
    ['page_size=101', 'page_size', 'less_than_equal'],
    ['page=x', 'page', 'int_parsing'],
    ['store_id=1.5', 'store_id', 'int_parsing'],
  ])('422 for %s', async (query, field, type) => {
    const res = await api.get(`${QRS}?${query}`);
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ type, loc: ['query', field] });
    expect(res.body.detail[0]).toHaveProperty('msg');
    expect(res.body.detail[0]).toHaveProperty('input');
  });

  it('page_size 101 gives the less_than_equal item of the reference example, with ctx', async () => {
    const res = await api.get(`${QRS}?page_size=101`);
    expect(res.body.detail).toEqual([{ type: 'less_than_equal', loc: ['query', 'page_size'], msg: 'Input should be less than or equal to 100', input: '101', ctx: { le: 100 } }]);
  });

  it('shows only the merchant own QRs', async () => {
    await api.printedCheckout(1);
    const other = await api.get(QRS, { token: TOKENS.otherMerchant });
    expect(other.body).toEqual({ total: 0, page: 1, page_size: 100, stores: [] });
  });
});
