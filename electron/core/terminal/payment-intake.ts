import type { TxStatus } from '../api/routes/sales.ts';
import { CoreError } from '../errors.ts';
import type { JournalEntry, Projection } from '../journal/port.ts';
import { wireBrlCents } from '../../shared/money.ts';
import { reportKey, samePayment, type ChargeDone, type PaymentReceived, type PaymentReport, type Sale } from '../sales/lifecycle.ts';
import { sameCanonical } from '../sales/order.ts';
import { matchReport, UNMATCHED_REASONS, type MatchOutcome, type UnmatchedReason } from '../sales/matching.ts';
import { checkoutOf, salesOf, UNMATCHED_LOCK, type CheckoutKey, type TerminalContext } from './context.ts';
import { attributionFact, factData, paymentFact } from './entries.ts';
import type { AcceptOutcome } from '../webhooks/receiver.ts';

/**
 * Payment intake: every payment report (charge.paid and charge.done webhooks, Tx Status
 * paid/refunded answers) is matched to its sale by matching.ts and journaled, or journaled
 * apart for a person when no one sale fits; a report kept apart is tied to its sale as
 * soon as one fits (the sale's 201 came later), or by a person's attribution.
 */

/** A report journaled without a sale: the entry's seq names it in its re-match or attribution. */
export interface KeptReport {
  readonly seq: number;
  readonly report: PaymentReport;
  readonly reason: UnmatchedReason;
}

/** The reports no sale holds, oldest first. Plain JSON, so a checkpoint can hold it. */
export interface UnmatchedState {
  readonly kept: readonly KeptReport[];
}

export const NO_UNMATCHED: UnmatchedState = { kept: [] };

/** The entry types reduceUnmatched reads; every other entry leaves the state as it is. */
export const UNMATCHED_ENTRY_TYPES: readonly string[] = ['payment.received', 'charge.done', 'payment.attributed'];

/**
 * The journal keeps the fold as a checkpointed projection, so a start reads the kept reports
 * without reading history (issue 13, point 8).
 */
export const UNMATCHED_PROJECTION = 'terminal.unmatched';
export const unmatchedProjection: Projection<UnmatchedState> = { initial: NO_UNMATCHED, reduce: reduceUnmatched };

/** What reduceUnmatched reads of a journal entry (a JournalEntry is one). */
export interface UnmatchedFoldEntry {
  readonly seq: number;
  readonly type: string;
  readonly data: Readonly<Record<string, unknown>>;
}

/**
 * Folds one journal entry, in seq order, into the reports no sale holds: a report
 * journaled with no sale is kept; a re-match or a person's attribution (`rematch_of`)
 * releases the one it names. Pure.
 */
export function reduceUnmatched(state: UnmatchedState, entry: UnmatchedFoldEntry): UnmatchedState {
  if (!UNMATCHED_ENTRY_TYPES.includes(entry.type)) return state;
  const data = factData(entry as unknown as JournalEntry);
  if (!data) return state;
  let kept = state.kept;
  const claimed = data.rematch_of;
  if (typeof claimed === 'number') kept = kept.filter((k) => k.seq !== claimed);
  const report = data.events[0];
  if (data.sale_ids.length === 0 && report && (report.type === 'payment.received' || report.type === 'charge.done')) {
    const reason = UNMATCHED_REASONS.find((r) => r === data.unmatched_reason) ?? 'unknown_ids';
    kept = [...kept, { seq: entry.seq, report, reason }];
  }
  return kept === state.kept ? state : { kept };
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
  /** Why no sale takes it now: no_ids, unknown_ids, ids_conflict, ambiguous. */
  reason: string;
}

/**
 * A Tx Status answer `paid` or `refunded` as a payment report. Refunded implies it was paid
 * first: the payment is a fact, and so is its refund (contract 3), which makes the sale
 * Refunded rather than Paid.
 */
export function txStatusReport(answer: Extract<TxStatus, { found: true }>, at: number): PaymentReceived {
  return {
    type: 'payment.received',
    source: 'tx_status',
    pix_id: answer.pix_id,
    service_id: answer.service_id,
    amount_brl: answer.amount_brl,
    paid_at: answer.paid_at === null ? null : Date.parse(answer.paid_at),
    e2e_id: answer.e2e_id,
    ...(answer.status === 'refunded' ? { refunded: true } : {}),
    at,
  };
}

export class PaymentIntake {
  readonly #ctx: TerminalContext;
  #state: UnmatchedState = NO_UNMATCHED;

  constructor(ctx: TerminalContext) {
    this.#ctx = ctx;
  }

