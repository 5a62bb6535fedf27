import { describe, expect, it } from 'vitest';
import { wireBrlCents } from '../shared/money.ts';
import { mulberry32 } from '../shared/prng.ts';
import { checkoutKey } from './state.ts';
import { centsToBrl, prorateDeduction, quoteCharge, type SettlementMode } from './quotes.ts';
import type { RefundRecord } from './refunds.ts';
import {
  CONFIRM_DELAY_MS,
  DAY_MS,
  PROCESSING_DELAY_MS,
  SETTLEMENT_DETAIL,
  WINDOW_MS,
  activeDeductions,
  advanceSettlements,
  bookVersion,
  catchUp,
  closeWindow,
  emptyBook,
  expediteSettlements,
  listSettlements,
  listTransactions,
  parseOffsetDateTime,
  pendingPreview,
  rangeProblem,
  recordDoneCharge,
  settledEventPayload,
  settlementDetailView,
  settlementInvariantProblems,
  type CheckoutRef,
  type Deduction,
  type SettledCharge,
  type SettlementBook,
} from './settlement.ts';

const T0 = Date.UTC(2026, 10, 21, 13, 15, 0); // a quarter past the hour
const HOUR_START = Date.UTC(2026, 10, 21, 13, 0, 0);
const NEXT_BOUNDARY = HOUR_START + WINDOW_MS;
const C1: CheckoutRef = { merchantId: 1, storeId: 1, checkoutId: 1 };
const C2: CheckoutRef = { merchantId: 1, storeId: 1, checkoutId: 2 };
const addressOf = (ref: CheckoutRef): string => `addr-${checkoutKey(ref.merchantId, ref.storeId, ref.checkoutId)}`;

let serial = 0;
function charge(ref: CheckoutRef, mode: SettlementMode, cents: bigint, addedAt: number): SettledCharge {
  serial += 1;
  const quote = quoteCharge(cents, mode);
  return {
    ...ref,
    mode,
    service_id: `svc_${serial}`,
    external_id: `order-${serial}`,
    service_request_id: `pix_${serial}`,
    charged_amount: centsToBrl(cents),
    charged_currency: 'BRL',
    settlement_amount: quote.amount,
    settlement_currency: quote.currency,
    charged_timestamp: addedAt - 30_000,
    received_timestamp: addedAt - 1_000,
    added_at: addedAt,
  };
}

/** A BRL wire amount the sandbox wrote, read by the app's strict decoder. */
function brlCents(text: string): number {
  const read = wireBrlCents(text);
  if (read === null) throw new Error(`${text} is not a BRL wire amount`);
  return read;
}

function refundOf(c: SettledCharge, cents: bigint, beforeCents: bigint, at: number): Deduction {
  serial += 1;
  const chargedCents = BigInt(brlCents(c.charged_amount));
  return {
    merchantId: c.merchantId,
    storeId: c.storeId,
    checkoutId: c.checkoutId,
    mode: c.mode,
    service_refund_id: `rpi_${serial}`,
    pay_in_refund_request_id: `rpir_${serial}`,
    service_id: c.service_id,
    external_id: c.external_id,
    service_request_id: c.service_request_id,
    refunded_amount: centsToBrl(cents),
    refunded_currency: 'BRL',
    deduction_amount: prorateDeduction({ currency: c.settlement_currency, amount: c.settlement_amount }, chargedCents, beforeCents, cents),
    deduction_currency: c.settlement_currency,
    requested_at: at,
    attached_at: null,
  };
}

/** Files a refund request carrying deduction `d`, as the refunds module does. */
function addRefund(b: SettlementBook, d: Deduction): void {
  const record: RefundRecord = {
    pay_in_refund_request_id: d.pay_in_refund_request_id ?? 'rpir_x',
    service_refund_id: d.service_refund_id,
    merchantId: d.merchantId,
    service_id: d.service_id,
    pix_id: d.service_request_id,
    refunded_cents: brlCents(d.refunded_amount),
    reason: null,
    status: 'requested',
    created_at: d.requested_at,
    deduction: d,
  };
  b.refunds[d.service_refund_id] = record;
}

