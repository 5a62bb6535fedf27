import { randomUUID } from 'node:crypto';
import type { Clock } from '../../shared/clock.ts';
import { CoreError } from '../errors.ts';
import type { JournalEntry, JournalPort, ShiftRecord } from '../journal/port.ts';
import { wireBrlCents } from '../../shared/money.ts';
import type { Sale } from '../sales/sale.ts';
import { samePayment, unmatchedPaymentKey, type PaymentReceived, type SaleStatus } from '../sales/lifecycle.ts';
import { factData, reduceSaleRow, type SaleRow } from './entries.ts';
import { addDays, isTimeZone, localDayOf, localDayRange, parseLocalDay, type LocalDay } from './local-day.ts';
import { claimsReturned, eventView, filterSales, salesCsv, settlementTrail, shiftTotals, type ClaimsReturned, type JournalEventView, type SettlementTrail, type ShiftTotals, type ShiftView, type UnmatchedMoney } from './shift-report.ts';
import { saleSummary, type SaleSummary } from './views.ts';

/**
 * Shifts and the supervisor's shift journal. Opening and closing a shift are journal
 * entries with who and when (and a note); every sale rung up while a shift is open
 * belongs to it. A closed shift's report is what was journaled up to its closing entry;
 * whatever comes later belongs to the next shift, or to its "after close".
 */
export interface ShiftReport {
  /** The shift reported, or null for a day (or before any shift). */
  shift: ShiftView | null;
  /** The day reported, in the reader's time zone, or null for a shift. */
  day: DayFrame | null;
  /** A closed shift's numbers are those up to this entry (its closing one), for ever. */
  frozen_at_seq: number | null;
  sales: SaleSummary[];
  events: JournalEventView[];
  /** Over the whole shift or day, whatever the filter. */
  totals: ShiftTotals;
  /** Received, settled, refunded and still waiting, as known now (a closed shift's too). */
  settlement: SettlementTrail;
  /** Money MED claims returned to the merchant: the claims journaled closed with it in the shift or day. */
  claims: ClaimsReturned;
  /** Payments received in this shift or day on sales of an earlier one, pointing back to them. */
  carried: CarriedPayment[];
  /** Their money, each payment once (not in totals: those count this shift's own sales). */
  carried_cents: number;
  /** A closed shift: payments journaled after its close, before the next shift opened. */
  after_close: CarriedPayment[];
  after_close_cents: number;
  /**
   * Refunds made in this shift or day (listed in `carried`, type `refund.made`) of sales of an
   * earlier one: money given back here, not in totals (those count this shift's own sales).
   */
  carried_refunds_cents?: number;
  /** A closed shift: refunds journaled after its close, before the next shift opened. */
  after_close_refunds_cents?: number;
}

export interface DayFrame {
  day: LocalDay;
  time_zone: string;
  /** [from, to) in epoch ms. */
  from: number;
  to: number;
}

/** A payment reported where it arrived, pointing back to the sale (and shift) it was for. */
export interface CarriedPayment {
  seq: number;
  at: number;
  type: string;
  amount_cents: number | null;
  /** Who, for a person's attribution. */
  by: string | null;
  sale_id: string;
  sale_requested_at: number | null;
  sale_requested_by: string | null;
  /** The shift the sale was rung up in; null when it was rung up outside any shift. */
  sale_shift_id: string | null;
}

export interface ShiftSummary extends ShiftView {
  totals: ShiftTotals;
  /** Closed: the totals will not change any more. */
  frozen: boolean;
}

export interface ShiftPage {
  /** Newest first. */
  shifts: ShiftSummary[];
  /** The cursor (`before`) of the next older page, or null when this page holds the first shift. */
  older: number | null;
}

export interface DaySummary {
  day: LocalDay;
  from: number;
  to: number;
  totals: ShiftTotals;
}

export interface DayPage {
  /** Newest first. */
  days: DaySummary[];
  /** `through` of the older page, or null when there is nothing older. */
  older: LocalDay | null;
  /** `through` of the newer page, or null when this page ends today. */
  newer: LocalDay | null;
}

