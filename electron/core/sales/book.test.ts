import { describe, expect, it } from 'vitest';
import { emptyBook, indexSales, matchPayment, projectBook, reduceBook, rematch, salesOfCheckout } from './book.ts';
import type { BookEvent, SalesBook } from './book.ts';
import { reduceSale, SALE_LIFETIME_MS } from './lifecycle.ts';
import type { ChargeDone, PaymentReceived, Sale, SaleEvent } from './lifecycle.ts';

const T0 = Date.UTC(2026, 10, 21, 13, 45, 0);

const requested = (id: string, seq: number, amount = 1000): SaleEvent => ({
  type: 'sale.requested',
  sale_id: id,
  idempotency_key: `k-${id}`,
  store_id: 1,
  checkout_id: 3,
  seq,
  amount_cents: amount,
  requested_by: 'ana',
  at: T0 + seq * 1_000,
});
const created = (id: string, at = T0 + 500): SaleEvent => ({
  type: 'sale.created',
  sale_id: id,
  pix_id: `pix_${id}`,
  service_id: `svc_${id}`,
  qr_type: 'printed_dynamic',
  emv: 'EMV-L',
  pqr_emv: 'EMV-P',
  created_at: at,
  expires_at: at + SALE_LIFETIME_MS,
  at,
});
const paid = (pix: string | undefined, service: string | undefined, amount = '10.00', e2e = 'E1', webhook = 'wh-1'): PaymentReceived => ({
  type: 'payment.received',
  source: 'webhook',
  webhook_id: webhook,
  ...(pix === undefined ? {} : { pix_id: pix }),
  ...(service === undefined ? {} : { service_id: service }),
  amount_brl: amount,
  paid_at: T0 + 60_000,
  e2e_id: e2e,
  at: T0 + 61_000,
});
const done = (pix: string, service: string, amount = '10.00'): ChargeDone => ({
  type: 'charge.done',
  webhook_id: `wh-done-${pix}`,
  pix_id: pix,
  service_id: service,
  amount_brl: amount,
  settlement_id: null,
  at: T0 + 70_000,
});

function sales(...events: SaleEvent[]): Sale[] {
  const byId = new Map<string, Sale | undefined>();
  for (const e of events) if ('sale_id' in e) byId.set(e.sale_id, reduceSale(byId.get(e.sale_id), e));
  return [...byId.values()].filter((s): s is Sale => s !== undefined);
}

describe('matchPayment: by pix_id or service_id only', () => {
  const index = indexSales(sales(requested('a', 1), created('a'), requested('b', 2), created('b'), requested('c', 3)));

  it.each([
    ['both ids of one sale', 'pix_a', 'svc_a', { kind: 'sale', sale_id: 'a' }],
    ['pix_id alone', 'pix_b', undefined, { kind: 'sale', sale_id: 'b' }],
    ['service_id alone', undefined, 'svc_b', { kind: 'sale', sale_id: 'b' }],
    ['ids of two different sales', 'pix_a', 'svc_b', { kind: 'unmatched', reason: 'ids_conflict', candidates: ['a', 'b'] }],
    ["a sale's pix_id with a service_id it does not hold", 'pix_a', 'svc_zzz', { kind: 'unmatched', reason: 'ids_conflict', candidates: ['a'] }],
    ['ids nobody knows', 'pix_zzz', 'svc_zzz', { kind: 'unmatched', reason: 'unknown_ids', candidates: [] }],
    ['no ids at all', undefined, undefined, { kind: 'unmatched', reason: 'no_ids', candidates: [] }],
    ['empty ids', '', '', { kind: 'unmatched', reason: 'no_ids', candidates: [] }],
  ] as const)('%s', (_name, pix, service, expected) => {
    expect(matchPayment(index, { pix_id: pix, service_id: service })).toEqual(expected);
  });

  it('never matches a sale that has no ids yet, whatever the amount or the QR', () => {
    // Sale c was requested for 10.00 too; a 10.00 payment with unknown ids is not guessed onto it.
    expect(matchPayment(index, { pix_id: 'pix_c', service_id: 'svc_c' }).kind).toBe('unmatched');
  });

  it('one id held by two sales is ambiguous, for a person', () => {
    const twice = indexSales(sales(requested('a', 1), created('a'), requested('b', 2), { ...created('b'), pix_id: 'pix_a' } as SaleEvent));
    expect(matchPayment(twice, { pix_id: 'pix_a' })).toEqual({ kind: 'unmatched', reason: 'ambiguous', candidates: ['a', 'b'] });
  });
});

