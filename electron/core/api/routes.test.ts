import { describe, expect, it } from 'vitest';
import { CoreError } from '../errors.ts';
import { cents, currencyScale, decodeAnswer, DecodeError, record, text, withAmounts } from './decode.ts';
import { parseErrorBody } from './errors.ts';
import { buildPath, buildQuery, REFUND_KEYS } from './routes/route.ts';
import { ROUTES } from './routes.ts';
import type { RouteName } from './routes.ts';

const SALE = {
  pix_id: 'pix_1',
  service_id: 'svc_1',
  operation_id: 'op_1',
  qr_type: 'printed_dynamic',
  emv: '000201',
  printed_dynamic_qr_data: { pqr_emv: '000201', printed_dynamic_qr_id: 'pqr_1' },
  amount_brl: '12.50',
  external_id: 'order-1042',
  store_id: 1,
  checkout_id: 3,
  created_at: '2026-11-21T13:45:00.000Z',
  expires_at: '2026-11-21T13:50:00.000Z',
};

function invalidArgument(fn: () => unknown): CoreError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(CoreError);
    expect((err as CoreError).code).toBe('invalid_argument');
    return err as CoreError;
  }
  throw new Error('expected an invalid_argument error');
}

describe('the route table', () => {
  const names = Object.keys(ROUTES) as RouteName[];

  it('covers every endpoint the app uses (reference 4.1–4.7, contract 2–5)', () => {
    const endpoints = names.map((n) => `${ROUTES[n].method} ${ROUTES[n].path}`).sort();
    expect(endpoints).toEqual(
      [
        'GET /v1/settlements',
        'GET /v1/settlements/pending-charges',
        'GET /v1/settlements/transactions',
        'GET /v1/settlements/{settlement_id}',
        'GET /v2/payout_meds',
        'GET /v2/payout_meds/{med_case_id}',
        'GET /v2/payouts',
        'GET /v2/payouts/{service_id}',
        'GET /v2/printed_dynamic_qrs',
        'GET /v2/stores',
        'GET /v2/stores/{store_id}/checkouts',
        'GET /v2/stores/{store_id}/checkouts/{checkout_id}/configs',
        'GET /v2/tx_status/{pix_id}',
        'GET /v2/wallets',
        'PATCH /v2/stores/{store_id}',
        'PATCH /v2/stores/{store_id}/checkouts/{checkout_id}',
        'POST /v2/create_dynamic_pix',
        'POST /v2/pay_in_refunds/request',
        'POST /v2/payout_meds',
        'POST /v2/printed_dynamic_qrs',
        'POST /v2/stores',
        'POST /v2/stores/{store_id}/checkouts',
        'POST /v2/stores/{store_id}/checkouts/{checkout_id}/configs',
      ].sort(),
    );
  });

  it('retries every read, keyed creates only with a key, and no other write', () => {
    for (const n of names) {
      const r = ROUTES[n];
      if (r.method === 'GET') expect(r.retry, n).toBe('always');
      else expect(r.retry, n).not.toBe('always');
    }
    const keyed = names.filter((n) => ROUTES[n].retry === 'idempotency_key');
    // Contract 2: create_dynamic_pix takes an Idempotency-Key and is repeated with it.
    expect([...keyed].sort()).toEqual(['sales.create']);
    // Contract 5 is silent on refund keys: the key is sent, but the client never repeats a
    // refund; its follow-up or a person decides (REFUND_KEYS).
    expect(names.filter((n) => ROUTES[n].retry === 'key_sent_once')).toEqual(['refunds.request']);
    expect(REFUND_KEYS).toEqual({ honoured: false, windowMs: 24 * 3_600_000 });
  });

  it('gives every route an action for sentences and its success statuses', () => {
    for (const n of names) {
      expect(ROUTES[n].action.length, n).toBeGreaterThan(5);
      expect(ROUTES[n].success.length, n).toBeGreaterThan(0);
      expect(ROUTES[n].success.every((s) => s >= 200 && s < 300), n).toBe(true);
    }
  });
});