export const SHIFTS_PER_PAGE = 20;
export const DAYS_PER_PAGE = 7;
const DAY_MS = 86_400_000;

export class Shifts {
  readonly #journal: JournalPort<SaleRow>;
  readonly #clock: Clock;
  /** Opening and closing one at a time: "is a shift open?" and its journal entry are one step. */
  #tail: Promise<unknown> = Promise.resolve();

  constructor(journal: JournalPort<SaleRow>, clock: Clock) {
    this.#journal = journal;
    this.#clock = clock;
  }

  async current(): Promise<ShiftView | null> {
    const open = (await this.#journal.shifts.open()).sort((a, b) => b.opened_at - a.opened_at)[0];
    return open ? this.#view(open) : null;
  }

  open(by: string, note: string | undefined): Promise<ShiftView> {
    return this.#oneAtATime(async () => {
      const current = await this.current();
      if (current) throw new CoreError('conflict', `A shift is already open (opened by ${current.opened_by}); close it first.`, { reason: 'shift_open' });
      const record = await this.#journal.openShift(randomUUID(), by, note === undefined ? {} : { note });
      return this.#view(record);
    });
  }

  /**
   * Closes the open shift. Reference 4.5: a pending sale can still be paid; closing over it
   * is a person's decision, so without `confirmPending` it is refused with the count.
   */
  close(by: string, note: string | undefined, pendingSales: number, confirmPending: boolean): Promise<ShiftView> {
    return this.#oneAtATime(async () => {
      const current = await this.current();
      if (!current) throw new CoreError('conflict', 'No shift is open.', { reason: 'no_shift' });
      if (pendingSales > 0 && !confirmPending) {
        throw new CoreError('conflict', `${pendingSales} sale(s) are still waiting for payment: close the shift anyway?`, { reason: 'pending_sale', pending: pendingSales });
      }
      const record = await this.#journal.closeShift(current.shift_id, by, note === undefined ? { pending_at_close: pendingSales } : { note, pending_at_close: pendingSales });
      return this.#view(record);
    });
  }

  #oneAtATime<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#tail.then(work, work);
    this.#tail = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /** The shift (given, else the open one, else the latest), its sales, events and totals. */
  async report(filter: { shiftId?: string; outcome?: SaleStatus; search?: string }): Promise<ShiftReport> {
    let record: ShiftRecord | undefined;
    if (filter.shiftId !== undefined) {
      record = await this.#journal.shifts.get(filter.shiftId);
      if (!record) throw new CoreError('not_found', 'That shift is not in this terminal’s journal.');
    } else {
      record = (await this.#journal.shifts.open())[0] ?? newestFirst(await this.#allShifts())[0];
    }
    if (!record) return this.#recentReport(filter);
    const frame = await this.#shiftFrame(record);
    const context = new Map<string, SaleRow | undefined>();
    const carried = await this.#carried(frame.entries, (id) => !frame.saleIds.has(id), context);
    const afterClose = await this.#carried(await this.#afterClose(record), () => true, context);
    // A closed shift's numbers stay as they were at its close; where their money went since is read now.
    const now = record.closed_seq === undefined ? frame.views : await this.#asNow(frame.views);
    const settledNow = new Map(now.map((v) => [v.sale_id, v.settlement]));
    return {
      shift: await this.#view(record),
      day: null,
      frozen_at_seq: record.closed_seq ?? null,
      sales: filterSales(frame.views, filter).map((v) => ({ ...v, settlement: settledNow.get(v.sale_id) ?? null })),
      events: frame.entries.map(eventView),
      totals: frame.totals,
      settlement: settlementTrail(now),
      claims: claimsReturned(frame.entries),
      carried: carried.items,
      carried_cents: carried.cents,
      after_close: afterClose.items,
      after_close_cents: afterClose.cents,
      carried_refunds_cents: carried.refundsCents,
      after_close_refunds_cents: afterClose.refundsCents,
    };
  }

  /** No shift yet: the last day's sales, so a first sale is seen before any shift opens. */
  async #recentReport(filter: { outcome?: SaleStatus; search?: string }): Promise<ShiftReport> {
    const now = this.#clock.now();
    return this.#frameReport(await this.#dayFrame(now - DAY_MS, now + 1), filter, null);
  }

  /** A report of a time that is no shift: nothing after a close, and only a day carries payments of earlier days. */
  async #frameReport(
    frame: Frame,
    filter: { outcome?: SaleStatus; search?: string },
    day: ShiftReport['day'],
    carried?: { items: CarriedPayment[]; cents: number; refundsCents: number },
  ): Promise<ShiftReport> {
    return {
      shift: null,
      day,
      frozen_at_seq: null,
      sales: filterSales(frame.views, filter),
      events: frame.entries.map(eventView),
      totals: shiftTotals(frame.views, await this.#unmatchedIn(frame.entries, () => this.#claimsOf(frame.entries))),
      settlement: settlementTrail(frame.views),
      claims: claimsReturned(frame.entries),
      carried: carried?.items ?? [],
      carried_cents: carried?.cents ?? 0,
      after_close: [],
      after_close_cents: 0,
      ...(carried === undefined ? {} : { carried_refunds_cents: carried.refundsCents }),
    };
  }

  /**
   * A store's day (in the reader's time zone), whatever shifts it had: the sales rung up
   * that day as they stand now (a day is never closed), the day's events and the payments
   * it received for sales of earlier days.
   */
  async dayReport(filter: { day: LocalDay; timeZone: string; outcome?: SaleStatus; search?: string }): Promise<ShiftReport> {
    const { from, to } = dayRange(filter.day, filter.timeZone);
    const frame = await this.#dayFrame(from, to);
    const carried = await this.#carried(frame.entries, (id) => !frame.saleIds.has(id), new Map());
    return this.#frameReport(frame, filter, { day: filter.day, time_zone: filter.timeZone, from, to }, carried);
  }

  /**
   * Every shift, newest first, a page at a time, each with its totals (frozen at its close).
   * `before`: the opened_seq of the oldest shift of the page before; the next page's cursor
   * is `older`, null at the first shift ever.
   */
  async list(page: { before?: number; limit?: number }): Promise<ShiftPage> {
    const limit = page.limit ?? SHIFTS_PER_PAGE;
    const older = newestFirst(await this.#allShifts()).filter((s) => page.before === undefined || s.opened_seq < page.before);
    const shown = older.slice(0, limit);
    const shifts: ShiftSummary[] = [];
    for (const record of shown) shifts.push({ ...(await this.#view(record)), totals: (await this.#shiftFrame(record)).totals, frozen: record.state === 'closed' });
    return { shifts, older: older.length > limit ? (shown.at(-1)?.opened_seq ?? null) : null };
  }

  /**
   * The store's days, newest first, `count` calendar days ending with `through` (default:
   * today, in the reader's zone), each with the totals of the sales rung up on it. Days
   * without a sale are listed too, so a gap in trade reads as one.
   */
  async days(page: { timeZone: string; through?: LocalDay; count?: number }): Promise<DayPage> {
    const count = page.count ?? DAYS_PER_PAGE;
    checkZone(page.timeZone);
    const today = localDayOf(this.#clock.now(), page.timeZone);
    const through = page.through === undefined || page.through > today ? today : page.through;
    const days: DaySummary[] = [];
    for (let i = 0; i < count; i++) {
      const day = addDays(through, -i);
      const { from, to } = dayRange(day, page.timeZone);
      const sales = (await this.#journal.sales.createdBetween(from, to)).map((r) => r.sale);
      days.push({ day, from, to, totals: shiftTotals(await summariesOf(sales)) });
    }
    const pageFrom = days.at(-1)?.from ?? 0;
    // Nothing to page back to once a page is empty and opens after no shift: the store's
    // history starts with its first shift (a sale before any shift is found by its day).
    const firstShift = oldestOpenedAt(await this.#allShifts());
    const hasOlder = days.some((d) => d.totals.count > 0) || (firstShift !== null && firstShift < pageFrom);
    return {
      days,
      older: hasOlder ? addDays(through, -count) : null,
      newer: through < today ? (addDays(through, count) > today ? today : addDays(through, count)) : null,
    };
  }

  /**
   * The entries of a shift, by seq from its opening to its closing entry (to now while it is
   * open), and its sales folded from those entries alone: what was journaled after the
   * close cannot move a closed shift's numbers, and a replay of the same journal gives the
   * same ones.
   */
  async #shiftFrame(record: ShiftRecord): Promise<Frame> {
    const last = record.closed_seq ?? Number.MAX_SAFE_INTEGER;
    const window = await this.#journal.eventsBetween(record.opened_at, record.closed_at === undefined ? Number.MAX_SAFE_INTEGER : record.closed_at + 1);
    const entries = window.filter((e) => e.seq >= record.opened_seq && e.seq <= last).sort((a, b) => a.seq - b.seq);
    const rows = [...foldSaleRows(entries).values()].filter((r) => r.shift_id === record.id);
    const sales = rows.map((r) => r.sale);
    const views = sales.map((s) => saleSummary(s, sales)).sort((a, b) => b.requested_at - a.requested_at);
    // A payment kept apart in the shift and tied to a sale before the close is claimed by an
    // entry between the two, so inside the window.
    const totals = shiftTotals(views, await this.#unmatchedIn(entries, async () => entries));
    return { entries, views, saleIds: new Set(sales.map((s) => s.sale_id)), totals };
  }

  /** The sales as the journal holds them now (a closed shift's frame is folded up to its close). */
  async #asNow(views: readonly SaleSummary[]): Promise<SaleSummary[]> {
    const rows = await Promise.all(views.map((v) => this.#journal.sales.get(v.sale_id)));
    const sales = rows.flatMap((r) => (r === undefined ? [] : [r.sale]));
    return sales.map((sale) => saleSummary(sale, sales));
  }

  async #dayFrame(from: number, to: number): Promise<Frame> {
    const sales = (await this.#journal.sales.createdBetween(from, to)).map((r) => r.sale);
    const views = (await summariesOf(sales)).sort((a, b) => b.requested_at - a.requested_at);
    const entries = (await this.#journal.eventsBetween(from, to)).sort((a, b) => a.seq - b.seq);
    return { entries, views, saleIds: new Set(sales.map((s) => s.sale_id)), totals: shiftTotals(views) };
  }

  /** Entries journaled after a closed shift's close and before the next shift opened (or now). */
  async #afterClose(record: ShiftRecord): Promise<JournalEntry[]> {
    if (record.closed_seq === undefined || record.closed_at === undefined) return [];
    const closedSeq = record.closed_seq;
    const next = (await this.#journal.shifts.openedBetween(record.closed_at, Number.MAX_SAFE_INTEGER)).filter((s) => s.opened_seq > closedSeq).sort((a, b) => a.opened_seq - b.opened_seq)[0];
    const until = next?.opened_seq ?? Number.MAX_SAFE_INTEGER;
    const window = await this.#journal.eventsBetween(record.closed_at, next === undefined ? Number.MAX_SAFE_INTEGER : next.opened_at + 1);
    return window.filter((e) => e.seq > closedSeq && e.seq < until).sort((a, b) => a.seq - b.seq);
  }

  /**
   * Payments among `entries` on sales that `foreign` says belong elsewhere, each pointing
   * back to its sale and that sale's shift; their money, each payment once.
   */
  async #carried(entries: readonly JournalEntry[], foreign: (saleId: string) => boolean, rows: Map<string, SaleRow | undefined>): Promise<{ items: CarriedPayment[]; cents: number; refundsCents: number }> {
    const items: CarriedPayment[] = [];
    let refundsCents = 0;
    // Per sale, one payment per identity (lifecycle's samePayment): a webhook and a poll of one payment count once.
    const payments = new Map<string, { e2e_id?: string | null; cents: number }[]>();
    for (const entry of entries) {
      const data = factData(entry);
      const report = data?.events[0];
      if (!data || (!PAYMENT_ENTRIES.has(entry.type) && entry.type !== 'refund.made')) continue;
      for (const saleId of data.sale_ids.filter(foreign)) {
        if (!rows.has(saleId)) rows.set(saleId, await this.#journal.sales.get(saleId));
        const row = rows.get(saleId);
        const view = eventView(entry);
        items.push({
          seq: entry.seq,
          at: entry.at,
          type: entry.type,
          amount_cents: view.details.amount_cents,
          by: view.by,
          sale_id: saleId,
          sale_requested_at: row?.sale.requested_at ?? null,
          sale_requested_by: row?.sale.requested_by ?? null,
          sale_shift_id: row?.shift_id ?? null,
        });
        // Contract 5: a refund of an earlier sale, given back here (each refund is one entry).
        if (report?.type === 'refund.made') refundsCents += report.refunded_cents;
        if (report?.type === 'payment.received') {
          const known = payments.get(saleId) ?? [];
          if (!known.some((p) => samePayment(p, report))) known.push({ e2e_id: report.e2e_id, cents: wireBrlCents(report.amount_brl) ?? 0 });
          payments.set(saleId, known);
        }
      }
    }
    // A charge.done stands for its payment only while that payment's own report is missing.
    const reported = new Set(items.filter((i) => i.type !== 'charge.done').map((i) => i.sale_id));
    const shown = items.filter((i) => i.type !== 'charge.done' || !reported.has(i.sale_id));
    return { items: shown, cents: [...payments.values()].flat().reduce((sum, p) => sum + p.cents, 0), refundsCents };
  }

  /** Where a day's payments kept apart may have been claimed: any attribution, any rematch of the sales they name. */
  async #claimsOf(entries: readonly JournalEntry[]): Promise<JournalEntry[]> {
    const claims = [...(await this.#journal.eventsOfType('payment.attributed'))];
    const saleIds = new Set<string>();
    for (const { report } of keptApart(entries)) {
      const byPix = report.pix_id === undefined ? undefined : await this.#journal.sales.byPixId(report.pix_id);
      const bySvc = report.service_id === undefined ? undefined : await this.#journal.sales.byServiceId(report.service_id);
      for (const row of [byPix, bySvc]) if (row) saleIds.add(row.sale.sale_id);
    }
    for (const saleId of saleIds) claims.push(...(await this.#journal.eventsForSale(saleId)));
    return claims;
  }

  /**
   * Payments journaled in `entries` that no sale holds as of `claims` (read only when a
   * payment was kept apart at all): money received without a sale, reported apart from the
   * sales' money. The terminal names the entry that kept a payment apart when it later ties
   * it to a sale (rematch_of): such an entry is on the sale the payment's ids name, or is a
   * person's attribution.
   */
  async #unmatchedIn(entries: readonly JournalEntry[], claims: () => Promise<readonly JournalEntry[]>): Promise<UnmatchedMoney[]> {
    const kept = keptApart(entries);
    if (kept.length === 0) return [];
    const claimed = new Set<number>();
    for (const entry of await claims()) {
      const of = factData(entry)?.rematch_of;
      if (typeof of === 'number') claimed.add(of);
    }
    // One payment once, however many reports of it were kept apart.
    const payments = new Map<string, UnmatchedMoney>();
    for (const { seq, report } of kept) if (!claimed.has(seq)) payments.set(unmatchedPaymentKey(report), { amount_cents: wireBrlCents(report.amount_brl) });
    return [...payments.values()];
  }

  async exportCsv(shiftId: string | undefined): Promise<{ filename: string; csv: string }> {
    const report = await this.report(shiftId === undefined ? {} : { shiftId });
    const day = new Date(report.shift?.opened_at ?? this.#clock.now()).toISOString().slice(0, 10);
    return { filename: `shift-${day}-${(report.shift?.shift_id ?? 'recent').slice(0, 8)}.csv`, csv: salesCsv(report.sales) };
  }

  async exportDayCsv(day: LocalDay, timeZone: string): Promise<{ filename: string; csv: string }> {
    const report = await this.dayReport({ day, timeZone });
    return { filename: `day-${day}.csv`, csv: salesCsv(report.sales) };
  }

  /** Shift records are a few a day: all of them are a small read, whatever the history. */
  #allShifts(): Promise<ShiftRecord[]> {
    return this.#journal.shifts.openedBetween(0, Number.MAX_SAFE_INTEGER);
  }

  async #view(record: ShiftRecord): Promise<ShiftView> {
    // The opening and closing entries, found by their own time and seq, not by reading
    // every shift entry ever written.
    const note = async (at: number | undefined, seq: number | undefined): Promise<string | null> => {
      if (at === undefined || seq === undefined) return null;
      const entry = (await this.#journal.eventsBetween(at, at + 1)).find((e) => e.seq === seq);
      const value = entry ? (entry.data as Record<string, unknown>).note : undefined;
      return typeof value === 'string' ? value : null;
    };
    return {
      shift_id: record.id,
      opened_by: record.opened_by,
      opened_at: record.opened_at,
      note: await note(record.opened_at, record.opened_seq),
      closed_by: record.closed_by ?? null,
      closed_at: record.closed_at ?? null,
      close_note: record.state === 'closed' ? await note(record.closed_at, record.closed_seq) : null,
    };
  }
}

interface Frame {
  /** In seq order. */
  entries: JournalEntry[];
  views: SaleSummary[];
  saleIds: Set<string>;
  totals: ShiftTotals;
}

/** Entries that carry a payment (or a person's tie of one to a sale). */
const PAYMENT_ENTRIES: ReadonlySet<string> = new Set(['payment.received', 'charge.done', 'payment.attributed']);

/** Sales as the journal's view folds them, from these entries only (in seq order). */
function foldSaleRows(entries: readonly JournalEntry[]): Map<string, SaleRow> {
  const rows = new Map<string, SaleRow>();
  for (const entry of entries) {
    const data = factData(entry);
    if (!data) continue;
    for (const saleId of data.sale_ids) {
      const next = reduceSaleRow(rows.get(saleId), entry, saleId);
      if (next) rows.set(saleId, next);
    }
  }
  return rows;
}

function keptApart(entries: readonly JournalEntry[]): { seq: number; report: PaymentReceived }[] {
  return entries.flatMap((entry) => {
    const data = factData(entry);
    const report = data?.events[0];
    return data && data.sale_ids.length === 0 && report?.type === 'payment.received' ? [{ seq: entry.seq, report }] : [];
  });
}

/** Sales summarized in one turn of the event loop (see summariesOf). */
const SUMMARY_SLICE = 1_000;

/**
 * Each sale's summary, SUMMARY_SLICE sales at a time, the event loop free between two: a busy
 * day's 50,000 summaries made at once held every till's charge and payment half a second
 * behind a report (issue 28). The sales are the report's own list: nothing changes them meanwhile.
 */
async function summariesOf(sales: readonly Sale[]): Promise<SaleSummary[]> {
  const out: SaleSummary[] = [];
  for (let i = 0; i < sales.length; i += SUMMARY_SLICE) {
    if (i > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    for (const s of sales.slice(i, i + SUMMARY_SLICE)) out.push(saleSummary(s, sales));
  }
  return out;
}

function newestFirst(shifts: ShiftRecord[]): ShiftRecord[] {
  return shifts.sort((a, b) => b.opened_seq - a.opened_seq);
}

function oldestOpenedAt(shifts: readonly ShiftRecord[]): number | null {
  return shifts.reduce<number | null>((min, s) => (min === null || s.opened_at < min ? s.opened_at : min), null);
}

function dayRange(day: LocalDay, timeZone: string): { from: number; to: number } {
  if (parseLocalDay(day) === null) throw new CoreError('invalid_argument', 'A day is written like 2026-11-23.', { field: 'day' });
  checkZone(timeZone);
  return localDayRange(day, timeZone);
}

function checkZone(timeZone: string): void {
  if (!isTimeZone(timeZone)) throw new CoreError('invalid_argument', 'That time zone is not known.', { field: 'timeZone' });
}
