import { describe, expect, it } from 'vitest';
import { DecodeError } from '../api/decode.ts';
import { decodeSettledEvent } from '../api/routes/settlements.ts';
import { ROUTES } from '../api/routes.ts';
import { differencesOf, factsOfDetail, factsOfEvent, findSale, invariantLines, poolKey, reconcile, show, unsettledSales, type PaidSale, type PendingIds, type SaleForSettlement } from './reconcile.ts';

/** A `settlement.settled` payload as the wire carries it (reference 6.1), figures as JSON numbers. */
function payload(over: Record<string, unknown> = {}) {
  return {
    event: 'settlement.settled',
    settlement_id: 7,
    provider_settlement_id: 'prov-7',
    external_settlement_id: '0xabc',
    amount: 30.5,
    currency_id: 3,
    source_amount: 30.5,
    source_currency_id: 3,
    source_net_price: 30.5,
    settled_at: '2026-11-24T10:00:00Z',
    charges: [
      { service_id: 'svc-1', external_id: 'order-1', service_request_id: 'pix-1', charged_amount: 100, charged_currency: 'BRL', settlement_amount: 20.25, settlement_currency: 'USDt' },
      { service_id: 'svc-2', external_id: null, service_request_id: 'pix-2', charged_amount: 50.5, charged_currency: 'BRL', settlement_amount: 10.25, settlement_currency: 'USDt' },
    ],
    refunds: [],
    ...over,
  };
}

const sale = (n: number, over: Partial<SaleForSettlement> = {}): SaleForSettlement => ({
  sale_id: `sale-${n}`,
  external_id: `order-${n}`,
  service_id: `svc-${n}`,
  pix_id: `pix-${n}`,
  received_cents: n === 2 ? 5050 : 10_000 * n,
  settled_in: [],
  refunds: [],
  deducted: [],
  ...over,
});
const SALES = [sale(1), sale(2, { external_id: null })];

describe('the one money decoder (issue 11 point 5)', () => {
  it('reads each figure exactly at its currency’s places', () => {
    const e = decodeSettledEvent(payload());
    expect(e.amount).toEqual({ minor: 30_500_000, scale: 6, currency: 'USDt' });
    expect(e.charges[1]!.charged_amount).toEqual({ minor: 5050, scale: 2, currency: 'BRL' });
  });

  it.each([
    ['an ARS figure with 3 places', payload({ currency_id: 1, amount: 30.505, charges: [] })],
    ['a BRL charge with 3 places', payload({ charges: [{ ...payload().charges[0], charged_amount: 100.001 }] })],
    ['a USDt figure with 7 places', payload({ amount: 30.5000001 })],
    ['an unknown currency id', payload({ currency_id: 9 })],
  ])('refuses %s, naming where', (_name, body) => {
    expect(() => decodeSettledEvent(body)).toThrow(DecodeError);
  });
});

describe('matching (reference 6.1: external_id first, then service_id, then service_request_id)', () => {
  it.each([
    ['by external_id', { external_id: 'order-1', service_id: 'other', service_request_id: 'other' }, 'sale-1'],
    ['by service_id when external_id is null', { external_id: null, service_id: 'svc-2', service_request_id: 'x' }, 'sale-2'],
    ['by pix_id when only it fits', { external_id: null, service_id: 'x', service_request_id: 'pix-1' }, 'sale-1'],
    ['an unknown external_id falls back to the service’s ids', { external_id: 'order-99', service_id: 'svc-1', service_request_id: 'x' }, 'sale-1'],
    ['nothing fits', { external_id: 'order-99', service_id: 'x', service_request_id: 'y' }, null],
  ])('%s', (_name, ids, expected) => {
    expect(findSale(SALES, ids)?.sale_id ?? null).toBe(expected);
  });

  it('an external_id two sales share decides nothing: the service’s ids do', () => {
    const twins = [sale(1), sale(3, { external_id: 'order-1' })];
    expect(findSale(twins, { external_id: 'order-1', service_id: 'svc-3', service_request_id: 'pix-3' })?.sale_id).toBe('sale-3');
  });
});

