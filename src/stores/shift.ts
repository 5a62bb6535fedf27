import { create } from 'zustand';
import type { DayPage, ResultOf, SaleStatus, ShiftPage, ShiftReport, UnmatchedPayment } from '../../electron/core/contract.ts';
import { BridgeError, getBridge, toUiError } from '../lib/bridge.ts';
import type { UiError } from '../lib/errorText.ts';
import { prepareCsv, saveFile } from '../lib/download.ts';
import { busyStep, readStep } from './steps.ts';

/**
 * The supervisor's shift and its journal report, as the core computes them. Filters live
 * here (they are the supervisor's view); totals, sales and events come from the core.
 */
export type VerifyResult = ResultOf<'journal.verify'>;
export type OutcomeFilter = SaleStatus | '';

/** What the report shows: the current shift (live), a past shift, or a day. */
export type ReportSelection = { kind: 'current' } | { kind: 'shift'; shiftId: string } | { kind: 'day'; day: string };
export type HistoryView = 'shifts' | 'days';

/**
 * The zone this screen shows times in: days of the journal are its calendar days, so a
 * sale at 22:00 here is on the day the supervisor sees it on.
 */
export const screenTimeZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone;

export interface PendingClose {
  note: string;
  pending: number;
}

interface ShiftState {
  report: ShiftReport | null;
  outcome: OutcomeFilter;
  search: string;
  error: UiError | null;
  busy: boolean;
  verify: VerifyResult | null;
  /** Closing was refused because a sale is still pending: the supervisor is asked first. */
  pendingClose: PendingClose | null;
  /** Payments no sale could be matched to, as the core keeps them. */
  unmatched: readonly UnmatchedPayment[];
  /** The payment (by seq) whose attribution failed, and why. */
  attributeError: { seq: number; error: UiError } | null;
  selection: ReportSelection;
  historyView: HistoryView;
  /** The page of shifts shown, and the cursors of the newer pages (to go back to them). */
  shiftPage: ShiftPage | null;
  shiftCursors: readonly (number | undefined)[];
  dayPage: DayPage | null;
  /** The last day of the page of days shown; undefined: ending today. */
  dayThrough: string | undefined;
  loadReport(): Promise<void>;
  select(selection: ReportSelection): void;
  setHistoryView(view: HistoryView): void;
  /** Reloads the page of history shown (totals of an open shift move). */
  loadHistory(): Promise<void>;
  olderShifts(): void;
  newerShifts(): void;
  olderDays(): void;
  newerDays(): void;
  loadUnmatched(): Promise<void>;
  /** A person ties an unmatched payment to a sale; true once the core journaled it. */
  attribute(seq: number, saleId: string): Promise<boolean>;
  setOutcome(outcome: OutcomeFilter): void;
  setSearch(search: string): void;
  /** Opened and closed in the name of the operator signed in on this window. */
  openShift(note: string): Promise<boolean>;
  closeShift(note: string, confirmPending?: boolean): Promise<boolean>;
  cancelClose(): void;
  verifyJournal(): Promise<void>;
  exportCsv(): Promise<void>;
}

const optionalNote = (note: string) => (note.trim() === '' ? {} : { note: note.trim() });

let reportRequest = 0;
let historyRequest = 0;