function book(): SettlementBook {
  return emptyBook(T0);
}

/** Charges of C1 in ars_batched mode, each [cents, added at], recorded done in `b` in that order. */
function doneBatched(b: SettlementBook, ...charges: [cents: bigint, addedAt: number][]): SettledCharge[] {
  return charges.map(([cents, addedAt]) => {
    const c = charge(C1, 'ars_batched', cents, addedAt);
    recordDoneCharge(b, c, addressOf);
    return c;
  });
}

function pending(b: SettlementBook): Deduction[] {
  return activeDeductions(b.refunds, Number.POSITIVE_INFINITY);
}

describe('parseOffsetDateTime (reference 4.7: ISO 8601 with a UTC offset)', () => {
  it.each([
    ['2026-11-21T13:45:00Z', Date.UTC(2026, 10, 21, 13, 45)],
    ['2026-11-21T13:45:00.123Z', Date.UTC(2026, 10, 21, 13, 45, 0, 123)],
    ['2026-11-21T13:45:00.123456+00:00', Date.UTC(2026, 10, 21, 13, 45, 0, 123)],
    ['2026-11-21T10:45:00-03:00', Date.UTC(2026, 10, 21, 13, 45)],
    ['2026-11-21T10:45:00-0300', Date.UTC(2026, 10, 21, 13, 45)],
    ['2026-11-21T16:15+02:30', Date.UTC(2026, 10, 21, 13, 45)],
    ['2024-02-29T00:00:00z', Date.UTC(2024, 1, 29)],
  ])('%s', (text, ms) => {
    expect(parseOffsetDateTime(text)).toEqual({ ok: true, ms });
  });

  it.each(['2026-11-21T13:45:00', '2026-11-21T13:45', '2026-11-21', '2026-11-21T13:45:00.5'])(
    '%s has no offset',
    (text) => {
      expect(parseOffsetDateTime(text)).toEqual({ ok: false, problem: 'no_offset' });
    },
  );

  it.each([
    'yesterday',
    '',
    '2026-13-01T00:00:00Z',
    '2026-02-30T00:00:00Z',
    '2025-02-29T00:00:00Z',
    '2026-11-21T24:00:00Z',
    '2026-11-21T13:60:00Z',
    '2026-11-21T13:45:00+24:00',
    '2026-11-21T13:45:00 03:00', // a `+` that was not percent-encoded in the query
    '2026-11-21Z',
    '1732196700',
  ])('%j is malformed', (text) => {
    expect(parseOffsetDateTime(text)).toEqual({ ok: false, problem: 'malformed' });
  });
});

describe('rangeProblem (reference 4.7: end after start, at most 31 days)', () => {
  it('accepts exactly 31 days', () => {
    expect(rangeProblem(T0, T0 + 31 * DAY_MS, 'start_date', 'end_date')).toBeNull();
  });
  it('refuses one millisecond more', () => {
    expect(rangeProblem(T0, T0 + 31 * DAY_MS + 1, 'start_date', 'end_date')).toBe(
      SETTLEMENT_DETAIL.rangeTooLong('start_date', 'end_date'),
    );
  });
  it.each([0, -1, -DAY_MS])('refuses an end %s ms after the start', (delta) => {
    expect(rangeProblem(T0, T0 + delta, 'from', 'to')).toBe(SETTLEMENT_DETAIL.endNotAfterStart('from', 'to'));
  });
});

describe('legacy 1:1 (ars_per_charge)', () => {
  it('gives every done charge its own settlement at once, and never a settled event', () => {
    const b = emptyBook(T0);
    const c = charge(C1, 'ars_per_charge', 1250n, T0);
    const id = recordDoneCharge(b, c, addressOf);
    expect(id).toBe(1);
    expect(Object.keys(b.settlements)).toEqual(['1']);
    expect(b.pool).toEqual({});
    const s = b.settlements['1']!;
    expect(s).toMatchObject({ status: 'CREATED', amount: '3091.48', currency: 'ARS', address_to: 'addr-1/1/1', settled_at: null });
    expect(advanceSettlements(b, T0 + CONFIRM_DELAY_MS)).toEqual([]);
    expect(s.status).toBe('DONE');
    expect(s.settled_at).toBe(T0 + CONFIRM_DELAY_MS);
  });
});

