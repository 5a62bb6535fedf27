// Contract 3 (Tx Status), through HTTP.
import { describe, expect, it } from 'vitest';
import { TOKENS } from './harness.ts';
import { useSandbox } from './fixtures/sandbox.ts';

const { api } = useSandbox();

describe('GET /v2/tx_status/{pix_id}', () => {
  it('a pending charge: the six fields, paid_at and e2e_id null', async () => {
    const sale = await api.sale({ amount: '12.50' });
    const res = await api.get(`/v2/tx_status/${sale.body.pix_id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ pix_id: sale.body.pix_id, service_id: sale.body.service_id, status: 'pending', amount_brl: '12.50', paid_at: null, e2e_id: null });
  });

  it('a paid charge: paid_at (sandbox time) and a 32-character end-to-end id', async () => {
    const sale = await api.sale({ amount: '12.50' });
    await api.advance(30);
    const pay = await api.control('POST', '/pay', { emv: sale.body.emv });
    const res = await api.get(`/v2/tx_status/${sale.body.pix_id}`);
    expect(res.body).toMatchObject({ status: 'paid', amount_brl: '12.50', paid_at: pay.body.paid_at, e2e_id: pay.body.e2e_id });
    expect(res.body.e2e_id).toMatch(/^E\d{8}\d{12}[A-Z0-9]{11}$/);
    expect(Date.parse(res.body.paid_at) - Date.parse(sale.body.created_at)).toBeGreaterThanOrEqual(30_000);
  });

  it('a paid charge stays paid when the clock passes its expiry', async () => {
    await api.printedCheckout(1);
    const sale = await api.sale({ amount: '1.00' });
    await api.control('POST', '/pay', { store_id: 1, checkout_id: 1 });
    await api.advance(3600);
    expect((await api.get(`/v2/tx_status/${sale.body.pix_id}`)).body.status).toBe('paid');
  });

  it('an unpaid sale is expired once its time is over, computed from the sandbox clock', async () => {
    await api.printedCheckout(1);
    const sale = await api.sale({ amount: '1.00' });
    await api.advance(300);
    expect((await api.get(`/v2/tx_status/${sale.body.pix_id}`)).body).toMatchObject({ status: 'expired', paid_at: null, e2e_id: null });
  });

  it('a displaced sale is 404 TX not found, for ever, even after its late payment', async () => {
    await api.printedCheckout(1);
    const first = await api.sale({ amount: '1.00' });
    await api.sale({ amount: '2.00' });
    await api.control('POST', '/pay', { late_for: first.body.pix_id });
    for (const seconds of [0, 3600, 86_400 * 30]) {
      await api.advance(seconds);
      const res = await api.get(`/v2/tx_status/${first.body.pix_id}`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: 'TX not found' });
    }
  });

  it('an unknown id or another merchant id is 404 TX not found', async () => {
    const sale = await api.sale({ amount: '1.00' });
    for (const [id, token] of [
      ['pix_000000000000000000000000', TOKENS.manager],
      ['%00', TOKENS.manager],
      ['__proto__', TOKENS.manager],
      [sale.body.pix_id, TOKENS.otherMerchant],
    ] as const) {
      const res = await api.get(`/v2/tx_status/${id}`, { token });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: 'TX not found' });
    }
  });

  it('once paid, amount_brl is what the payer paid', async () => {
    const sale = await api.sale({ amount: '10.00' });
    await api.control('POST', '/pay', { emv: sale.body.emv, amount: '9.99' });
    expect((await api.get(`/v2/tx_status/${sale.body.pix_id}`)).body.amount_brl).toBe('9.99');
  });
});