describe('a settlement against the journal', () => {
  it('every charge matched and every invariant holding: Reconciled', () => {
    const r = reconcile(factsOfEvent(decodeSettledEvent(payload())), SALES);
    expect(r.charges.map((c) => c.check.kind)).toEqual(['matched', 'matched']);
    expect(r.invariants.every((i) => i.holds)).toBe(true);
    expect(r.status).toBe('reconciled');
  });

  it.each<[string, SaleForSettlement[], string]>([
    ['a charge no sale of this journal has', [sale(1)], 'not_in_journal'],
    ['a charged amount that is not what the sale received', [sale(1), sale(2, { external_id: null, received_cents: 5049 })], 'amount_differs'],
    ['a sale an earlier settlement already included', [sale(1), sale(2, { external_id: null, settled_in: [3] })], 'settled_twice'],
  ])('%s: Needs attention on that line', (_name, sales, kind) => {
    const r = reconcile(factsOfEvent(decodeSettledEvent(payload())), sales);
    expect(r.charges[1]!.check.kind).toBe(kind);
    expect(r.status).toBe('needs_attention');
  });

  it('a refund is matched to its sale of an earlier batch; one of no sale is flagged', () => {
    const body = payload({
      amount: 25.5,
      source_amount: 25.5,
      refunds: [
        { service_refund_id: 'rpi_1', service_id: 'svc-1', external_id: 'order-1', service_request_id: 'pix-1', refunded_amount: 20, refunded_currency: 'BRL', deduction_amount: 4.05, deduction_currency: 'USDt' },
        { service_refund_id: 'rpi_2', service_id: 'svc-9', external_id: null, service_request_id: 'pix-9', refunded_amount: 5, refunded_currency: 'BRL', deduction_amount: 0.95, deduction_currency: 'USDt' },
      ],
    });
    const r = reconcile(factsOfEvent(decodeSettledEvent(body)), [sale(1, { refunds: [{ service_refund_id: 'rpi_1', refunded_cents: 2000 }] }), SALES[1]!]);
    expect(r.refunds.map((x) => x.check.kind)).toEqual(['matched', 'not_in_journal']);
    expect(r.invariants.find((i) => i.rule === 'net')).toMatchObject({ holds: true, left: '25.500000', right: '30.500000 − 5.000000' });
    expect(r.status).toBe('needs_attention');
  });
});

describe('the 6.1 invariants per mode (contract 8), exact to one minor unit', () => {
  const usdt = (minor: number) => minor / 1e6;
  it.each([
    ['blockchain, exact', {}, []],
    ['blockchain, amount one micro-USDt low', { amount: usdt(30_499_999) }, ['net', 'no_refunds_equal']],
    ['blockchain, source_amount one micro-USDt high', { source_amount: usdt(30_500_001) }, ['source_net', 'no_refunds_equal']],
    ['blockchain, source_net_price one micro-USDt low', { source_net_price: usdt(30_499_999) }, ['net_price', 'no_refunds_equal']],
    ['ARS batched, exact (the source side is USDt: not comparable)', { currency_id: 1, amount: 30.5, source_currency_id: 3, source_amount: 0.03, source_net_price: 0.03, charges: ars() }, []],
    ['ARS batched, amount one centavo high', { currency_id: 1, amount: 30.51, source_currency_id: 3, source_amount: 0.03, source_net_price: 0.03, charges: ars() }, ['net']],
    ['a charge quoted in another currency', { charges: [payload().charges[0], { ...payload().charges[1], settlement_currency: 'ARS', settlement_amount: 10.25 }] }, ['currency', 'net']],
  ])('%s', (_name, over, broken) => {
    const lines = invariantLines(factsOfEvent(decodeSettledEvent(payload(over))));
    expect(lines.filter((l) => !l.holds).map((l) => l.rule)).toEqual(broken);
  });

  function ars() {
    return payload().charges.map((c) => ({ ...c, settlement_currency: 'ARS' }));
  }
});

describe('the webhook and the REST detail, field by field', () => {
  it('names the fields that differ', () => {
    const hook = factsOfEvent(decodeSettledEvent(payload()));
    const rest = { ...hook, from: 'rest' as const, source: null, amount: { ...hook.amount, minor: hook.amount.minor + 1 }, provider_settlement_id: 'prov-8' };
    expect(reconcile(hook, SALES, rest).differs).toEqual(['amount', 'provider_settlement_id']);
    expect(reconcile(hook, SALES, { ...hook, from: 'rest', source: null }).differs).toEqual([]);
  });
});