describe('settlements in flight', () => {
  it('each moves along once, however many settled ones the book holds; a book over the same records (a restart) finds those still in flight', () => {
    const b = emptyBook(T0);
    for (let i = 0; i < 200; i++) recordDoneCharge(b, charge(C1, 'ars_per_charge', 100n, T0), addressOf);
    advanceSettlements(b, T0 + CONFIRM_DELAY_MS);
    expect(Object.values(b.settlements).every((s) => s.status === 'DONE')).toBe(true);
    const late = recordDoneCharge(b, charge(C1, 'ars_per_charge', 100n, T0 + DAY_MS), addressOf)!;
    expect(b.settlements[String(late)]!.status).toBe('CREATED');
    // The same state read again after a restart: a new book object over the same records.
    const restarted: SettlementBook = { ...b, settlements: { ...b.settlements } };
    advanceSettlements(restarted, T0 + DAY_MS + PROCESSING_DELAY_MS);
    expect(restarted.settlements[String(late)]!.status).toBe('PROCESSING');
    expediteSettlements(restarted, T0 + DAY_MS + PROCESSING_DELAY_MS);
    advanceSettlements(restarted, T0 + DAY_MS + PROCESSING_DELAY_MS);
    expect(restarted.settlements[String(late)]!.status).toBe('DONE');
    expect(catchUp(restarted, T0 + 2 * DAY_MS, addressOf)).toEqual([]);
  });

  it('the book’s version moves with every settlement made or moved along, and not when nothing was due', () => {
    const b = emptyBook(T0);
    const v0 = bookVersion(b);
    recordDoneCharge(b, charge(C1, 'ars_per_charge', 100n, T0), addressOf);
    const v1 = bookVersion(b);
    expect(v1).not.toBe(v0);
    expect(advanceSettlements(b, T0 + PROCESSING_DELAY_MS - 1)).toEqual([]);
    expect(bookVersion(b)).toBe(v1);
    advanceSettlements(b, T0 + PROCESSING_DELAY_MS);
    const v2 = bookVersion(b);
    expect(v2).not.toBe(v1);
    // A second charge made later is due later: the first still moves on at its own time.
    recordDoneCharge(b, charge(C1, 'ars_per_charge', 100n, T0 + 30_000), addressOf);
    advanceSettlements(b, T0 + CONFIRM_DELAY_MS);
    expect(Object.values(b.settlements).map((x) => x.status)).toEqual(['DONE', 'PROCESSING']);
    advanceSettlements(b, T0 + 30_000 + CONFIRM_DELAY_MS);
    expect(Object.values(b.settlements).map((x) => x.status)).toEqual(['DONE', 'DONE']);
  });

  it('moves every settlement along exactly when it is due, however many are in flight and whatever was expedited', () => {
    const next = mulberry32(20261126);
    const b = emptyBook(T0);
    let now = T0;
    for (let step = 0; step < 1500; step++) {
      now += Math.floor(next() * 20_000);
      const pick = next();
      if (pick < 0.6) {
        recordDoneCharge(b, charge(C1, 'ars_per_charge', 100n, now), addressOf);
      } else if (pick < 0.62) {
        expediteSettlements(b, now);
      } else {
        advanceSettlements(b, now);
        // Each settlement's own schedule says where it must be by now.
        for (const x of Object.values(b.settlements)) expect(x.status).toBe(now >= x.confirm_at ? 'DONE' : now >= x.processing_at ? 'PROCESSING' : 'CREATED');
      }
    }
    expect(Object.values(b.settlements).filter((x) => x.status === 'DONE').length).toBeGreaterThan(100);
  });
});

