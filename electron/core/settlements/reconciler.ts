import { DecodeError, type Amount } from '../api/decode.ts';
import { decodeSettledEvent, SETTLEMENT_WINDOW_MS, type PendingCharges, type SettledEvent, type Settlement, type SettlementDetail } from '../api/routes/settlements.ts';
import { CoreError } from '../errors.ts';
import { canonicalJson } from '../journal/canonical.ts';
import type { JournalEntry, Projection } from '../journal/port.ts';
import type { SaleSettled } from '../sales/lifecycle.ts';
import { SETTLEMENTS_LOCK, type TerminalContext } from '../terminal/context.ts';
import { differencesOf, factsOfDetail, factsOfEvent, notAtService, poolKey, reconcile, unsettledSales, type Difference, type PaidSale, type PendingIds, type Reconciliation, type SaleForSettlement, type SettlementFacts } from './reconcile.ts';

/**
 * Runs reconcile.ts when a `settlement.settled` has been journaled (once per settlement_id)
 * and when a settlement is read by REST, and journals each result: the app's record of which
 * sales a transfer paid. The webhook is acknowledged before this runs (it only needs the
 * journal); a crash in between is caught up at the next start (resume).
 */
export const SETTLEMENT_RECONCILED = 'settlement.reconciled';
/** A person acknowledges one difference of a settlement, in their name (an operator action). */
export const SETTLEMENT_ACKNOWLEDGED = 'settlement.acknowledged';

export interface Acknowledged {
  by: string;
  at: number;
  note: string | null;
}

export interface SettlementBookRow {
  status: Reconciliation['status'];
  at: number;
  /** The sales its charges matched. */
  sale_ids: string[];
  /** The refund deductions it matched to a sale (a refund is deducted once). */
  deductions: Array<{ service_refund_id: string; sale_id: string }>;
  /** The keys of the last result's differences (differencesOf). */
  differences: string[];
  /** Per difference key, who acknowledged it; kept when the settlement is reconciled again. */
  acknowledged: Record<string, Acknowledged>;
}

export interface ReconciledState {
  /** Per settlement_id: the last result and what people acknowledged of it. */
  settlements: Record<string, SettlementBookRow>;
}

/** The book's name in the checkpoint: a new name makes the journal fold it again from its entries (v2: the deductions). */
export const RECONCILED_PROJECTION = 'settlements.book.v2';
export const reconciledProjection: Projection<ReconciledState> = {
  initial: { settlements: {} },
  reduce: (state: ReconciledState, entry: JournalEntry) => {
    if (entry.type !== SETTLEMENT_RECONCILED && entry.type !== SETTLEMENT_ACKNOWLEDGED) return state;
    const id = entry.data['settlement_id'];
    if (typeof id !== 'number') return state;
    const before = state.settlements[String(id)];
    let row: SettlementBookRow | undefined;
    if (entry.type === SETTLEMENT_RECONCILED) {
      const result = entry.data['result'] as unknown as Reconciliation | undefined;
      if (result === undefined) return state;
      const sale_ids = result.charges.flatMap((c) => ('sale_id' in c.check ? [c.check.sale_id] : []));
      // A line that says deducted twice is not a deduction of this settlement's own.
      const deductions = result.refunds.flatMap((r) => ('sale_id' in r.check && r.check.kind !== 'deducted_twice' ? [{ service_refund_id: r.service_refund_id, sale_id: r.check.sale_id }] : []));
      row = { status: result.status, at: entry.at, sale_ids, deductions, differences: differencesOf(result).map((d) => d.key), acknowledged: before?.acknowledged ?? {} };
    } else {
      const key = entry.data['difference'];
      const by = entry.data['by'];
      if (before === undefined || typeof key !== 'string' || typeof by !== 'string' || key in before.acknowledged) return state;
      const note = typeof entry.data['note'] === 'string' ? entry.data['note'] : null;
      row = { ...before, acknowledged: { ...before.acknowledged, [key]: { by, at: entry.at, note } } };
    }
    return { settlements: { ...state.settlements, [String(id)]: row } };
  },
};