describe('paths and queries', () => {
  it('fills integer and string parameters, percent-encoding strings', () => {
    expect(buildPath('/v2/stores/{store_id}/checkouts/{checkout_id}', { store_id: 1, checkout_id: 12 })).toBe('/v2/stores/1/checkouts/12');
    expect(buildPath('/v2/tx_status/{pix_id}', { pix_id: 'pix/../stores' })).toBe('/v2/tx_status/pix%2F..%2Fstores');
  });

  it.each([0, -1, 1.5, Number.NaN, 2 ** 60])('refuses the id %d before sending', (id) => {
    const err = invalidArgument(() => buildPath('/v2/stores/{store_id}', { store_id: id }));
    expect(err.message).toContain('store_id');
    expect(err.message).toContain('nothing was sent');
  });

  it('refuses an empty or missing string id', () => {
    invalidArgument(() => buildPath('/v2/tx_status/{pix_id}', { pix_id: '  ' }));
    invalidArgument(() => buildPath('/v2/tx_status/{pix_id}', {}));
  });

  it('leaves undefined query values out', () => {
    expect(buildQuery({ store_id: 1, checkout_id: undefined, page_size: 100 })).toBe('?store_id=1&page_size=100');
    expect(buildQuery({ start_date: '2026-11-01T00:00:00+00:00' })).toBe('?start_date=2026-11-01T00%3A00%3A00%2B00%3A00');
    expect(buildQuery({})).toBe('');
    expect(buildQuery(undefined)).toBe('');
  });
});

describe('request encoding', () => {
  it('sends a sale amount in cents as a BRL two-place decimal string', () => {
    const encoded = ROUTES['sales.create'].encode({ amount_cents: 1250, checkout_id: 3, external_id: 'order-1' });
    expect(encoded.body).toMatchObject({ amount: '12.50', checkout_id: 3, external_id: 'order-1' });
    expect(ROUTES['sales.create'].encode({ amount_cents: 5 }).body).toMatchObject({ amount: '0.05' });
    expect(JSON.stringify(ROUTES['sales.create'].encode({ amount_cents: 100 }).body)).toBe('{"amount":"1.00"}');
  });

  it.each([0, -100, 12.5, Number.NaN])('refuses the sale amount %d before sending', (cents) => {
    const err = invalidArgument(() => ROUTES['sales.create'].encode({ amount_cents: cents }));
    expect(err.message).toContain('sale amount');
  });

  it('sends a refund amount only when given', () => {
    expect(JSON.stringify(ROUTES['refunds.request'].encode({ service_id: 'svc_1' }).body)).toBe('{"service_id":"svc_1"}');
    expect(ROUTES['refunds.request'].encode({ service_id: 'svc_1', amount_cents: 300 }).body).toMatchObject({ amount: '3.00' });
  });
});

