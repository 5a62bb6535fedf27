import { randomUUID } from 'node:crypto';
import type { Clock } from '../../shared/clock.ts';
import { formatCents } from '../../shared/money.ts';
import { newIdempotencyKey, type ServiceClient } from '../api/client.ts';
import { ServiceError } from '../api/errors.ts';
import { CoreError } from '../errors.ts';
import type { Journal, JournalEntry } from '../journal/journal.ts';
import type { Logger } from '../log.ts';
import { amountToCents } from '../sales/amount.ts';
import { newestSaleFor, openSales, planCharge, planCreateOutcome, planExpiry, planTxStatus, type CreateOutcome, type FollowUp } from '../sales/checkout.ts';
import { applySaleEvent, reportKey, type AttentionReason, type ChargeDone, type PaymentReceived, type Sale, type UncertainReason } from '../sales/lifecycle.ts';
import type { AcceptOutcome, WebhookDelivery } from '../webhooks/receiver.ts';
import { attributionFact, factData, paymentFact, saleFact, type SaleRow } from './entries.ts';
import { checkoutView, RECENT, saleSummary, type CheckoutView, type SaleSummary } from './views.ts';
import { readWebhook } from './webhook-events.ts';

/**
 * The terminal: rings up sales on printed checkouts and follows them to their true end,
 * through webhooks first and Tx Status polling as the fallback. Every decision is made by
 * the pure lifecycle (electron/core/sales) and written to the journal BEFORE it is acted
 * on or shown, so a crash at any point leaves a journal from which every sale resumes.
 */
export interface TerminalOptions {
  journal: Journal<SaleRow>;
  client: ServiceClient;
  clock: Clock;
  log: Logger;
  /** Called with the checkouts whose sales changed; the core pushes their views. */
  onChange(checkouts: readonly CheckoutKey[]): void;
  poll?: Partial<PollPolicy>;
}

export interface CheckoutKey {
  storeId: number;
  checkoutId: number;
}

export interface PollPolicy {
  /** How often the follow-up loop runs. */
  tickMs: number;
  /** First Tx Status this long after a sale is created: a webhook usually comes first. */
  firstPollMs: number;
  /** Growth of the interval after each "still pending", up to maxIntervalMs. */
  growth: number;
  maxIntervalMs: number;
  /** After a failed poll. */
  errorIntervalMs: number;
  /** Bound on Tx Status requests: at most one per checkout per tick. */
  perCheckoutPerTick: number;
}

export const DEFAULT_POLL: PollPolicy = {
  tickMs: 1_000,
  firstPollMs: 3_000,
  growth: 1.5,
  maxIntervalMs: 30_000,
  errorIntervalMs: 10_000,
  perCheckoutPerTick: 1,
};

export interface ChargeInput extends CheckoutKey {
  amountCents: number;
  externalId?: string;
  by: string;
  shiftId?: string;
}

export interface TerminalStats {
  lastWebhookAt: number | null;
  lastPaymentSource: 'webhook' | 'tx_status' | null;
  lastPaymentAt: number | null;
  unmatched: number;
  polls: number;
  pollErrors: number;
  /** Sales with a Tx Status schedule: never more than the open sales. */
  followed: number;
}

interface Unmatched {
  /** The journal entry that recorded the report unmatched; a re-match or attribution names it. */
  seq: number;
  report: PaymentReceived | ChargeDone;
  reason: string;
}

/** A payment (or charge.done) no sale could be matched to, as a supervisor is shown it. */
export interface UnmatchedPayment {
  seq: number;
  at: number;
  kind: 'payment' | 'done';
  pix_id: string | null;
  service_id: string | null;
  external_id: string | null;
  amount_cents: number | null;
  /** Why no sale took it: no_ids, unknown_ids, ids_conflict. */
  reason: string;
}

interface PollState {
  nextAt: number;
  intervalMs: number;
}

/**
 * The checkout's newest sales a decision reads besides the displaceable ones: the newest
 * gives the next seq; a few more in case the clock was stepped back between two charges.
 */
const PLANNING_RECENT = 4;
const DAY_MS = 86_400_000;
/** Lock keys beside the checkouts' `store/checkout` ones. */
const UNMATCHED_LOCK = 'unmatched';
const SETTLEMENTS_LOCK = 'settlements';
const keyOf = (k: CheckoutKey) => `${k.storeId}/${k.checkoutId}`;
const checkoutOf = (s: Sale): CheckoutKey => ({ storeId: s.store_id, checkoutId: s.checkout_id });
const uniqueSales = (sales: readonly Sale[]): Sale[] => [...new Map(sales.map((s) => [s.sale_id, s])).values()];
const salesOf = (rows: readonly (SaleRow | undefined)[]): Sale[] => rows.filter((r): r is SaleRow => r !== undefined).map((r) => r.sale);

