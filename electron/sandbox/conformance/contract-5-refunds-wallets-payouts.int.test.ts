/**
 * Contract 5 (refunds, wallets, pay-outs) and contract 1's access rules for them, through
 * HTTP against a sandbox started in-process on loopback.
 */
import { describe, expect, it } from 'vitest';
import { PAYOUT_CASHIER_TOKEN, TOKENS, addPayoutCashierToken, paidCharge, setMode, useHarness, type Harness } from './payout-settlement-harness.ts';


const h: Harness = useHarness();

describe('GET /v2/wallets', () => {
  it('lists the merchant wallets with network and deprecation (contract 5, fixture of contract 7)', async () => {
    const r = await h.api('GET', '/v2/wallets', TOKENS.manager);
    expect(r.status).toBe(200);
    expect(r.body.map((w: { wallet_id: number; deprecated: boolean }) => [w.wallet_id, w.deprecated])).toEqual([
      [101, false],
      [102, false],
      [103, true],
    ]);
    for (const w of r.body) {
      expect(Object.keys(w).sort()).toEqual(['address', 'currency', 'deprecated', 'network', 'wallet_id']);
      expect(typeof w.address).toBe('string');
    }
  });

  it.each([
    ['pay_in only, cashier', TOKENS.cashier],
    ['pay_out only', TOKENS.payout],
    ['supervisor', TOKENS.supervisor],
  ])('answers any role with pay_in or pay_out (%s)', async (_name, token) => {
    const r = await h.api('GET', '/v2/wallets', token);
    expect(r.status).toBe(200);
    expect(r.body).toHaveLength(3);
  });

  it('shows another merchant only its own wallet', async () => {
    const r = await h.api('GET', '/v2/wallets', TOKENS.otherMerchant);
    expect(r.body.map((w: { wallet_id: number }) => w.wallet_id)).toEqual([201]);
  });

  it.each([null, 'not-a-token'])('refuses token %j with 401 Could not validate credentials', async (token) => {
    const r = await h.api('GET', '/v2/wallets', token);
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ detail: 'Could not validate credentials' });
    expect(r.headers.get('www-authenticate')).toBe('Bearer');
  });
});

describe('GET /v2/payouts and /v2/payouts/{service_id}', () => {
  it('lists the fixture pay-outs newest first, undated last, with the contract 5 fields', async () => {
    const r = await h.api('GET', '/v2/payouts', TOKENS.manager);
    expect(r.status).toBe(200);
    expect(r.body.map((p: { service_id: string }) => p.service_id)).toEqual([
      'po_fixture_no_e2e',
      'po_fixture_no_doc',
      'po_fixture_ok',
      'po_fixture_old',
      'po_fixture_undated',
    ]);
    const ok = r.body.find((p: { service_id: string }) => p.service_id === 'po_fixture_ok');
    expect(Object.keys(ok).sort()).toEqual(['amount', 'created_at', 'currency', 'e2e_id', 'external_id', 'payer_document', 'service_id']);
    expect(ok).toMatchObject({ external_id: 'ext_po_fixture_ok', amount: '150.00', currency: 'BRL', payer_document: expect.any(String), e2e_id: expect.any(String) });
    const now = await h.now();
    // contract 7: processed 2 days ago; po_fixture_old 90 days
    expect(Math.round((now - Date.parse(ok.created_at)) / 86_400_000)).toBe(2);
    const old = r.body.find((p: { service_id: string }) => p.service_id === 'po_fixture_old');
    expect(Math.round((now - Date.parse(old.created_at)) / 86_400_000)).toBe(90);
    expect(r.body.find((p: { service_id: string }) => p.service_id === 'po_fixture_no_doc').payer_document).toBeNull();
    expect(r.body.find((p: { service_id: string }) => p.service_id === 'po_fixture_no_e2e').e2e_id).toBeNull();
    expect(r.body.find((p: { service_id: string }) => p.service_id === 'po_fixture_undated').created_at).toBeNull();
  });

  it('pages with limit and offset', async () => {
    const all = (await h.api('GET', '/v2/payouts', TOKENS.manager)).body.map((p: { service_id: string }) => p.service_id);
    const page = await h.api('GET', '/v2/payouts?limit=2&offset=1', TOKENS.manager);
    expect(page.body.map((p: { service_id: string }) => p.service_id)).toEqual(all.slice(1, 3));
    expect((await h.api('GET', '/v2/payouts?offset=10', TOKENS.manager)).body).toEqual([]);
  });

  it.each([
    ['limit=0', 'limit', 'greater_than_equal'],
    ['limit=201', 'limit', 'less_than_equal'],
    ['limit=abc', 'limit', 'int_parsing'],
    ['offset=-1', 'offset', 'greater_than_equal'],
  ])('refuses %s with the 422 validation list', async (query, field, type) => {
    const r = await h.api('GET', `/v2/payouts?${query}`, TOKENS.manager);
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual([expect.objectContaining({ type, loc: ['query', field] })]);
  });

  it('reads one pay-out', async () => {
    const r = await h.api('GET', '/v2/payouts/po_fixture_no_doc', TOKENS.supervisor);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ service_id: 'po_fixture_no_doc', external_id: 'ext_po_fixture_no_doc', payer_document: null });
  });

  it('answers another merchant pay-out exactly like a missing one', async () => {
    const foreign = await h.api('GET', '/v2/payouts/po_fixture_m2', TOKENS.manager);
    const missing = await h.api('GET', '/v2/payouts/po_nope', TOKENS.manager);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ detail: 'Payout not found' });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual(foreign.body);
    const own = await h.api('GET', '/v2/payouts', TOKENS.otherMerchant);
    expect(own.body.map((p: { service_id: string }) => p.service_id)).toEqual(['po_fixture_m2']);
  });

  it('needs scope pay_out (401) and role manager or supervisor (403)', async () => {
    await addPayoutCashierToken(h);
    const noScope = await h.api('GET', '/v2/payouts', TOKENS.cashier);
    expect(noScope.status).toBe(401);
    expect(noScope.body).toEqual({ detail: 'Token Profile Not Authorized for this Endpoint' });
    const noRole = await h.api('GET', '/v2/payouts/po_fixture_ok', PAYOUT_CASHIER_TOKEN);
    expect(noRole.status).toBe(403);
    expect(noRole.body).toEqual({ detail: 'User role not authorized for this endpoint' });
    expect((await h.api('GET', '/v2/payouts', TOKENS.payout)).status).toBe(200);
    expect((await h.api('GET', '/v2/payouts', null)).status).toBe(401);
  });
});

