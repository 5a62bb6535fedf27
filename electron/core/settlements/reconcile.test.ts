import { describe, expect, it } from 'vitest';
import { DecodeError } from '../api/decode.ts';
import { decodeSettledEvent } from '../api/routes.ts';
import { differencesOf, factsOfEvent, findSale, invariantLines, reconcile, show, unsettledSales, type PaidSale, type SaleForSettlement } from './reconcile.ts';

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
    const r = reconcile(factsOfEvent(decodeSettledEvent(body)), [...SALES, sale(9, { settled_in: [2] })].slice(0, 2));
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
    ['a charge quoted in another currency', { charges: [payload().charges[0], { ...payload().charges[1], settlement_currency: 'ARS', settlement_amount: 10.25 }] }, ['currency']],
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
  const none = { service_ids: new Set<string>(), request_ids: new Set<string>() };
  it.each<[string, PaidSale, typeof none, boolean]>([
    ['paid three hours ago, in no settlement and not pending: flagged', paid(1), none, true],
    ['paid within the two windows: not yet', paid(1, { paid_at: NOW - 2 * HOUR + 1 }), none, false],
    ['exactly two windows: flagged', paid(1, { paid_at: NOW - 2 * HOUR }), none, true],
    ['settled: never', paid(1, { settled: true }), none, false],
    ['still pending at the service by service_id (a negative net keeps the pool)', paid(1), { service_ids: new Set(['svc-1']), request_ids: new Set() }, false],
    ['still pending by service_request_id = pix_id', paid(1), { service_ids: new Set(), request_ids: new Set(['pix-1']) }, false],
    ['another sale pending does not excuse this one', paid(1), { service_ids: new Set(['svc-2']), request_ids: new Set(['pix-2']) }, true],
  ])('%s', (_case, s, pending, flagged) => {
    expect(unsettledSales([s], pending, NOW, 2 * HOUR).length).toBe(flagged ? 1 : 0);
  });

  it('lists the oldest first', () => {
    const list = unsettledSales([paid(1, { paid_at: NOW - 3 * HOUR }), paid(2, { paid_at: NOW - 5 * HOUR })], none, NOW, 2 * HOUR);
    expect(list.map((s) => s.sale_id)).toEqual(['sale-2', 'sale-1']);
  });
});