describe('batch windows', () => {
  it('sweeps one settlement per checkout and mode, oldest charge first', () => {
    const b = book();
    const late = charge(C1, 'ars_batched', 1000n, T0 + 60_000);
    const early = charge(C1, 'ars_batched', 1250n, T0);
    const chain = charge(C2, 'blockchain_batched', 1250n, T0);
    for (const c of [late, early, chain]) expect(recordDoneCharge(b, c, addressOf)).toBeNull();
    const created = closeWindow(b, NEXT_BOUNDARY, addressOf);
    expect(created.map((s) => [s.checkoutId, s.currency, s.charges.map((c) => c.service_id)])).toEqual([
      [1, 'ARS', [early.service_id, late.service_id]],
      [2, 'USDt', [chain.service_id]],
    ]);
    expect(created[0]!.amount).toBe('5564.66'); // 3091.48 + 2473.18
    expect(created[1]).toMatchObject({ amount: '2.279312', source_amount: '2.279312', source_net_price: '2.279312' });
    expect(b.pool).toEqual({});
    for (const s of created) expect(settlementInvariantProblems(s)).toEqual([]);
  });

  it('leaves items that arrived after the boundary for the next window', () => {
    const b = book();
    recordDoneCharge(b, charge(C1, 'ars_batched', 1250n, NEXT_BOUNDARY + 1), addressOf);
    expect(closeWindow(b, NEXT_BOUNDARY, addressOf)).toEqual([]);
    expect(Object.keys(b.pool)).toHaveLength(1);
  });

  it('deducts refunds prorated at the charge rate; a full refund cancels the charge exactly', () => {
    const b = book();
    const kept = charge(C1, 'ars_batched', 1000n, T0);
    const refunded = charge(C1, 'ars_batched', 1250n, T0);
    recordDoneCharge(b, kept, addressOf);
    recordDoneCharge(b, refunded, addressOf);
    addRefund(b, refundOf(refunded, 1250n, 0n, T0 + 1000));
    const [s] = closeWindow(b, NEXT_BOUNDARY, addressOf);
    expect(s).toBeDefined();
    expect(s!.amount).toBe(kept.settlement_amount);
    expect(s!.refunds).toHaveLength(1);
    expect(s!.refunds[0]!.attached_at).toBe(NEXT_BOUNDARY);
    expect(settlementInvariantProblems(s!)).toEqual([]);
    expect(pending(b)).toHaveLength(0);
  });

  it('keeps a window with a non-positive net pending, then settles it once charges outweigh', () => {
    const b = book();
    const first = charge(C1, 'ars_batched', 1250n, T0);
    recordDoneCharge(b, first, addressOf);
    addRefund(b, refundOf(first, 1250n, 0n, T0 + 1));
    expect(closeWindow(b, NEXT_BOUNDARY, addressOf)).toEqual([]);
    expect(Object.keys(b.pool)).toHaveLength(1);
    expect(pending(b)).toHaveLength(1);
    // refunds of charges settled earlier alone are negative: still nothing
    const b2 = book();
    const old = charge(C1, 'ars_batched', 1250n, T0);
    addRefund(b2, refundOf(old, 500n, 0n, T0));
    expect(closeWindow(b2, NEXT_BOUNDARY, addressOf)).toEqual([]);
    // a new charge makes the net positive: everything goes in one settlement
    recordDoneCharge(b, charge(C1, 'ars_batched', 100n, NEXT_BOUNDARY + 10), addressOf);
    const [s] = closeWindow(b, NEXT_BOUNDARY + WINDOW_MS, addressOf);
    expect(s!.charges).toHaveLength(2);
    expect(s!.amount).toBe('247.32'); // 3091.48 - 3091.48 + 247.32
  });

  it('attaches at most one deduction per charge to a window; the next waits', () => {
    const b = book();
    const c = charge(C1, 'ars_batched', 1000n, T0);
    const other = charge(C1, 'ars_batched', 5000n, T0);
    recordDoneCharge(b, other, addressOf);
    const d1 = refundOf(c, 300n, 0n, T0 + 1);
    const d2 = refundOf(c, 200n, 300n, T0 + 2);
    addRefund(b, d1);
    addRefund(b, d2);
    expect(activeDeductions(b.refunds, T0 + 5).map((d) => d.service_refund_id)).toEqual([d1.service_refund_id]);
    const [first] = closeWindow(b, NEXT_BOUNDARY, addressOf);
    expect(first!.refunds.map((r) => r.service_refund_id)).toEqual([d1.service_refund_id]);
    recordDoneCharge(b, charge(C1, 'ars_batched', 5000n, NEXT_BOUNDARY + 5), addressOf);
    const [second] = closeWindow(b, NEXT_BOUNDARY + WINDOW_MS, addressOf);
    expect(second!.refunds.map((r) => r.service_refund_id)).toEqual([d2.service_refund_id]);
  });
});