describe('response decoding', () => {
  it('reads a sale; amount_brl as a string or a JSON number gives the same cents', () => {
    const a = ROUTES['sales.create'].decode(SALE, 201, { amount_cents: 1250 });
    const b = ROUTES['sales.create'].decode({ ...SALE, amount_brl: 12.5 }, 201, { amount_cents: 1250 });
    expect(a.amount_cents).toBe(1250);
    expect(b.amount_cents).toBe(1250);
    expect(a.qr_type).toBe('printed_dynamic');
    expect(a.printed_dynamic_qr_data?.pqr_emv).toBe('000201');
    expect('amount_brl' in a).toBe(false);
  });

  it('reads a gateway fallback (qr_type dynamic, no printed data)', () => {
    const sale = ROUTES['sales.create'].decode({ ...SALE, qr_type: 'dynamic', printed_dynamic_qr_data: null }, 201, { amount_cents: 1250 });
    expect(sale.qr_type).toBe('dynamic');
    expect(sale.printed_dynamic_qr_data).toBeNull();
  });

  it.each([
    [{ ...SALE, amount_brl: '12.505' }, 'response.amount_brl'],
    [{ ...SALE, amount_brl: 0.1 + 0.2 }, 'response.amount_brl'],
    [{ ...SALE, pix_id: 7 }, 'response.pix_id'],
    [{ ...SALE, qr_type: 'static' }, 'response.qr_type'],
    [{ ...SALE, expires_at: 'tomorrow' }, 'response.expires_at'],
    [{ ...SALE, printed_dynamic_qr_data: { pqr_emv: 1 } }, 'response.printed_dynamic_qr_data.pqr_emv'],
  ])('refuses a sale it cannot read exactly (%#)', (body, path) => {
    expect(() => ROUTES['sales.create'].decode(body, 201, { amount_cents: 1250 })).toThrow(DecodeError);
    try {
      ROUTES['sales.create'].decode(body, 201, { amount_cents: 1250 });
    } catch (err) {
      expect((err as DecodeError).path).toBe(path);
    }
  });

  it('answers Tx Status 404 `TX not found` as found: false, and only that 404', () => {
    const route = ROUTES['sales.status'];
    const answer = route.answer;
    expect(answer).toBeDefined();
    if (answer === undefined) return;
    expect(answer(404, parseErrorBody('{"detail":"TX not found"}', 'application/json'), { pix_id: 'pix_9' })).toEqual({ found: false, pix_id: 'pix_9' });
    expect(answer(404, parseErrorBody('{"detail":"Not Found"}', 'application/json'), { pix_id: 'pix_9' })).toBeUndefined();
    expect(answer(500, parseErrorBody('TX not found', 'text/plain'), { pix_id: 'pix_9' })).toBeUndefined();
    const found = route.decode({ pix_id: 'pix_9', service_id: 'svc_9', status: 'paid', amount_brl: 7, paid_at: '2026-11-21T13:46:00Z', e2e_id: 'E1' }, 200, { pix_id: 'pix_9' });
    expect(found).toEqual({ found: true, pix_id: 'pix_9', service_id: 'svc_9', status: 'paid', amount_brl: 7, paid_at: '2026-11-21T13:46:00Z', e2e_id: 'E1' });
    // An amount it cannot read is kept as sent, not a failure: the payment must still be recorded.
    const odd = route.decode({ pix_id: 'pix_9', service_id: 'svc_9', status: 'paid', amount_brl: '7.005', paid_at: null, e2e_id: null }, 200, { pix_id: 'pix_9' });
    expect(odd).toMatchObject({ found: true, status: 'paid', amount_brl: '7.005' });
  });

  it('reads a checkout list entry into its mode (reference 2.2)', () => {
    const base = { merchant_id: 1, store_id: 1, checkout_id: 1, checkout_desc: 'Caixa 1', wallet_id: 101 };
    const list = ROUTES['checkouts.list'].decode(
      [{ ...base, default_qr: null }, { ...base, default_qr: 'dynamic' }, { ...base, default_qr: 'printed_dynamic_qr' }],
      200,
      { store_id: 1 },
    );
    expect(list.map((c) => c.mode)).toEqual(['dynamic', 'dynamic', 'printed']);
  });

  it('tells a created printed QR (201) from an existing one (200)', () => {
    const qr = { printed_dynamic_qr_id: 'pqr_1', qr_emvcode: '0002', qr_location_id: 'loc', address: '0x12…ab', checkout_id: 2, merchant_id: 1, store_id: 1, created_at: 1_790_000_000 };
    expect(ROUTES['printedQrs.create'].decode(qr, 201, { checkout_id: 2 }).created).toBe(true);
    expect(ROUTES['printedQrs.create'].decode(qr, 200, { checkout_id: 2 }).created).toBe(false);
  });

  it('reads both forms of a MED opening (reference 4.6)', () => {
    const open = ROUTES['meds.open'];
    const input = { service_id: 'po_1', reason: 'scam', details: 'a long enough text' } as const;
    expect(open.decode({ med_case_id: 'med_1', status_id: 'dispatching', message: 'ok' }, 202, input)).toEqual({
      handling: 'tracked', med_case_id: 'med_1', status_id: 'dispatching', message: 'ok', warning: null,
    });
    expect(open.decode({ outcome: 'manual', handling: 'manual', med_case_id: null, message: 'operator' }, 202, input)).toEqual({
      handling: 'manual', med_case_id: null, message: 'operator',
    });
  });

  it('reads a MED claim, its BRL refunded_amount in cents', () => {
    const claim = ROUTES['meds.get'].decode(
      {
        med_case_id: 'med_1', service_id: 'po_1', e2e_id: 'E1', status_id: 'closed', result_id: null, reason: 'scam',
        money_refunded: true, refunded_amount: '40.10', external_id: null, created_at: '2026-11-21T13:45:00Z',
      },
      200,
      { med_case_id: 'med_1' },
    );
    expect(claim.refunded_cents).toBe(4010);
    expect(claim.outcome_hint).toBeNull();
  });

  it('reads settlement amounts exactly at each currency’s scale', () => {
    const detail = ROUTES['settlements.get'].decode(
      {
        settlement_id: 7, settlement_provider_name: 'chain', provider_settlement_id: null, external_settlement_id: '0xabc',
        amount: 2.469136, currency: 'USDt', address_to: 'to', address_from: 'from', settlement_message: null,
        settled_at: '2026-11-21T14:00:00Z', created_at: '2026-11-21T13:00:00Z', status: 'DONE',
        charges: [
          {
            service_id: 'svc_1', external_id: 'o1', service_request_id: 'pix_1', charged_amount: 12.5, charged_currency: 'BRL',
            settlement_amount: 2.469136, settlement_currency: 'USDt', charged_timestamp: '2026-11-21T13:10:00Z', received_timestamp: null,
          },
        ],
        refunds: [],
      },
      200,
      { settlement_id: 7 },
    );
    expect(detail.amount).toEqual({ minor: 2_469_136, scale: 6, currency: 'USDt' });
    expect(detail.charges[0]?.charged_amount).toEqual({ minor: 1250, scale: 2, currency: 'BRL' });
    // Exact: the charge and the settlement compare as integers.
    expect(detail.charges[0]?.settlement_amount?.minor).toBe(detail.amount.minor);
  });

  it('reads pending-charge totals in the items’ currency, negative net allowed (reference 4.7)', () => {
    const pending = ROUTES['settlements.pendingCharges'].decode(
      {
        items: [
          {
            service_request_id: 'pix_1', service_id: 'svc_1', external_id: null, charged_amount: '10.00', charged_currency: 'BRL',
            settlement_amount: 1850.25, settlement_currency: 'ARS', charged_timestamp: '2026-11-21T13:10:00Z',
          },
        ],
        pending_refunds: [],
        totals: { count: 1, settlement_amount: 1850.25, refund_count: 2, refund_deduction: 2000, net_settlement_amount: -149.75 },
        limit: 100,
        offset: 0,
      },
      200,
      {},
    );
    expect(pending.totals.net_settlement_amount).toEqual({ minor: -14975, scale: 2, currency: 'ARS' });
    expect(pending.totals.settlement_amount.minor - pending.totals.refund_deduction.minor).toBe(pending.totals.net_settlement_amount.minor);
  });

  it('refuses a negative settlement amount where the reference allows none', () => {
    expect(() =>
      ROUTES['settlements.pendingCharges'].decode(
        { items: [], pending_refunds: [], totals: { count: 0, settlement_amount: -1, refund_count: 0, refund_deduction: 0, net_settlement_amount: 0 }, limit: 1, offset: 0 },
        200,
        {},
      ),
    ).toThrow(/totals.settlement_amount/);
  });

  const SETTLEMENT = {
    settlement_id: 7, settlement_provider_name: 'chain', provider_settlement_id: null, external_settlement_id: null, amount: '10.00', currency: 'BRL',
    address_to: 'to', address_from: 'from', settlement_message: null, settled_at: null, created_at: '2026-11-21T13:00:00Z', status: 'DONE',
  };
  const RANGE = { start_date: '2026-11-01T00:00:00Z', end_date: '2026-11-30T00:00:00Z' };
  const settlements = (fourth: object) => ({ settlements: [SETTLEMENT, SETTLEMENT, SETTLEMENT, { ...SETTLEMENT, ...fourth }], total: 4, limit: 4, offset: 0 });

  it.each([
    [settlements({ amount: '10.001' }), 'response.settlements[3].amount is not an amount with at most 2 decimals (too_many_decimals)'],
    [settlements({ currency: 'USDt', amount: '0.0000001' }), 'response.settlements[3].amount is not an amount with at most 6 decimals (too_many_decimals)'],
    [settlements({ status: 'LOST' }), 'response.settlements[3].status is not one of CREATED, PROCESSING, DONE, CANCELED, FAILED'],
    [settlements({ settlement_message: 3 }), 'response.settlements[3].settlement_message is not a string or null'],
    [settlements({ created_at: 'soon' }), 'response.settlements[3].created_at is not a datetime'],
    [settlements({ settlement_id: '7' }), 'response.settlements[3].settlement_id is not an integer'],
    [{ ...settlements({}), settlements: {} }, 'response.settlements is not an array'],
    [[], 'response is not an object'],
  ])('names the first field it cannot read and why (%#)', (body, sentence) => {
    let thrown: unknown;
    try {
      ROUTES['settlements.list'].decode(body, 200, RANGE);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(DecodeError);
    expect((thrown as DecodeError).message).toBe(sentence);
  });
});

describe('exact amounts', () => {
  // Through the client's own field reader, which must use the one strict wire decoder
  // (electron/shared/money.ts, whose table holds the full list of hostile inputs).
  const unsigned = withAmounts({ currency: text }, { amount: { currency: 'currency' } });
  const net = withAmounts({ currency: text }, { amount: { currency: 'currency', signed: true } });
  const read = (input: unknown, currency: string, signed = false) => decodeAnswer(signed ? net : unsigned, { amount: input, currency }).amount.minor;
  const readCents = (input: unknown) => decodeAnswer(record({ amount_brl: cents }), { amount_brl: input }).amount_brl;

  it.each([
    ['1234.56', 'BRL', false, 123456],
    [1234.56, 'ARS', false, 123456],
    [2.469136, 'USDt', false, 2469136],
    ['0.000001', 'USDt', false, 1],
    [1e-6, 'USDt', false, 1],
    [100, 'BRL', false, 10000],
    ['-5.00', 'ARS', true, -500],
  ])('%o in %s → %d minor units', (input, currency, signed, minor) => {
    expect(read(input, currency, signed)).toBe(minor);
  });

  it.each([
    ['12.345', 'BRL', false],
    ['12.500', 'BRL', false],
    [' 12.50', 'BRL', false],
    ['+12.5', 'ARS', false],
    ['-0', 'BRL', false],
    [0.1 + 0.2, 'BRL', false],
    [1e-7, 'USDt', false],
    ['-5.00', 'ARS', false],
    ['1e3', 'BRL', false],
    ['abc', 'BRL', false],
    ['', 'BRL', false],
    ['.', 'BRL', false],
    [true, 'BRL', false],
    [null, 'BRL', false],
    [Number.POSITIVE_INFINITY, 'BRL', false],
    ['90071992547409.92', 'BRL', false],
  ])('refuses %o in %s', (input, currency, signed) => {
    expect(() => read(input, currency, signed)).toThrow(DecodeError);
  });

  it('reads a BRL field (cents) with the same decoder: "12.500" is not 12.50', () => {
    expect(readCents('12.50')).toBe(1250);
    expect(() => readCents('12.500')).toThrow(/too_many_decimals/);
    expect(() => readCents('+12.5')).toThrow(DecodeError);
  });

  it('knows the scale of each currency (contract 6)', () => {
    expect(currencyScale('BRL')).toBe(2);
    expect(currencyScale('ars')).toBe(2);
    expect(currencyScale('USDt')).toBe(6);
    expect(currencyScale('XYZ')).toBe(6);
    expect(currencyScale(null)).toBe(6);
  });
});
