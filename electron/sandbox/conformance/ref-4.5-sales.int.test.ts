// Reference 4.5 (create_dynamic_pix on printed and dynamic checkouts: one pending sale,
// displacement, newest-sale crediting, late payments, 5-minute expiry, the gateway
// variants and the dynamic fallback), 3.1 (checkout mode and printed sale) and contract 2.
import { describe, expect, it } from 'vitest';
import { validateBrCode } from '../../shared/emv.ts';
import { TOKENS } from './harness.ts';
import type { Json } from './harness.ts';
import { useSandbox } from './fixtures/sandbox.ts';

const { api } = useSandbox();

const NO_PRINTED_QR = 'This checkout does not have a printed dynamic QR assigned.Please create one or contact support if you need assistance.';

async function events(): Promise<Json[]> {
  return (await api.control('GET', '/events')).body;
}

async function txStatus(pixId: string): Promise<{ status: number; body: Json }> {
  return api.get(`/v2/tx_status/${pixId}`);
}

describe('create_dynamic_pix on a standard (dynamic) checkout', () => {
  it('answers 201 with the fields of contract 2; checkout 1 of store 1 by default', async () => {
    const res = await api.sale({ amount: '12.50', external_id: 'order-1042' });
    expect(res.status).toBe(201);
    const b = res.body;
    expect(Object.keys(b).sort()).toEqual(['amount_brl', 'checkout_id', 'created_at', 'emv', 'expires_at', 'external_id', 'operation_id', 'pix_id', 'printed_dynamic_qr_data', 'qr_type', 'service_id', 'store_id']);
    expect(b).toMatchObject({ qr_type: 'dynamic', printed_dynamic_qr_data: null, amount_brl: '12.50', external_id: 'order-1042', store_id: 1, checkout_id: 1 });
    expect(b.pix_id).toMatch(/^pix_/);
    expect(b.service_id).toMatch(/^svc_/);
    expect(b.operation_id).toMatch(/^op_/);
    const check = validateBrCode(b.emv, { requireLocation: true });
    expect(check.ok && check.code.amount).toBe('12.50');
    // Contract 2: expire defaults to 3,600 s for a standard dynamic charge.
    expect(Date.parse(b.expires_at) - Date.parse(b.created_at)).toBe(3_600_000);
    expect(b.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('honours expire, and several charges stay pending side by side (no displacement)', async () => {
    const a = await api.sale({ amount: 1, expire: 60 });
    const b = await api.sale({ amount: 2 });
    expect(Date.parse(a.body.expires_at) - Date.parse(a.body.created_at)).toBe(60_000);
    expect(a.body.pix_id).not.toBe(b.body.pix_id);
    expect((await txStatus(a.body.pix_id)).body.status).toBe('pending');
    expect((await txStatus(b.body.pix_id)).body.status).toBe('pending');
    await api.advance(61);
    expect((await txStatus(a.body.pix_id)).body.status).toBe('expired');
    expect((await txStatus(b.body.pix_id)).body.status).toBe('pending');
  });

  it('accepts a JSON number and writes the amount back with two places', async () => {
    expect((await api.sale({ amount: 12.5 })).body.amount_brl).toBe('12.50');
    expect((await api.sale({ amount: 7 })).body.amount_brl).toBe('7.00');
    expect((await api.sale({ amount: '1000000.00' })).body.amount_brl).toBe('1000000.00');
  });

  it('paying its own emv pays that charge', async () => {
    const a = await api.sale({ amount: '3.00' });
    const b = await api.sale({ amount: '4.00' });
    const pay = await api.control('POST', '/pay', { emv: a.body.emv });
    expect(pay.status).toBe(200);
    expect(pay.body.pix_id).toBe(a.body.pix_id);
    expect((await txStatus(b.body.pix_id)).body.status).toBe('pending');
    const twice = await api.control('POST', '/pay', { emv: a.body.emv });
    expect(twice.status).toBe(409);
  });

  it('404 Checkout not found for a missing checkout or another merchant checkout', async () => {
    const missing = await api.sale({ amount: '1.00', checkout_id: 9 });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ detail: 'Checkout not found' });
    await api.post('/v2/stores/1/checkouts', { checkout_desc: 'M2', wallet_id: 201 }, { token: TOKENS.otherMerchant });
    const foreign = await api.sale({ amount: '1.00', checkout_id: 2 });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ detail: 'Checkout not found' });
    expect((await api.control('GET', '/sales')).body).toHaveLength(0);
  });
});

