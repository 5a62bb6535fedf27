import type { Clock } from '../../shared/clock.ts';
import type { ServiceClient } from '../api/client.ts';
import type { RefundKeyContract } from '../api/routes/route.ts';
import { CoreError } from '../errors.ts';
import type { JournalDefinition, JournalEntry, JournalPort } from '../journal/port.ts';
import type { Logger } from '../log.ts';
import { ANSWERED_NOT_ACKNOWLEDGED, type AttentionReason, type Sale } from '../sales/lifecycle.ts';
import type { AcceptOutcome, WebhookDelivery } from '../webhooks/receiver.ts';
import { correctionSuccessor } from '../sales/describe.ts';
import { Charging, type ChargeInput } from './charging.ts';
import { Locks, salesOf, uniqueSales, type CheckoutKey, type TerminalContext, type TerminalStats } from './context.ts';
import { claimedKeys, OPERATOR_ACTIONS, reduceSaleRow, saleFact, saleRowKeys, type SaleRow } from './entries.ts';
import { DEFAULT_POLL, FOLLOWED_STATUSES, FollowUpLoop, type PollPolicy } from './follow-up.ts';
import { PaymentIntake, UNMATCHED_PROJECTION, unmatchedProjection } from './payment-intake.ts';
import { SETTLED_PROJECTION, SettlementIntake, settledProjection } from './settlement-intake.ts';
import { RECONCILED_PROJECTION, reconciledProjection, Reconciler } from '../settlements/reconciler.ts';
import { OPEN_REFUNDS_PROJECTION, openRefundsProjection, Refunding, type RefundInput } from './refunding.ts';
import { checkoutView, RECENT, saleSummary, type CheckoutView, type SaleSummary } from './views.ts';
import { readWebhook } from './webhook-events.ts';
import { STEP, steps } from './steps.ts';

export type { ChargeInput } from './charging.ts';
export type { CheckoutKey, TerminalStats } from './context.ts';
export { DEFAULT_POLL, type PollPolicy } from './follow-up.ts';
export { countPayments, type UnmatchedPayment } from './payment-intake.ts';

/**
 * The terminal: rings up sales on printed checkouts and follows them to their true end,
 * through webhooks first and Tx Status polling as the fallback. Every decision is made by
 * the pure lifecycle and matching (electron/core/sales) and written to the journal BEFORE
 * it is acted on or shown, so a crash at any point leaves a journal from which every sale
 * resumes.
 *
 * A composition of its four jobs: charging (charging.ts), payment intake and matching
 * (payment-intake.ts), settlement intake (settlement-intake.ts) and follow-up polling
 * (follow-up.ts); what is left here is routing webhooks, a person's acknowledgement and
 * the views.
 */
/**
 * The journal a Terminal runs on: its sale rows, its operator actions, the statuses it
 * follows kept in the working set, and the projections its start reads instead of history
 * (issue 13, point 8). The core opens its journal with these; so do the tests of a terminal.
 */
export const TERMINAL_JOURNAL = {
  reduceSale: reduceSaleRow,
  saleKeys: saleRowKeys,
  claimedKeys,
  operatorActions: OPERATOR_ACTIONS,
  openStatuses: FOLLOWED_STATUSES,
  projections: { [UNMATCHED_PROJECTION]: unmatchedProjection, [SETTLED_PROJECTION]: settledProjection, [OPEN_REFUNDS_PROJECTION]: openRefundsProjection, [RECONCILED_PROJECTION]: reconciledProjection },
} as const satisfies Partial<JournalDefinition<SaleRow>>;

export interface TerminalOptions {
  journal: JournalPort<SaleRow>;
  client: ServiceClient;
  clock: Clock;
  log: Logger;
  /** Called with the checkouts whose sales changed; the core pushes their views. */
  onChange(checkouts: readonly CheckoutKey[]): void;
  poll?: Partial<PollPolicy>;
  /** Whether a refund's key may be asked again (default: api/routes/route.ts REFUND_KEYS). */
  refundKeys?: RefundKeyContract;
}

