import { describe, expect, it } from 'vitest';
import type { JournalEntry } from '../journal/port.ts';
import { claimsReturned, csvCell, eventView, filterSales, salesCsv, settlementTrail, shiftTotals } from './shift-report.ts';
import type { SaleSummary } from './views.ts';

function sale(over: Partial<SaleSummary>): SaleSummary {
  return {
    sale_id: 's1',
    store_id: 1,
    checkout_id: 1,
    seq: 1,
    status: 'paid',
    amount_cents: 1250,
    external_id: null,
    requested_at: Date.UTC(2026, 10, 21, 13, 0),
    requested_by: 'ana',
    pix_id: 'pix_a',
    service_id: 'svc_a',
    qr_type: 'printed_dynamic',
    expires_at: null,
    displaced_by: null,
    received_cents: 1250,
    received_total_cents: 1250,
    refunded_cents: 0,
    refundable_cents: 0,
    refunds: [],
    paid_at: Date.UTC(2026, 10, 21, 13, 1),
    e2e_id: 'E1',
    settlement: null,
    description: { key: 'sale.paid', params: {}, tone: 'success', needs_person: false, attention: [], acknowledged: [] },
    issues: [],
    ...over,
  };
}

describe('shift totals', () => {
  it('counts outcomes and adds only money actually received', () => {
    const totals = shiftTotals([
      sale({ sale_id: 'a' }),
      sale({ sale_id: 'b', status: 'amount_mismatch', received_cents: 200, received_total_cents: 200 }),
      sale({ sale_id: 'c', status: 'paid_late', received_cents: 1000, received_total_cents: 1000 }),
      sale({ sale_id: 'd', status: 'displaced', received_cents: null, received_total_cents: 0 }),
      sale({ sale_id: 'e', status: 'expired', received_cents: null, received_total_cents: 0 }),
      sale({ sale_id: 'f', status: 'pending', received_cents: null, received_total_cents: 0 }),
      sale({ sale_id: 'g', status: 'failed', received_cents: null, received_total_cents: 0 }),
      sale({ sale_id: 'h', status: 'withdrawn', received_cents: null, received_total_cents: 0 }),
    ]);
    expect(totals).toEqual({
      count: 8,
      received_cents: 2450,
      net_cents: 2450,
      paid: 1,
      mismatches: 1,
      late_payments: 1,
      displaced: 1,
      withdrawn: 1,
      expired: 1,
      pending: 1,
      failed: 1,
      uncertain: 0,
      unmatched_count: 0,
      unmatched_cents: 0,
      refunded: 0,
      refunded_cents: 0,
      partly_refunded: 0,
    });
  });

  it('received, refunded and net each say what they mean: a refund is received money given back, never silently netted', () => {
    const totals = shiftTotals([
      sale({ sale_id: 'a' }),
      sale({ sale_id: 'r', status: 'refunded', received_cents: 1000, received_total_cents: 0, refunded_cents: 1000 }),
      sale({ sale_id: 'p', status: 'partly_refunded', received_cents: 800, received_total_cents: 500, refunded_cents: 300 }),
    ]);
    expect(totals).toMatchObject({ count: 3, paid: 1, refunded: 1, partly_refunded: 1, received_cents: 1250 + 1000 + 800, refunded_cents: 1300, net_cents: 1250 + 500 });
    expect(totals.received_cents - totals.refunded_cents).toBe(totals.net_cents);
  });

  it('adds every payment a sale received, a second one too, and counts payments without a sale apart', () => {
    // Paid twice (the customer scanned again): 12,50 decides the status, 25,00 was received.
    const totals = shiftTotals([sale({ sale_id: 'a', received_cents: 1250, received_total_cents: 2500 })], [{ amount_cents: 700 }, { amount_cents: 300 }, { amount_cents: null }]);
    expect(totals).toMatchObject({ count: 1, paid: 1, received_cents: 2500, net_cents: 2500, unmatched_count: 3, unmatched_cents: 1000 });
  });
});