it('shows exact decimals', () => {
  expect([show(12345n, 2), show(5n, 6), show(-150n, 2), show(7n, 0)]).toEqual(['123.45', '0.000005', '-1.50', '7']);
});

describe('what a person acknowledges', () => {
  it('one difference per line that does not match, invariant that does not hold, field that differs; keys stable across runs', () => {
    const facts = factsOfEvent(decodeSettledEvent(payload({ amount: 30.499999, refunds: [{ service_refund_id: 'rf-9', service_id: 'svc-9', external_id: null, service_request_id: 'pix-9', refunded_amount: 0, refunded_currency: 'BRL', deduction_amount: 0, deduction_currency: 'USDt' }] })));
    const other = { ...facts, from: 'rest' as const, provider_settlement_id: 'prov-other' };
    const result = reconcile(facts, [sale(1)], other);
    const keys = differencesOf(result).map((d) => `${d.key} ${d.what}`);
    expect(keys).toEqual(['charge:svc-2 not_in_journal', 'refund:rf-9 not_in_journal', 'invariant:net does_not_hold', 'field:provider_settlement_id differs']);
    expect(differencesOf(reconcile(facts, [sale(1)], other)).map((d) => d.key)).toEqual(differencesOf(result).map((d) => d.key));
    expect(differencesOf(reconcile(factsOfEvent(decodeSettledEvent(payload())), SALES))).toEqual([]);
  });

  it('a refused figure is one difference, whatever the decoder said', () => {
    const refused = { settlement_id: 7, charges: [], refunds: [], invariants: [], differs: ['decode: amount has 7 places'], status: 'needs_attention' as const };
    expect(differencesOf(refused)).toEqual([{ key: 'decode', kind: 'decode', subject: 'amount has 7 places', what: 'refused' }]);
  });
});

describe('paid sales no settlement included in time (reference 4.7)', () => {
  const HOUR = 3_600_000;
  const NOW = Date.UTC(2026, 10, 24, 12);
  const paid = (n: number, over: Partial<PaidSale> = {}): PaidSale => ({
    sale_id: `sale-${n}`,
    store_id: 1,
    checkout_id: 2,
    external_id: null,
    pix_id: `pix-${n}`,
    service_id: `svc-${n}`,
    paid_at: NOW - 3 * HOUR,
    received_cents: 1000,
    settled: false,
    ...over,
  });
  const none = new Map<string, PendingIds>();
  /** The pending pool of checkout 2 of store 1, the one the sales are on. */
  const pool = (service: string[], request: string[], key = poolKey(1, 2)) => new Map([[key, { service_ids: new Set(service), request_ids: new Set(request) }]]);
  it.each<[string, PaidSale, typeof none, boolean]>([
    ['paid three hours ago, in no settlement and not pending: flagged', paid(1), none, true],
    ['paid within the two windows: not yet', paid(1, { paid_at: NOW - 2 * HOUR + 1 }), none, false],
    ['exactly two windows: flagged', paid(1, { paid_at: NOW - 2 * HOUR }), none, true],
    ['settled: never', paid(1, { settled: true }), none, false],
    ['still pending at the service by service_id (a negative net keeps the pool)', paid(1), pool(['svc-1'], []), false],
    ['still pending by service_request_id = pix_id', paid(1), pool([], ['pix-1']), false],
    ['another sale pending does not excuse this one', paid(1), pool(['svc-2'], ['pix-2']), true],
    ['issue 24 point 3: pending in checkout 2 of store 2 does not excuse a sale of checkout 2 of store 1', paid(1), pool(['svc-1'], ['pix-1'], poolKey(2, 2)), true],
  ])('%s', (_case, s, pending, flagged) => {
    expect(unsettledSales([s], pending, NOW, 2 * HOUR).length).toBe(flagged ? 1 : 0);
  });

  it('lists the oldest first', () => {
    const list = unsettledSales([paid(1, { paid_at: NOW - 3 * HOUR }), paid(2, { paid_at: NOW - 5 * HOUR })], none, NOW, 2 * HOUR);
    expect(list.map((s) => s.sale_id)).toEqual(['sale-2', 'sale-1']);
  });
});