describe('POST /v2/pay_in_refunds/request', () => {
  it('refunds part of a paid charge and answers 201 with the contract 5 body', async () => {
    const charge = await paidCharge(h, '12.50');
    const r = await h.api('POST', '/v2/pay_in_refunds/request', TOKENS.cashier, { service_id: charge.service_id, amount: '2.50', reason: 'cliente desistiu' });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      pay_in_refund_request_id: expect.stringMatching(/^rpir_/),
      service_refund_id: expect.stringMatching(/^rpi_/),
      service_id: charge.service_id,
      refunded_amount: '2.50',
      refunded_currency: 'BRL',
      status: 'requested',
    });
  });

  it('accepts the amount as a JSON number too', async () => {
    const charge = await paidCharge(h, '10.00');
    const r = await h.api('POST', '/v2/pay_in_refunds/request', TOKENS.cashier, { service_id: charge.service_id, amount: 1.5 });
    expect(r.status).toBe(201);
    expect(r.body.refunded_amount).toBe('1.50');
  });

  it('defaults the amount to the rest of the charge, then nothing is left (422); Tx Status reads refunded', async () => {
    const charge = await paidCharge(h, '12.50');
    await h.api('POST', '/v2/pay_in_refunds/request', TOKENS.cashier, { service_id: charge.service_id, amount: '2.50' });
    const rest = await h.api('POST', '/v2/pay_in_refunds/request', TOKENS.cashier, { service_id: charge.service_id });
    expect(rest.status).toBe(201);
    expect(rest.body.refunded_amount).toBe('10.00');
    const again = await h.api('POST', '/v2/pay_in_refunds/request', TOKENS.cashier, { service_id: charge.service_id });
    expect(again.status).toBe(422);
    expect(again.body.detail).toEqual([expect.objectContaining({ type: 'value_error', loc: ['body', 'service_id'] })]);
    const tx = await h.api('GET', `/v2/tx_status/${charge.pix_id}`, TOKENS.cashier);
    expect(tx.body.status).toBe('refunded');
  });

  it('refuses more than is left with less_than_equal naming what is left', async () => {
    const charge = await paidCharge(h, '12.50');
    await h.api('POST', '/v2/pay_in_refunds/request', TOKENS.cashier, { service_id: charge.service_id, amount: '10.00' });
    const r = await h.api('POST', '/v2/pay_in_refunds/request', TOKENS.cashier, { service_id: charge.service_id, amount: '2.51' });
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual([
      { type: 'less_than_equal', loc: ['body', 'amount'], msg: 'Input should be less than or equal to 2.50', input: '2.51', ctx: { le: '2.50' } },
    ]);
    const tx = await h.api('GET', `/v2/tx_status/${charge.pix_id}`, TOKENS.cashier);
    expect(tx.body.status).toBe('paid');
  });

  it('has nothing to refund on an unpaid charge', async () => {
    const charge = await paidCharge(h, '12.50', { pay: false });
    const r = await h.api('POST', '/v2/pay_in_refunds/request', TOKENS.cashier, { service_id: charge.service_id, amount: '1.00' });
    expect(r.status).toBe(422);
  });

  it('answers an unknown and a foreign charge alike: 404 Charge not found', async () => {
    const foreign = await paidCharge(h, '5.00', { token: TOKENS.otherMerchant });
    const a = await h.api('POST', '/v2/pay_in_refunds/request', TOKENS.cashier, { service_id: foreign.service_id });
    const b = await h.api('POST', '/v2/pay_in_refunds/request', TOKENS.cashier, { service_id: 'svc_does_not_exist' });
    expect(a.status).toBe(404);
    expect(a.body).toEqual({ detail: 'Charge not found' });
    expect(b.status).toBe(404);
    expect(b.body).toEqual(a.body);
  });

  it.each([
    [{}, 'missing', ['body', 'service_id']],
    [{ service_id: 'svc_x', amount: 'abc' }, 'decimal_parsing', ['body', 'amount']],
    [{ service_id: 'svc_x', amount: '0' }, 'greater_than', ['body', 'amount']],
    [{ service_id: 'svc_x', amount: '-1.00' }, 'greater_than', ['body', 'amount']],
    [{ service_id: 'svc_x', amount: '1.234' }, 'decimal_max_places', ['body', 'amount']],
    [{ service_id: 7 }, 'string_type', ['body', 'service_id']],
  ])('refuses %j with the 422 validation list', async (body, type, loc) => {
    const r = await h.api('POST', '/v2/pay_in_refunds/request', TOKENS.cashier, body);
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual([expect.objectContaining({ type, loc })]);
  });

  it('needs scope pay_in, any role', async () => {
    const charge = await paidCharge(h, '3.00');
    const noScope = await h.api('POST', '/v2/pay_in_refunds/request', TOKENS.payout, { service_id: charge.service_id });
    expect(noScope.status).toBe(401);
    expect(noScope.body).toEqual({ detail: 'Token Profile Not Authorized for this Endpoint' });
    expect((await h.api('POST', '/v2/pay_in_refunds/request', null, { service_id: charge.service_id })).status).toBe(401);
    expect((await h.api('POST', '/v2/pay_in_refunds/request', TOKENS.supervisor, { service_id: charge.service_id, amount: '1.00' })).status).toBe(201);
  });

  it('in a batched mode, joins the checkout pending refunds with its ids', async () => {
    await setMode(h, 'ars_batched');
    const charge = await paidCharge(h, '12.50', { externalId: 'order-77' });
    const refund = await h.api('POST', '/v2/pay_in_refunds/request', TOKENS.cashier, { service_id: charge.service_id, amount: '2.50' });
    const pending = await h.api('GET', '/v1/settlements/pending-charges', TOKENS.cashier);
    expect(pending.body.pending_refunds).toEqual([
      {
        service_refund_id: refund.body.service_refund_id,
        pay_in_refund_request_id: refund.body.pay_in_refund_request_id,
        service_id: charge.service_id,
        external_id: 'order-77',
        service_request_id: charge.pix_id,
        refunded_amount: 2.5,
        refunded_currency: 'BRL',
        // 3091.48 ARS x 250/1250 = 618.296 -> 618.30 (the charge's own rate)
        deduction_amount: 618.3,
        deduction_currency: 'ARS',
      },
    ]);
  });

  it('in legacy 1:1 mode brings no deduction', async () => {
    const charge = await paidCharge(h, '12.50');
    await h.api('POST', '/v2/pay_in_refunds/request', TOKENS.cashier, { service_id: charge.service_id, amount: '2.50' });
    await setMode(h, 'ars_batched');
    const pending = await h.api('GET', '/v1/settlements/pending-charges', TOKENS.cashier);
    expect(pending.body.pending_refunds).toEqual([]);
  });
});
