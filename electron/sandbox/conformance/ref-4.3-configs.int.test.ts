// Reference 4.3 (checkout configs) and 2.3, through HTTP.
import { describe, expect, it } from 'vitest';
import { TOKENS } from './harness.ts';
import { useSandbox } from './fixtures/sandbox.ts';

const { api } = useSandbox();

const CONFIGS = '/v2/stores/1/checkouts/1/configs';

describe('POST .../configs', () => {
  it('stores a config (201) and overwrites the same config_type (200): an upsert', async () => {
    const first = await api.post(CONFIGS, { config_type: 'default_qr', config_value: 'dynamic' });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ merchant_id: 1, store_id: 1, checkout_id: 1, config_type: 'default_qr', config_value: 'dynamic' });
    const second = await api.post(CONFIGS, { config_type: 'default_qr', config_value: 'printed_dynamic_qr' });
    expect(second.status).toBe(200);
    expect(second.body.config_value).toBe('printed_dynamic_qr');
    const list = await api.get(CONFIGS);
    expect(list.body).toEqual([{ merchant_id: 1, store_id: 1, checkout_id: 1, config_type: 'default_qr', config_value: 'printed_dynamic_qr' }]);
  });

  it('default_qr accepts only printed_dynamic_qr and dynamic: 422 naming them, nothing stored', async () => {
    await api.post(CONFIGS, { config_type: 'default_qr', config_value: 'dynamic' });
    const res = await api.post(CONFIGS, { config_type: 'default_qr', config_value: 'printed' });
    expect(res.status).toBe(422);
    const [item] = res.body.detail;
    expect(item).toMatchObject({ type: 'value_error', loc: ['body', 'config_value'], input: 'printed' });
    expect(item.msg).toContain('printed_dynamic_qr');
    expect(item.msg).toContain('dynamic');
    expect(item.ctx).toBeTypeOf('object');
    expect((await api.get(CONFIGS)).body[0].config_value).toBe('dynamic');
  });

  it.each(['config_type', 'config_value'])('an empty %s is 422 string_too_short on that field', async (field) => {
    const body = { config_type: 'x', config_value: 'y', [field]: '' };
    const res = await api.post(CONFIGS, body);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([{ type: 'string_too_short', loc: ['body', field], msg: 'String should have at least 1 character', input: '', ctx: { min_length: 1 } }]);
    expect((await api.get(CONFIGS)).body).toEqual([]);
  });

  it('both fields are required', async () => {
    const res = await api.post(CONFIGS, {});
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { type: string; loc: string[] }) => [d.type, d.loc[1]])).toEqual([
      ['missing', 'config_type'],
      ['missing', 'config_value'],
    ]);
  });

  it('404 Checkout not found for a missing checkout or another merchant checkout', async () => {
    const missing = await api.post('/v2/stores/1/checkouts/5/configs', { config_type: 'a', config_value: 'b' });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ detail: 'Checkout not found' });
    await api.post('/v2/stores/1/checkouts', { checkout_desc: 'M2 2', wallet_id: 201 }, { token: TOKENS.otherMerchant });
    const foreign = await api.post('/v2/stores/1/checkouts/2/configs', { config_type: 'a', config_value: 'b' });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ detail: 'Checkout not found' });
  });

  it('printed mode on a checkout without a printed QR is stored, and later sales fail with 422 (3.1)', async () => {
    const res = await api.post(CONFIGS, { config_type: 'default_qr', config_value: 'printed_dynamic_qr' });
    expect(res.status).toBe(201);
    const sale = await api.sale({ amount: '10.00' });
    expect(sale.status).toBe(422);
    expect(sale.body).toEqual({ detail: 'This checkout does not have a printed dynamic QR assigned.Please create one or contact support if you need assistance.' });
  });

  it('default_qr=dynamic reverts a printed checkout (3.1)', async () => {
    await api.printedCheckout(1);
    expect((await api.sale({ amount: '1.00' })).body.qr_type).toBe('printed_dynamic');
    await api.post(CONFIGS, { config_type: 'default_qr', config_value: 'dynamic' });
    const sale = await api.sale({ amount: '1.00' });
    expect(sale.body.qr_type).toBe('dynamic');
    expect(sale.body.printed_dynamic_qr_data).toBeNull();
  });
});

describe('GET .../configs', () => {
  it('an empty array when none; ordered by config_type', async () => {
    expect((await api.get(CONFIGS)).body).toEqual([]);
    await api.post(CONFIGS, { config_type: 'zeta', config_value: '1' });
    await api.post(CONFIGS, { config_type: 'default_qr', config_value: 'dynamic' });
    await api.post(CONFIGS, { config_type: 'alpha', config_value: '2' });
    const res = await api.get(CONFIGS);
    expect(res.status).toBe(200);
    expect(res.body.map((c: { config_type: string }) => c.config_type)).toEqual(['alpha', 'default_qr', 'zeta']);
  });

  it('404 Checkout not found, including another merchant configs', async () => {
    const res = await api.get('/v2/stores/1/checkouts/2/configs');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Checkout not found' });
    await api.post(CONFIGS, { config_type: 'secret', config_value: 'm2' }, { token: TOKENS.otherMerchant });
    expect((await api.get(CONFIGS)).body).toEqual([]);
  });
});
