// Reference 8 (limits), the rows of this part of the service, each at and beyond its edge.
import { describe, expect, it } from 'vitest';
import type { Json } from './harness.ts';
import { useSandbox } from './fixtures/sandbox.ts';

const { api } = useSandbox();

describe('reference 8', () => {
  it('printed sale lifetime: 5 minutes', async () => {
    await api.printedCheckout(1);
    const sale = await api.sale({ amount: '1.00' });
    expect(Date.parse(sale.body.expires_at) - Date.parse(sale.body.created_at)).toBe(5 * 60_000);
    await api.advance(5 * 60 - 1);
    expect((await api.get(`/v2/tx_status/${sale.body.pix_id}`)).body.status).toBe('pending');
    await api.advance(1);
    expect((await api.get(`/v2/tx_status/${sale.body.pix_id}`)).body.status).toBe('expired');
  });

  it('one pending sale per checkout (per checkout, not per store)', async () => {
    await api.printedCheckout(1);
    await api.printedCheckout(2);
    for (const c of [1, 2, 1, 2, 1]) await api.sale({ amount: '1.00', checkout_id: c });
    const rows: Json[] = (await api.control('GET', '/sales')).body;
    const pendingByCheckout = (c: number): number => rows.filter((r) => r.checkout_id === c && r.status === 'pending' && !r.displaced).length;
    expect([pendingByCheckout(1), pendingByCheckout(2)]).toEqual([1, 1]);
    expect(rows.filter((r) => r.displaced)).toHaveLength(3);
  });

  it('printed QR checkout_desc: 1 to 140 characters', async () => {
    const post = (desc: string, id: number): Promise<Json> => api.post('/v2/printed_dynamic_qrs', { checkout_id: id, auto_create_checkout: true, checkout_desc: desc });
    expect((await post('x', 2)).status).toBe(201);
    expect((await post('x'.repeat(140), 3)).status).toBe(201);
    expect((await post('', 4)).status).toBe(422);
    expect((await post('x'.repeat(141), 5)).status).toBe(422);
  });

  it('printed QR address: not blank, at most 100 characters', async () => {
    const post = (address: string): Promise<Json> => api.post('/v2/printed_dynamic_qrs', { checkout_id: 2, auto_create_checkout: true, address });
    for (const address of ['', ' \t ', 'a'.repeat(101)]) expect((await post(address)).status).toBe(422);
    // 100 characters pass validation (and then are not a wallet of the merchant).
    expect((await post('a'.repeat(100))).body).toEqual({ detail: 'Wallet not found' });
  });

  it('printed QR list: page from 1 (default 1), page_size 1 to 100 (default 100)', async () => {
    const get = (q: string): Promise<Json> => api.get(`/v2/printed_dynamic_qrs${q}`);
    expect((await get('')).body).toMatchObject({ page: 1, page_size: 100 });
    expect((await get('?page=1&page_size=1')).status).toBe(200);
    expect((await get('?page_size=100')).status).toBe(200);
    expect((await get('?page=0')).status).toBe(422);
    expect((await get('?page_size=0')).status).toBe(422);
    expect((await get('?page_size=101')).status).toBe(422);
  });

  it('store and checkout text: at least 1 character on update', async () => {
    expect((await api.patch('/v2/stores/1', { store_name: '' })).status).toBe(422);
    expect((await api.patch('/v2/stores/1', { store_name: 'a' })).status).toBe(200);
    expect((await api.patch('/v2/stores/1/checkouts/1', { checkout_desc: '' })).status).toBe(422);
    expect((await api.patch('/v2/stores/1/checkouts/1', { checkout_desc: 'a' })).status).toBe(200);
  });
});