describe('create_dynamic_pix on a printed checkout', () => {
  it('attaches the sale to the printed QR: qr_type printed_dynamic, pqr_emv, 5-minute life whatever expire says', async () => {
    const qr = await api.printedCheckout(1);
    const res = await api.sale({ amount: '25.00', expire: 7200 });
    expect(res.status).toBe(201);
    expect(res.body.qr_type).toBe('printed_dynamic');
    expect(res.body.printed_dynamic_qr_data).toEqual({ pqr_emv: qr.qr_emvcode, printed_dynamic_qr_id: qr.printed_dynamic_qr_id });
    expect(Date.parse(res.body.expires_at) - Date.parse(res.body.created_at)).toBe(300_000);
    // Gateway variant same_emv (the default): the emv is the printed QR's.
    expect(res.body.emv).toBe(qr.qr_emvcode);
  });

  it('gateway amount_emv: the emv differs, shows the sale amount, and belongs to the checkout location', async () => {
    const qr = await api.printedCheckout(1);
    await api.control('PUT', '/gateway', { variant: 'amount_emv' });
    const res = await api.sale({ amount: '19.90' });
    expect(res.body.emv).not.toBe(qr.qr_emvcode);
    const emv = validateBrCode(res.body.emv, { requireLocation: true });
    const printed = validateBrCode(qr.qr_emvcode, { requireLocation: true });
    expect(emv.ok && emv.code.amount).toBe('19.90');
    expect(emv.ok && emv.code.locationUrl).toBe(printed.ok && printed.code.locationUrl);
    expect(res.body.printed_dynamic_qr_data.pqr_emv).toBe(qr.qr_emvcode);
  });

  it('rule 1 and 4: a new sale displaces the unpaid one silently; Tx Status answers TX not found for it', async () => {
    await api.printedCheckout(1);
    const first = await api.sale({ amount: '10.00' });
    const second = await api.sale({ amount: '11.00' });
    const sales = (await api.control('GET', '/sales?store_id=1&checkout_id=1')).body;
    expect(sales.map((s: Json) => [s.pix_id, s.displaced])).toEqual([
      [second.body.pix_id, false],
      [first.body.pix_id, true],
    ]);
    const tx = await txStatus(first.body.pix_id);
    expect(tx.status).toBe(404);
    expect(tx.body).toEqual({ detail: 'TX not found' });
    expect((await txStatus(second.body.pix_id)).body.status).toBe('pending');
    expect(await events()).toEqual([]);
  });

  it('rules 2 and 3: the printed QR, and the emv of an older sale, both charge the newest sale', async () => {
    const qr = await api.printedCheckout(1);
    await api.control('PUT', '/gateway', { variant: 'amount_emv' });
    const first = await api.sale({ amount: '10.00', external_id: 'A' });
    const second = await api.sale({ amount: '12.00', external_id: 'B' });
    const pay = await api.control('POST', '/pay', { emv: first.body.emv });
    expect(pay.status).toBe(200);
    expect(pay.body.pix_id).toBe(second.body.pix_id);
    const ev = await events();
    expect(ev.map((e: Json) => e.event)).toEqual(['charge.paid', 'charge.done']);
    expect(ev[0].payload).toMatchObject({ pix_id: second.body.pix_id, service_id: second.body.service_id, external_id: 'B', amount_brl: '12.00' });
    const third = await api.sale({ amount: '5.00' });
    const viaPrinted = await api.control('POST', '/pay', { emv: qr.qr_emvcode });
    expect(viaPrinted.body.pix_id).toBe(third.body.pix_id);
  });

  it('3.1: with no pending sale the printed QR cannot be read (409), before any sale and after payment', async () => {
    const qr = await api.printedCheckout(1);
    const none = await api.control('POST', '/pay', { emv: qr.qr_emvcode });
    expect(none.status).toBe(409);
    expect(none.body.detail).toMatch(/no pending sale/i);
    await api.sale({ amount: '1.00' });
    expect((await api.control('POST', '/pay', { emv: qr.qr_emvcode })).status).toBe(200);
    expect((await api.control('POST', '/pay', { emv: qr.qr_emvcode })).status).toBe(409);
  });

  it('section 8: a sale expires after 5 minutes of sandbox time; an expired sale is not displaced', async () => {
    const qr = await api.printedCheckout(1);
    const sale = await api.sale({ amount: '8.00' });
    await api.advance(299);
    expect((await txStatus(sale.body.pix_id)).body.status).toBe('pending');
    await api.advance(2);
    expect((await txStatus(sale.body.pix_id)).body.status).toBe('expired');
    expect((await api.control('POST', '/pay', { emv: qr.qr_emvcode })).status).toBe(409);
    const next = await api.sale({ amount: '9.00' });
    const rows = (await api.control('GET', '/sales?store_id=1&checkout_id=1')).body;
    expect(rows.find((r: Json) => r.pix_id === sale.body.pix_id)).toMatchObject({ displaced: false, status: 'expired' });
    expect((await txStatus(sale.body.pix_id)).body.status).toBe('expired');
    expect((await txStatus(next.body.pix_id)).body.status).toBe('pending');
  });

  it('a paid sale is not displaced by the next one', async () => {
    await api.printedCheckout(1);
    const first = await api.sale({ amount: '1.00' });
    await api.control('POST', '/pay', { store_id: 1, checkout_id: 1 });
    await api.sale({ amount: '2.00' });
    expect((await txStatus(first.body.pix_id)).body.status).toBe('paid');
  });

  it('rule 5: a displaced sale can be reported late, with its own ids; Tx Status stays 404', async () => {
    await api.printedCheckout(1);
    const first = await api.sale({ amount: '10.00', external_id: 'first' });
    const second = await api.sale({ amount: '10.50', external_id: 'second' });
    const late = await api.control('POST', '/pay', { late_for: first.body.pix_id });
    expect(late.status).toBe(200);
    expect(late.body).toMatchObject({ pix_id: first.body.pix_id, late: true, amount_brl: '10.00' });
    const ev = await events();
    expect(ev.map((e: Json) => [e.event, e.payload.pix_id, e.payload.service_id])).toEqual([
      ['charge.paid', first.body.pix_id, first.body.service_id],
      ['charge.done', first.body.pix_id, first.body.service_id],
    ]);
    expect(ev[0].payload.external_id).toBe('first');
    expect((await txStatus(first.body.pix_id)).status).toBe(404);
    // The newest sale is untouched and still payable.
    expect((await txStatus(second.body.pix_id)).body.status).toBe('pending');
  });

  it('rule 6: amount_brl carries what the payer actually paid', async () => {
    await api.printedCheckout(1);
    const sale = await api.sale({ amount: '50.00' });
    await api.control('POST', '/pay', { store_id: 1, checkout_id: 1, amount: '5.00' });
    const [paid] = await events();
    expect(paid.payload).toMatchObject({ pix_id: sale.body.pix_id, amount_brl: '5.00' });
  });

  it('422 with the exact detail when the checkout is printed but has no printed QR', async () => {
    await api.post('/v2/stores/1/checkouts/1/configs', { config_type: 'default_qr', config_value: 'printed_dynamic_qr' });
    const res = await api.sale({ amount: '1.00' });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ detail: NO_PRINTED_QR });
  });

  it('503 printed_qr_disabled on a printed checkout only; nothing created', async () => {
    await api.printedCheckout(1);
    await api.post('/v2/stores/1/checkouts', { checkout_desc: 'dyn', wallet_id: 101 });
    await api.control('PUT', '/gateway', { printed_disabled: true });
    const res = await api.sale({ amount: '1.00' });
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ detail: 'printed_qr_disabled' });
    expect((await api.sale({ amount: '1.00', checkout_id: 2 })).status).toBe(201);
    expect((await api.control('GET', '/sales?checkout_id=1')).body).toEqual([]);
  });

  it('dynamic fallback: qr_type dynamic on a printed checkout, its own emv, still the newest sale', async () => {
    const qr = await api.printedCheckout(1);
    const first = await api.sale({ amount: '2.00' });
    await api.control('PUT', '/gateway', { printed_fallback_dynamic: true });
    const res = await api.sale({ amount: '3.00' });
    expect(res.status).toBe(201);
    expect(res.body.qr_type).toBe('dynamic');
    expect(res.body.printed_dynamic_qr_data).toBeNull();
    expect(res.body.emv).not.toBe(qr.qr_emvcode);
    const check = validateBrCode(res.body.emv, { requireLocation: true });
    expect(check.ok && check.code.amount).toBe('3.00');
    expect((await txStatus(first.body.pix_id)).status).toBe(404);
    const pay = await api.control('POST', '/pay', { emv: res.body.emv });
    expect(pay.body.pix_id).toBe(res.body.pix_id);
  });
});

