import type { EntryInput, JournalEntry, SaleKeys } from '../journal/journal.ts';
import { applySaleEvent } from '../sales/lifecycle.ts';
import type { ChargeDone, PaymentReceived, Sale, SaleEvent } from '../sales/lifecycle.ts';

/**
 * How sale facts are written to the journal and folded back. One journal entry carries
 * one atomic fact: the lifecycle events it consists of, and the ids of every sale they
 * touch. A new sale and the displacement of the earlier one are ONE entry, so a crash can
 * never keep the one without the other.
 */
export interface SaleFactData {
  /** Every sale the events touch; empty for a payment no sale could be matched to (yet). */
  sale_ids: string[];
  events: SaleEvent[];
  /** Who, for operator actions (acknowledgements). */
  by?: string;
  /** The shift the sale was rung up in (on the sale's first entry). */
  shift_id?: string;
  /** For a re-matched payment: the seq of the entry that first recorded it unmatched. */
  rematch_of?: number;
  /** Why a payment stayed unmatched. */
  unmatched_reason?: string;
}

/** What the journal keeps per sale: the lifecycle's Sale and the shift it belongs to. */
export interface SaleRow {
  sale: Sale;
  shift_id?: string;
}

/** Entry types that are a person's action: the journal requires their `by`. */
export const OPERATOR_ACTIONS = ['sale.acknowledged'] as const;

export function saleFact(events: readonly SaleEvent[], extra: Omit<SaleFactData, 'sale_ids' | 'events'> = {}): EntryInput {
  const first = events[0];
  if (!first) throw new Error('a sale fact needs at least one event');
  const saleIds = [...new Set(events.map((e) => ('sale_id' in e ? e.sale_id : undefined)).filter((id): id is string => id !== undefined))];
  return { type: first.type, data: { ...stripUndefined(extra), sale_ids: saleIds, events: events.map(stripUndefined) } };
}

/** A payment report recorded against a sale (sale_id set) or unmatched (null). */
export function paymentFact(report: PaymentReceived | ChargeDone, saleId: string | null, extra: Omit<SaleFactData, 'sale_ids' | 'events'> = {}): EntryInput {
  return { type: report.type, data: { ...stripUndefined(extra), sale_ids: saleId === null ? [] : [saleId], events: [stripUndefined(report)] } };
}

/** The journal's canonical JSON refuses `undefined`: drop such members before writing. */
function stripUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

export function factData(entry: JournalEntry): SaleFactData | null {
  const data = entry.data as unknown as Partial<SaleFactData>;
  if (!Array.isArray(data.events) || !Array.isArray(data.sale_ids)) return null;
  return data as SaleFactData;
}

/**
 * The journal's per-sale reducer: applies, in order, the events of the entry that concern
 * this sale. A payment carries no sale_id of its own; the entry's sale_ids says whose it is.
 */
export function reduceSaleRow(current: SaleRow | undefined, entry: JournalEntry, saleId: string): SaleRow | undefined {
  const data = factData(entry);
  if (data === null) return undefined;
  let sale = current?.sale;
  let changed = false;
  for (const event of data.events) {
    const own = 'sale_id' in event ? event.sale_id === saleId : data.sale_ids.includes(saleId);
    if (!own) continue;
    const step = applySaleEvent(sale, event);
    if (step.sale !== undefined && step.sale !== sale) {
      sale = step.sale;
      changed = true;
    }
  }
  if (!changed || sale === undefined) return undefined;
  const shift = current?.shift_id ?? (typeof data.shift_id === 'string' ? data.shift_id : undefined);
  return shift === undefined ? { sale } : { sale, shift_id: shift };
}

export function saleRowKeys(row: SaleRow): SaleKeys {
  const s = row.sale;
  return {
    store_id: s.store_id,
    checkout_id: s.checkout_id,
    status: s.status,
    created_at: s.requested_at,
    ...(s.pix_id === undefined ? {} : { pix_id: s.pix_id }),
    ...(s.service_id === undefined ? {} : { service_id: s.service_id }),
    ...(s.external_id === undefined ? {} : { external_id: s.external_id }),
    ...(row.shift_id === undefined ? {} : { shift_id: row.shift_id }),
  };
}