describe('the book keeps every payment', () => {
  it('a payment for nothing we know is kept as unmatched, with its reason, never dropped', () => {
    const step = reduceBook(projectBook([requested('a', 1), created('a')]), paid('pix_zzz', 'svc_zzz'));
    expect(step.reports[0]?.outcome).toBe('unmatched');
    expect(step.book.unmatched).toEqual([
      { key: 'e2e:E1', kind: 'payment', reports: [paid('pix_zzz', 'svc_zzz')], reason: 'unknown_ids', candidates: [], first_seen_at: T0 + 61_000 },
    ]);
  });

  it('retries of an unmatched payment stay one entry; a Tx Status report of it joins the same entry', () => {
    const tx: PaymentReceived = { ...paid('pix_zzz', 'svc_zzz'), source: 'tx_status', webhook_id: undefined, at: T0 + 65_000 };
    const book = projectBook([paid('pix_zzz', 'svc_zzz'), paid('pix_zzz', 'svc_zzz'), tx]);
    expect(book.unmatched).toHaveLength(1);
    expect(book.unmatched[0]?.reports).toHaveLength(2);
  });

  it('payment.received BEFORE sale.created (reordered across a crash) waits, then joins its sale', () => {
    const early = projectBook([requested('a', 1), paid('pix_a', 'svc_a')]);
    expect(early.unmatched.map((u) => u.key)).toEqual(['e2e:E1']);
    expect(early.sales.a?.status).toBe('requested');
    const step = reduceBook(early, created('a'));
    expect(step.book.unmatched).toEqual([]);
    expect(step.book.sales.a?.status).toBe('paid');
    expect(step.book).toEqual(projectBook([requested('a', 1), created('a'), paid('pix_a', 'svc_a')]));
  });

  it('charge.done before charge.paid, both before the 201: nothing lost, one payment, paid', () => {
    const book = projectBook([done('pix_a', 'svc_a'), requested('a', 1), paid('pix_a', 'svc_a'), created('a')]);
    expect(book.unmatched).toEqual([]);
    expect(book.sales.a?.status).toBe('paid');
    expect(book.sales.a?.payments).toHaveLength(1);
    expect(book.sales.a?.dones.map((d) => d.key)).toEqual(['done:pix_a:svc_a']);
  });

  it('an event before its sale.requested is parked, then replayed', () => {
    const early = reduceBook(emptyBook, created('a'));
    expect(early.reports[0]).toMatchObject({ outcome: 'parked', illegal: 'unknown_sale' });
    expect(early.book.orphans).toEqual([created('a')]);
    const step = reduceBook(early.book, requested('a', 1));
    expect(step.book.orphans).toEqual([]);
    expect(step.book.sales.a?.status).toBe('pending');
    expect(step.reports.map((r) => r.event)).toEqual(['sale.requested', 'sale.created']);
  });

  it('a payment whose ids point at two sales stays unmatched with both candidates', () => {
    const book = projectBook([requested('a', 1), created('a'), requested('b', 2), created('b'), paid('pix_a', 'svc_b')]);
    expect(book.unmatched[0]).toMatchObject({ reason: 'ids_conflict', candidates: ['a', 'b'] });
    expect(book.sales.a?.payments).toEqual([]);
    expect(book.sales.b?.payments).toEqual([]);
  });

  it('a late payment for a displaced sale reaches that sale by its own ids, not the newest one', () => {
    const book = projectBook([
      requested('a', 1),
      created('a'),
      requested('b', 2),
      { type: 'sale.displaced', sale_id: 'a', by: 'b', by_seq: 2, evidence: 'newer_sale_requested', at: T0 + 2_000 },
      created('b', T0 + 2_500),
      paid('pix_a', 'svc_a'),
    ]);
    expect(book.sales.a?.status).toBe('paid_late');
    expect(book.sales.b?.status).toBe('pending');
  });
});

describe('attribution by a person', () => {
  const uncertainSale: BookEvent[] = [
    requested('u', 1),
    { type: 'sale.create_uncertain', sale_id: 'u', reason: 'timeout', attempts: 3, at: T0 + 30_000 },
  ];
  const attribute = (key: string): BookEvent => ({ type: 'payment.attributed', payment_key: key, sale_id: 'u', by: 'rui', at: T0 + 100_000 });

  it('ties an unmatched payment to an uncertain sale: the sale existed after all', () => {
    const before = projectBook([...uncertainSale, paid('pix_x', 'svc_x')]);
    expect(before.sales.u?.status).toBe('uncertain');
    const after = reduceBook(before, attribute('e2e:E1')).book;
    expect(after.unmatched).toEqual([]);
    expect(after.sales.u?.status).toBe('paid');
    expect(after.sales.u?.payments[0]?.attributed).toEqual({ by: 'rui', at: T0 + 100_000 });
  });

  it('works in either order, and does not teach the sale ids: its charge.done needs its own attribution', () => {
    const a = projectBook([...uncertainSale, attribute('e2e:E1'), paid('pix_x', 'svc_x'), done('pix_x', 'svc_x')]);
    const b = projectBook([...uncertainSale, paid('pix_x', 'svc_x'), done('pix_x', 'svc_x'), attribute('e2e:E1')]);
    expect(a).toEqual(b);
    expect(a.sales.u?.pix_id).toBeUndefined();
    expect(a.unmatched.map((u) => u.key)).toEqual(['done:pix_x:svc_x']);
    const both = reduceBook(a, attribute('done:pix_x:svc_x')).book;
    expect(both.unmatched).toEqual([]);
    expect(both.sales.u?.dones).toHaveLength(1);
  });

  it('a payment the ids match is never moved by an attribution', () => {
    const book = projectBook([requested('a', 1), created('a'), ...uncertainSale, attribute('e2e:E1'), paid('pix_a', 'svc_a')]);
    expect(book.sales.a?.status).toBe('paid');
    expect(book.sales.u?.payments).toEqual([]);
  });
});

describe('rematch and helpers', () => {
  it('rematch is a no-op on a book with nothing unmatched', () => {
    const book = projectBook([requested('a', 1), created('a')]);
    expect(rematch(book)).toBe(book);
  });

  it('salesOfCheckout lists one checkout oldest first', () => {
    const other: SaleEvent = { ...requested('z', 1), checkout_id: 4 } as SaleEvent;
    const book: SalesBook = projectBook([requested('b', 2), requested('a', 1), other]);
    expect(salesOfCheckout(book, 1, 3).map((s) => s.sale_id)).toEqual(['a', 'b']);
  });
});