/** A settlement detail as the wire carries it (reference 2.7–2.9): ARS batched, one charge, one refund. */
function arsDetail(over: { refunds?: Array<Record<string, unknown>>; charges?: Array<Record<string, unknown>>; amount?: number } = {}) {
  return ROUTES['settlements.get'].decode({
    settlement_id: 8,
    settlement_provider_name: 'prov',
    provider_settlement_id: 'prov-8',
    external_settlement_id: null,
    amount: over.amount ?? 40,
    currency: 'ARS',
    address_to: 'acct',
    address_from: 'vault',
    settlement_message: null,
    settled_at: '2026-11-24T10:00:00Z',
    created_at: '2026-11-24T09:00:00Z',
    status: 'DONE',
    charges: over.charges ?? [
      { service_id: 'svc-1', external_id: 'order-1', service_request_id: 'pix-1', charged_amount: 100, charged_currency: 'BRL', settlement_amount: 50, settlement_currency: 'ARS', charged_timestamp: null, received_timestamp: null },
    ],
    refunds: over.refunds ?? [refundLine()],
  }, 200, { settlement_id: 8 });
}
function refundLine(over: Record<string, unknown> = {}) {
  return { service_refund_id: 'rpi_1', pay_in_refund_request_id: 'rpir_1', service_id: 'svc-1', external_id: 'order-1', service_request_id: 'pix-1', refunded_amount: 20, refunded_currency: 'BRL', deduction_amount: 10, deduction_currency: 'ARS', created_at: '2026-11-24T09:30:00Z', ...over };
}
const refunded = (over: Partial<SaleForSettlement> = {}) => [sale(1, { refunds: [{ service_refund_id: 'rpi_1', refunded_cents: 2000 }], ...over })];

describe('issue 24 point 2: no invariant passes by being skipped', () => {
  it('an ARS settlement with a 10.00 deduction of null currency needs attention: its currency unknown, its net not computable', () => {
    const r = reconcile(factsOfDetail(arsDetail({ refunds: [refundLine({ deduction_currency: null })] })), refunded());
    expect(r.invariants.filter((l) => !l.holds).map((l) => l.rule)).toEqual(['currency', 'net']);
    expect(r.invariants.find((l) => l.rule === 'net')).toMatchObject({ right: 'not computable', missing: ['rpi_1.deduction_currency', 'rpi_1.deduction_amount'] });
    expect(r.status).toBe('needs_attention');
  });

  it('a charge with no settlement amount: the net is a difference too, never left out', () => {
    const charge = { service_id: 'svc-1', external_id: 'order-1', service_request_id: 'pix-1', charged_amount: 100, charged_currency: 'BRL', settlement_amount: null, settlement_currency: 'ARS', charged_timestamp: null, received_timestamp: null };
    const r = reconcile(factsOfDetail(arsDetail({ charges: [charge] })), refunded());
    expect(r.invariants.filter((l) => !l.holds).map((l) => l.rule)).toEqual(['currency', 'net']);
    expect(r.status).toBe('needs_attention');
  });

  it('the same settlement with its deduction in ARS is Reconciled', () => {
    const r = reconcile(factsOfDetail(arsDetail()), refunded());
    expect(r.invariants.map((l) => [l.rule, l.holds])).toEqual([
      ['currency', true],
      ['net', true],
    ]);
    expect(r.status).toBe('reconciled');
  });
});

