import type { ClaimedKeys, EntryInput, JournalEntry, SaleKeys } from '../journal/port.ts';
import type { PaymentAttributed } from '../sales/matching.ts';
import { displaceable } from '../sales/checkout.ts';
import { applyAttributedReport, applySaleEvent, reportKey } from '../sales/lifecycle.ts';
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
  /** A person's attribution (payment.attributed) travels with the report it ties to a sale. */
  events: (SaleEvent | PaymentAttributed)[];
  /** Who, for operator actions (acknowledgements). */
  by?: string;
  /** The shift the sale was rung up in (on the sale's first entry). */
  shift_id?: string;
  /** For a re-matched or attributed payment: the seq of the entry that first recorded it unmatched. */
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
export const OPERATOR_ACTIONS = ['sale.acknowledged', 'payment.attributed', 'sale.withdrawn', 'refund.requested', 'settlement.acknowledged'] as const;

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

/**
 * A person ties an unmatched report (the entry at `unmatchedSeq`) to a sale: the book's
 * PaymentAttributed with the report itself, so the sale takes it through
 * applyAttributedReport. One entry: the decision never exists without its report.
 */
export function attributionFact(report: PaymentReceived | ChargeDone, unmatchedSeq: number, attribution: { saleId: string; by: string; at: number }): EntryInput {
  const decision: PaymentAttributed = { type: 'payment.attributed', payment_key: reportKey(report), sale_id: attribution.saleId, by: attribution.by, at: attribution.at };
  const data: SaleFactData = { by: attribution.by, rematch_of: unmatchedSeq, sale_ids: [attribution.saleId], events: [stripUndefined(report), decision] };
  return { type: decision.type, data: { ...data } };
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
  // A person's decision that this entry's report is this sale's (matching.ts PaymentAttributed).
  const attributed = data.events.find((e): e is PaymentAttributed => e.type === 'payment.attributed' && e.sale_id === saleId);
  for (const event of data.events) {
    if (event.type === 'payment.attributed') continue;
    const own = 'sale_id' in event ? event.sale_id === saleId : data.sale_ids.includes(saleId);
    if (!own) continue;
    const report = event.type === 'payment.received' || event.type === 'charge.done' ? event : undefined;
    const step =
      attributed && report && sale ? applyAttributedReport(sale, report, { by: attributed.by, at: attributed.at }) : applySaleEvent(sale, event);
    if (step.sale !== undefined && step.sale !== sale) {
      sale = step.sale;
      changed = true;
    }
  }
  if (!changed || sale === undefined) return undefined;
  // The entry's shift is the shift of the sale rung up in it, not of the earlier sales the
  // same entry displaces: a sale rung up before any shift stays outside every shift.
  const rungUpHere = data.events.some((e) => e.type === 'sale.requested' && e.sale_id === saleId);
  const shift = current?.shift_id ?? (rungUpHere && typeof data.shift_id === 'string' ? data.shift_id : undefined);
  return shift === undefined ? { sale } : { sale, shift_id: shift };
}

/** The request types whose Idempotency-Key belongs to them alone (a resend reuses its own). */
const KEYED_REQUESTS: ReadonlySet<string> = new Set(['sale.requested', 'refund.requested']);

/**
 * Which keys an entry of the terminal's takes for itself: the Idempotency-Key of each request
 * it journals, and the settlement a `settlement.settled` announces. Pure, like the reducer.
 */
export function claimedKeys(entry: JournalEntry): ClaimedKeys {
  const claimed: { idempotencyKeys?: { key: string; saleId: string }[]; settlementId?: number } = {};
  const events = entry.data.events;
  if (Array.isArray(events)) {
    for (const e of events) {
      if (e === null || typeof e !== 'object' || Array.isArray(e)) continue;
      const { type, idempotency_key: key, sale_id: saleId } = e;
      if (typeof type === 'string' && KEYED_REQUESTS.has(type) && typeof key === 'string' && key !== '' && typeof saleId === 'string') {
        (claimed.idempotencyKeys ??= []).push({ key, saleId });
      }
    }
  }
  const settlementId = entry.data.settlement_id;
  if (entry.type === 'settlement.settled' && typeof settlementId === 'number' && Number.isSafeInteger(settlementId)) claimed.settlementId = settlementId;
  return claimed;
}

export function saleRowKeys(row: SaleRow): SaleKeys {
  const s = row.sale;
  return {
    store_id: s.store_id,
    checkout_id: s.checkout_id,
    status: s.status,
    created_at: s.requested_at,
    amount_cents: s.amount_cents,
    ...(s.pix_id === undefined ? {} : { pix_id: s.pix_id }),
    ...(s.service_id === undefined ? {} : { service_id: s.service_id }),
    ...(s.external_id === undefined ? {} : { external_id: s.external_id }),
    ...(row.shift_id === undefined ? {} : { shift_id: row.shift_id }),
    // Indexed so the cashier's view finds what needs a person however old (until acknowledged),
    // and the charge finds what it must displace without reading the checkout's whole day.
    ...(s.attention.length > 0 ? { needs_person: 'yes' } : {}),
    ...(displaceable(s) ? { displaceable: 'yes' } : {}),
  };
}
