import { describe, expect, it } from 'vitest';
import type { SettlementView } from '../../electron/core/contract.ts';
import { settlementCsv, settlementFigure } from './settlements.ts';

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
