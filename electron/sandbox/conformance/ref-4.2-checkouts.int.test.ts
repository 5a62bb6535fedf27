// Reference 4.2 (checkouts) and 2.2 (the Checkout record), through HTTP.
import { describe, expect, it } from 'vitest';
import { TOKENS } from './harness.ts';
import { useSandbox } from './fixtures/sandbox.ts';

const { api } = useSandbox();

describe('GET /v2/stores/{store_id}/checkouts', () => {
  it('lists checkouts with default_qr (null until configured)', async () => {
    const res = await api.get('/v2/stores/1/checkouts');
    expect(res.status).toBe(200);
    expect(res.body).toEqual([{ merchant_id: 1, store_id: 1, checkout_id: 1, checkout_desc: 'Caixa 1', wallet_id: 101, default_qr: null }]);
  });

  it('shows default_qr once set, printed or dynamic', async () => {
    await api.post('/v2/stores/1/checkouts/1/configs', { config_type: 'default_qr', config_value: 'dynamic' });
    expect((await api.get('/v2/stores/1/checkouts')).body[0].default_qr).toBe('dynamic');
    await api.printedCheckout(1);
    expect((await api.get('/v2/stores/1/checkouts')).body[0].default_qr).toBe('printed_dynamic_qr');
  });

  it('404 Store not found for a missing store or another merchant store', async () => {
    const missing = await api.get('/v2/stores/7/checkouts');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ detail: 'Store not found' });
    const m2store = await api.post('/v2/stores', { store_name: 'M2 only' }, { token: TOKENS.otherMerchant });
    const foreign = await api.get(`/v2/stores/${m2store.body.store_id}/checkouts`);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ detail: 'Store not found' });
  });
});

describe('POST /v2/stores/{store_id}/checkouts', () => {
  it('creates with the next checkout id of the store, without default_qr (201)', async () => {
    const res = await api.post('/v2/stores/1/checkouts', { checkout_desc: 'Caixa 2', wallet_id: 102 });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ merchant_id: 1, store_id: 1, checkout_id: 2, checkout_desc: 'Caixa 2', wallet_id: 102 });
    const next = await api.post('/v2/stores/1/checkouts', { checkout_desc: 'Caixa 3', wallet_id: 101 });
    expect(next.body.checkout_id).toBe(3);
  });

  it('ids are scoped to the store', async () => {
    const store = await api.post('/v2/stores', { store_name: 'Loja 2' });
    const res = await api.post(`/v2/stores/${store.body.store_id}/checkouts`, { checkout_desc: 'Caixa 1', wallet_id: 101 });
    expect(res.body).toMatchObject({ store_id: 2, checkout_id: 1 });
  });

  it('400 Wallet not found for a missing wallet or another merchant wallet (nothing created)', async () => {
    for (const walletId of [999, 201]) {
      const res = await api.post('/v2/stores/1/checkouts', { checkout_desc: 'x', wallet_id: walletId });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ detail: 'Wallet not found' });
    }
    expect((await api.get('/v2/stores/1/checkouts')).body).toHaveLength(1);
  });

  it('400 Wallet network deprecated for a wallet off the supported network', async () => {
    const res = await api.post('/v2/stores/1/checkouts', { checkout_desc: 'x', wallet_id: 103 });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: 'Wallet network deprecated' });
  });

  it('404 Store not found on a missing store', async () => {
    const res = await api.post('/v2/stores/5/checkouts', { checkout_desc: 'x', wallet_id: 101 });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Store not found' });
  });

  it('checkout_desc and wallet_id are required (422 listing both)', async () => {
    const res = await api.post('/v2/stores/1/checkouts', {});
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { loc: string[] }) => d.loc)).toEqual([
      ['body', 'checkout_desc'],
      ['body', 'wallet_id'],
    ]);
    expect(res.body.detail.every((d: { type: string }) => d.type === 'missing')).toBe(true);
  });

  it('wallet_id must be an integer', async () => {
    const res = await api.post('/v2/stores/1/checkouts', { checkout_desc: 'x', wallet_id: 101.5 });
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ type: 'int_from_float', loc: ['body', 'wallet_id'] });
  });
});

describe('PATCH /v2/stores/{store_id}/checkouts/{checkout_id}', () => {
  it('updates desc and wallet; omitted or null fields keep their value (200, no default_qr)', async () => {
    const res = await api.patch('/v2/stores/1/checkouts/1', { wallet_id: 102, checkout_desc: null });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ merchant_id: 1, store_id: 1, checkout_id: 1, checkout_desc: 'Caixa 1', wallet_id: 102 });
  });

  it('moves the settlement address of QRs created before the change (4.2 rule)', async () => {
    const qr = await api.printedCheckout(1);
    await api.patch('/v2/stores/1/checkouts/1', { wallet_id: 102 });
    const again = await api.post('/v2/printed_dynamic_qrs', { checkout_id: 1 });
    expect(again.status).toBe(200);
    expect(again.body.printed_dynamic_qr_id).toBe(qr.printed_dynamic_qr_id);
    expect(again.body.address).not.toBe(qr.address);
    expect(again.body.address.startsWith('0xfB69')).toBe(true);
  });

  it('400 Wallet not found / Wallet network deprecated, nothing changed', async () => {
    const foreign = await api.patch('/v2/stores/1/checkouts/1', { wallet_id: 201 });
    expect(foreign.status).toBe(400);
    expect(foreign.body).toEqual({ detail: 'Wallet not found' });
    const deprecated = await api.patch('/v2/stores/1/checkouts/1', { wallet_id: 103, checkout_desc: 'changed' });
    expect(deprecated.status).toBe(400);
    expect(deprecated.body).toEqual({ detail: 'Wallet network deprecated' });
    expect((await api.get('/v2/stores/1/checkouts')).body[0]).toMatchObject({ wallet_id: 101, checkout_desc: 'Caixa 1' });
  });

  it('checkout_desc at least 1 character on update', async () => {
    const res = await api.patch('/v2/stores/1/checkouts/1', { checkout_desc: '' });
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ type: 'string_too_short', loc: ['body', 'checkout_desc'] });
  });

  it('404 for a missing checkout, another merchant checkout, or a missing store', async () => {
    const missing = await api.patch('/v2/stores/1/checkouts/9', { checkout_desc: 'x' });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ detail: 'Checkout not found' });
    const noStore = await api.patch('/v2/stores/9/checkouts/1', { checkout_desc: 'x' });
    expect(noStore.status).toBe(404);
    expect(noStore.body).toEqual({ detail: 'Store not found' });
    // Merchant 2 has its own store 1 / checkout 1; patching "1/1" as merchant 2 touches only its own.
    await api.patch('/v2/stores/1/checkouts/1', { checkout_desc: 'M2 caixa' }, { token: TOKENS.otherMerchant });
    expect((await api.get('/v2/stores/1/checkouts')).body[0].checkout_desc).toBe('Caixa 1');
    const m2 = await api.post('/v2/stores/1/checkouts', { checkout_desc: 'M2 caixa 2', wallet_id: 201 }, { token: TOKENS.otherMerchant });
    expect(m2.body.checkout_id).toBe(2);
    const foreign = await api.patch('/v2/stores/1/checkouts/2', { checkout_desc: 'x' });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ detail: 'Checkout not found' });
  });
});
