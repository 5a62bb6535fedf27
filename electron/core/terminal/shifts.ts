import { randomUUID } from 'node:crypto';
import type { Clock } from '../../shared/clock.ts';
import { CoreError } from '../errors.ts';
import { SHIFT_CLOSED, SHIFT_OPENED, type Journal, type JournalEntry, type ShiftRecord } from '../journal/journal.ts';
import { amountToCents } from '../sales/amount.ts';
import { unmatchedPaymentKey, type SaleStatus } from '../sales/lifecycle.ts';
import { factData, type SaleRow } from './entries.ts';
import { eventView, filterSales, salesCsv, shiftTotals, type JournalEventView, type ShiftTotals, type ShiftView, type UnmatchedMoney } from './shift-report.ts';
import { saleSummary, type SaleSummary } from './views.ts';

/**
 * Shifts and the supervisor's shift journal. Opening and closing a shift are journal
 * entries with who and when (and a note); every sale rung up while a shift is open
 * belongs to it.
 */
export interface ShiftReport {
  shift: ShiftView | null;
  sales: SaleSummary[];
  events: JournalEventView[];
  /** Over the whole shift, whatever the filter. */
  totals: ShiftTotals;
}

const DAY_MS = 86_400_000;

export class Shifts {
  readonly #journal: Journal<SaleRow>;
  readonly #clock: Clock;
  /** Opening and closing one at a time: "is a shift open?" and its journal entry are one step. */
  #tail: Promise<unknown> = Promise.resolve();

  constructor(journal: Journal<SaleRow>, clock: Clock) {
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
    const now = this.#clock.now();
    let record: ShiftRecord | undefined;
    if (filter.shiftId !== undefined) {
      record = await this.#journal.shifts.get(filter.shiftId);
      if (!record) throw new CoreError('not_found', 'That shift is not in this terminal’s journal.');
    } else {
      record = (await this.#journal.shifts.open())[0] ?? (await this.#journal.shifts.openedBetween(0, now + 1)).sort((a, b) => b.opened_at - a.opened_at)[0];
    }
    const from = record?.opened_at ?? now - DAY_MS;
    const to = (record?.closed_at ?? now) + 1;
    const rows = record ? await this.#journal.sales.byShift(record.id) : await this.#journal.sales.createdBetween(from, to);
    const sales = rows.map((r) => r.sale);
    const views = sales.map((s) => saleSummary(s, sales)).sort((a, b) => b.requested_at - a.requested_at);
    const entries = await this.#journal.eventsBetween(from, to);
    return {
      shift: record ? await this.#view(record) : null,
      sales: filterSales(views, filter),
      events: entries.map(eventView),
      totals: shiftTotals(views, await this.#unmatchedIn(entries)),
    };
  }

  /**
   * Payments journaled in the shift that no sale holds now: money received without a sale,
   * reported apart from the sales' money. The terminal names the entry that kept a payment
   * apart when it later ties it to a sale (rematch_of): such an entry is on the sale the
   * payment's ids name, or is a person's attribution.
   */
  async #unmatchedIn(entries: readonly JournalEntry[]): Promise<UnmatchedMoney[]> {
    const kept = entries.flatMap((entry) => {
      const data = factData(entry);
      const report = data?.events[0];
      return data && data.sale_ids.length === 0 && report?.type === 'payment.received' ? [{ seq: entry.seq, report }] : [];
    });
    if (kept.length === 0) return [];
    const claimed = new Set<number>();
    const note = (entry: JournalEntry) => {
      const of = factData(entry)?.rematch_of;
      if (typeof of === 'number') claimed.add(of);
    };
    for (const entry of await this.#journal.eventsOfType('payment.attributed')) note(entry);
    const saleIds = new Set<string>();
    for (const { report } of kept) {
      const byPix = report.pix_id === undefined ? undefined : await this.#journal.sales.byPixId(report.pix_id);
      const bySvc = report.service_id === undefined ? undefined : await this.#journal.sales.byServiceId(report.service_id);
      for (const row of [byPix, bySvc]) if (row) saleIds.add(row.sale.sale_id);
    }
    for (const saleId of saleIds) for (const entry of await this.#journal.eventsForSale(saleId)) note(entry);
    // One payment once, however many reports of it were kept apart.
    const payments = new Map<string, UnmatchedMoney>();
    for (const { seq, report } of kept) if (!claimed.has(seq)) payments.set(unmatchedPaymentKey(report), { amount_cents: amountToCents(report.amount_brl) });
    return [...payments.values()];
  }

  async exportCsv(shiftId: string | undefined): Promise<{ filename: string; csv: string }> {
    const report = await this.report(shiftId === undefined ? {} : { shiftId });
    const day = new Date(report.shift?.opened_at ?? this.#clock.now()).toISOString().slice(0, 10);
    return { filename: `shift-${day}-${(report.shift?.shift_id ?? 'recent').slice(0, 8)}.csv`, csv: salesCsv(report.sales) };
  }

  async #view(record: ShiftRecord): Promise<ShiftView> {
    const note = async (type: string): Promise<string | null> => {
      const entries = await this.#journal.eventsOfType(type);
      const entry = entries.find((e) => (e.data as Record<string, unknown>).shift_id === record.id);
      const value = entry ? (entry.data as Record<string, unknown>).note : undefined;
      return typeof value === 'string' ? value : null;
    };
    return {
      shift_id: record.id,
      opened_by: record.opened_by,
      opened_at: record.opened_at,
      note: await note(SHIFT_OPENED),
      closed_by: record.closed_by ?? null,
      closed_at: record.closed_at ?? null,
      close_note: record.state === 'closed' ? await note(SHIFT_CLOSED) : null,
    };
  }
}
