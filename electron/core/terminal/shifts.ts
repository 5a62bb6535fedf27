import { randomUUID } from 'node:crypto';
import type { Clock } from '../../shared/clock.ts';
import { CoreError } from '../errors.ts';
import { SHIFT_CLOSED, SHIFT_OPENED, type Journal, type ShiftRecord } from '../journal/journal.ts';
import type { SaleStatus } from '../sales/lifecycle.ts';
import type { SaleRow } from './entries.ts';
import { eventView, filterSales, salesCsv, shiftTotals, type JournalEventView, type ShiftTotals, type ShiftView } from './shift-report.ts';
import { saleView, type SaleView } from './views.ts';

/**
 * Shifts and the supervisor's shift journal. Opening and closing a shift are journal
 * entries with who and when (and a note); every sale rung up while a shift is open
 * belongs to it.
 */
export interface ShiftReport {
  shift: ShiftView | null;
  sales: SaleView[];
  events: JournalEventView[];
  /** Over the whole shift, whatever the filter. */
  totals: ShiftTotals;
}

const DAY_MS = 86_400_000;

export class Shifts {
  readonly #journal: Journal<SaleRow>;
  readonly #clock: Clock;

  constructor(journal: Journal<SaleRow>, clock: Clock) {
    this.#journal = journal;
    this.#clock = clock;
  }

  async current(): Promise<ShiftView | null> {
    const open = (await this.#journal.shifts.open()).sort((a, b) => b.opened_at - a.opened_at)[0];
    return open ? this.#view(open) : null;
  }

  async open(by: string, note: string | undefined): Promise<ShiftView> {
    const current = await this.current();
    if (current) throw new CoreError('conflict', `A shift is already open (opened by ${current.opened_by}); close it first.`, { reason: 'shift_open' });
    const record = await this.#journal.openShift(randomUUID(), by, note === undefined ? {} : { note });
    return this.#view(record);
  }

  /**
   * Closes the open shift. Reference 4.5: a pending sale can still be paid; closing over it
   * is a person's decision, so without `confirmPending` it is refused with the count.
   */
  async close(by: string, note: string | undefined, pendingSales: number, confirmPending: boolean): Promise<ShiftView> {
    const current = await this.current();
    if (!current) throw new CoreError('conflict', 'No shift is open.', { reason: 'no_shift' });
    if (pendingSales > 0 && !confirmPending) {
      throw new CoreError('conflict', `${pendingSales} sale(s) are still waiting for payment: close the shift anyway?`, { reason: 'pending_sale', pending: pendingSales });
    }
    const record = await this.#journal.closeShift(current.shift_id, by, note === undefined ? { pending_at_close: pendingSales } : { note, pending_at_close: pendingSales });
    return this.#view(record);
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
    const views = sales.map((s) => saleView(s, sales)).sort((a, b) => b.requested_at - a.requested_at);
    const entries = await this.#journal.eventsBetween(from, to);
    return {
      shift: record ? await this.#view(record) : null,
      sales: filterSales(views, filter),
      events: entries.map(eventView),
      totals: shiftTotals(views),
    };
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