  /**
   * Rebuilds the reports no sale holds from the journal (reduceUnmatched over its payment
   * entries), and ties to its sale every one a sale now fits: a crash between a sale's 201
   * and the re-match leaves exactly that.
   */
  async load(): Promise<void> {
    const { journal, log } = this.#ctx;
    this.#state = journal.projection<UnmatchedState>(UNMATCHED_PROJECTION);
    try {
      await this.#ctx.locks.exclusive(UNMATCHED_LOCK, () => this.#claim(this.#state.kept));
    } catch (err) {
      // A journal that takes no more entries (damaged, read-only) still opens: the payments
      // stay listed apart, and the next start tries again.
      log.error('payments a sale now fits could not be re-matched; they stay apart', { error: err });
    }
  }

  /** Payments kept apart, each once (see countPayments). */
  count(): number {
    return countPayments(this.#state.kept.map((k) => k.report));
  }

  /** A Tx Status answer that says the sale was paid (or paid, then refunded). */
  recordTxStatus(answer: Extract<TxStatus, { found: true }>): Promise<AcceptOutcome> {
    return this.record(txStatusReport(answer, this.#ctx.clock.now()), null);
  }

  /**
   * Journals a report: against its sale, or apart with the reason. `webhookId`: journaled
   * once per webhook-id (the receiver answers 2xx only after this resolves); null for Tx Status.
   */
  async record(report: PaymentReport, webhookId: string | null): Promise<AcceptOutcome> {
    const { journal, clock, stats, log } = this.#ctx;
    const match = await this.#match(report);
    const sale = match.kind === 'sale' ? match.sale : null;
    // A poll that keeps answering with the same contradicting ids must not journal the same
    // answer again on every pass: it is already kept for a person. Only the same answer: a
    // Tx Status report of a payment whose webhook is kept apart still says something (its
    // source, a refund) and is kept too.
    if (webhookId === null && !sale && this.#state.kept.some((k) => sameAnswer(k.report, report))) return 'duplicate';
    const entry = paymentFact(report, sale?.sale_id ?? null, match.kind === 'unmatched' ? { unmatched_reason: match.reason } : {});
    let seq: number | undefined;
    let outcome: AcceptOutcome;
    if (webhookId === null) {
      seq = (await journal.append([entry])).firstSeq;
      outcome = 'recorded';
    } else {
      outcome = await journal.recordWebhook(webhookId, entry);
    }
    if (outcome !== 'recorded') return outcome;
    if (report.type === 'payment.received') {
      stats.lastPaymentSource = report.source;
      stats.lastPaymentAt = clock.now();
    }
    const changed = sale ? [checkoutOf(sale)] : [];
    if (!sale) {
      // The entry's own seq, so that its re-match or attribution names it and a restart
      // does not bring the payment back.
      seq ??= webhookId === null ? undefined : await journal.webhookSeq(webhookId);
      if (seq === undefined) throw new Error('a journaled payment has no seq');
      const at = seq;
      const claimed = await this.#ctx.locks.exclusive(UNMATCHED_LOCK, () => {
        this.#state = reduceUnmatched(this.#state, { seq: at, ...entry });
        // Its sale may have learned its ids while this was journaled, and the re-match after
        // that 201 ran before this: matched again here, under the same lock, so exactly one
        // of the two ties it to the sale.
        return this.#claim(this.#state.kept.filter((k) => k.seq === at));
      });
      if (claimed.length === 0) log.warn('a payment matched no sale; kept for a person', { reason: match.kind === 'unmatched' ? match.reason : null, pix_id: report.pix_id ?? null, service_id: report.service_id ?? null });
      changed.push(...claimed);
    }
    this.#ctx.onChange(changed);
    return outcome;
  }

  /**
   * The candidates are every sale the journal's indexes find by the report's pix_id and
   * service_id; matching.ts decides among them (ambiguity and conflicts included).
   */
  async #match(report: PaymentReport): Promise<MatchOutcome> {
    const { journal } = this.#ctx;
    const [byPix, byService] = await Promise.all([
      report.pix_id ? journal.sales.byPixId(report.pix_id) : undefined,
      report.service_id ? journal.sales.byServiceId(report.service_id) : undefined,
    ]);
    return matchReport(report, { byPixId: salesOf([byPix]), byServiceId: salesOf([byService]) });
  }

  /** A sale just learned its ids: payments that arrived before its 201 are tied to it now. */
  rematchIds(pixId: string, serviceId: string): Promise<CheckoutKey[]> {
    return this.#ctx.locks.exclusive(UNMATCHED_LOCK, () => this.#claim(this.#state.kept.filter((k) => k.report.pix_id === pixId || k.report.service_id === serviceId)));
  }

  /**
   * Under the unmatched lock: journals a re-match (naming the entry that kept it apart) for
   * every candidate matching.ts now ties to a sale, so a report whose other id contradicts
   * the sale stays apart rather than being lost. Those that stay apart take the reason that
   * holds now. Returns the checkouts whose sales changed.
   */
  async #claim(candidates: readonly KeptReport[]): Promise<CheckoutKey[]> {
    const hits: Array<{ kept: KeptReport; sale: Sale }> = [];
    const reasons = new Map<number, UnmatchedReason>();
    for (const kept of candidates) {
      if (!this.#state.kept.includes(kept)) continue;
      const match = await this.#match(kept.report);
      if (match.kind === 'sale') hits.push({ kept, sale: match.sale });
      else if (match.reason !== kept.reason) reasons.set(kept.seq, match.reason);
    }
    if (reasons.size > 0) this.#state = { kept: this.#state.kept.map((k) => (reasons.has(k.seq) ? { ...k, reason: reasons.get(k.seq) as UnmatchedReason } : k)) };
    if (hits.length === 0) return [];
    const { entries } = await this.#ctx.journal.append(hits.map(({ kept, sale }) => paymentFact(kept.report, sale.sale_id, { rematch_of: kept.seq })));
    this.#state = entries.reduce(reduceUnmatched, this.#state);
    this.#ctx.log.info('payments kept without a sale are now matched to their sales', { count: hits.length });
    return hits.map((h) => checkoutOf(h.sale));
  }

  /** What a supervisor is shown of the payments no sale could be matched to, oldest first. */
  unmatchedPayments(): UnmatchedPayment[] {
    return this.#state.kept.map(({ seq, report, reason }) => ({
      seq,
      at: report.at,
      kind: report.type === 'payment.received' ? 'payment' : 'done',
      pix_id: report.pix_id ?? null,
      service_id: report.service_id ?? null,
      external_id: report.external_id ?? null,
      amount_cents: wireBrlCents(report.amount_brl),
      reason,
    }));
  }

  /**
   * A person ties an unmatched payment to a sale (matching.ts PaymentAttributed): matching
   * by ids stays the only automatic rule (reference 4.5 rule 6), so this is journaled as
   * their decision, with who, and the sale takes the report through applyAttributedReport.
   */
  async attribute(input: { seq: number; saleId: string; by: string }): Promise<Sale> {
    const { journal, clock, log, locks } = this.#ctx;
    const sale = await locks.exclusive(UNMATCHED_LOCK, async () => {
      const kept = this.#state.kept.find((k) => k.seq === input.seq);
      if (!kept) throw new CoreError('not_found', 'That payment is not among the payments without a sale: it may have been matched or attributed already.');
      const row = await journal.sales.get(input.saleId);
      if (!row) throw new CoreError('not_found', 'That sale is not in this terminal’s journal.');
      const { entries } = await journal.append([attributionFact(kept.report, kept.seq, { saleId: input.saleId, by: input.by, at: clock.now() })]);
      this.#state = entries.reduce(reduceUnmatched, this.#state);
      log.info('a person tied a payment without a sale to a sale', { saleId: input.saleId, seq: input.seq });
      return row.sale;
    });
    this.#ctx.onChange([checkoutOf(sale)]);
    return (await journal.sales.get(input.saleId))?.sale ?? sale;
  }
}