const DAY_MS = 86_400_000;

export class Terminal {
  readonly #ctx: TerminalContext;
  readonly #charging: Charging;
  /** Payment intake and matching; tests feed it reports as the webhooks and the poll do. */
  readonly payments: PaymentIntake;
  readonly #settlements: SettlementIntake;
  readonly #followUp: FollowUpLoop;
  readonly #refunding: Refunding;
  readonly #reconciler: Reconciler;
  /** Reconciliations under way (they run after the webhook is acknowledged); awaited by stop. */
  readonly #reconciling = new Set<Promise<unknown>>();

  constructor(options: TerminalOptions) {
    this.#ctx = {
      journal: options.journal,
      client: options.client,
      clock: options.clock,
      log: options.log,
      locks: new Locks(),
      onChange: (checkouts) => options.onChange(checkouts),
      stats: { lastWebhookAt: null, lastPaymentSource: null, lastPaymentAt: null, unmatched: 0, polls: 0, pollErrors: 0, followed: 0 },
    };
    this.payments = new PaymentIntake(this.#ctx);
    this.#charging = new Charging(this.#ctx, (pixId, serviceId) => this.payments.rematchIds(pixId, serviceId));
    this.#settlements = new SettlementIntake(this.#ctx);
    this.#reconciler = new Reconciler(this.#ctx);
    this.#refunding = new Refunding(this.#ctx, this.payments, options.refundKeys);
    this.#followUp = new FollowUpLoop(this.#ctx, this.#charging, this.payments, { ...DEFAULT_POLL, ...options.poll }, () => this.#refunding.resume());
  }

  /** Rebuilds what lives only in memory (payments without a sale) from the journal. */
  async load(): Promise<void> {
    await this.payments.load();
    // A settlement journaled just before a crash is reconciled now, beside the start.
    this.#background(this.#reconciler.resume());
  }

  /** Settlement reconciliation (reconciler.ts). */
  get reconciler(): Reconciler {
    return this.#reconciler;
  }

  #background(work: Promise<unknown>): void {
    const tracked = work.catch((err: unknown) => this.#ctx.log.warn('a settlement could not be reconciled', { error: err })).finally(() => this.#reconciling.delete(tracked));
    this.#reconciling.add(tracked);
  }

  /** Starts following open sales: every sale the journal holds open is resumed. */
  start(): void {
    this.#followUp.start();
    this.#reconciler.start();
  }