describe('create_dynamic_pix validation (contract 2)', () => {
  it.each<[string, Record<string, unknown>, string, string]>([
    ['no amount', {}, 'amount', 'missing'],
    ['a zero amount', { amount: '0.00' }, 'amount', 'greater_than'],
    ['a negative amount', { amount: '-1.00' }, 'amount', 'greater_than'],
    ['three decimals', { amount: '1.001' }, 'amount', 'decimal_max_places'],
    ['a float with noise', { amount: 0.1 + 0.2 }, 'amount', 'decimal_max_places'],
    ['over a million', { amount: '1000000.01' }, 'amount', 'less_than_equal'],
    ['text', { amount: 'ten' }, 'amount', 'decimal_parsing'],
    ['a boolean', { amount: true }, 'amount', 'decimal_type'],
    ['an empty external_id', { amount: '1.00', external_id: '' }, 'external_id', 'string_too_short'],
    ['a 129-character external_id', { amount: '1.00', external_id: 'e'.repeat(129) }, 'external_id', 'string_too_long'],
    ['a numeric external_id', { amount: '1.00', external_id: 12 }, 'external_id', 'string_type'],
    ['expire 59', { amount: '1.00', expire: 59 }, 'expire', 'greater_than_equal'],
    ['expire 86,401', { amount: '1.00', expire: 86_401 }, 'expire', 'less_than_equal'],
    ['a fractional store_id', { amount: '1.00', store_id: 1.5 }, 'store_id', 'int_from_float'],
    ['an object checkout_id', { amount: '1.00', checkout_id: {} }, 'checkout_id', 'int_type'],
  ])('422 for %s, nothing created', async (_name, body, field, type) => {
    const res = await api.sale(body);
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ type, loc: ['body', field] });
    expect((await api.control('GET', '/sales')).body).toEqual([]);
  });

  it('limits are inclusive: 0.01, 1,000,000.00, 128-character external_id, expire 60 and 86,400', async () => {
    for (const body of [{ amount: '0.01' }, { amount: 1_000_000 }, { amount: '1', external_id: 'e'.repeat(128) }, { amount: '1', expire: 60 }, { amount: '1', expire: 86_400 }]) {
      expect((await api.sale(body)).status).toBe(201);
    }
  });
});

