/**
 * The book: every sale of the terminal, plus what could not be tied to a sale yet.
 *
 * Nothing that reached the journal is ever dropped here:
 * - a payment or charge.done whose ids match no sale is kept in `unmatched`, with the
 *   reason, and is matched again (`rematch`) whenever a sale learns its ids;
 * - a per-sale event that arrives before its `sale.requested` (which only a damaged or
 *   merged journal can produce) is kept in `orphans` and replayed when the sale appears.
 * Like the Sale itself, the book is a function of the SET of events: any order, any
 * number of repeats, same book.
 */
import { applyAttributedReport, applySaleEvent, reportKey } from './lifecycle.ts';
import type { IllegalCode, PaymentReport, Sale, SaleEvent, SaleStatus } from './lifecycle.ts';
import { canonical, compareText, sortedUnique, upsert } from './order.ts';

/**
 * A person ties a report nobody could match to a sale: typically the payment of an
 * `uncertain` sale whose 201 never reached us, so its pix_id is unknown. Matching by ids
 * stays the only automatic rule (reference 4.5 rule 6); this is a person's decision,
 * journaled with who and when, one per report (the payment and its charge.done are two).
 * It does not teach the sale ids: nothing else follows it automatically.
 */
export interface PaymentAttributed {
  readonly type: 'payment.attributed';
  /** `reportKey` of the unmatched report (UnmatchedEntry.key): a payment, or its charge.done. */
  readonly payment_key: string;
  readonly sale_id: string;
  readonly by: string;
  readonly at: number;
}

export type BookEvent = SaleEvent | PaymentAttributed;

export type UnmatchedReason =
  /** The report names neither pix_id nor service_id. */
  | 'no_ids'
  /** Its ids name no sale we know (yet: it is matched again when a sale learns its ids). */
  | 'unknown_ids'
  /** pix_id names one sale and service_id another, or a sale whose other id differs. */
  | 'ids_conflict'
  /** One id is held by more than one sale. */
  | 'ambiguous';

export interface UnmatchedEntry {
  readonly key: string;
  readonly kind: 'payment' | 'done';
  /** Every distinct report of it, in canonical order: retries and both sources are kept. */
  readonly reports: readonly PaymentReport[];
  readonly reason: UnmatchedReason;
  /** Sales the ids pointed at, for the person who resolves a conflict. */
  readonly candidates: readonly string[];
  readonly first_seen_at: number;
}

export interface Attribution {
  readonly payment_key: string;
  readonly sale_id: string;
  readonly by: string;
  readonly at: number;
}

export interface SalesBook {
  readonly sales: Readonly<Record<string, Sale>>;
  readonly unmatched: readonly UnmatchedEntry[];
  readonly orphans: readonly SaleEvent[];
  readonly attributions: readonly Attribution[];
}

export const emptyBook: SalesBook = { sales: {}, unmatched: [], orphans: [], attributions: [] };

export interface BookReport {
  readonly event: BookEvent['type'];
  /** The sale the event was applied to, when there was one. */
  readonly sale_id: string | null;
  readonly outcome: 'applied' | 'duplicate' | 'rejected' | 'parked' | 'unmatched' | 'recorded';
  readonly from: SaleStatus | null;
  readonly to: SaleStatus | null;
  readonly illegal: IllegalCode | null;
}

export interface BookStep {
  readonly book: SalesBook;
  /** The event's own report first, then those of the orphans it released, if any. */
  readonly reports: readonly BookReport[];
}

// ---------------------------------------------------------------------------------------
// Matching.
// ---------------------------------------------------------------------------------------

export interface SaleIndex {
  readonly by_pix_id: Readonly<Record<string, readonly string[]>>;
  readonly by_service_id: Readonly<Record<string, readonly string[]>>;
  readonly identity: Readonly<Record<string, { readonly pix_id?: string; readonly service_id?: string }>>;
}

export function indexSales(sales: Iterable<Sale>): SaleIndex {
  const byPix: Record<string, string[]> = {};
  const byService: Record<string, string[]> = {};
  const identity: Record<string, { pix_id?: string; service_id?: string }> = {};
  for (const s of sales) {
    identity[s.sale_id] = {
      ...(s.pix_id === undefined ? {} : { pix_id: s.pix_id }),
      ...(s.service_id === undefined ? {} : { service_id: s.service_id }),
    };
    if (s.pix_id !== undefined) (byPix[s.pix_id] ??= []).push(s.sale_id);
    if (s.service_id !== undefined) (byService[s.service_id] ??= []).push(s.sale_id);
  }
  return { by_pix_id: byPix, by_service_id: byService, identity };
}

/**
 * The index of a book's sales, kept beside the book rather than in it (the book stays plain
 * data). Ids come only from a 201, so most events leave the index as it was and the next
 * book shares it; only a sale gaining ids extends it. Invisible to callers: same answers as
 * indexSales, without rebuilding it for every payment.
 */
const indexOfSales = new WeakMap<object, SaleIndex>();