/**
 * Where a settlement stands for a person: Reconciled; Needs attention while a difference is
 * not acknowledged; Acknowledged once every one is (by the people named on each line).
 */
export type BookStatus = Reconciliation['status'] | 'acknowledged';

export function bookStatus(row: SettlementBookRow): BookStatus {
  if (row.status === 'reconciled') return 'reconciled';
  return row.differences.length > 0 && row.differences.every((k) => k in row.acknowledged) ? 'acknowledged' : 'needs_attention';
}

/** A settlement that needs a person, on every supervisor's attention list until each line is acknowledged. */
export interface SettlementNotice {
  settlement_id: number;
  /** Differences nobody has acknowledged yet. */
  open: number;
  /** When it was last reconciled. */
  at: number;
}

/** Reference 8: a settlement list range is at most 31 days; the page at most 1000. */
const WINDOW_MS = 31 * 86_400_000;
const PAGE = 1000;
const MAX_RANGE_MS = 2 * 366 * 86_400_000;

/** A settlement as the list shows it: the service's row, or what its signed webhook said. */
export type ListedSettlement = Pick<Settlement, 'settlement_id' | 'status' | 'currency' | 'settled_at' | 'created_at'> & {
  /** Null only when the webhook's figures were refused. */
  amount: Amount | null;
};

export interface SettlementListRow {
  settlement: ListedSettlement;
  /** This journal's last result; null when none yet (its webhook not come, or never read). */
  reconciled: BookStatus | null;
  /**
   * `list`: journaled from a signed webhook, absent from the service's list (issue 24 point
   * 4: listed late, or forged); shown from the webhook with Needs attention. Null otherwise.
   */
  missing_from: 'list' | null;
}

/** Reference 8: pending-charges pages at most 500. */
const PENDING_PAGE = 500;
const MAX_PENDING_PAGES = 20;
/** How far back paid sales are checked for a settlement (the Settlements list reaches further). */
const UNSETTLED_LOOKBACK_MS = 7 * 86_400_000;

export interface PendingRow {
  store_id: number;
  checkout_id: number;
  pending: PendingCharges;
  /** Reference 4.7: a negative net means no settlement runs this cycle. */
  net_negative: boolean;
}

export interface SaleLine {
  sale_id: string;
  requested_at: number;
  amount_cents: number;
  received_cents: number | null;
  external_id: string | null;
}

export interface SettlementView {
  /**
   * `service`: its REST detail. `webhook`: the service has no such settlement (404), so it is
   * shown as its signed webhook said, with that difference (issue 24 point 4).
   */
  from: 'service' | 'webhook';
  settlement: SettlementDetail;
  result: Reconciliation;
  status: BookStatus;
  /** Each difference of the result, with who acknowledged it (null while nobody has). */
  differences: Array<Difference & { acknowledged: Acknowledged | null }>;
  /** The sales its lines name, by sale_id. */
  sales: Record<string, SaleLine>;
}

/** Reference 4.7 has no webhook for legacy 1:1 and a webhook can be lost: the list is read a few times an hour. */
export const FOLLOW_UP_MS = 15 * 60_000;
/** How far back the follow-up looks for settlements with no result. */
export const FOLLOW_UP_LOOKBACK_MS = 3 * 86_400_000;
const MAX_BACKOFF_MS = 60 * 60_000;

export class Reconciler {
  readonly #ctx: TerminalContext;
  #timer: NodeJS.Timeout | null = null;
  #following: Promise<number[]> | null = null;
  /** After a 429 or a 5xx the follow-up waits, doubling up to an hour (reference 8). */
  #backoffMs = 0;
  #nextAt = 0;

  constructor(ctx: TerminalContext) {
    this.#ctx = ctx;
  }