describe('Idempotency-Key (contract 2)', () => {
  it('the same key and body within 24 h returns the first answer and makes no new sale', async () => {
    await api.printedCheckout(1);
    const headers = { 'Idempotency-Key': 'key-1' };
    const a = await api.sale({ amount: '9.99', external_id: 'o1' }, { headers });
    const b = await api.sale({ external_id: 'o1', amount: 9.99 }, { headers });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.body).toEqual(a.body);
    expect((await api.control('GET', '/sales')).body).toHaveLength(1);
  });

  it('the same key with another body is 409', async () => {
    const headers = { 'Idempotency-Key': 'key-2' };
    await api.sale({ amount: '1.00' }, { headers });
    const res = await api.sale({ amount: '2.00' }, { headers });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ detail: 'Idempotency-Key reused with a different body' });
    expect((await api.control('GET', '/sales')).body).toHaveLength(1);
  });

  it('keys are per merchant, and forgotten after 24 hours', async () => {
    const headers = { 'Idempotency-Key': 'shared' };
    const m1 = await api.sale({ amount: '1.00' }, { headers });
    const m2 = await api.sale({ amount: '1.00' }, { headers, token: TOKENS.otherMerchant });
    expect(m2.body.pix_id).not.toBe(m1.body.pix_id);
    await api.advance(24 * 3600 + 1);
    const later = await api.sale({ amount: '1.00' }, { headers });
    expect(later.body.pix_id).not.toBe(m1.body.pix_id);
  });

  it('a key over 255 characters is a 422 on the header', async () => {
    const res = await api.sale({ amount: '1.00' }, { headers: { 'Idempotency-Key': 'k'.repeat(256) } });
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ type: 'string_too_long', loc: ['header', 'idempotency-key'] });
  });

  it('without the header a retried create on a printed checkout makes a second sale that displaces the first', async () => {
    await api.printedCheckout(1);
    const a = await api.sale({ amount: '1.00' });
    const b = await api.sale({ amount: '1.00' });
    expect(b.body.pix_id).not.toBe(a.body.pix_id);
    expect((await txStatus(a.body.pix_id)).status).toBe(404);
  });
});
