import { formatCents, wireBrlCents } from '../../shared/money.ts';
import type { JournalEntry } from '../journal/port.ts';
import type { SaleStatus } from '../sales/lifecycle.ts';
import type { SaleSummary } from './views.ts';

/**
 * The supervisor's shift journal, as pure functions over sale views and journal entries:
 * filters, totals, the event list and the CSV export.
 */
export interface ShiftView {
  shift_id: string;
  opened_by: string;
  opened_at: number;
  note: string | null;
  closed_by: string | null;
  closed_at: number | null;
  close_note: string | null;
}

export interface ShiftTotals {
  count: number;
  /**
   * Every payment received on the shift's sales, extra ones included, refunded ones too
   * (issue 24 point 8: each figure says what it means; none nets another silently).
   */
  received_cents: number;
  /** What the store kept of it: received_cents less refunded_cents. */
  net_cents: number;
  paid: number;
  mismatches: number;
  late_payments: number;
  displaced: number;
  /** Withdrawn by a person and not paid (still payable at the service until it expires). */
  withdrawn: number;
  expired: number;
  pending: number;
  failed: number;
  uncertain: number;
  /** Payments received in the shift that no sale holds (not in received_cents). */
  unmatched_count: number;
  /** Their amounts, where readable. */
  unmatched_cents: number;
  /**
   * Sales refunded in full (Tx Status `refunded`, or refunds made here), and the money that
   * went back from every sale, partly refunded ones included: part of received_cents, not of net_cents.
   */
  refunded: number;
  refunded_cents: number;
  /** Sales of which only part was given back (contract 5); still counted as paid money kept in part. */
  partly_refunded: number;
}

/**
 * Where the money of a shift's (or day's) sales went after it was received (reference 4.7):
 * settled in a transfer, given back, or still waiting for a settlement. As the journal knows
 * it now, also for a closed shift, whose sales are settled after its close.
 */
export interface SettlementTrail {
  /** Every payment received on the sales, the refunded ones included. */
  received_cents: number;
  /** Sales whose charge a settlement included, and what they received. */
  settled: number;
  settled_cents: number;
  /** Given back to payers (a refund's deduction reaches a later settlement). */
  refunded_cents: number;
  /**
   * Paid sales no settlement has included yet, and what a settlement still owes for them:
   * what they kept. Money given back before a settlement took the charge is not waiting for
   * one (a fully refunded sale waits for nothing).
   */
  awaiting: number;
  awaiting_cents: number;
}

export function settlementTrail(sales: readonly SaleSummary[]): SettlementTrail {
  const t: SettlementTrail = { received_cents: 0, settled: 0, settled_cents: 0, refunded_cents: 0, awaiting: 0, awaiting_cents: 0 };
  for (const s of sales) {
    const received = s.received_total_cents + s.refunded_cents;
    t.received_cents += received;
    t.refunded_cents += s.refunded_cents;
    if (received === 0) continue;
    if (s.settlement !== null) {
      t.settled++;
      t.settled_cents += received;
    } else if (s.received_total_cents > 0) {
      // received_total_cents is what the sale kept: its refunds are already off it.
      t.awaiting++;
      t.awaiting_cents += s.received_total_cents;
    }
  }
  return t;
}

/**
 * The journal entry of a claim's status change (claims/desk.ts, CLAIM_STATUS_CHANGED); its
 * name is repeated here so that this pure module reads entries without the desk's service client.
 */
const CLAIM_STATUS_CHANGED = 'claim.status_changed';

/** Money MED claims returned to the merchant (reference 2.6, 3.2): claims that closed with it. */
export interface ClaimsReturned {
  /** Claims journaled as closed with money_refunded in the shift or day. */
  count: number;
  /** Their refunded_amount, in cents. */
  cents: number;
  /** Of them, closed with money_refunded but no amount readable: not in `cents`, said apart. */
  amount_unknown: number;
}

/**
 * The claims among `entries` that closed with money returned. Reference 3.2: `closed` is
 * terminal, and only then are money_refunded and refunded_amount final; a claim reaches it
 * once, so each counts once, on the day the app journaled its close (the service gives no
 * closing time). Never read from result_id (reference 2.6).
 */
export function claimsReturned(entries: readonly JournalEntry[]): ClaimsReturned {
  const t: ClaimsReturned = { count: 0, cents: 0, amount_unknown: 0 };
  const seen = new Set<string>();
  for (const entry of entries) {
    if (entry.type !== CLAIM_STATUS_CHANGED) continue;
    const d = entry.data as Record<string, unknown>;
    if (d['to'] !== 'closed' || d['money_refunded'] !== true) continue;
    const id = typeof d['med_case_id'] === 'string' ? d['med_case_id'] : `seq:${entry.seq}`;
    if (seen.has(id)) continue;
    seen.add(id);
    t.count++;
    const cents = d['refunded_cents'];
    if (typeof cents === 'number' && Number.isSafeInteger(cents) && cents >= 0) t.cents += cents;
    else t.amount_unknown++;
  }
  return t;
}

/** A payment no sale holds, as the totals count it. */
export interface UnmatchedMoney {
  amount_cents: number | null;
}

export interface JournalEventView {
  seq: number;
  at: number;
  type: string;
  sale_ids: string[];
  by: string | null;
  /** What the entry says, as data: the renderer words it in the cashier's language. */
  details: EventDetails;
}

export interface EventDetails {
  amount_cents: number | null;
  pix_id: string | null;
  external_id: string | null;
  /** Codes as journaled (an attention reason, a payment source, a displacement's evidence). */
  reason: string | null;
  source: string | null;
  evidence: string | null;
  note: string | null;
  /** Further sales the same entry touched (e.g. the sale a new one displaced). */
  related: number;
  /** The settlement a settlement entry is about (its webhook, its result, an acknowledgement). */
  settlement_id: number | null;
}

