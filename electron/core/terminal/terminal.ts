import { randomUUID } from 'node:crypto';
import type { Clock } from '../../shared/clock.ts';
import { formatCents } from '../../shared/money.ts';
import { newIdempotencyKey, type ServiceClient } from '../api/client.ts';
import { ServiceError } from '../api/errors.ts';
import { CoreError } from '../errors.ts';
import type { Journal, JournalEntry } from '../journal/journal.ts';
import type { Logger } from '../log.ts';
import { newestSaleFor, openSales, planCharge, planCreateOutcome, planExpiry, planTxStatus, type CreateOutcome, type FollowUp } from '../sales/checkout.ts';
import { applySaleEvent, type AttentionReason, type ChargeDone, type PaymentReceived, type Sale, type UncertainReason } from '../sales/lifecycle.ts';
import type { AcceptOutcome, WebhookDelivery } from '../webhooks/receiver.ts';
import { factData, paymentFact, saleFact, type SaleRow } from './entries.ts';
import { checkoutView, saleView, type CheckoutView, type SaleView } from './views.ts';
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
}

interface Unmatched {
  seq: number;
  report: PaymentReceived | ChargeDone;
}

interface PollState {
  nextAt: number;
  intervalMs: number;
}

const DAY_MS = 86_400_000;
const keyOf = (k: CheckoutKey) => `${k.storeId}/${k.checkoutId}`;

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
  #unmatched: Unmatched[] = [];
  #timer: NodeJS.Timeout | null = null;
  #ticking: Promise<void> | null = null;
  #stopped = false;
  readonly #stats: TerminalStats = { lastWebhookAt: null, lastPaymentSource: null, lastPaymentAt: null, unmatched: 0, polls: 0, pollErrors: 0 };

  constructor(options: TerminalOptions) {
    this.#journal = options.journal;
    this.#client = options.client;
    this.#clock = options.clock;
    this.#log = options.log;
    this.#onChange = options.onChange;
    this.#poll = { ...DEFAULT_POLL, ...options.poll };
  }

  /** Rebuilds what lives only in memory (unmatched payments) from the journal. */
  async load(): Promise<void> {
    const reports = [...(await this.#journal.eventsOfType('payment.received')), ...(await this.#journal.eventsOfType('charge.done'))];
    const rematched = new Set<number>();
    const unmatched: Unmatched[] = [];
    for (const entry of reports) {
      const data = factData(entry);
      if (!data) continue;
      if (typeof data.rematch_of === 'number') rematched.add(data.rematch_of);
      const report = data.events[0];
      if (data.sale_ids.length === 0 && report && (report.type === 'payment.received' || report.type === 'charge.done')) {
        unmatched.push({ seq: entry.seq, report });
      }
    }
    this.#unmatched = unmatched.filter((u) => !rematched.has(u.seq));
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
    await Promise.allSettled([...this.#locks.values()]);
  }

  stats(): TerminalStats {
    return { ...this.#stats, unmatched: this.#unmatched.length };
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
      const sales = await this.#checkoutSales(checkout);
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
          const sales = await this.#checkoutSales(checkout);
          const found = sales.find((s) => s.sale_id === saleId);
          if (!found || (found.status !== 'requested' && found.status !== 'uncertain')) return null;
          return newestSaleFor(sales, checkout.storeId, checkout.checkoutId)?.sale_id === saleId ? found : null;
        });
        if (!current) return null;
        sale = current;
      }
      let outcome: CreateOutcome;
      let refusal: ServiceError | null = null;
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
        if (err.outcome === 'not_created') {
          refusal = err;
          outcome = { kind: 'refused', error: { status: err.httpStatus ?? 0, code: err.problem, ...(typeof err.detail === 'string' ? { detail: err.detail.slice(0, 300) } : {}) } };
        } else {
          outcome = { kind: 'uncertain', reason: uncertainReason(err), attempts: err.attempts };
        }
      }
      await this.#exclusive(keyOf(checkout), async () => {
        const sales = await this.#checkoutSales(checkout);
        const current = sales.find((s) => s.sale_id === saleId);
        // A retry answered after the sale was settled otherwise changes nothing.
        if (!current || (current.status !== 'requested' && current.status !== 'uncertain')) return;
        if (outcome.kind === 'uncertain' && current.status === 'uncertain') return;
        const events = planCreateOutcome(sales, saleId, outcome, this.#clock.now());
        if (events.length > 0) await this.#journal.append([saleFact(events)]);
        if (outcome.kind === 'created') await this.#rematch(saleId, outcome.pix_id, outcome.service_id);
      });
      this.#onChange([checkout]);
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
    if (fact.kind === 'settlement') {
      return this.#journal.recordWebhook(delivery.webhookId, { type: 'settlement.settled', data: { settlement_id: fact.settlementId, payload: delivery.payload } });
    }
    this.#log.warn('webhook of an unknown event kept in the journal', { event: fact.event });
    return this.#journal.recordWebhook(delivery.webhookId, { type: 'webhook.other', data: { event: fact.event, payload: delivery.payload } });
  }

  async #recordReport(report: PaymentReceived | ChargeDone, webhookId: string | null): Promise<AcceptOutcome> {
    const match = await this.#match(report);
    const entry = paymentFact(report, match.sale?.sale_id ?? null, match.reason === undefined ? {} : { unmatched_reason: match.reason });
    const outcome = webhookId === null ? (await this.#journal.append([entry]), 'recorded' as const) : await this.#journal.recordWebhook(webhookId, entry);
    if (outcome === 'recorded') {
      if (report.type === 'payment.received') {
        this.#stats.lastPaymentSource = report.source;
        this.#stats.lastPaymentAt = this.#clock.now();
      }
      if (!match.sale) {
        const seq = webhookId === null ? undefined : await this.#journal.webhookSeq(webhookId);
        this.#unmatched.push({ seq: seq ?? -1, report });
        this.#log.warn('a payment matched no sale; kept for a person', { reason: match.reason, pix_id: report.pix_id ?? null, service_id: report.service_id ?? null });
      }
      this.#onChange(match.sale ? [{ storeId: match.sale.store_id, checkoutId: match.sale.checkout_id }] : []);
    }
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
  async #rematch(saleId: string, pixId: string, serviceId: string): Promise<void> {
    const mine = this.#unmatched.filter((u) => u.report.pix_id === pixId || u.report.service_id === serviceId);
    if (mine.length === 0) return;
    await this.#journal.append(mine.map((u) => paymentFact(u.report, saleId, { rematch_of: u.seq })));
    this.#unmatched = this.#unmatched.filter((u) => !mine.includes(u));
    this.#log.info('payments received before their sale was created are now matched', { saleId, count: mine.length });
  }

  // ── A person's acknowledgement ────────────────────────────────────────────────────

  async acknowledge(input: { saleId: string; reason: AttentionReason; subject: string; by: string }): Promise<SaleView> {
    const row = await this.#journal.sales.get(input.saleId);
    if (!row) throw new CoreError('not_found', 'That sale is not in this terminal’s journal.');
    const item = row.sale.attention.find((a) => a.reason === input.reason && a.subject === input.subject);
    if (!item) throw new CoreError('conflict', 'There is nothing left to acknowledge on this sale.');
    const checkout = { storeId: row.sale.store_id, checkoutId: row.sale.checkout_id };
    await this.#journal.append([
      saleFact([{ type: 'sale.acknowledged', sale_id: input.saleId, reason: input.reason, subject: input.subject, by: input.by, at: this.#clock.now() }], { by: input.by }),
    ]);
    this.#onChange([checkout]);
    const updated = await this.#journal.sales.get(input.saleId);
    return saleView((updated ?? row).sale, await this.#checkoutSales(checkout));
  }

  // ── Views ─────────────────────────────────────────────────────────────────────────

  async checkoutView(checkout: CheckoutKey): Promise<CheckoutView> {
    const sales = await this.#checkoutSales(checkout);
    const extra = [...(await this.#journal.sales.byStatus('amount_mismatch')), ...(await this.#journal.sales.byStatus('paid_late'))]
      .map((r) => r.sale)
      .filter((s) => s.store_id === checkout.storeId && s.checkout_id === checkout.checkoutId);
    return checkoutView(sales, extra, checkout.storeId, checkout.checkoutId, this.#clock.now());
  }

  async saleDetail(saleId: string): Promise<{ sale: SaleView; events: JournalEntry[] } | null> {
    const row = await this.#journal.sales.get(saleId);
    if (!row) return null;
    const sales = await this.#checkoutSales({ storeId: row.sale.store_id, checkoutId: row.sale.checkout_id });
    return { sale: saleView(row.sale, sales), events: await this.#journal.eventsForSale(saleId) };
  }

  /**
   * The checkout's sales that matter to its decisions: the last day's, the newest, and
   * every one still open at the service however old (so no open sale is ever forgotten).
   */
  async #checkoutSales(checkout: CheckoutKey): Promise<Sale[]> {
    const { storeId, checkoutId } = checkout;
    const rows = [
      ...(await this.#journal.sales.byCheckout(storeId, checkoutId, { fromMs: this.#clock.now() - DAY_MS })),
      ...[await this.#journal.sales.latestOnCheckout(storeId, checkoutId)].filter((r): r is SaleRow => r !== undefined),
    ];
    // Displaced sales are not listed here: they never settle by themselves (reference 4.5
    // rule 4), so the list would grow for ever; the last day's are in the range above.
    for (const status of ['requested', 'pending', 'uncertain']) {
      for (const row of await this.#journal.sales.byStatus(status)) {
        if (row.sale.store_id === storeId && row.sale.checkout_id === checkoutId) rows.push(row);
      }
    }
    return [...new Map(rows.map((r) => [r.sale.sale_id, r.sale])).values()];
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
    for (const status of ['requested', 'pending', 'uncertain']) {
      for (const row of await this.#journal.sales.byStatus(status)) {
        const k = { storeId: row.sale.store_id, checkoutId: row.sale.checkout_id };
        open.set(keyOf(k), k);
      }
    }
    const changed: CheckoutKey[] = [];
    for (const checkout of open.values()) {
      if (this.#stopped) return;
      const now = this.#clock.now();
      const sales = await this.#checkoutSales(checkout);
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
        await this.#create(f.sale_id, true);
        return true;
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
      // Refunded implies it was paid first: the payment is still a fact to record.
      const report: PaymentReceived = {
        type: 'payment.received',
        source: 'tx_status',
        pix_id: answer.pix_id,
        service_id: answer.service_id,
        amount_brl: formatCents(answer.amount_cents),
        paid_at: answer.paid_at === null ? null : Date.parse(answer.paid_at),
        e2e_id: answer.e2e_id,
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