  start(): void {
    this.#timer ??= setInterval(() => {
      if (this.#ctx.clock.now() >= this.#nextAt) void this.followUp().catch(() => undefined);
    }, FOLLOW_UP_MS);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    await this.#following?.catch(() => undefined);
  }

  /**
   * Finds the settled settlements of the last days that have no result in this journal (a
   * webhook dropped, or legacy 1:1, which has none) and reconciles each through its detail.
   * Returns the settlement ids it reconciled.
   */
  followUp(): Promise<number[]> {
    this.#following ??= this.#followUp().finally(() => (this.#following = null));
    return this.#following;
  }

  async #followUp(): Promise<number[]> {
    const now = this.#ctx.clock.now();
    let rows: SettlementListRow[];
    try {
      rows = await this.list(now - FOLLOW_UP_LOOKBACK_MS, now + 60_000);
      this.#backoffMs = 0;
    } catch (err) {
      const status = (err as { httpStatus?: number | null }).httpStatus ?? null;
      if (status === 429 || (status !== null && status >= 500)) {
        this.#backoffMs = Math.min(MAX_BACKOFF_MS, Math.max(FOLLOW_UP_MS, this.#backoffMs * 2));
        this.#nextAt = now + this.#backoffMs;
      }
      this.#ctx.log.warn('the settlements could not be listed; asked again later', { error: err });
      throw err;
    }
    const done: number[] = [];
    for (const { settlement, reconciled } of rows) {
      if (reconciled !== null || settlement.status !== 'DONE') continue;
      await this.detail(settlement.settlement_id);
      done.push(settlement.settlement_id);
    }
    return done;
  }

  /** After the webhook is journaled: its figures, the REST detail beside them when it answers. */
  async afterWebhook(settlementId: number, payload: unknown): Promise<Reconciliation> {
    let hook: SettlementFacts;
    try {
      hook = factsOfEvent(decodeSettledEvent(payload));
    } catch (err) {
      if (!(err instanceof DecodeError)) throw err;
      // A figure the decoder refuses (more places than its currency has) is a difference to
      // read, not a number to round: the settlement needs a person.
      return this.#record(settlementId, 'webhook', { settlement_id: settlementId, charges: [], refunds: [], invariants: [], differs: [`decode: ${err.message}`], status: 'needs_attention' }, null);
    }
    const rest = await this.#detail(settlementId);
    const result = reconcile(hook, await this.#sales(hook), rest === null || rest === 'not_found' ? null : factsOfDetail(rest));
    return this.#record(settlementId, 'webhook', rest === 'not_found' ? notAtService(result) : result, hook.settled_at);
  }

  /** Settlements journaled by webhook that have no result yet (a crash between the two). */
  async resume(): Promise<void> {
    const { journal, log } = this.#ctx;
    const done = journal.projection<ReconciledState>(RECONCILED_PROJECTION).settlements;
    for (const entry of await journal.eventsOfType('settlement.settled')) {
      const id = entry.data['settlement_id'];
      if (typeof id !== 'number' || String(id) in done) continue;
      try {
        await this.afterWebhook(id, entry.data['payload']);
      } catch (err) {
        log.warn('a settlement could not be reconciled yet', { settlement_id: id, error: err });
      }
    }
  }

  /**
   * The settlements settled in [fromMs, toMs), newest first, each with its reconciliation:
   * any range, asked in the 31-day windows the service allows (reference 8) and paged.
   */
  async list(fromMs: number, toMs: number): Promise<SettlementListRow[]> {
    if (!(toMs > fromMs)) throw new CoreError('invalid_argument', 'The end of the range must be after its start.', { field: 'to' });
    if (toMs - fromMs > MAX_RANGE_MS) throw new CoreError('invalid_argument', 'Ask for at most two years of settlements at a time.', { field: 'from' });
    const found = new Map<number, Settlement>();
    for (let start = fromMs; start < toMs; start += WINDOW_MS) {
      const end = Math.min(toMs, start + WINDOW_MS);
      for (let offset = 0; ; offset += PAGE) {
        const page = await this.#ctx.client.listSettlements({ start_date: new Date(start).toISOString(), end_date: new Date(end).toISOString(), limit: PAGE, offset });
        for (const s of page.settlements) found.set(s.settlement_id, s);
        if (page.settlements.length < PAGE || offset + PAGE >= page.total) break;
      }
    }
    const results = this.#ctx.journal.projection<ReconciledState>(RECONCILED_PROJECTION).settlements;
    const rows: SettlementListRow[] = [...found.values()].map((settlement) => {
      const row = results[String(settlement.settlement_id)];
      return { settlement, reconciled: row === undefined ? null : bookStatus(row), missing_from: null };
    });
    // A settlement this journal knows from a signed webhook is listed even when the service's
    // list does not have it (issue 24 point 4): the list is not the only witness.
    for (const entry of await this.#ctx.journal.eventsOfType('settlement.settled')) {
      const id = entry.data['settlement_id'];
      if (typeof id !== 'number' || found.has(id) || rows.some((r) => r.settlement.settlement_id === id)) continue;
      const hook = decodedOrNull(entry.data['payload']);
      const settledAt = hook === null ? new Date(entry.at).toISOString() : hook.settled_at;
      const at = Date.parse(settledAt);
      if (!(at >= fromMs && at < toMs)) continue;
      const book = results[String(id)];
      // Acknowledged only once a person acknowledged that the service does not have it.
      const acknowledged = book !== undefined && bookStatus(book) === 'acknowledged' && book.differences.includes('missing:detail');
      rows.push({
        settlement: { settlement_id: id, status: null, amount: hook?.amount ?? null, currency: hook?.currency ?? '', settled_at: settledAt, created_at: settledAt },
        reconciled: acknowledged ? 'acknowledged' : 'needs_attention',
        missing_from: 'list',
      });
    }
    return rows.sort(
      (a, b) => Date.parse(b.settlement.settled_at ?? b.settlement.created_at) - Date.parse(a.settlement.settled_at ?? a.settlement.created_at) || b.settlement.settlement_id - a.settlement.settlement_id,
    );
  }

  /**
   * A settlement's detail, reconciled now against the journal (and against its webhook when
   * one was journaled), the result journaled; each line carries its sale for the screen.
   */
  async detail(settlementId: number): Promise<SettlementView> {
    const hookEntry = (await this.#ctx.journal.eventsOfType('settlement.settled')).find((e) => e.data['settlement_id'] === settlementId);
    const event = hookEntry === undefined ? null : decodedOrNull(hookEntry.data['payload']);
    const hook = event === null ? null : factsOfEvent(event);
    let detail: SettlementDetail;
    let from: SettlementView['from'] = 'service';
    try {
      detail = await this.#ctx.client.getSettlement(settlementId);
    } catch (err) {
      // The service has no such settlement, but a signed webhook said it settled: shown as
      // the webhook said, and that the service does not have it (issue 24 point 4).
      if (event === null || (err as { httpStatus?: number | null }).httpStatus !== 404) throw err;
      detail = detailOfEvent(event);
      from = 'webhook';
    }
    const rest = from === 'service' ? factsOfDetail(detail) : null;
    const facts = rest ?? factsOfEvent(event as SettledEvent);
    const sales = await this.#sales(facts);
    const result = rest === null ? notAtService(reconcile(facts, sales, null)) : reconcile(rest, sales, hook);
    const previous = await this.result(settlementId);
    // Journaled when it says something new: reading a detail twice is not a new fact. The
    // journal keeps its data in canonical JSON, so the fresh result is compared in that form.
    if (previous === null || canonicalJson(previous) !== canonicalJson(result)) await this.#record(settlementId, from === 'service' ? 'rest' : 'webhook', result, detail.settled_at);
    const rows = new Map<string, SaleLine>();
    for (const id of [...result.charges, ...result.refunds].flatMap((l) => ('sale_id' in l.check ? [l.check.sale_id] : []))) {
      const sale = (await this.#ctx.journal.sales.get(id))?.sale;
      if (sale) rows.set(id, { sale_id: id, requested_at: sale.requested_at, amount_cents: sale.amount_cents, received_cents: sale.paid?.received_cents ?? null, external_id: sale.external_id ?? null });
    }
    return { from, settlement: detail, result, ...this.#acknowledgements(settlementId, result), sales: Object.fromEntries(rows) };
  }

  /**
   * A person acknowledges one difference of a settlement's last result, in their name: the
   * difference stays (nothing is corrected), and it no longer asks for a person. Returns the
   * settlement's differences as they now stand; acknowledging one twice keeps the first.
   */
  async acknowledge(by: string, settlementId: number, difference: string, note: string | null): Promise<Pick<SettlementView, 'status' | 'differences'>> {
    const { journal, locks } = this.#ctx;
    return locks.exclusive(SETTLEMENTS_LOCK, async () => {
      const result = await this.result(settlementId);
      if (result === null) throw new CoreError('not_found', 'That settlement has not been reconciled here yet: open it first.');
      if (!differencesOf(result).some((d) => d.key === difference)) {
        throw new CoreError('invalid_argument', 'That line no longer differs: open the settlement again to see what still does.', { field: 'difference' });
      }
      const row = journal.projection<ReconciledState>(RECONCILED_PROJECTION).settlements[String(settlementId)];
      if (row !== undefined && !(difference in row.acknowledged)) {
        await journal.append([{ type: SETTLEMENT_ACKNOWLEDGED, data: { settlement_id: settlementId, difference, by, ...(note === null ? {} : { note }) } }]);
        // Every supervisor's attention list follows.
        this.#ctx.onChange([]);
      }
      return this.#acknowledgements(settlementId, result);
    });
  }

  #acknowledgements(settlementId: number, result: Reconciliation): Pick<SettlementView, 'status' | 'differences'> {
    const row = this.#ctx.journal.projection<ReconciledState>(RECONCILED_PROJECTION).settlements[String(settlementId)];
    const acknowledged = row?.acknowledged ?? {};
    return {
      status: row === undefined ? result.status : bookStatus(row),
      differences: differencesOf(result).map((d) => ({ ...d, acknowledged: acknowledged[d.key] ?? null })),
    };
  }

  /**
   * What waits for the next settlement, per checkout in a batched mode (reference 4.7
   * pending-charges): its charges, its refunds and the totals; a checkout with nothing
   * pending (or in legacy 1:1, always empty) is left out.
   */
  async pending(): Promise<PendingRow[]> {
    const { client } = this.#ctx;
    const checkouts: Array<{ store_id: number; checkout_id: number }> = [];
    for (const store of await client.listStores()) for (const c of await client.listCheckouts(store.store_id)) checkouts.push({ store_id: store.store_id, checkout_id: c.checkout_id });
    checkouts.sort((a, b) => a.store_id - b.store_id || a.checkout_id - b.checkout_id);
    const rows: PendingRow[] = [];
    // Each checkout by its store and number: checkout ids are per store (issue 24 point 3).
    for (const { store_id, checkout_id } of checkouts) {
      const pending = await client.listPendingCharges({ store_id, checkout_id, limit: PENDING_PAGE });
      if (pending.items.length === 0 && pending.pending_refunds.length === 0) continue;
      rows.push({ store_id, checkout_id, pending, net_negative: pending.totals.net_settlement_amount.minor < 0 });
    }
    return rows;
  }

  /**
   * Paid sales of the last week that no settlement included two windows after they were paid
   * and that the service does not list as pending (reference 4.7): each needs a person.
   */
  async unsettled(): Promise<PaidSale[]> {
    const { client, journal, clock } = this.#ctx;
    const now = clock.now();
    const paid: PaidSale[] = [];
    for (const { sale } of await journal.sales.createdBetween(now - UNSETTLED_LOOKBACK_MS, now + 1)) {
      if (sale.paid === undefined || sale.paid.paid_at === null || sale.paid.received_cents === null) continue;
      paid.push({
        sale_id: sale.sale_id,
        store_id: sale.store_id,
        checkout_id: sale.checkout_id,
        external_id: sale.external_id ?? null,
        pix_id: sale.pix_id ?? null,
        service_id: sale.service_id ?? null,
        paid_at: sale.paid.paid_at,
        received_cents: sale.paid.received_cents,
        settled: (sale.settlements ?? []).some((f) => f.line === 'charge') || sale.dones.some((d) => d.settlement_id !== null && this.#known(d.settlement_id)),
      });
    }
    const late = unsettledSales(paid, new Map(), now, 2 * SETTLEMENT_WINDOW_MS);
    if (late.length === 0) return [];
    // Only then ask the service what it still holds: the pending pool of each checkout
    // concerned, named by its store and number (issue 24 point 3).
    const pools = new Map<string, PendingIds>();
    for (const s of late) {
      const key = poolKey(s.store_id, s.checkout_id);
      if (pools.has(key)) continue;
      const service_ids = new Set<string>();
      const request_ids = new Set<string>();
      for (let offset = 0, pages = 0; pages < MAX_PENDING_PAGES; offset += PENDING_PAGE, pages++) {
        const page = await client.listPendingCharges({ store_id: s.store_id, checkout_id: s.checkout_id, limit: PENDING_PAGE, offset });
        for (const item of page.items) {
          service_ids.add(item.service_id);
          request_ids.add(item.service_request_id);
        }
        if (page.items.length < PENDING_PAGE || offset + PENDING_PAGE >= page.totals.count) break;
      }
      pools.set(key, { service_ids, request_ids });
    }
    return unsettledSales(late, pools, now, 2 * SETTLEMENT_WINDOW_MS);
  }

  /** A legacy done event's settlement counts once this journal has reconciled it. */
  #known(settlementId: number): boolean {
    return String(settlementId) in this.#ctx.journal.projection<ReconciledState>(RECONCILED_PROJECTION).settlements;
  }

  /** Settlements that need a person (newest first): their differences not all acknowledged. */
  notices(): SettlementNotice[] {
    const book = this.#ctx.journal.projection<ReconciledState>(RECONCILED_PROJECTION).settlements;
    return Object.entries(book)
      .filter(([, row]) => bookStatus(row) === 'needs_attention')
      .map(([id, row]) => ({ settlement_id: Number(id), open: row.differences.filter((k) => !(k in row.acknowledged)).length, at: row.at }))
      .sort((a, b) => b.at - a.at || b.settlement_id - a.settlement_id);
  }

  /** The last result journaled for a settlement, or null. */
  async result(settlementId: number): Promise<Reconciliation | null> {
    const entries = await this.#ctx.journal.eventsOfType(SETTLEMENT_RECONCILED);
    const last = entries.filter((e) => e.data['settlement_id'] === settlementId).at(-1);
    return last === undefined ? null : (last.data['result'] as unknown as Reconciliation);
  }

  /** The REST detail; `not_found` when the service answers it has no such settlement; null when it could not be read. */
  async #detail(settlementId: number): Promise<SettlementDetail | 'not_found' | null> {
    try {
      return await this.#ctx.client.getSettlement(settlementId);
    } catch (err) {
      if ((err as { httpStatus?: number | null }).httpStatus === 404) {
        this.#ctx.log.warn('a settlement journaled from a signed webhook is not at the service', { settlement_id: settlementId });
        return 'not_found';
      }
      this.#ctx.log.warn('the settlement detail could not be read; reconciled from the webhook alone', { settlement_id: settlementId, error: err });
      return null;
    }
  }

  /** The journal's sales the settlement names, by each of the ids 6.1 matches on. */
  async #sales(facts: SettlementFacts): Promise<SaleForSettlement[]> {
    const { journal } = this.#ctx;
    const settledIn = new Map<string, number[]>();
    const deducted = new Map<string, Array<{ service_refund_id: string; settlement_id: number }>>();
    for (const [id, s] of Object.entries(journal.projection<ReconciledState>(RECONCILED_PROJECTION).settlements)) {
      for (const saleId of s.sale_ids) settledIn.set(saleId, [...(settledIn.get(saleId) ?? []), Number(id)]);
      for (const d of s.deductions) deducted.set(d.sale_id, [...(deducted.get(d.sale_id) ?? []), { service_refund_id: d.service_refund_id, settlement_id: Number(id) }]);
    }
    const found = new Map<string, SaleForSettlement>();
    for (const item of [...facts.charges, ...facts.refunds]) {
      const rows = [
        ...(item.external_id === null ? [] : await journal.sales.byExternalId(item.external_id)),
        await journal.sales.byServiceId(item.service_id),
        item.service_request_id === null ? undefined : await journal.sales.byPixId(item.service_request_id),
      ];
      for (const row of rows) {
        if (row === undefined || found.has(row.sale.sale_id)) continue;
        const sale = row.sale;
        const fromDones = sale.dones.flatMap((d) => (d.settlement_id === null ? [] : [d.settlement_id]));
        found.set(sale.sale_id, {
          sale_id: sale.sale_id,
          external_id: sale.external_id ?? null,
          service_id: sale.service_id ?? null,
          pix_id: sale.pix_id ?? null,
          received_cents: sale.paid?.received_cents ?? null,
          settled_in: [...new Set([...(settledIn.get(sale.sale_id) ?? []), ...fromDones])],
          // Only the refunds the service confirmed: an open one is not known to have been made.
          refunds: (sale.refunds ?? []).flatMap((r) => (r.made === undefined ? [] : [{ service_refund_id: r.made.service_refund_id, refunded_cents: r.made.refunded_cents }])),
          open_refunds: (sale.refunds ?? []).filter((r) => r.state === 'requested' || r.state === 'uncertain' || r.state === 'unconfirmed').map((r) => r.amount_cents),
          deducted: deducted.get(sale.sale_id) ?? [],
        });
      }
    }
    return [...found.values()];
  }

  /**
   * Journals a result. The same entry tells each sale it names that this settlement included
   * it (lifecycle SaleSettled): a sale learns its settlement with the result, never apart.
   */
  async #record(settlementId: number, from: 'webhook' | 'rest', result: Reconciliation, settledAt: string | null): Promise<Reconciliation> {
    const at = this.#ctx.clock.now();
    const settled_at = settledAt === null || Number.isNaN(Date.parse(settledAt)) ? null : Date.parse(settledAt);
    const lines = [...result.charges.map((c) => ({ line: 'charge' as const, check: c.check })), ...result.refunds.map((r) => ({ line: 'refund' as const, check: r.check }))];
    const events: SaleSettled[] = lines.flatMap(({ line, check }) => ('sale_id' in check ? [{ type: 'sale.settled' as const, sale_id: check.sale_id, settlement_id: settlementId, line, settled_at, at }] : []));
    const sale_ids = [...new Set(events.map((e) => e.sale_id))];
    await this.#ctx.locks.exclusive(SETTLEMENTS_LOCK, () =>
      this.#ctx.journal.append([{ type: SETTLEMENT_RECONCILED, data: { settlement_id: settlementId, from, status: result.status, result: result as unknown as Record<string, unknown>, sale_ids, events: events as unknown as Record<string, unknown>[] } }]),
    );
    const level = result.status === 'reconciled' ? 'info' : 'warn';
    this.#ctx.log[level]('settlement reconciled', { settlement_id: settlementId, status: result.status });
    // The attention lists follow: a settlement that needs a person, or no longer does.
    this.#ctx.onChange([]);
    return result;
  }
}

/** A journaled webhook's payload, or null when the money decoder refused it (a difference of its own). */
function decodedOrNull(payload: unknown): SettledEvent | null {
  try {
    return decodeSettledEvent(payload);
  } catch (err) {
    if (err instanceof DecodeError) return null;
    throw err;
  }
}

/**
 * The detail's shape filled from the webhook, for a settlement the service does not have: the
 * fields the webhook does not carry (provider, addresses, timestamps of each line) are empty.
 */
function detailOfEvent(e: SettledEvent): SettlementDetail {
  return {
    settlement_id: e.settlement_id,
    settlement_provider_name: '',
    provider_settlement_id: e.provider_settlement_id,
    external_settlement_id: e.external_settlement_id,
    amount: e.amount,
    currency: e.currency,
    address_to: '',
    address_from: '',
    settlement_message: null,
    settled_at: e.settled_at,
    created_at: e.settled_at,
    status: null,
    charges: e.charges.map((c) => ({ ...c, charged_timestamp: null, received_timestamp: null })),
    refunds: e.refunds.map((r) => ({ ...r, pay_in_refund_request_id: null, created_at: e.settled_at })),
  };
}
