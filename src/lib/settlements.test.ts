import { describe, expect, it } from 'vitest';
import type { SettlementView } from '../../electron/core/contract.ts';
import { DEFAULT_RANGE_DAYS, defaultSettlementRange, rangeQuery, settlementCsv, settlementFigure } from './settlements.ts';

describe('settlementFigure', () => {
  it.each([
    [{ minor: 30_500_000, scale: 6, currency: 'USDt' }, '30.500000 USDt'],
    [{ minor: 123_450, scale: 2, currency: 'ARS' }, '1234.50 ARS'],
    [{ minor: -5, scale: 2, currency: null }, '-0.05'],
  ])('%j → %s', (figure, text) => {
    expect(settlementFigure(figure)).toBe(text);
  });
});

it('the CSV has a line per charge with its match and sale, the invariant lines, each difference with who acknowledged it, and the amount', () => {
  const usdt = (minor: number) => ({ minor, scale: 6, currency: 'USDt' });
  const view = {
    settlement: {
      settlement_id: 7,
      amount: usdt(10_000_000),
      charges: [{ service_id: 'svc-1', external_id: '=cmd', charged_amount: { minor: 5250, scale: 2, currency: 'BRL' }, settlement_amount: usdt(10_000_000) }],
      refunds: [],
    },
    result: { settlement_id: 7, status: 'reconciled', charges: [{ service_id: 'svc-1', check: { kind: 'matched', sale_id: 's1' } }], refunds: [], invariants: [{ rule: 'net', holds: true, left: '10.000000', right: '10.000000 − 0.000000' }], differs: [] },
    sales: { s1: { sale_id: 's1', requested_at: 0, amount_cents: 5250, received_cents: 5250, external_id: '=cmd' } },
    status: 'reconciled',
    differences: [],
  } as unknown as SettlementView;
  expect(settlementCsv(view).split('\r\n')).toEqual([
    'settlement_id,line,id,external_id,charged,settlement_or_deduction,check,sale_id,sale_received_brl',
    "7,charge,svc-1,'=cmd,52.50 BRL,10.000000 USDt,matched,s1,52.50",
    '7,invariant,net,,10.000000,10.000000 − 0.000000,holds,,',
    '7,amount,,,,10.000000 USDt,reconciled,,',
    '',
  ]);
  const acknowledged = settlementCsv({
    ...view,
    status: 'needs_attention',
    differences: [
      { key: 'field:amount', kind: 'field', subject: 'amount', what: 'differs', acknowledged: { by: 'Rui', at: 1, note: 'provider, fixed' } },
      { key: 'charge:svc-9', kind: 'charge', subject: 'svc-9', what: 'not_in_journal', acknowledged: null },
    ],
  });
  expect(acknowledged.split('\r\n').slice(3, 6)).toEqual(['7,difference,field:amount,,,"provider, fixed",acknowledged,Rui,', '7,difference,charge:svc-9,,,,open,,', '7,amount,,,,10.000000 USDt,needs_attention,,']);
});

describe("Settlements' default range, by the core's clock", () => {
  it.each([
    ['a day in the middle', Date.UTC(2026, 10, 27, 15, 30), { from: '2026-10-28', to: '2026-11-27' }],
    ['the first millisecond of a year', Date.UTC(2027, 0, 1), { from: '2026-12-02', to: '2027-01-01' }],
    ['the last millisecond of a year', Date.UTC(2027, 0, 1) - 1, { from: '2026-12-01', to: '2026-12-31' }],
    ['after a leap day', Date.UTC(2028, 2, 1, 12), { from: '2028-01-31', to: '2028-03-01' }],
    ['the epoch', 0, { from: '1969-12-02', to: '1970-01-01' }],
  ])('%s', (_name, now, expected) => {
    expect(defaultSettlementRange(now)).toEqual(expected);
  });

  it("asks for a range holding the core's now and the whole day that many days back, whatever the page's date", () => {
    // A core whose clock was moved a day and more past the page's (as the e2e audit moves it).
    const pageNow = Date.UTC(2026, 10, 27, 23, 59, 59, 999);
    for (const coreNow of [pageNow, pageNow + 1, pageNow + 26 * 3_600_000, Date.UTC(2030, 5, 1)]) {
      const { from, to } = defaultSettlementRange(coreNow);
      const { fromMs, toMs } = rangeQuery(from, to);
      expect(fromMs).toBeLessThanOrEqual(coreNow - DEFAULT_RANGE_DAYS * 86_400_000);
      expect(coreNow).toBeLessThan(toMs);
      // The end day is included, up to the start of the next; nothing of the day after.
      expect(toMs - coreNow).toBeLessThanOrEqual(86_400_000);
    }
  });
});
