import { create } from 'zustand';
import type { ResultOf, SaleStatus, ShiftReport, UnmatchedPayment } from '../../electron/core/contract.ts';
import { BridgeError, getBridge, toUiError } from '../lib/bridge.ts';
import type { UiError } from '../lib/errorText.ts';
import { prepareCsv, saveFile } from '../lib/download.ts';

/**
 * The supervisor's shift and its journal report, as the core computes them. Filters live
 * here (they are the supervisor's view); totals, sales and events come from the core.
 */
export type VerifyResult = ResultOf<'journal.verify'>;
export type OutcomeFilter = SaleStatus | '';

export interface PendingClose {
  by: string;
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
  loadReport(): Promise<void>;
  loadUnmatched(): Promise<void>;
  /** A person ties an unmatched payment to a sale; true once the core journaled it. */
  attribute(seq: number, saleId: string, by: string): Promise<boolean>;
  setOutcome(outcome: OutcomeFilter): void;
  setSearch(search: string): void;
  openShift(by: string, note: string): Promise<boolean>;
  closeShift(by: string, note: string, confirmPending?: boolean): Promise<boolean>;
  cancelClose(): void;
  verifyJournal(): Promise<void>;
  exportCsv(): Promise<void>;
}

const optionalNote = (note: string) => (note.trim() === '' ? {} : { note: note.trim() });

let reportRequest = 0;

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
  async loadUnmatched() {
    try {
      set({ unmatched: await getBridge().call('payments.unmatched') });
    } catch (err) {
      set({ error: toUiError(err) });
    }
  },
  async attribute(seq, saleId, by) {
    set({ attributeError: null });
    try {
      await getBridge().call('payment.attribute', { seq, saleId: saleId.trim(), by: by.trim() });
      await Promise.all([get().loadUnmatched(), get().loadReport()]);
      return true;
    } catch (err) {
      set({ attributeError: { seq, error: toUiError(err) } });
      return false;
    }
  },
  async loadReport() {
    const { outcome, search } = get();
    // Only the latest request's answer counts: filters change faster than answers come.
    const request = ++reportRequest;
    try {
      const report = await getBridge().call('journal.shiftReport', {
        ...(outcome === '' ? {} : { outcome }),
        ...(search.trim() === '' ? {} : { search: search.trim() }),
      });
      if (request === reportRequest) set({ report, error: null });
    } catch (err) {
      if (request === reportRequest) set({ error: toUiError(err) });
    }
  },
  setOutcome(outcome) {
    set({ outcome });
    void get().loadReport();
  },
  setSearch(search) {
    set({ search });
  },
  async openShift(by, note) {
    set({ busy: true, error: null });
    try {
      await getBridge().call('shift.open', { by: by.trim(), ...optionalNote(note) });
      await get().loadReport();
      return true;
    } catch (err) {
      set({ error: toUiError(err) });
      return false;
    } finally {
      set({ busy: false });
    }
  },
  async closeShift(by, note, confirmPending = false) {
    set({ busy: true, error: null });
    try {
      await getBridge().call('shift.close', { by: by.trim(), ...optionalNote(note), ...(confirmPending ? { confirmPending: true } : {}) });
      set({ pendingClose: null });
      await get().loadReport();
      return true;
    } catch (err) {
      if (err instanceof BridgeError && err.code === 'conflict' && err.params?.['reason'] === 'pending_sale') {
        const pending = typeof err.params['pending'] === 'number' ? err.params['pending'] : 1;
        set({ pendingClose: { by, note, pending } });
      } else {
        set({ error: toUiError(err) });
      }
      return false;
    } finally {
      set({ busy: false });
    }
  },
  cancelClose() {
    set({ pendingClose: null });
  },
  async verifyJournal() {
    set({ verify: null });
    try {
      set({ verify: await getBridge().call('journal.verify') });
    } catch (err) {
      set({ error: toUiError(err) });
    }
  },
  async exportCsv() {
    try {
      const shiftId = get().report?.shift?.shift_id;
      const { filename, csv } = await getBridge().call('journal.exportCsv', shiftId ? { shiftId } : {});
      saveFile(prepareCsv(filename, csv));
    } catch (err) {
      set({ error: toUiError(err) });
    }
  },
}));

export const selectTotals = (s: ShiftState) => s.report?.totals ?? null;
export const selectReportShift = (s: ShiftState) => s.report?.shift ?? null;