  async stop(): Promise<void> {
    await this.#followUp.stop();
    await this.#reconciler.stop();
    await Promise.all(this.#reconciling);
    await this.#refunding.drain();
    await this.#ctx.locks.drain();
  }

  stats(): TerminalStats {
    return { ...this.#ctx.stats, unmatched: this.payments.count(), followed: this.#followUp.followed() };
  }

  /** One pass of the follow-up loop; exposed so tests can run it deterministically. */
  tick(): Promise<void> {
    return this.#followUp.tick();
  }

  /** Rings up a sale (see Charging.charge); resolves with the checkout's view once its outcome is journaled. */
  async charge(input: ChargeInput): Promise<CheckoutView> {
    await this.#charging.charge(input);
    // Until the bridge has sent the reply (it records the step: electron/web/server.ts).
    steps.mark('charge.done');
    return this.checkoutView({ storeId: input.storeId, checkoutId: input.checkoutId });
  }

  /**
   * A verified webhook: journaled once per webhook-id (the receiver answers 2xx only after
   * this resolves). Payments are matched by pix_id/service_id only (reference 4.5 rule 6).
   */
  async acceptWebhook(delivery: WebhookDelivery): Promise<AcceptOutcome> {
    const now = this.#ctx.clock.now();
    this.#ctx.stats.lastWebhookAt = now;
    const fact = readWebhook(delivery.payload, delivery.webhookId, now);
    if (fact.kind === 'payment' || fact.kind === 'done') {
      const t0 = steps.now();
      const outcome = await this.payments.record(fact.report, delivery.webhookId);
      if (fact.kind === 'payment') {
        steps.add(STEP.payment, t0);
        steps.mark('payment.journaled');
      }
      return outcome;
    }
    if (fact.kind === 'settlement') {
      const outcome = await this.#settlements.record(delivery, fact.settlementId);
      // Acknowledged once journaled; the reconciliation (which asks the service) follows.
      if (outcome === 'recorded' && fact.settlementId !== null) this.#background(this.#reconciler.afterWebhook(fact.settlementId, delivery.payload));
      return outcome;
    }
    this.#ctx.log.warn('webhook of an unknown event kept in the journal', { event: fact.event });
    return this.#ctx.journal.recordWebhook(delivery.webhookId, { type: 'webhook.other', data: { event: fact.event, payload: delivery.payload } });
  }

  /** What a supervisor is shown of the payments no sale could be matched to, oldest first. */
  unmatchedPayments(): ReturnType<PaymentIntake['unmatchedPayments']> {
    return this.payments.unmatchedPayments();
  }

  /** A person ties an unmatched payment to a sale (see PaymentIntake.attribute). */
  async attribute(input: { seq: number; saleId: string; by: string }): Promise<SaleSummary> {
    const sale = await this.payments.attribute(input);
    return saleSummary(sale, await this.#withDisplacer(sale));
  }

  /** A person withdraws a pending sale (see Charging.withdraw); resolves with its checkout's view. */
  async withdraw(input: { saleId: string; by: string }): Promise<CheckoutView> {
    return this.checkoutView(await this.#charging.withdraw(input));
  }

  /**
   * A supervisor refunds part or all of what is left of a paid sale (see Refunding): resolves
   * with the sale once the outcome is journaled; a definite refusal rejects with its sentence.
   */
  async refund(input: RefundInput): Promise<{ sale: SaleSummary; events: JournalEntry[] }> {
    await this.#refunding.refund(input);
    const detail = await this.saleDetail(input.saleId);
    if (!detail) throw new CoreError('not_found', 'That sale is not in this terminal’s journal.');
    return detail;
  }

  /** A supervisor's answer to a refund not confirmed: it was made (see Refunding.confirmMade). */
  async refundWasMade(input: { saleId: string; refundId: string; by: string }): Promise<{ sale: SaleSummary; events: JournalEntry[] }> {
    await this.#refunding.confirmMade(input);
    return this.#detailOrFail(input.saleId);
  }

  /** A supervisor's answer to a refund not confirmed: it was not, send it again (see Refunding.sendAgain). */
  async refundSendAgain(input: { saleId: string; refundId: string; amountCents: number; by: string }): Promise<{ sale: SaleSummary; events: JournalEntry[] }> {
    await this.#refunding.sendAgain(input);
    return this.#detailOrFail(input.saleId);
  }

  async #detailOrFail(saleId: string): Promise<{ sale: SaleSummary; events: JournalEntry[] }> {
    const detail = await this.saleDetail(saleId);
    if (!detail) throw new CoreError('not_found', 'That sale is not in this terminal’s journal.');
    return detail;
  }

  // ── A person's acknowledgement ────────────────────────────────────────────────────

  async acknowledge(input: { saleId: string; reason: AttentionReason; subject: string; by: string }): Promise<SaleSummary> {
    const { journal, clock } = this.#ctx;
    const row = await journal.sales.get(input.saleId);
    if (!row) throw new CoreError('not_found', 'That sale is not in this terminal’s journal.');
    const item = row.sale.attention.find((a) => a.reason === input.reason && a.subject === input.subject);
    if (!item) throw new CoreError('conflict', 'There is nothing left to acknowledge on this sale.');
    if (ANSWERED_NOT_ACKNOWLEDGED.includes(item.reason)) {
      throw new CoreError('conflict', 'A refund not confirmed is not acknowledged: a supervisor answers it with It was refunded or Send again.', { problem: 'answer_not_acknowledge' });
    }
    const checkout = { storeId: row.sale.store_id, checkoutId: row.sale.checkout_id };
    await journal.append([saleFact([{ type: 'sale.acknowledged', sale_id: input.saleId, reason: input.reason, subject: input.subject, by: input.by, at: clock.now() }], { by: input.by })]);
    this.#ctx.onChange([checkout]);
    const updated = (await journal.sales.get(input.saleId))?.sale ?? row.sale;
    return saleSummary(updated, await this.#withDisplacer(updated));
  }

  // ── Views ─────────────────────────────────────────────────────────────────────────

  /**
   * The screen, the last day's recent sales, the newest, and every sale that still needs a
   * person however old it is (until acknowledged): bounded queries, never the whole day.
   */
  async checkoutView(checkout: CheckoutKey): Promise<CheckoutView> {
    const t0 = steps.now();
    const view = await this.#checkoutView(checkout);
    steps.add(STEP.view, t0);
    return view;
  }

  async #checkoutView(checkout: CheckoutKey): Promise<CheckoutView> {
    const { journal, clock } = this.#ctx;
    const { storeId, checkoutId } = checkout;
    const [recent, newest, open, attention] = await Promise.all([
      journal.sales.recentOnCheckout(storeId, checkoutId, RECENT, clock.now() - DAY_MS),
      journal.sales.latestOnCheckout(storeId, checkoutId),
      journal.sales.displaceable(storeId, checkoutId),
      journal.sales.needingPerson(storeId, checkoutId),
    ]);
    const sales = uniqueSales(salesOf([...recent, newest, ...open]));
    const extra = salesOf(attention);
    // A late payment's message says whether a sale of its correction chain is still open or
    // was paid: read the chain's sales that are older than the recent ones.
    const known = new Map([...sales, ...extra].map((s) => [s.sale_id, s]));
    for (const s of [...sales, ...extra]) if (s.status === 'paid_late' || s.attention.some((a) => a.reason === 'paid_late')) await this.#readChain(s, known);
    const context = [...known.values()].filter((s) => !sales.includes(s) && !extra.includes(s));
    return checkoutView(sales, [...extra, ...context], storeId, checkoutId, clock.now());
  }

  /** Every sale of the merchant, on any checkout, that still needs a person, newest first. */
  async attentionEverywhere(): Promise<SaleSummary[]> {
    const sales = salesOf(await this.#ctx.journal.sales.needingPersonAnywhere());
    const summaries = await Promise.all(sales.map(async (sale) => saleSummary(sale, [...sales, ...(await this.#withDisplacer(sale))])));
    return summaries.filter((s) => s.description.needs_person).sort((a, b) => b.requested_at - a.requested_at);
  }

  async saleDetail(saleId: string): Promise<{ sale: SaleSummary; events: JournalEntry[] } | null> {
    const row = await this.#ctx.journal.sales.get(saleId);
    if (!row) return null;
    return { sale: saleSummary(row.sale, await this.#withDisplacer(row.sale)), events: await this.#ctx.journal.eventsForSale(saleId) };
  }

  /** What describing one sale needs: the sales of its correction chain (describe.ts). */
  async #withDisplacer(sale: Sale): Promise<Sale[]> {
    const known = new Map([[sale.sale_id, sale]]);
    await this.#readChain(sale, known);
    return [...known.values()];
  }

  /**
   * Adds to `known` the sales of `sale`'s correction chain it lacks, read from the journal
   * link by link (correctionSuccessor), up to the chain's end or a sale the journal does not
   * have: a chain is a few corrections of one customer's amount.
   */
  async #readChain(sale: Sale, known: Map<string, Sale>): Promise<void> {
    const seen = new Set([sale.sale_id]);
    for (let next = correctionSuccessor(sale); typeof next === 'string' && !seen.has(next); ) {
      seen.add(next);
      const at = known.get(next) ?? (await this.#ctx.journal.sales.get(next))?.sale;
      if (at === undefined) return;
      known.set(at.sale_id, at);
      next = correctionSuccessor(at);
    }
  }
}