export class Terminal {
  readonly #journal: Journal<SaleRow>;
  readonly #client: ServiceClient;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #onChange: TerminalOptions['onChange'];
  readonly #poll: PollPolicy;
  readonly #locks = new Map<string, Promise<unknown>>();
  readonly #creating = new Set<string>();
  readonly #pollState = new Map<string, PollState>();
  /** Follow-up creates started by the loop and not awaited by it (see #perform). */
  readonly #followUps = new Set<Promise<unknown>>();
  #unmatched: Unmatched[] = [];
  /** settlement_ids already journaled, read from the journal on first use. */
  #settlements: Set<number> | null = null;
  #timer: NodeJS.Timeout | null = null;
  #ticking: Promise<void> | null = null;
  #stopped = false;
  readonly #stats: TerminalStats = { lastWebhookAt: null, lastPaymentSource: null, lastPaymentAt: null, unmatched: 0, polls: 0, pollErrors: 0, followed: 0 };

  constructor(options: TerminalOptions) {
    this.#journal = options.journal;
    this.#client = options.client;
    this.#clock = options.clock;
    this.#log = options.log;
    this.#onChange = options.onChange;
    this.#poll = { ...DEFAULT_POLL, ...options.poll };
  }

  /**
   * Rebuilds what lives only in memory (unmatched payments) from the journal, and ties to
   * its sale every one a sale now fits: a crash between a sale's 201 and the re-match
   * leaves exactly that.
   */
  async load(): Promise<void> {
    const entries = [
      ...(await this.#journal.eventsOfType('payment.received')),
      ...(await this.#journal.eventsOfType('charge.done')),
      ...(await this.#journal.eventsOfType('payment.attributed')),
    ];
    const claimed = new Set<number>();
    const unmatched: Unmatched[] = [];
    for (const entry of entries) {
      const data = factData(entry);
      if (!data) continue;
      if (typeof data.rematch_of === 'number') claimed.add(data.rematch_of);
      const report = data.events[0];
      if (data.sale_ids.length === 0 && report && (report.type === 'payment.received' || report.type === 'charge.done')) {
        unmatched.push({ seq: entry.seq, report, reason: data.unmatched_reason ?? 'unknown_ids' });
      }
    }
    this.#unmatched = unmatched.filter((u) => !claimed.has(u.seq)).sort((a, b) => a.seq - b.seq);
    try {
      await this.#exclusive(UNMATCHED_LOCK, () => this.#claim(this.#unmatched));
    } catch (err) {
      // A journal that takes no more entries (damaged, read-only) still opens: the payments
      // stay listed apart, and the next start tries again.
      this.#log.error('payments a sale now fits could not be re-matched; they stay apart', { error: err });
    }
    this.#stats.unmatched = this.#unmatched.length;
  }

  /** Starts following open sales: every sale the journal holds open is resumed. */
  start(): void {
    this.#stopped = false;
    this.#timer = setInterval(() => void this.tick(), this.#poll.tickMs);
    this.#timer.unref();
    void this.tick();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await this.#ticking;
    await Promise.allSettled([...this.#followUps]);
    await Promise.allSettled([...this.#locks.values()]);
  }

  stats(): TerminalStats {
    return { ...this.#stats, unmatched: countPayments(this.#unmatched.map((u) => u.report)), followed: this.#pollState.size };
  }

  // ── Ringing up a sale ─────────────────────────────────────────────────────────────

  /**
   * Journals the intent (and, in the same entry, the displacement of the checkout's unpaid
   * sale: reference 4.5 rule 6, mark it at once), shows it, then asks the service. Resolves
   * with the checkout's view once the outcome is journaled; a definite refusal rejects with
   * the service's sentence after it is journaled.
   */
  async charge(input: ChargeInput): Promise<CheckoutView> {
    const checkout = { storeId: input.storeId, checkoutId: input.checkoutId };
    const saleId = await this.#exclusive(keyOf(checkout), async () => {
      const sales = await this.#planningSales(checkout);
      // planCharge refuses while the newest sale is `requested`; an `uncertain` one whose
      // create the follow-up loop is sending again right now is just as unresolved: the
      // service could make it after this one, and then hold it as the newest (4.5 rule 3).
      const newest = newestSaleFor(sales, input.storeId, input.checkoutId);
      if (newest && this.#creating.has(newest.sale_id)) throw createInFlight();
      const now = this.#clock.now();
      const plan = planCharge(sales, {
        sale_id: randomUUID(),
        idempotency_key: newIdempotencyKey(),
        store_id: input.storeId,
        checkout_id: input.checkoutId,
        amount_cents: input.amountCents,
        ...(input.externalId === undefined ? {} : { external_id: input.externalId }),
        requested_by: input.by,
        at: now,
      });
      if (!plan.ok) {
        if (plan.reason === 'create_in_flight') throw createInFlight();
        throw new CoreError('invalid_argument', 'The amount must be more than R$ 0,00 and at most R$ 1.000.000,00.', { field: 'amount' });
      }
      await this.#journal.append([saleFact(plan.events, input.shiftId === undefined ? {} : { shift_id: input.shiftId })]);
      return plan.events[0].sale_id;
    });
    this.#onChange([checkout]);
    const refusal = await this.#create(saleId, false);
    if (refusal) throw refusal;
    return this.checkoutView(checkout);
  }

  /**
   * Sends (or resends, with the same Idempotency-Key) a sale's create and journals the
   * outcome. `resumed`: sent again by the follow-up loop, not by the charge that planned it.
   */
  async #create(saleId: string, resumed: boolean): Promise<ServiceError | null> {
    if (this.#creating.has(saleId)) return null;
    this.#creating.add(saleId);
    try {
      const row = await this.#journal.sales.get(saleId);
      if (!row || row.sale.status !== 'requested' && row.sale.status !== 'uncertain') return null;
      let sale = row.sale;
      const checkout = { storeId: sale.store_id, checkoutId: sale.checkout_id };
      if (resumed) {
        // The loop planned this retry from an earlier read: checked again under the
        // checkout's lock, so a charge journaled meanwhile is seen. Only the checkout's newest
        // sale may be sent again: were the key ignored, a retry after a newer sale exists
        // would make a sale that displaces the newer one (contract 2).
        const current = await this.#exclusive(keyOf(checkout), async () => {
          const sales = await this.#planningSales(checkout);
          const found = sales.find((s) => s.sale_id === saleId);
          if (!found || (found.status !== 'requested' && found.status !== 'uncertain')) return null;
          return newestSaleFor(sales, checkout.storeId, checkout.checkoutId)?.sale_id === saleId ? found : null;
        });
        if (!current) return null;
        sale = current;
      }
      let outcome: CreateOutcome;
      let refusal: ServiceError | null = null;
      let attempts = 0;
      try {
        const created = await this.#client.createDynamicPix(
          {
            amount_cents: sale.amount_cents,
            store_id: sale.store_id,
            checkout_id: sale.checkout_id,
            ...(sale.external_id === undefined ? {} : { external_id: sale.external_id }),
          },
          { idempotencyKey: sale.idempotency_key },
        );
        outcome = {
          kind: 'created',
          pix_id: created.pix_id,
          service_id: created.service_id,
          operation_id: created.operation_id,
          qr_type: created.qr_type,
          emv: created.emv,
          pqr_emv: created.printed_dynamic_qr_data?.pqr_emv ?? null,
          amount_brl: formatCents(created.amount_cents),
          store_id: created.store_id,
          checkout_id: created.checkout_id,
          created_at: Date.parse(created.created_at),
          expires_at: Date.parse(created.expires_at),
        };
      } catch (err) {
        if (!(err instanceof ServiceError)) throw err;
        this.#log.warn('sale create failed', { saleId, ...err.logFields() });
        attempts = err.attempts;
        if (err.outcome === 'not_created') {
          refusal = err;
          outcome = { kind: 'refused', error: { status: err.httpStatus ?? 0, code: err.problem, ...(typeof err.detail === 'string' ? { detail: err.detail.slice(0, 300) } : {}) } };
        } else {
          outcome = { kind: 'uncertain', reason: uncertainReason(err), attempts: err.attempts };
        }
      }
      const changed = await this.#exclusive(keyOf(checkout), async (): Promise<CheckoutKey[]> => {
        const current = (await this.#journal.sales.get(saleId))?.sale;
        // A retry answered after the sale was settled otherwise changes nothing.
        if (!current || (current.status !== 'requested' && current.status !== 'uncertain')) return [];
        if (outcome.kind === 'uncertain' && current.status === 'uncertain') return [];
        if (outcome.kind === 'refused' && (resumed || current.status === 'uncertain')) {
          // Contract 2: a client stays correct when the service ignores the Idempotency-Key.
          // Then a refusal of this retry says nothing of the earlier attempt, which may have
          // made the sale: it stays uncertain and the sale it displaced stays displaced.
          refusal = null;
          if (current.status === 'uncertain') return [];
          outcome = { kind: 'uncertain', reason: 'interrupted', attempts };
        }
        const sales = uniqueSales([...(await this.#planningSales(checkout)), ...(await this.#displacedBy(saleId))]);
        const events = planCreateOutcome(sales, saleId, outcome, this.#clock.now());
        if (events.length > 0) await this.#journal.append([saleFact(events)]);
        return outcome.kind === 'created' ? this.#rematchIds(outcome.pix_id, outcome.service_id) : [];
      });
      this.#onChange([checkout, ...changed]);
      return refusal;
    } finally {
      this.#creating.delete(saleId);
    }
  }

  // ── Payments ──────────────────────────────────────────────────────────────────────

  /**
   * A verified webhook: journaled once per webhook-id (the receiver answers 2xx only after
   * this resolves). Payments are matched by pix_id/service_id only (reference 4.5 rule 6).
   */
  async acceptWebhook(delivery: WebhookDelivery): Promise<AcceptOutcome> {
    const now = this.#clock.now();
    this.#stats.lastWebhookAt = now;
    const fact = readWebhook(delivery.payload, delivery.webhookId, now);
    if (fact.kind === 'payment' || fact.kind === 'done') return this.#recordReport(fact.report, delivery.webhookId);
    if (fact.kind === 'settlement') return this.#recordSettlement(delivery, fact.settlementId);
    this.#log.warn('webhook of an unknown event kept in the journal', { event: fact.event });
    return this.#journal.recordWebhook(delivery.webhookId, { type: 'webhook.other', data: { event: fact.event, payload: delivery.payload } });
  }

  /**
   * Reference 6.1: repeated deliveries with the same settlement_id are no-ops after the
   * first, whatever their webhook-id. One at a time, so two deliveries at once journal it once.
   */
  async #recordSettlement(delivery: WebhookDelivery, settlementId: number | null): Promise<AcceptOutcome> {
    const entry = { type: 'settlement.settled', data: { settlement_id: settlementId, payload: delivery.payload } };
    if (settlementId === null) return this.#journal.recordWebhook(delivery.webhookId, entry);
    return this.#exclusive(SETTLEMENTS_LOCK, async () => {
      this.#settlements ??= new Set((await this.#journal.eventsOfType('settlement.settled')).map((e) => e.data.settlement_id).filter((id) => typeof id === 'number'));
      if (this.#settlements.has(settlementId)) return 'duplicate';
      const outcome = await this.#journal.recordWebhook(delivery.webhookId, entry);
      this.#settlements.add(settlementId);
      return outcome;
    });
  }

  async #recordReport(report: PaymentReceived | ChargeDone, webhookId: string | null): Promise<AcceptOutcome> {
    const match = await this.#match(report);
    // A poll that keeps answering with the same contradicting ids must not journal the same
    // payment again on every pass: it is already kept for a person.
    if (webhookId === null && !match.sale && this.#unmatched.some((u) => reportKey(u.report) === reportKey(report))) return 'duplicate';
    const entry = paymentFact(report, match.sale?.sale_id ?? null, match.reason === undefined ? {} : { unmatched_reason: match.reason });
    let seq: number | undefined;
    let outcome: AcceptOutcome;
    if (webhookId === null) {
      seq = (await this.#journal.append([entry])).firstSeq;
      outcome = 'recorded';
    } else {
      outcome = await this.#journal.recordWebhook(webhookId, entry);
    }
    if (outcome !== 'recorded') return outcome;
    if (report.type === 'payment.received') {
      this.#stats.lastPaymentSource = report.source;
      this.#stats.lastPaymentAt = this.#clock.now();
    }
    const changed = match.sale ? [checkoutOf(match.sale)] : [];
    if (!match.sale) {
      // The entry's own seq, so that its re-match or attribution names it and a restart
      // does not bring the payment back.
      seq ??= webhookId === null ? undefined : await this.#journal.webhookSeq(webhookId);
      if (seq === undefined) throw new Error('a journaled payment has no seq');
      const kept: Unmatched = { seq, report, reason: match.reason ?? 'unknown_ids' };
      const claimed = await this.#exclusive(UNMATCHED_LOCK, () => {
        this.#unmatched.push(kept);
        // Its sale may have learned its ids while this was journaled, and the re-match after
        // that 201 ran before the push: matched again here, under the same lock, so exactly
        // one of the two ties it to the sale.
        return this.#claim([kept]);
      });
      if (claimed.length === 0) this.#log.warn('a payment matched no sale; kept for a person', { reason: kept.reason, pix_id: report.pix_id ?? null, service_id: report.service_id ?? null });
      changed.push(...claimed);
    }
    this.#onChange(changed);
    return outcome;
  }

  async #match(report: PaymentReceived | ChargeDone): Promise<{ sale?: Sale; reason?: string }> {
    const byPix = report.pix_id ? (await this.#journal.sales.byPixId(report.pix_id))?.sale : undefined;
    const bySvc = report.service_id ? (await this.#journal.sales.byServiceId(report.service_id))?.sale : undefined;
    if (!report.pix_id && !report.service_id) return { reason: 'no_ids' };
    if (byPix && bySvc && byPix.sale_id !== bySvc.sale_id) return { reason: 'ids_conflict' };
    const sale = byPix ?? bySvc;
    if (!sale) return { reason: 'unknown_ids' };
    // The lifecycle refuses a report whose ids contradict the sale's identity: keep it apart.
    if (applySaleEvent(sale, report).report.effect === 'rejected') return { reason: 'ids_conflict' };
    return { sale };
  }

  /** A sale just learned its ids: payments that arrived before its 201 are tied to it now. */
  #rematchIds(pixId: string, serviceId: string): Promise<CheckoutKey[]> {
    return this.#exclusive(UNMATCHED_LOCK, () => this.#claim(this.#unmatched.filter((u) => u.report.pix_id === pixId || u.report.service_id === serviceId)));
  }

  /**
   * Under the unmatched lock: journals a re-match (naming the entry that kept it apart) for
   * every candidate a sale now fits by #match's rule, identity check included, so a report
   * whose other id contradicts the sale stays unmatched rather than being lost. Returns the
   * checkouts whose sales changed.
   */
  async #claim(candidates: readonly Unmatched[]): Promise<CheckoutKey[]> {
    const hits: Array<{ kept: Unmatched; sale: Sale }> = [];
    for (const kept of candidates) {
      if (!this.#unmatched.includes(kept)) continue;
      const { sale } = await this.#match(kept.report);
      if (sale) hits.push({ kept, sale });
    }
    if (hits.length === 0) return [];
    await this.#journal.append(hits.map(({ kept, sale }) => paymentFact(kept.report, sale.sale_id, { rematch_of: kept.seq })));
    this.#unmatched = this.#unmatched.filter((u) => !hits.some((h) => h.kept === u));
    this.#log.info('payments kept without a sale are now matched to their sales', { count: hits.length });
    return hits.map((h) => checkoutOf(h.sale));
  }

  /** What a supervisor is shown of the payments no sale could be matched to, oldest first. */
  unmatchedPayments(): UnmatchedPayment[] {
    return this.#unmatched.map(({ seq, report, reason }) => ({
      seq,
      at: report.at,
      kind: report.type === 'payment.received' ? 'payment' : 'done',
      pix_id: report.pix_id ?? null,
      service_id: report.service_id ?? null,
      external_id: report.external_id ?? null,
      amount_cents: amountToCents(report.amount_brl),
      reason,
    }));
  }

  /**
   * A person ties an unmatched payment to a sale (book.ts PaymentAttributed): matching by
   * ids stays the only automatic rule (reference 4.5 rule 6), so this is journaled as their
   * decision, with who, and the sale takes the report through applyAttributedReport.
   */
  async attribute(input: { seq: number; saleId: string; by: string }): Promise<SaleSummary> {
    const sale = await this.#exclusive(UNMATCHED_LOCK, async () => {
      const kept = this.#unmatched.find((u) => u.seq === input.seq);
      if (!kept) throw new CoreError('not_found', 'That payment is not among the payments without a sale: it may have been matched or attributed already.');
      const row = await this.#journal.sales.get(input.saleId);
      if (!row) throw new CoreError('not_found', 'That sale is not in this terminal’s journal.');
      await this.#journal.append([attributionFact(kept.report, kept.seq, { saleId: input.saleId, by: input.by, at: this.#clock.now() })]);
      this.#unmatched = this.#unmatched.filter((u) => u !== kept);
      this.#log.info('a person tied a payment without a sale to a sale', { saleId: input.saleId, seq: input.seq });
      return row.sale;
    });
    this.#onChange([checkoutOf(sale)]);
    const updated = (await this.#journal.sales.get(input.saleId))?.sale ?? sale;
    return saleSummary(updated, await this.#withDisplacer(updated));
  }

  // ── A person's acknowledgement ────────────────────────────────────────────────────

  async acknowledge(input: { saleId: string; reason: AttentionReason; subject: string; by: string }): Promise<SaleSummary> {
    const row = await this.#journal.sales.get(input.saleId);
    if (!row) throw new CoreError('not_found', 'That sale is not in this terminal’s journal.');
    const item = row.sale.attention.find((a) => a.reason === input.reason && a.subject === input.subject);
    if (!item) throw new CoreError('conflict', 'There is nothing left to acknowledge on this sale.');
    const checkout = { storeId: row.sale.store_id, checkoutId: row.sale.checkout_id };
    await this.#journal.append([
      saleFact([{ type: 'sale.acknowledged', sale_id: input.saleId, reason: input.reason, subject: input.subject, by: input.by, at: this.#clock.now() }], { by: input.by }),
    ]);
    this.#onChange([checkout]);
    const updated = (await this.#journal.sales.get(input.saleId))?.sale ?? row.sale;
    return saleSummary(updated, await this.#withDisplacer(updated));
  }

  // ── Views ─────────────────────────────────────────────────────────────────────────

  /**
   * The screen, the last day's recent sales, the newest, and every sale that still needs a
   * person however old it is (until acknowledged): bounded queries, never the whole day.
   */
  async checkoutView(checkout: CheckoutKey): Promise<CheckoutView> {
    const { storeId, checkoutId } = checkout;
    const [recent, newest, open, attention] = await Promise.all([
      this.#journal.sales.recentOnCheckout(storeId, checkoutId, RECENT, this.#clock.now() - DAY_MS),
      this.#journal.sales.latestOnCheckout(storeId, checkoutId),
      this.#journal.sales.displaceable(storeId, checkoutId),
      this.#journal.sales.needingPerson(storeId, checkoutId),
    ]);
    const sales = uniqueSales(salesOf([...recent, newest, ...open]));
    const extra = salesOf(attention);
    // A late payment's message says whether the newer sale is still open: read it if it is
    // older than the recent ones.
    const known = new Set([...sales, ...extra].map((s) => s.sale_id));
    const newer = [...new Set(extra.filter((s) => s.status === 'paid_late' && s.displaced_by && !known.has(s.displaced_by)).map((s) => s.displaced_by as string))];
    const context = salesOf(await Promise.all(newer.map((id) => this.#journal.sales.get(id))));
    return checkoutView(sales, [...extra, ...context], storeId, checkoutId, this.#clock.now());
  }

  async saleDetail(saleId: string): Promise<{ sale: SaleSummary; events: JournalEntry[] } | null> {
    const row = await this.#journal.sales.get(saleId);
    if (!row) return null;
    return { sale: saleSummary(row.sale, await this.#withDisplacer(row.sale)), events: await this.#journal.eventsForSale(saleId) };
  }

  /** What describing one sale needs besides itself: the newer sale that displaced it. */
  /** What describing one sale needs: the sale that displaced it and its checkout's newest. */
  async #withDisplacer(sale: Sale): Promise<Sale[]> {
    const newer = sale.displaced_by ? (await this.#journal.sales.get(sale.displaced_by))?.sale : undefined;
    const newest = (await this.#journal.sales.latestOnCheckout(sale.store_id, sale.checkout_id))?.sale;
    return [...new Map([sale, newer, newest].filter((s): s is Sale => s !== undefined).map((s) => [s.sale_id, s])).values()];
  }

  /**
   * The checkout's sales its decisions read: the newest few (the next seq, the sale every QR
   * charges) and every displaceable one however old (open at the service, or displaced only
   * provisionally), so no open sale is ever forgotten. An open sale is itself the checkout's
   * newest non-refused sale (a later charge would have displaced it), so planCharge,
   * openSales and newestSaleFor decide on this set as on the whole checkout.
   */
  async #planningSales(checkout: CheckoutKey): Promise<Sale[]> {
    const { storeId, checkoutId } = checkout;
    const [recent, open] = await Promise.all([
      this.#journal.sales.recentOnCheckout(storeId, checkoutId, PLANNING_RECENT),
      this.#journal.sales.displaceable(storeId, checkoutId),
    ]);
    return uniqueSales(salesOf([...recent, ...open]));
  }

  /**
   * The sales this one displaced when its intent was journaled (planCharge puts them in the
   * same entry), whatever they became since: its 201 confirms those displacements and its
   * refusal voids them, a sale paid meanwhile included.
   */
  async #displacedBy(saleId: string): Promise<Sale[]> {
    const ids = new Set<string>();
    for (const entry of await this.#journal.eventsForSale(saleId)) {
      const data = factData(entry);
      if (!data?.events.some((e) => e.type === 'sale.requested' && e.sale_id === saleId)) continue;
      for (const id of data.sale_ids) if (id !== saleId) ids.add(id);
    }
    return salesOf(await Promise.all([...ids].map((id) => this.#journal.sales.get(id))));
  }

  // ── Following open sales ──────────────────────────────────────────────────────────

  /** One pass of the follow-up loop; exposed so tests can run it deterministically. */
  tick(): Promise<void> {
    if (this.#ticking) return this.#ticking;
    this.#ticking = this.#followUp()
      .catch((err: unknown) => this.#log.error('following open sales failed; will try again', { error: err }))
      .finally(() => {
        this.#ticking = null;
      });
    return this.#ticking;
  }

  async #followUp(): Promise<void> {
    const open = new Map<string, CheckoutKey>();
    const openIds = new Set<string>();
    for (const status of ['requested', 'pending', 'uncertain']) {
      for (const row of await this.#journal.sales.byStatus(status)) {
        const k = checkoutOf(row.sale);
        open.set(keyOf(k), k);
        openIds.add(row.sale.sale_id);
      }
    }
    // A sale paid by webhook, displaced or settled otherwise is no longer followed: its
    // schedule goes, so the map is never larger than the open sales.
    for (const saleId of this.#pollState.keys()) if (!openIds.has(saleId)) this.#pollState.delete(saleId);
    const changed: CheckoutKey[] = [];
    for (const checkout of open.values()) {
      if (this.#stopped) return;
      const now = this.#clock.now();
      const sales = await this.#planningSales(checkout);
      const expired = planExpiry(sales, now);
      if (expired.length > 0) {
        await this.#exclusive(keyOf(checkout), () => this.#journal.append(expired.map((e) => saleFact([e]))));
        changed.push(checkout);
      }
      const due = openSales(sales, now)
        .filter((f) => f.how !== 'webhook_only')
        .map((f) => ({ f, at: this.#dueAt(f, sales, now) }))
        .filter((d) => d.at <= now)
        .sort((a, b) => a.at - b.at)
        .slice(0, this.#poll.perCheckoutPerTick);
      for (const { f } of due) {
        if (await this.#perform(f, checkout)) changed.push(checkout);
      }
    }
    if (changed.length > 0) this.#onChange(changed);
  }

  #dueAt(f: FollowUp, sales: readonly Sale[], now: number): number {
    const state = this.#pollState.get(f.sale_id);
    if (state) return state.nextAt;
    const sale = sales.find((s) => s.sale_id === f.sale_id);
    // A create interrupted by a crash is resumed at once; a new sale is first left to its webhook.
    if (f.how !== 'tx_status') return now;
    return (sale?.created?.created_at ?? now) + this.#poll.firstPollMs;
  }

  #schedule(saleId: string, outcome: 'pending' | 'error'): void {
    const prev = this.#pollState.get(saleId)?.intervalMs ?? this.#poll.firstPollMs;
    const intervalMs = outcome === 'error' ? this.#poll.errorIntervalMs : Math.min(prev * this.#poll.growth, this.#poll.maxIntervalMs);
    this.#pollState.set(saleId, { nextAt: this.#clock.now() + intervalMs, intervalMs });
  }

  /** Carries out one follow-up; true when it journaled something. */
  async #perform(f: FollowUp, checkout: CheckoutKey): Promise<boolean> {
    switch (f.how) {
      case 'retry_create': {
        this.#schedule(f.sale_id, 'error');
        // Not awaited: a create the service holds for its whole deadline must not stall the
        // other checkouts' polling and expiry. Still one create in flight per checkout:
        // #creating holds one per sale, #create sends only the checkout's newest sale, and a
        // charge waits while that one is in flight. #create announces its own outcome.
        const retry = this.#create(f.sale_id, true).catch((err: unknown) => this.#log.error('resending a sale create failed; will try again', { saleId: f.sale_id, error: err }));
        this.#followUps.add(retry);
        void retry.finally(() => this.#followUps.delete(retry));
        return false;
      }
      case 'mark_uncertain': {
        await this.#exclusive(keyOf(checkout), async () => {
          const row = await this.#journal.sales.get(f.sale_id);
          if (row?.sale.status !== 'requested') return;
          await this.#journal.append([saleFact([{ type: 'sale.create_uncertain', sale_id: f.sale_id, reason: 'interrupted', attempts: 0, at: this.#clock.now() }])]);
        });
        return true;
      }
      case 'tx_status':
        return this.#pollTxStatus(f.sale_id, f.pix_id, checkout);
      case 'webhook_only':
        return false;
    }
  }

  async #pollTxStatus(saleId: string, pixId: string, checkout: CheckoutKey): Promise<boolean> {
    this.#stats.polls++;
    let answer;
    try {
      answer = await this.#client.txStatus(pixId, { deadlineMs: 8_000 });
    } catch (err) {
      this.#stats.pollErrors++;
      this.#schedule(saleId, 'error');
      this.#log.warn('Tx Status failed; will poll again', err instanceof ServiceError ? err.logFields() : { error: err });
      return false;
    }
    const now = this.#clock.now();
    if (answer.found && (answer.status === 'paid' || answer.status === 'refunded')) {
      // Refunded implies it was paid first: the payment is a fact, and so is its refund
      // (contract 3), which makes the sale Refunded rather than Paid.
      const report: PaymentReceived = {
        type: 'payment.received',
        source: 'tx_status',
        pix_id: answer.pix_id,
        service_id: answer.service_id,
        amount_brl: answer.amount_brl,
        paid_at: answer.paid_at === null ? null : Date.parse(answer.paid_at),
        e2e_id: answer.e2e_id,
        ...(answer.status === 'refunded' ? { refunded: true } : {}),
        at: now,
      };
      await this.#recordReport(report, null);
      this.#pollState.delete(saleId);
      return true;
    }
    if (answer.found && answer.status === 'pending') {
      this.#schedule(saleId, 'pending');
      return false;
    }
    // Expired, or TX not found (contract 3: a sale displaced by one we did not create).
    return this.#exclusive(keyOf(checkout), async () => {
      const row = await this.#journal.sales.get(saleId);
      if (!row) return false;
      const events = planTxStatus(row.sale, answer.found ? 'expired' : 'not_found', now);
      if (events.length === 0) {
        this.#schedule(saleId, 'pending');
        return false;
      }
      await this.#journal.append([saleFact(events)]);
      this.#pollState.delete(saleId);
      return true;
    });
  }

  /** Serializes the read-plan-journal steps of one checkout. */
  async #exclusive<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.#locks.get(key) ?? Promise.resolve();
    const run = previous.then(work, work);
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.#locks.set(key, settled);
    try {
      return await run;
    } finally {
      if (this.#locks.get(key) === settled) this.#locks.delete(key);
    }
  }
}

function createInFlight(): CoreError {
  return new CoreError('conflict', 'The previous sale on this checkout is still being created: wait for its QR code, then charge again.');
}

function uncertainReason(err: ServiceError): UncertainReason {
  if (err.kind === 'timeout') return 'timeout';
  if (err.kind === 'network') return 'network';
  return 'server_error';
}

/**
 * Payments among kept reports, each once: a payment reported by webhook and by Tx Status is
 * one, and a charge.done counts only when no report of its payment is kept beside it (the
 * same rule as the shift totals, so the status bar and the journal agree).
 */
export function countPayments(reports: readonly (PaymentReceived | ChargeDone)[]): number {
  const payments = reports.filter((r): r is PaymentReceived => r.type === 'payment.received');
  const ids = new Set(payments.flatMap((r) => [r.pix_id, r.service_id]).filter((id): id is string => id !== undefined));
  const lonelyDones = reports.filter((r): r is ChargeDone => r.type === 'charge.done' && !(r.pix_id !== undefined && ids.has(r.pix_id)) && !(r.service_id !== undefined && ids.has(r.service_id)));
  return new Set([...payments, ...lonelyDones].map(reportKey)).size;
}
