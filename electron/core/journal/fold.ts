/**
 * How entries fold into the rows a journal keeps beside them, whichever adapter keeps them:
 * which sales, webhook-id and shift an entry names, the sale reducer's fold of a batch with
 * its keys, the shift records and the projections. Pure: the embedded working set (view.ts),
 * its rebuild in memory and the database adapter share it, so the same entries give the same
 * rows on every backend.
 */
import { SHIFT_CLOSED, SHIFT_OPENED, type JournalEntry, type Projections, type ReducerFailure, type SaleKeys, type SaleReducer, type ShiftRecord } from './port.ts';

/**
 * A sale as the sales store keeps it: its keys beside the caller's record, and the last
 * entry that touched it (which decides when it may leave the working set).
 */
export type SaleRow<S> = Partial<SaleKeys> & { sale_id: string; record: S; touched_seq: number; touched_at: number };

/** A webhook-id the working set keeps for a fast dedupe: the first entry that carried it. */
export interface WebhookRow {
  webhook_id: string;
  seq: number;
  at: number;
}

/** Sale ids an entry affects: `data.sale_id`, and `data.sale_ids` for facts about several sales. */
export function saleIdsOf(entry: JournalEntry): string[] {
  const { sale_id, sale_ids } = entry.data;
  const ids: string[] = [];
  if (typeof sale_id === 'string' && sale_id !== '') ids.push(sale_id);
  if (Array.isArray(sale_ids)) {
    for (const id of sale_ids) if (typeof id === 'string' && id !== '' && !ids.includes(id)) ids.push(id);
  }
  return ids;
}

export function webhookIdOf(entry: JournalEntry): string | undefined {
  const id = entry.data.webhook_id;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

export function shiftIdOf(entry: JournalEntry): string | undefined {
  if (entry.type !== SHIFT_OPENED && entry.type !== SHIFT_CLOSED) return undefined;
  const id = entry.data.shift_id;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

interface Batch {
  refs: string[][];
  saleIds: string[];
  hookIds: string[];
  shiftIds: string[];
}

export function batchOf(entries: readonly JournalEntry[]): Batch {
  const saleIds = new Set<string>();
  const hookIds = new Set<string>();
  const shiftIds = new Set<string>();
  const refs = entries.map((e) => {
    const ids = saleIdsOf(e);
    for (const id of ids) saleIds.add(id);
    const hook = webhookIdOf(e);
    if (hook !== undefined) hookIds.add(hook);
    const shift = shiftIdOf(e);
    if (shift !== undefined) shiftIds.add(shift);
    return ids;
  });
  return { refs, saleIds: [...saleIds], hookIds: [...hookIds], shiftIds: [...shiftIds] };
}

export interface BatchState<S> {
  sales: Map<string, SaleRow<S> | undefined>;
  hooks: Map<string, WebhookRow | undefined>;
  shifts: Map<string, ShiftRecord | undefined>;
}

/**
 * Folds a batch into the rows it touches (`stored`: what the working set holds of them) and
 * returns the rows to write. Pure: the IndexedDB index and the rebuild's memory share it.
 */
export function foldBatch<S>(entries: readonly JournalEntry[], refs: string[][], stored: BatchState<S>, seeds: ReadonlyMap<string, S> | undefined, reduce: SaleReducer<S>, keysOf: (sale: S) => Partial<SaleKeys>): { sales: SaleRow<S>[]; hooks: WebhookRow[]; shifts: ShiftRecord[]; failures: ReducerFailure[] } {
  const sales = new Map<string, S | undefined>([...stored.sales].map(([id, row]) => [id, row?.record ?? seeds?.get(id)]));
  const hooks = new Map(stored.hooks);
  const shifts = new Map(stored.shifts);
  const changedSales = new Set<string>();
  const touched = new Map<string, JournalEntry>();
  const changedHooks = new Set<string>();
  const changedShifts = new Set<string>();
  const failures: ReducerFailure[] = [];
  entries.forEach((entry, i) => {
    const hook = webhookIdOf(entry);
    // The first entry to carry a webhook-id keeps it: a redelivery never moves it.
    if (hook !== undefined && hooks.get(hook) === undefined) {
      hooks.set(hook, { webhook_id: hook, seq: entry.seq, at: entry.at });
      changedHooks.add(hook);
    }
    const shiftId = shiftIdOf(entry);
    if (shiftId !== undefined) {
      const next = foldShift(shifts.get(shiftId), entry, shiftId);
      if (next) {
        shifts.set(shiftId, next);
        changedShifts.add(shiftId);
      }
    }
    for (const saleId of refs[i]!) {
      touched.set(saleId, entry);
      let next: S | undefined;
      try {
        next = reduce(sales.get(saleId), entry, saleId);
      } catch (err) {
        failures.push({ seq: entry.seq, saleId, message: err instanceof Error ? err.message : String(err) });
        continue;
      }
      if (next === undefined) continue;
      if (next === null || typeof next !== 'object') {
        failures.push({ seq: entry.seq, saleId, message: 'the reducer returned something that is not a record' });
        continue;
      }
      sales.set(saleId, next);
      changedSales.add(saleId);
    }
  });
  const out: SaleRow<S>[] = [];
  const lastSeq = entries.at(-1)!.seq;
  for (const [id, record] of sales) {
    if (record === undefined) continue;
    const entry = touched.get(id)!;
    const row = stored.sales.get(id);
    // A sale an entry named is touched even when its record did not change: it stays in the
    // working set while that entry's segment is the one being written (store.ts relies on it).
    if (!changedSales.has(id) && row !== undefined) {
      out.push({ ...row, touched_seq: entry.seq, touched_at: entry.at });
      continue;
    }
    let keys: Partial<SaleKeys> = {};
    try {
      keys = keysOf(record);
    } catch (err) {
      // Still stored, findable by id; only the other indexes miss it.
      failures.push({ seq: lastSeq, saleId: id, message: `the sale's keys cannot be read: ${(err as Error).message}` });
    }
    out.push({ ...keys, sale_id: id, record, touched_seq: entry.seq, touched_at: entry.at });
  }
  return {
    sales: out,
    hooks: [...changedHooks].map((id) => hooks.get(id)!),
    shifts: [...changedShifts].map((id) => shifts.get(id)!),
    failures,
  };
}

export function foldShift(current: ShiftRecord | undefined, entry: JournalEntry, id: string): ShiftRecord | undefined {
  const by = typeof entry.data.by === 'string' ? entry.data.by : '';
  if (entry.type === SHIFT_OPENED) {
    if (current) return undefined;
    return { id, state: 'open', opened_at: entry.at, opened_by: by, opened_seq: entry.seq };
  }
  if (!current || current.state === 'closed') return undefined;
  return { ...current, state: 'closed', closed_at: entry.at, closed_by: by, closed_seq: entry.seq };
}

/**
 * Folds entries (in seq order) into the projections' states; `states` is not changed, the
 * next states are returned. A projection that throws keeps its state for that entry and the
 * failure is counted, as a sale reducer's is.
 */
export function foldProjections(projections: Projections, states: ReadonlyMap<string, unknown>, entries: readonly JournalEntry[], failures: ReducerFailure[]): Map<string, unknown> {
  const next = new Map(states);
  for (const e of entries) {
    for (const [name, p] of Object.entries(projections)) {
      try {
        next.set(name, p.reduce(next.get(name), e));
      } catch (err) {
        failures.push({ seq: e.seq, saleId: `projection:${name}`, message: err instanceof Error ? err.message : String(err) });
      }
    }
  }
  return next;
}