export function shiftTotals(sales: readonly SaleSummary[], unmatched: readonly UnmatchedMoney[] = []): ShiftTotals {
  const t: ShiftTotals = {
    count: sales.length,
    received_cents: 0,
    net_cents: 0,
    paid: 0,
    mismatches: 0,
    late_payments: 0,
    displaced: 0,
    withdrawn: 0,
    expired: 0,
    pending: 0,
    failed: 0,
    uncertain: 0,
    unmatched_count: unmatched.length,
    unmatched_cents: unmatched.reduce((sum, u) => sum + (u.amount_cents ?? 0), 0),
    refunded: 0,
    refunded_cents: 0,
    partly_refunded: 0,
  };
  for (const s of sales) {
    // received_total_cents is what the sale kept; its refunds are off it (views.ts).
    t.received_cents += s.received_total_cents + s.refunded_cents;
    t.net_cents += s.received_total_cents;
    t.refunded_cents += s.refunded_cents;
    switch (s.status) {
      case 'paid':
        t.paid++;
        break;
      case 'amount_mismatch':
        t.mismatches++;
        break;
      case 'paid_late':
        t.late_payments++;
        break;
      case 'displaced':
        t.displaced++;
        break;
      case 'withdrawn':
        t.withdrawn++;
        break;
      case 'expired':
        t.expired++;
        break;
      case 'pending':
      case 'requested':
        t.pending++;
        break;
      case 'failed':
        t.failed++;
        break;
      case 'uncertain':
        t.uncertain++;
        break;
      case 'refunded':
        t.refunded++;
        break;
      case 'partly_refunded':
        t.partly_refunded++;
        break;
    }
  }
  return t;
}

/** Outcome filter and search by pix_id, service_id or external_id (case-insensitive, partial). */
export function filterSales(sales: readonly SaleSummary[], filter: { outcome?: SaleStatus; search?: string }): SaleSummary[] {
  const needle = filter.search?.trim().toLowerCase() ?? '';
  return sales.filter((s) => {
    if (filter.outcome !== undefined && s.status !== filter.outcome) return false;
    if (needle === '') return true;
    return [s.pix_id, s.service_id, s.external_id].some((v) => v !== null && v.toLowerCase().includes(needle));
  });
}

function cents(v: unknown): number | null {
  if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
  return wireBrlCents(v);
}

function text(v: unknown): string | null {
  return typeof v === 'string' && v !== '' ? v : null;
}

/** One journal entry as a line of the shift's event list. */
export function eventView(entry: JournalEntry): JournalEventView {
  const data = entry.data as Record<string, unknown>;
  const events = Array.isArray(data.events) ? (data.events as Record<string, unknown>[]) : [];
  const first = events[0] ?? {};
  // A person: who acted (data.by) or who charged. An event's own `by` names a sale (the one
  // that displaced or reinstated this one), never a person.
  const by = typeof data.by === 'string' ? data.by : typeof first.requested_by === 'string' ? first.requested_by : null;
  const settlementId = typeof data.settlement_id === 'number' ? data.settlement_id : null;
  return {
    seq: entry.seq,
    at: entry.at,
    type: entry.type,
    sale_ids: Array.isArray(data.sale_ids) ? (data.sale_ids as string[]) : [],
    by,
    details: {
      amount_cents: cents(first.amount_cents) ?? cents(first.refunded_cents) ?? cents(first.amount_brl),
      pix_id: text(first.pix_id),
      external_id: text(first.external_id),
      reason: text(first.reason),
      source: text(first.source),
      evidence: text(first.evidence),
      note: text(data.note),
      // A settlement's entry names each sale it included: they are its lines, not related sales.
      related: settlementId === null ? Math.max(0, events.length - 1) : 0,
      settlement_id: settlementId,
    },
  };
}

/**
 * A money column names its unit the reference's way (`amount_brl`): its cells are plain
 * decimals (formatCents, "1234.50"), which any spreadsheet reads as numbers whatever its
 * language, so the header, not the cell, says they are reais.
 */
const CSV_COLUMNS = [
  'sale_id',
  'requested_at',
  'requested_by',
  'status',
  'amount_brl',
  'received_brl',
  'external_id',
  'pix_id',
  'service_id',
  'e2e_id',
  'paid_at',
  'displaced_by',
  'needs_person',
  'acknowledged_by',
  'refunded_brl',
  'settlement_id',
  'settled_at',
] as const;

/**
 * RFC 4180 quoting, plus a leading apostrophe for cells a spreadsheet would run as a
 * formula (an external_id like "=HYPERLINK(...)" typed by anyone must stay text).
 */
export function csvCell(value: string | number | boolean | null): string {
  if (value === null) return '';
  let text = String(value);
  if (/^[=+\-@\t\r]/.test(text) && typeof value === 'string') text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function salesCsv(sales: readonly SaleSummary[]): string {
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  const rows = sales.map((s) =>
    [
      s.sale_id,
      iso(s.requested_at),
      s.requested_by,
      s.status,
      formatCents(s.amount_cents),
      s.received_cents === null ? null : formatCents(s.received_cents),
      s.external_id,
      s.pix_id,
      s.service_id,
      s.e2e_id,
      iso(s.paid_at),
      s.displaced_by,
      s.description.needs_person,
      s.description.acknowledged.map((a) => a.by).join('; ') || null,
      s.refunded_cents === 0 ? null : formatCents(s.refunded_cents),
      s.settlement?.settlement_id ?? null,
      iso(s.settlement?.settled_at ?? null),
    ].map(csvCell).join(','),
  );
  return [CSV_COLUMNS.join(','), ...rows].join('\r\n') + '\r\n';
}