describe('issue 24 point 1: each refund deduction against the app’s own refunds', () => {
  it.each<[string, Partial<SaleForSettlement>, Record<string, unknown>, string]>([
    ['the app’s refund, by service_refund_id and amount', {}, {}, 'matched'],
    ['a deduction the app never asked for (no refund of that id)', { refunds: [] }, {}, 'unknown_refund'],
    ['another refund id than the app’s', {}, { service_refund_id: 'rpi_other' }, 'unknown_refund'],
    ['the app’s refund id with another amount', {}, { refunded_amount: 25 }, 'amount_differs'],
    ['a refund the app settled by Tx Status (no id known), same amount: matched by charge and amount, and said so', { refunds: [{ service_refund_id: null, refunded_cents: 2000 }] }, {}, 'matched_by_amount'],
    ['a refund the app settled by Tx Status, another amount', { refunds: [{ service_refund_id: null, refunded_cents: 1500 }] }, {}, 'unknown_refund'],
    ['a refund the app asked for and never heard back about, same amount: the service made it, and says so', { refunds: [], open_refunds: [2000] }, {}, 'unconfirmed_refund'],
    ['a refund the app never heard back about, another amount', { refunds: [], open_refunds: [1500] }, {}, 'unknown_refund'],
  ])('%s', (_name, over, line, kind) => {
    const r = reconcile(factsOfDetail(arsDetail({ refunds: [refundLine(line)] })), refunded(over));
    expect(r.refunds.map((x) => x.check.kind)).toEqual([kind]);
    expect(r.status).toBe(kind === 'matched' ? 'reconciled' : 'needs_attention');
    if (kind !== 'matched') expect(differencesOf(r).map((d) => `${d.key} ${d.what}`)).toEqual([`refund:${String(line['service_refund_id'] ?? 'rpi_1')} ${kind}`]);
  });

  it('a refund an earlier settlement already deducted: deducted twice, a difference', () => {
    const r = reconcile(factsOfDetail(arsDetail()), refunded({ deducted: [{ service_refund_id: 'rpi_1', settlement_id: 5 }] }));
    expect(r.refunds[0]!.check).toEqual({ kind: 'deducted_twice', sale_id: 'sale-1', earlier: 5 });
    expect(r.status).toBe('needs_attention');
    // Reconciled again, this settlement's own deduction is not a second one.
    expect(reconcile(factsOfDetail(arsDetail()), refunded({ deducted: [{ service_refund_id: 'rpi_1', settlement_id: 8 }] })).status).toBe('reconciled');
  });

  it('one refund of the app’s (no id known) matches one deduction, never two', () => {
    const body = arsDetail({ amount: 30, refunds: [refundLine(), refundLine({ service_refund_id: 'rpi_2' })] });
    const r = reconcile(factsOfDetail(body), refunded({ refunds: [{ service_refund_id: null, refunded_cents: 2000 }] }));
    expect(r.refunds.map((x) => x.check.kind)).toEqual(['matched_by_amount', 'unknown_refund']);
  });
});

describe('issue 24 point 3: a match agrees on every identifier both sides have', () => {
  it.each<[string, Record<string, unknown>, string[]]>([
    ['found by external_id, another service_id', { service_id: 'svc-other' }, ['service_id']],
    ['found by external_id, another pix_id', { service_request_id: 'pix-other' }, ['service_request_id']],
    ['found by service_id, another external_id', { external_id: 'order-other' }, ['external_id']],
  ])('a charge %s: a difference, the sale not counted as settled', (_name, over, fields) => {
    const charge = { service_id: 'svc-1', external_id: 'order-1', service_request_id: 'pix-1', charged_amount: 100, charged_currency: 'BRL', settlement_amount: 50, settlement_currency: 'ARS', charged_timestamp: null, received_timestamp: null, ...over };
    const r = reconcile(factsOfDetail(arsDetail({ amount: 50, refunds: [], charges: [charge] })), [sale(1)]);
    expect(r.charges[0]!.check).toEqual({ kind: 'ids_differ', candidate: 'sale-1', fields });
    expect(r.status).toBe('needs_attention');
    expect(differencesOf(r).map((d) => `${d.key} ${d.what}`)).toEqual([`charge:${String(charge.service_id)} ids_differ`]);
  });

  it('a refund found by external_id whose service_id is another charge’s: a difference', () => {
    const r = reconcile(factsOfDetail(arsDetail({ refunds: [refundLine({ service_id: 'svc-other' })] })), refunded());
    expect(r.refunds[0]!.check).toEqual({ kind: 'ids_differ', candidate: 'sale-1', fields: ['service_id'] });
  });

  it('a sale with no external_id of its own agrees with a line that has one (only ids both sides have count)', () => {
    const r = reconcile(factsOfDetail(arsDetail({ amount: 50, refunds: [] })), [sale(1, { external_id: null })]);
    expect(r.charges[0]!.check).toEqual({ kind: 'matched', sale_id: 'sale-1' });
  });
});