function indexOf(book: SalesBook): SaleIndex {
  let index = indexOfSales.get(book.sales);
  if (!index) {
    index = indexSales(Object.values(book.sales));
    indexOfSales.set(book.sales, index);
  }
  return index;
}

function extendIndex(index: SaleIndex, sale: Sale): SaleIndex {
  const add = (by: Readonly<Record<string, readonly string[]>>, id: string | undefined): Readonly<Record<string, readonly string[]>> =>
    id === undefined || (by[id] ?? []).includes(sale.sale_id) ? by : { ...by, [id]: [...(by[id] ?? []), sale.sale_id] };
  return {
    by_pix_id: add(index.by_pix_id, sale.pix_id),
    by_service_id: add(index.by_service_id, sale.service_id),
    identity: {
      ...index.identity,
      [sale.sale_id]: {
        ...(sale.pix_id === undefined ? {} : { pix_id: sale.pix_id }),
        ...(sale.service_id === undefined ? {} : { service_id: sale.service_id }),
      },
    },
  };
}

export type PaymentMatch =
  | { readonly kind: 'sale'; readonly sale_id: string }
  | { readonly kind: 'unmatched'; readonly reason: UnmatchedReason; readonly candidates: readonly string[] };

/**
 * Which sale a payment belongs to: by pix_id or service_id ONLY (reference 4.5 rule 6) —
 * never by the QR on screen (every QR of the checkout charges the newest sale, rule 2),
 * never by amount, never by external_id. Ids that disagree are a conflict for a person.
 */
export function matchPayment(index: SaleIndex, report: Pick<PaymentReport, 'pix_id' | 'service_id'>): PaymentMatch {
  const { pix_id: pix, service_id: service } = report;
  if (!pix && !service) return { kind: 'unmatched', reason: 'no_ids', candidates: [] };
  const byPix = pix ? (index.by_pix_id[pix] ?? []) : [];
  const byService = service ? (index.by_service_id[service] ?? []) : [];
  if (byPix.length > 1 || byService.length > 1) {
    return { kind: 'unmatched', reason: 'ambiguous', candidates: sortedUnique([...byPix, ...byService]) };
  }
  const p = byPix[0];
  const s = byService[0];
  if (p !== undefined && s !== undefined && p !== s) return { kind: 'unmatched', reason: 'ids_conflict', candidates: sortedUnique([p, s]) };
  const saleId = p ?? s;
  if (saleId === undefined) return { kind: 'unmatched', reason: 'unknown_ids', candidates: [] };
  // One id matched; the other, when both sides know it, must agree.
  const known = index.identity[saleId] ?? {};
  if ((pix && known.pix_id !== undefined && known.pix_id !== pix) || (service && known.service_id !== undefined && known.service_id !== service)) {
    return { kind: 'unmatched', reason: 'ids_conflict', candidates: [saleId] };
  }
  return { kind: 'sale', sale_id: saleId };
}

// ---------------------------------------------------------------------------------------
// The book's reducer.
// ---------------------------------------------------------------------------------------

export function reduceBook(book: SalesBook, event: BookEvent): BookStep {
  const reports: BookReport[] = [];
  let next: SalesBook;
  switch (event.type) {
    case 'payment.attributed': {
      const a: Attribution = { payment_key: event.payment_key, sale_id: event.sale_id, by: event.by, at: event.at };
      // One decision per payment: the earliest stands (a later, different one is for a person to reconcile).
      const attributions = upsert(book.attributions, a, (x) => x.payment_key, (x, y) => (x.at !== y.at ? (x.at < y.at ? x : y) : canonical(x) <= canonical(y) ? x : y));
      next = rematch({ ...book, attributions });
      reports.push({ event: event.type, sale_id: event.sale_id, outcome: 'recorded', from: null, to: null, illegal: null });
      break;
    }
    case 'payment.received':
    case 'charge.done': {
      const routed = route(book, event);
      next = routed.book;
      reports.push(routed.report);
      break;
    }
    default: {
      const sale = book.sales[event.sale_id];
      if (sale === undefined && event.type !== 'sale.requested') {
        next = { ...book, orphans: addOrphan(book.orphans, event) };
        reports.push({ event: event.type, sale_id: event.sale_id, outcome: 'parked', from: null, to: null, illegal: 'unknown_sale' });
        break;
      }
      const step = applySaleEvent(sale, event);
      next = withSale(book, step.sale);
      reports.push(fromStep(event.type, event.sale_id, step.report));
      if (sale === undefined) {
        // The intent is here at last: release what arrived before it.
        const waiting = next.orphans.filter((o) => 'sale_id' in o && o.sale_id === event.sale_id);
        next = { ...next, orphans: next.orphans.filter((o) => !waiting.includes(o)) };
        for (const orphan of waiting) {
          const s = next.sales[event.sale_id];
          const replay = applySaleEvent(s, orphan);
          next = withSale(next, replay.sale);
          reports.push(fromStep(orphan.type, event.sale_id, replay.report));
        }
      }
      // Only a 201 gives a sale its ids (directly, or among the orphans just released), so
      // only then can an unmatched report find its sale or change its reason.
      if (event.type === 'sale.created' || sale === undefined) next = rematch(next);
    }
  }
  return { book: next, reports };
}