/** The same report but for when it arrived. */
function sameAnswer(a: PaymentReport, b: PaymentReport): boolean {
  return sameCanonical({ ...a, at: 0 }, { ...b, at: 0 });
}

/**
 * Payments among kept reports, each once, by the rule a sale's payments follow (see
 * paymentKey): reports that share a pix_id or service_id are one charge's, and one payment
 * unless they carry different e2e_ids; a report without ids is its own. A charge.done counts
 * only when no report of its payment is kept beside it (the same rule as the shift totals,
 * so the status bar and the journal agree).
 */
export function countPayments(reports: readonly (PaymentReceived | ChargeDone)[]): number {
  const payments = reports.filter((r): r is PaymentReceived => r.type === 'payment.received');
  const sameCharge = (a: PaymentReport, b: PaymentReport): boolean =>
    (a.pix_id !== undefined && a.pix_id === b.pix_id) || (a.service_id !== undefined && a.service_id === b.service_id);
  const counted: PaymentReceived[] = [];
  // e2e-named reports first, so one without an e2e_id joins a named payment rather than the reverse.
  for (const r of [...payments].sort((a, b) => Number(!a.e2e_id) - Number(!b.e2e_id))) {
    const same = counted.some((c) => (sameCharge(c, r) ? samePayment(c, r) : reportKey(c) === reportKey(r)));
    if (!same) counted.push(r);
  }
  const lonelyDones = reports.filter((r): r is ChargeDone => r.type === 'charge.done' && !payments.some((p) => sameCharge(p, r)));
  return counted.length + new Set(lonelyDones.map(reportKey)).size;
}
