// Reference 4.1 (stores) and 2.1 (the Store record), through HTTP.
import { describe, expect, it } from 'vitest';
import { TOKENS } from './harness.ts';
import { useSandbox } from './fixtures/sandbox.ts';

const { api } = useSandbox();

describe('GET /v2/stores', () => {
  it('lists the merchant own stores, optional fields typed string (2.1)', async () => {
    const res = await api.get('/v2/stores');
    expect(res.status).toBe(200);
    expect(res.body).toEqual([{ merchant_id: 1, store_id: 1, store_name: 'Loja Centro', address: '', phone_number: '', email: '' }]);
  });

  it('never shows another merchant store (5 rule 4)', async () => {
    await api.post('/v2/stores', { store_name: 'Filial M2' }, { token: TOKENS.otherMerchant });
    const res = await api.get('/v2/stores');
    expect(res.body.map((s: { store_name: string }) => s.store_name)).toEqual(['Loja Centro']);
    const other = await api.get('/v2/stores', { token: TOKENS.otherMerchant });
    expect(other.body.every((s: { merchant_id: number }) => s.merchant_id === 2)).toBe(true);
    expect(other.body).toHaveLength(2);
  });
});

describe('POST /v2/stores', () => {
  it('creates a store with the next id of the merchant; optional fields string or null (201)', async () => {
    const res = await api.post('/v2/stores', { store_name: 'Loja Norte', address: 'Rua A, 1' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ merchant_id: 1, store_id: 2, store_name: 'Loja Norte', address: 'Rua A, 1', phone_number: null, email: null });
    const list = await api.get('/v2/stores');
    expect(list.body[1]).toEqual({ merchant_id: 1, store_id: 2, store_name: 'Loja Norte', address: 'Rua A, 1', phone_number: '', email: '' });
  });

  it('store ids are scoped to the merchant', async () => {
    const res = await api.post('/v2/stores', { store_name: 'Outra' }, { token: TOKENS.otherMerchant });
    expect(res.body).toMatchObject({ merchant_id: 2, store_id: 2 });
    const mine = await api.post('/v2/stores', { store_name: 'Minha' });
    expect(mine.body).toMatchObject({ merchant_id: 1, store_id: 2 });
  });

  it('requires store_name (422 missing) and changes nothing', async () => {
    const res = await api.post('/v2/stores', { address: 'x' });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([{ type: 'missing', loc: ['body', 'store_name'], msg: 'Field required', input: { address: 'x' }, ctx: {} }]);
    expect((await api.get('/v2/stores')).body).toHaveLength(1);
  });

  it.each([
    [{ store_name: 5 }, 'store_name', 'string_type'],
    [{ store_name: null }, 'store_name', 'string_type'],
    [{ store_name: 'x', email: 7 }, 'email', 'string_type'],
    [{ store_name: 'x', phone_number: ['1'] }, 'phone_number', 'string_type'],
  ])('rejects %j with %s %s', async (body, field, type) => {
    const res = await api.post('/v2/stores', body);
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ type, loc: ['body', field] });
  });
});

describe('PATCH /v2/stores/{store_id}', () => {
  it('updates the fields sent; left out or null keeps the value (200)', async () => {
    await api.patch('/v2/stores/1', { address: 'Av. Paulista, 1000', email: 'loja@example.com' });
    const res = await api.patch('/v2/stores/1', { store_name: 'Loja Centro Nova', address: null });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ merchant_id: 1, store_id: 1, store_name: 'Loja Centro Nova', address: 'Av. Paulista, 1000', phone_number: null, email: 'loja@example.com' });
  });

  it('an empty body changes nothing', async () => {
    const res = await api.patch('/v2/stores/1', {});
    expect(res.status).toBe(200);
    expect(res.body.store_name).toBe('Loja Centro');
  });

  it('store_name needs at least 1 character on update (422 string_too_short)', async () => {
    const res = await api.patch('/v2/stores/1', { store_name: '' });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([{ type: 'string_too_short', loc: ['body', 'store_name'], msg: 'String should have at least 1 character', input: '', ctx: { min_length: 1 } }]);
    expect((await api.get('/v2/stores')).body[0].store_name).toBe('Loja Centro');
  });

  it('a missing store, or another merchant one, is 404 Store not found', async () => {
    for (const path of ['/v2/stores/99']) {
      const res = await api.patch(path, { store_name: 'x' });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: 'Store not found' });
    }
    const foreign = await api.patch('/v2/stores/1', { store_name: 'hijack' }, { token: TOKENS.otherMerchant });
    expect(foreign.status).toBe(200);
    expect((await api.get('/v2/stores')).body[0].store_name).toBe('Loja Centro');
    const created = await api.post('/v2/stores', { store_name: 'Só M2' }, { token: TOKENS.otherMerchant });
    const res = await api.patch(`/v2/stores/${created.body.store_id}`, { store_name: 'x' });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Store not found' });
  });

  it('a non-integer store_id is a 422 on loc path/store_id', async () => {
    const res = await api.patch('/v2/stores/abc', { store_name: 'x' });
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ type: 'int_parsing', loc: ['path', 'store_id'], input: 'abc' });
  });
});