describe('where the money went', () => {
  it.each([
    // [case, sales, received, settled (count, cents), refunded, awaiting (count, cents)]
    ['nothing paid', [sale({ status: 'expired', received_cents: null, received_total_cents: 0 })], 0, [0, 0], 0, [0, 0]],
    ['paid, not settled yet', [sale({})], 1250, [0, 0], 0, [1, 1250]],
    ['paid and settled', [sale({ settlement: { settlement_id: 7, settled_at: 1 } })], 1250, [1, 1250], 0, [0, 0]],
    [
      'settled, then partly refunded: the refund is counted apart, the charge stays settled',
      [sale({ status: 'partly_refunded', received_total_cents: 750, refunded_cents: 500, settlement: { settlement_id: 7, settled_at: 1 } })],
      1250,
      [1, 1250],
      500,
      [0, 0],
    ],
    // Issue 24 point 8: money given back before a settlement took the charge waits for none.
    ['refunded in full before any settlement', [sale({ status: 'refunded', received_total_cents: 0, refunded_cents: 1250 })], 1250, [0, 0], 1250, [0, 0]],
    ['partly refunded before any settlement: what it kept waits', [sale({ status: 'partly_refunded', received_total_cents: 750, refunded_cents: 500 })], 1250, [0, 0], 500, [1, 750]],
    [
      'two sales, one of each',
      [sale({ sale_id: 'a', settlement: { settlement_id: 7, settled_at: 1 } }), sale({ sale_id: 'b', received_cents: 300, received_total_cents: 300 })],
      1550,
      [1, 1250],
      0,
      [1, 300],
    ],
  ] as const)('%s', (_case, sales, received, [settled, settledCents], refunded, [awaiting, awaitingCents]) => {
    const trail = settlementTrail(sales);
    expect(trail).toEqual({ received_cents: received, settled, settled_cents: settledCents, refunded_cents: refunded, awaiting, awaiting_cents: awaitingCents });
    // Every cent received is settled, given back before a settlement took it, or still waiting.
    const givenBackUnsettled = sales.filter((s) => s.settlement === null).reduce((sum, s) => sum + s.refunded_cents, 0);
    expect(trail.settled_cents + givenBackUnsettled + trail.awaiting_cents).toBe(trail.received_cents);
  });
});

describe('money returned by claims', () => {
  let seq = 0;
  const entry = (type: string, data: JournalEntry['data']): JournalEntry => ({ seq: ++seq, prev: '', hash: '', at: 5, type, data });
  const changed = (id: string, to: string, money: boolean, cents: number | null) =>
    entry('claim.status_changed', { med_case_id: id, service_id: `po_${id}`, from: 'refunding', to, money_refunded: money, refunded_cents: cents });

  it('counts the claims that closed with money, by their refunded amount; nothing else', () => {
    const returned = claimsReturned([
      changed('med_1', 'closed', true, 4000),
      // Money that arrived while the claim was still refunding is final only at the close.
      changed('med_2', 'refunding', true, 1000),
      changed('med_2', 'closed', true, 1500),
      changed('med_3', 'closed', false, null),
      changed('med_4', 'cancelled', false, null),
      entry('claim.opened', { med_case_id: 'med_5', service_id: 'po_5' }),
      entry('payment.received', { sale_ids: [], events: [] }),
    ]);
    expect(returned).toEqual({ count: 2, cents: 5500, amount_unknown: 0 });
  });

  it('a close with money but no readable amount is counted and said apart, never as zero money', () => {
    expect(claimsReturned([changed('med_1', 'closed', true, null), changed('med_2', 'closed', true, 250)])).toEqual({ count: 2, cents: 250, amount_unknown: 1 });
  });

  it('a claim journaled closed twice counts once', () => {
    expect(claimsReturned([changed('med_1', 'closed', true, 4000), changed('med_1', 'closed', true, 4000)])).toEqual({ count: 1, cents: 4000, amount_unknown: 0 });
  });
});

describe('filters', () => {
  const sales = [sale({ sale_id: 'a', external_id: 'Order-42' }), sale({ sale_id: 'b', status: 'expired', pix_id: 'pix_XYZ', service_id: 'svc_b' })];
  it.each([
    [{ search: 'order-4' }, ['a']],
    [{ search: 'xyz' }, ['b']],
    [{ search: 'svc_b' }, ['b']],
    [{ outcome: 'expired' as const }, ['b']],
    [{ outcome: 'paid' as const, search: 'xyz' }, []],
    [{ search: '   ' }, ['a', 'b']],
  ])('%j', (filter, ids) => {
    expect(filterSales(sales, filter).map((s) => s.sale_id)).toEqual(ids);
  });
});