/** Folds events into a book: the projection of a journal. */
export function projectBook(events: Iterable<BookEvent>, start: SalesBook = emptyBook): SalesBook {
  let book = start;
  for (const e of events) book = reduceBook(book, e).book;
  return book;
}

/**
 * Tries every unmatched report again. Reports arrive before the sale they pay for (a
 * webhook racing the 201, a replay after a crash); they wait here and join their sale as
 * soon as it has the ids, so order never loses or misplaces money. Reasons are recomputed
 * too, so the book does not depend on when the last rematch ran. A sale's ids come only
 * from its 201, never from a payment, so one pass against one index is enough.
 */
export function rematch(book: SalesBook): SalesBook {
  const pending = book.unmatched.flatMap((u) => u.reports);
  if (pending.length === 0) return book;
  const index = indexOf(book);
  let next: SalesBook = { ...book, unmatched: [] };
  for (const report of pending) next = route(next, report, index).book;
  return next;
}

function route(book: SalesBook, report: PaymentReport, index: SaleIndex = indexOf(book)): { book: SalesBook; report: BookReport } {
  const match = matchPayment(index, report);
  if (match.kind === 'sale') {
    const sale = book.sales[match.sale_id];
    if (sale !== undefined) {
      const step = applySaleEvent(sale, report);
      if (step.report.effect !== 'rejected') {
        return { book: withSale(book, step.sale), report: fromStep(report.type, match.sale_id, step.report) };
      }
      return unmatched(book, report, 'ids_conflict', [match.sale_id]);
    }
  }
  const key = reportKey(report);
  const attribution = book.attributions.find((a) => a.payment_key === key);
  const target = attribution ? book.sales[attribution.sale_id] : undefined;
  if (attribution && target) {
    const step = applyAttributedReport(target, report, { by: attribution.by, at: attribution.at });
    return { book: withSale(book, step.sale), report: fromStep(report.type, target.sale_id, step.report) };
  }
  if (match.kind === 'unmatched') return unmatched(book, report, match.reason, match.candidates);
  return unmatched(book, report, 'unknown_ids', []);
}

function unmatched(book: SalesBook, report: PaymentReport, reason: UnmatchedReason, candidates: readonly string[]): { book: SalesBook; report: BookReport } {
  const entry: UnmatchedEntry = {
    key: reportKey(report),
    kind: report.type === 'payment.received' ? 'payment' : 'done',
    reports: [report],
    reason,
    candidates: [...candidates],
    first_seen_at: report.at,
  };
  const list = upsert(book.unmatched, entry, (u) => u.key, (a, b) => ({
    ...a,
    reports: dedupeCanonical([...a.reports, ...b.reports]),
    // Normally equal; if not, a canonical choice keeps the book independent of order.
    reason: compareText(a.reason, b.reason) <= 0 ? a.reason : b.reason,
    candidates: sortedUnique([...a.candidates, ...b.candidates]),
    first_seen_at: Math.min(a.first_seen_at, b.first_seen_at),
  }));
  return {
    book: { ...book, unmatched: list },
    report: { event: report.type, sale_id: null, outcome: 'unmatched', from: null, to: null, illegal: null },
  };
}

function withSale(book: SalesBook, sale: Sale | undefined): SalesBook {
  const before = sale && book.sales[sale.sale_id];
  if (sale === undefined || before === sale) return book;
  const sales = { ...book.sales, [sale.sale_id]: sale };
  const index = indexOfSales.get(book.sales);
  if (index) {
    const sameIds = (before?.pix_id === sale.pix_id && before?.service_id === sale.service_id) || (sale.pix_id === undefined && sale.service_id === undefined);
    // A sale's ids are set once, by its 201 (a second 201 is a conflict and does not replace them).
    indexOfSales.set(sales, sameIds ? index : extendIndex(index, sale));
  }
  return { ...book, sales };
}

function addOrphan(orphans: readonly SaleEvent[], event: SaleEvent): SaleEvent[] {
  return dedupeCanonical([...orphans, event]);
}

function dedupeCanonical<T>(items: readonly T[]): T[] {
  const byText = new Map<string, T>();
  for (const item of items) byText.set(canonical(item), item);
  return [...byText.entries()].sort((a, b) => compareText(a[0], b[0])).map(([, v]) => v);
}

function fromStep(event: BookEvent['type'], saleId: string, r: { effect: BookReport['outcome']; from: SaleStatus | null; to: SaleStatus | null; illegal: IllegalCode | null }): BookReport {
  return { event, sale_id: saleId, outcome: r.effect, from: r.from, to: r.to, illegal: r.illegal };
}

/** The sales of one checkout, oldest first. */
export function salesOfCheckout(book: SalesBook, storeId: number, checkoutId: number): Sale[] {
  return Object.values(book.sales)
    .filter((s) => s.store_id === storeId && s.checkout_id === checkoutId)
    .sort((a, b) => a.seq - b.seq || compareText(a.sale_id, b.sale_id));
}