describe('lifecycle and catch-up', () => {
  it('goes CREATED -> PROCESSING -> DONE on schedule, with the on-chain hash at broadcast', () => {
    const b = book();
    recordDoneCharge(b, charge(C1, 'blockchain_batched', 1250n, T0), addressOf);
    const [s] = closeWindow(b, NEXT_BOUNDARY, addressOf);
    expect(s).toMatchObject({ status: 'CREATED', external_settlement_id: null, provider_settlement_id: null });
    expect(advanceSettlements(b, NEXT_BOUNDARY + PROCESSING_DELAY_MS - 1)).toEqual([]);
    expect(s!.status).toBe('CREATED');
    expect(advanceSettlements(b, NEXT_BOUNDARY + PROCESSING_DELAY_MS)).toEqual([]);
    expect(s!.status).toBe('PROCESSING');
    expect(s!.external_settlement_id).toMatch(/^0x[0-9a-f]{64}$/);
    expect(s!.settled_at).toBeNull();
    expect(advanceSettlements(b, NEXT_BOUNDARY + CONFIRM_DELAY_MS)).toEqual([s]);
    expect(s).toMatchObject({ status: 'DONE', settled_at: NEXT_BOUNDARY + CONFIRM_DELAY_MS });
    expect(s!.provider_settlement_id).not.toBeNull();
    expect(advanceSettlements(b, NEXT_BOUNDARY + 10 * CONFIRM_DELAY_MS)).toEqual([]); // once only
  });

  it('expedites transfers in flight for the control API', () => {
    const b = book();
    recordDoneCharge(b, charge(C1, 'ars_batched', 1250n, T0), addressOf);
    const [s] = closeWindow(b, T0 + 5, addressOf);
    expediteSettlements(b, T0 + 5);
    expect(advanceSettlements(b, T0 + 5)).toEqual([s]);
    expect(s!.settled_at).toBe(T0 + 5);
  });

  it('closes each passed boundary with its own time, however late it notices', () => {
    const b = book();
    const c = charge(C1, 'ars_batched', 1250n, T0);
    recordDoneCharge(b, c, addressOf);
    const farLater = T0 + 30 * DAY_MS;
    const settled = catchUp(b, farLater, addressOf);
    expect(settled).toHaveLength(1);
    expect(settled[0]).toMatchObject({ created_at: NEXT_BOUNDARY, settled_at: NEXT_BOUNDARY + CONFIRM_DELAY_MS, status: 'DONE' });
    expect(b.meta.windowsClosedUpTo).toBe(Math.floor(farLater / WINDOW_MS) * WINDOW_MS);
    expect(catchUp(b, farLater + 1, addressOf)).toEqual([]);
  });

  it('puts a charge that arrived between two boundaries into the later one', () => {
    const b = book();
    recordDoneCharge(b, charge(C1, 'ars_batched', 1250n, NEXT_BOUNDARY + 7 * WINDOW_MS + 5), addressOf);
    const settled = catchUp(b, NEXT_BOUNDARY + 20 * WINDOW_MS, addressOf);
    expect(settled.map((s) => s.created_at)).toEqual([NEXT_BOUNDARY + 8 * WINDOW_MS]);
  });

  it('does nothing before the next boundary', () => {
    const b = book();
    recordDoneCharge(b, charge(C1, 'ars_batched', 1250n, T0), addressOf);
    expect(catchUp(b, NEXT_BOUNDARY - 1, addressOf)).toEqual([]);
    expect(b.settlements).toEqual({});
  });
});