describe('CSV', () => {
  it.each([
    ['plain', 'plain'],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
    ['=HYPERLINK("http://x")', `"'=HYPERLINK(""http://x"")"`],
    ['+5511', "'+5511"],
    ['@SUM(A1)', "'@SUM(A1)"],
    [null, ''],
    [12, '12'],
    [true, 'true'],
  ] as const)('cell %j', (value, text) => {
    expect(csvCell(value)).toBe(text);
  });

  it('writes one row per sale with amounts as decimals and ISO times', () => {
    const csv = salesCsv([sale({ external_id: 'A,1', description: { key: 'sale.amount_mismatch', params: {}, tone: 'danger', needs_person: false, attention: [], acknowledged: [{ reason: 'amount_mismatch', subject: '', by: 'Rui', at: 1 }] } })]);
    const [header, row, end] = csv.split('\r\n');
    expect(header).toBe('sale_id,requested_at,requested_by,status,amount_brl,received_brl,external_id,pix_id,service_id,e2e_id,paid_at,displaced_by,needs_person,acknowledged_by,refunded_brl,settlement_id,settled_at');
    expect(row).toBe('s1,2026-11-21T13:00:00.000Z,ana,paid,12.50,12.50,"A,1",pix_a,svc_a,E1,2026-11-21T13:01:00.000Z,,false,Rui,,,');
    const refunded = salesCsv([sale({ status: 'refunded', received_total_cents: 0, refunded_cents: 1250 })]).split('\r\n')[1];
    expect(refunded).toBe('s1,2026-11-21T13:00:00.000Z,ana,refunded,12.50,12.50,,pix_a,svc_a,E1,2026-11-21T13:01:00.000Z,,false,,12.50,,');
    const settled = salesCsv([sale({ settlement: { settlement_id: 42, settled_at: Date.UTC(2026, 10, 21, 15, 0) } })]).split('\r\n')[1];
    expect(settled).toBe('s1,2026-11-21T13:00:00.000Z,ana,paid,12.50,12.50,,pix_a,svc_a,E1,2026-11-21T13:01:00.000Z,,false,,,42,2026-11-21T15:00:00.000Z');
    expect(end).toBe('');
  });
});

describe('event lines', () => {
  /** A journal entry at 5 ms, its chain left out: the line reads only its type and data. */
  const entryAt5 = (seq: number, type: string, data: JournalEntry['data']): JournalEntry => ({ seq, prev: '', hash: '', at: 5, type, data });

  it('a settlement’s entry names its settlement; the sales it included are its lines, not related sales', () => {
    const line = eventView(
      entryAt5(9, 'settlement.reconciled', {
        settlement_id: 42,
        sale_ids: ['a', 'b'],
        events: [
          { type: 'sale.settled', sale_id: 'a', settlement_id: 42, line: 'charge', settled_at: 4, at: 5 },
          { type: 'sale.settled', sale_id: 'b', settlement_id: 42, line: 'charge', settled_at: 4, at: 5 },
        ],
      }),
    );
    expect(line.sale_ids).toEqual(['a', 'b']);
    expect(line.details).toMatchObject({ settlement_id: 42, related: 0, amount_cents: null });
  });

  it('describes a sale fact as data, leaving the words to the renderer', () => {
    const line = eventView(
      entryAt5(7, 'sale.requested', { sale_ids: ['n', 'o'], events: [{ type: 'sale.requested', sale_id: 'n', amount_cents: 1000, requested_by: 'ana', external_id: 'X' }, { type: 'sale.displaced', sale_id: 'o' }] }),
    );
    expect(line).toEqual({
      seq: 7,
      at: 5,
      type: 'sale.requested',
      sale_ids: ['n', 'o'],
      by: 'ana',
      details: { amount_cents: 1000, pix_id: null, external_id: 'X', reason: null, source: null, evidence: null, note: null, related: 1, settlement_id: null },
    });
  });
});