export const useShift = create<ShiftState>()((set, get) => ({
  report: null,
  outcome: '',
  search: '',
  error: null,
  busy: false,
  verify: null,
  pendingClose: null,
  unmatched: [],
  attributeError: null,
  selection: { kind: 'current' },
  historyView: 'shifts',
  shiftPage: null,
  shiftCursors: [],
  dayPage: null,
  dayThrough: undefined,
  loadUnmatched: () => readStep(set, async () => ({ unmatched: await getBridge().call('payments.unmatched') })),
  async attribute(seq, saleId) {
    set({ attributeError: null });
    try {
      await getBridge().call('payment.attribute', { seq, saleId: saleId.trim() });
      await Promise.all([get().loadUnmatched(), get().loadReport()]);
      return true;
    } catch (err) {
      set({ attributeError: { seq, error: toUiError(err) } });
      return false;
    }
  },
  async loadReport() {
    const { outcome, search, selection } = get();
    const filter = {
      ...(outcome === '' ? {} : { outcome }),
      ...(search.trim() === '' ? {} : { search: search.trim() }),
    };
    // Only the latest request's answer counts: filters change faster than answers come.
    const request = ++reportRequest;
    try {
      const bridge = getBridge();
      const report =
        selection.kind === 'day'
          ? await bridge.call('journal.dayReport', { day: selection.day, timeZone: screenTimeZone(), ...filter })
          : await bridge.call('journal.shiftReport', { ...(selection.kind === 'shift' ? { shiftId: selection.shiftId } : {}), ...filter });
      if (request === reportRequest) set({ report, error: null });
    } catch (err) {
      if (request === reportRequest) set({ error: toUiError(err) });
    }
  },
  select(selection) {
    set({ selection });
    void get().loadReport();
  },
  setHistoryView(historyView) {
    set({ historyView });
    void get().loadHistory();
  },
  async loadHistory() {
    const { historyView, shiftCursors, dayThrough } = get();
    const request = ++historyRequest;
    try {
      if (historyView === 'shifts') {
        const before = shiftCursors.at(-1);
        const shiftPage = await getBridge().call('journal.shifts', before === undefined ? {} : { before });
        if (request === historyRequest) set({ shiftPage });
      } else {
        const dayPage = await getBridge().call('journal.days', { timeZone: screenTimeZone(), ...(dayThrough === undefined ? {} : { through: dayThrough }) });
        if (request === historyRequest) set({ dayPage });
      }
    } catch (err) {
      if (request === historyRequest) set({ error: toUiError(err) });
    }
  },
  olderShifts() {
    const older = get().shiftPage?.older;
    if (older === null || older === undefined) return;
    set({ shiftCursors: [...get().shiftCursors, older] });
    void get().loadHistory();
  },
  newerShifts() {
    set({ shiftCursors: get().shiftCursors.slice(0, -1) });
    void get().loadHistory();
  },
  olderDays() {
    const older = get().dayPage?.older;
    if (older === null || older === undefined) return;
    set({ dayThrough: older });
    void get().loadHistory();
  },
  newerDays() {
    const newer = get().dayPage?.newer;
    set({ dayThrough: newer ?? undefined });
    void get().loadHistory();
  },
  setOutcome(outcome) {
    set({ outcome });
    void get().loadReport();
  },
  setSearch(search) {
    set({ search });
  },
  openShift: (note) =>
    busyStep(set, ['busy', 'error'], async () => {
      await getBridge().call('shift.open', optionalNote(note));
      set({ selection: { kind: 'current' } });
      await get().loadReport();
    }),
  closeShift: (note, confirmPending = false) =>
    busyStep(
      set,
      ['busy', 'error'],
      async () => {
        await getBridge().call('shift.close', { ...optionalNote(note), ...(confirmPending ? { confirmPending: true } : {}) });
        set({ pendingClose: null, selection: { kind: 'current' } });
        await get().loadReport();
      },
      (err) => {
        if (err instanceof BridgeError && err.code === 'conflict' && err.params?.['reason'] === 'pending_sale') {
          return { pendingClose: { note, pending: typeof err.params['pending'] === 'number' ? err.params['pending'] : 1 } };
        }
        return { error: toUiError(err) };
      },
    ),
  cancelClose() {
    set({ pendingClose: null });
  },
  verifyJournal() {
    set({ verify: null });
    return readStep(set, async () => ({ verify: await getBridge().call('journal.verify') }));
  },
  exportCsv: () =>
    readStep(set, async () => {
      const { report, selection } = get();
      const shiftId = report?.shift?.shift_id;
      const { filename, csv } =
        selection.kind === 'day'
          ? await getBridge().call('journal.exportDayCsv', { day: selection.day, timeZone: screenTimeZone() })
          : await getBridge().call('journal.exportCsv', shiftId ? { shiftId } : {});
      saveFile(prepareCsv(filename, csv));
    }),
}));

export const selectTotals = (s: ShiftState) => s.report?.totals ?? null;
export const selectReportShift = (s: ShiftState) => s.report?.shift ?? null;