describe('settlement.settled payload (reference 6.1, contract 8)', () => {
  it('ARS batched: amount in ARS is charges minus deductions; source side in USDt', () => {
    const b = book();
    const [, c] = doneBatched(b, [1250n, T0], [5000n, T0 + 1]) as [SettledCharge, SettledCharge];
    addRefund(b, refundOf(c, 333n, 0n, T0 + 2));
    closeWindow(b, NEXT_BOUNDARY, addressOf);
    expediteSettlements(b, NEXT_BOUNDARY);
    const [s] = advanceSettlements(b, NEXT_BOUNDARY);
    const payload = settledEventPayload(s!);
    // 3091.48 + 12365.92 - 823.57 (333/5000 of 12365.92 = 823.570272)
    expect(payload).toMatchObject({
      event: 'settlement.settled',
      settlement_id: s!.settlement_id,
      amount: 14633.83,
      currency_id: 1,
      source_currency_id: 3,
      source_amount: 10.789962, // 14633.83 x 0.00073733 = 10.78996187...
      settled_at: new Date(NEXT_BOUNDARY).toISOString(),
    });
    expect(payload['source_net_price']).toBe(11.397205); // 15457.40 x 0.00073733 = 11.39720474...
    expect(Object.keys((payload['charges'] as object[])[0]!)).toEqual([
      'service_id', 'external_id', 'service_request_id', 'charged_amount', 'charged_currency', 'settlement_amount', 'settlement_currency',
    ]);
    expect((payload['refunds'] as Record<string, unknown>[])[0]).toEqual({
      service_refund_id: expect.stringMatching(/^rpi_/),
      service_id: c.service_id,
      external_id: c.external_id,
      service_request_id: c.service_request_id,
      refunded_amount: 3.33,
      refunded_currency: 'BRL',
      deduction_amount: 823.57,
      deduction_currency: 'ARS',
    });
    expect(settlementInvariantProblems(s!)).toEqual([]);
  });

  it('blockchain batched with no refunds: amount, source_amount and source_net_price are equal', () => {
    const b = book();
    recordDoneCharge(b, charge(C1, 'blockchain_batched', 1250n, T0), addressOf);
    recordDoneCharge(b, charge(C1, 'blockchain_batched', 30n, T0), addressOf);
    closeWindow(b, NEXT_BOUNDARY, addressOf);
    expediteSettlements(b, NEXT_BOUNDARY);
    const [s] = advanceSettlements(b, NEXT_BOUNDARY);
    const payload = settledEventPayload(s!);
    expect(payload).toMatchObject({ amount: 2.334016, source_amount: 2.334016, source_net_price: 2.334016, currency_id: 3, source_currency_id: 3 });
    expect(payload['external_settlement_id']).toMatch(/^0x/);
  });

  it('refuses to describe a settlement that is not DONE', () => {
    const b = book();
    recordDoneCharge(b, charge(C1, 'ars_batched', 1250n, T0), addressOf);
    const [s] = closeWindow(b, NEXT_BOUNDARY, addressOf);
    expect(() => settledEventPayload(s!)).toThrow();
  });

  it('flags a settlement whose figures do not add up', () => {
    const b = book();
    recordDoneCharge(b, charge(C1, 'ars_batched', 1250n, T0), addressOf);
    const [s] = closeWindow(b, NEXT_BOUNDARY, addressOf);
    expect(settlementInvariantProblems({ ...s!, amount: '3091.47' })).toContain('amount is not charges minus deductions');
  });
});

describe('reads', () => {
  function settledBook(): SettlementBook {
    const b = book();
    recordDoneCharge(b, charge(C1, 'ars_batched', 1250n, T0), addressOf);
    catchUp(b, NEXT_BOUNDARY + CONFIRM_DELAY_MS, addressOf);
    recordDoneCharge(b, charge(C1, 'ars_per_charge', 700n, T0 + 2 * WINDOW_MS), addressOf);
    return b;
  }

  it('lists by settled_at, newest first, only the merchant own, paged', () => {
    const b = settledBook();
    catchUp(b, T0 + 3 * WINDOW_MS, addressOf);
    const all = listSettlements(b, 1, T0, T0 + DAY_MS, { limit: 100, offset: 0 });
    expect(all.total).toBe(2);
    expect(all.settlements.map((s) => s['settlement_id'])).toEqual([2, 1]);
    expect(listSettlements(b, 1, T0, T0 + DAY_MS, { limit: 1, offset: 1 }).settlements.map((s) => s['settlement_id'])).toEqual([1]);
    expect(listSettlements(b, 2, T0, T0 + DAY_MS, { limit: 100, offset: 0 }).total).toBe(0);
    // settled_at outside the range
    expect(listSettlements(b, 1, NEXT_BOUNDARY + CONFIRM_DELAY_MS + 1, T0 + DAY_MS, { limit: 100, offset: 0 }).total).toBe(1);
  });

  it('lists transactions by charged_timestamp, with the settlement they belong to', () => {
    const b = settledBook();
    const page = listTransactions(b, 1, T0 - DAY_MS, T0 + DAY_MS, null, { limit: 100, offset: 0 });
    expect(page.total).toBe(2);
    expect(page.transactions.map((t) => [t['settlement_id'], t['settled_at']])).toEqual([
      [1, new Date(NEXT_BOUNDARY + CONFIRM_DELAY_MS).toISOString()],
      [2, null],
    ]);
    expect(listTransactions(b, 1, T0 - DAY_MS, T0 + DAY_MS, 2, { limit: 100, offset: 0 }).total).toBe(1);
    expect(listTransactions(b, 2, T0 - DAY_MS, T0 + DAY_MS, null, { limit: 100, offset: 0 }).total).toBe(0);
  });

  it('detail carries the nine-field charges and refunds with created_at', () => {
    const b = settledBook();
    const detail = settlementDetailView(b.settlements['1']!);
    expect(Object.keys((detail['charges'] as object[])[0]!)).toHaveLength(9);
    expect(detail['refunds']).toEqual([]);
  });

  it('previews the pending pool with totals over the filtered set, not the page', () => {
    const b = book();
    // Recorded newest first: the preview still lists them oldest first.
    const [, a] = doneBatched(b, [1000n, T0 + 10], [1250n, T0]) as [SettledCharge, SettledCharge];
    addRefund(b, refundOf(a, 1250n, 0n, T0 + 20));
    const preview = pendingPreview(b, C1, 'ars_batched', T0 - DAY_MS, T0 + DAY_MS, { limit: 1, offset: 0 });
    expect(preview.items.map((i) => i['service_id'])).toEqual([a.service_id]);
    expect(preview.totals).toEqual({
      count: 2,
      settlement_amount: 5564.66,
      refund_count: 1,
      refund_deduction: 3091.48,
      net_settlement_amount: 2473.18,
    });
    expect(preview.pending_refunds[0]).toMatchObject({ pay_in_refund_request_id: expect.stringMatching(/^rpir_/), deduction_currency: 'ARS' });
    expect(pendingPreview(b, C1, 'ars_batched', T0 - 29_995, T0 + DAY_MS, { limit: 10, offset: 0 }).totals.count).toBe(1);
  });

  it('is empty for a legacy checkout or none enrolled', () => {
    const b = book();
    expect(pendingPreview(b, null, 'ars_batched', T0, T0 + 1, { limit: 10, offset: 0 }).items).toEqual([]);
    expect(pendingPreview(b, C2, 'ars_per_charge', T0, T0 + 1, { limit: 10, offset: 0 }).totals.count).toBe(0);
  });
});
