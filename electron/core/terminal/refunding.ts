import { randomUUID } from 'node:crypto';
import { newIdempotencyKey } from '../api/client.ts';
import { ServiceError } from '../api/errors.ts';
import { REFUND_KEYS, type RefundKeyContract } from '../api/routes/route.ts';
import { CoreError } from '../errors.ts';
import { formatCents } from '../../shared/money.ts';
import type { JournalEntry, Projection } from '../journal/port.ts';
import { openRefund, refundsMadeCents, type RefundEvent, type RefundFact, type Sale, type UncertainReason } from '../sales/lifecycle.ts';
import { mayAskAgain, planRefund, REFUND_REASON_MAX, type RefundRefusal } from '../sales/refunds.ts';
import { checkoutOf, keyOf, type CheckoutKey, type TerminalContext } from './context.ts';
import { factData, saleFact } from './entries.ts';
import type { PaymentIntake } from './payment-intake.ts';

/**
 * The refunds asked for and not yet answered for certain (refund_id → sale_id), kept by the
 * journal as a checkpointed projection: a start finds them without reading history, and
 * the follow-up resolves each one (a crash between intent and answer included). A refund
 * left to a supervisor (unconfirmed) is not the follow-up's until one sends it again.
 */
export const OPEN_REFUNDS_PROJECTION = 'terminal.open_refunds';
export type OpenRefunds = Readonly<Record<string, string>>;
export const openRefundsProjection: Projection<OpenRefunds> = {
  initial: {},
  reduce: (open: OpenRefunds, entry: JournalEntry): OpenRefunds => {
    if (!entry.type.startsWith('refund.')) return open;
    const data = factData(entry);
    if (data === null) return open;
    let next = open;
    for (const e of data.events) {
      if ((e.type === 'refund.requested' || e.type === 'refund.resent') && !Object.hasOwn(next, e.refund_id)) next = { ...next, [e.refund_id]: e.sale_id };
      if ((e.type === 'refund.made' || e.type === 'refund.refused' || e.type === 'refund.unconfirmed') && Object.hasOwn(next, e.refund_id)) {
        const { [e.refund_id]: _closed, ...rest } = next;
        next = rest;
      }
    }
    return next;
  },
};

export interface RefundInput {
  saleId: string;
  amountCents: number;
  reason?: string;
  by: string;
}

/**
 * How long an unanswered refund waits before it is asked again (same key), on the core's
 * clock: doubling after each attempt that brings no definite answer, up to the ceiling.
 */
export const REFUND_RETRY_MS = 10_000;
export const REFUND_RETRY_MAX_MS = 5 * 60_000;

/**
 * A supervisor's refund of a paid sale (contract 5). The intent, with ONE Idempotency-Key,
 * is journaled in the supervisor's name before the first attempt, which the client sends
 * once; a definite answer is journaled (201: made; a refusal: refused, with its sentence);
 * no definite answer leaves it uncertain. The follow-up first reads Tx Status: a charge the
 * service already reads `refunded` settles a refund of all that was left. Otherwise it asks
 * again under the same key only while the provider is known to honour refund keys and the
 * key is inside its window (api/routes/route.ts REFUND_KEYS; by default not known); else the
 * refund is **Refund not confirmed** and a supervisor answers: It was refunded, or Send
 * again under a new key, each journaled in their name. The service never refunds twice
 * without a person having decided so.
 */
export class Refunding {
  readonly #ctx: TerminalContext;
  readonly #payments: PaymentIntake;
  readonly #keys: RefundKeyContract;
  readonly #sending = new Set<string>();
  /** When each open refund may be asked again (refund_id → clock ms); absent: at once. */
  readonly #nextAt = new Map<string, number>();
  /** The wait after the last attempt without a definite answer (refund_id → ms). */
  readonly #wait = new Map<string, number>();
  /** Refunds whose first attempt is still this app's own call (see refund). */
  readonly #firstAttempt = new Set<string>();
  /** Requests the follow-up sent and does not wait for (see resume). */
  readonly #resends = new Set<Promise<unknown>>();

  constructor(ctx: TerminalContext, payments: PaymentIntake, keys: RefundKeyContract = REFUND_KEYS) {
    this.#ctx = ctx;
    this.#payments = payments;
    this.#keys = keys;
  }

  /** Journals the intent, then asks the service. Resolves once the outcome is journaled. */
  async refund(input: RefundInput): Promise<Sale> {
    const { journal, clock, locks } = this.#ctx;
    const row = await journal.sales.get(input.saleId);
    if (!row) throw new CoreError('not_found', 'That sale is not in this terminal’s journal.');
    const checkout = checkoutOf(row.sale);
    const refundId = randomUUID();
    await locks.exclusive(keyOf(checkout), async () => {
      const sale = (await journal.sales.get(input.saleId))?.sale ?? row.sale;
      const plan = planRefund(sale, {
        refund_id: refundId,
        idempotency_key: newIdempotencyKey(),
        amount_cents: input.amountCents,
        ...(input.reason === undefined ? {} : { reason: input.reason }),
        by: input.by,
        at: clock.now(),
      });
      if (!plan.ok) throw refusalError(plan.reason, plan.left_cents);
      await this.#journalIntent(refundId, plan.event, input.by);
    });
    this.#ctx.onChange([checkout]);
    await this.#firstSend(input.saleId, refundId);
    return (await journal.sales.get(input.saleId))?.sale ?? row.sale;
  }

  /** The attempt that follows a journaled intent (a refund, or a Send again): this call's own. */
  async #firstSend(saleId: string, refundId: string): Promise<void> {
    let refusal: CoreError | null;
    try {
      refusal = await this.send(saleId, refundId, false);
    } finally {
      this.#firstAttempt.delete(refundId);
    }
    if (refusal) throw refusal;
  }

  /**
   * Journals an intent whose first attempt is this call's own (a refund, or a Send again): the
   * follow-up leaves that refund alone until the attempt has answered (#firstSend).
   */
  async #journalIntent(refundId: string, event: RefundEvent, by: string): Promise<void> {
    this.#firstAttempt.add(refundId);
    try {
      await this.#ctx.journal.append([saleFact([event], { by })]);
    } catch (err) {
      // Not known to be journaled: if it was, the follow-up must find it.
      this.#firstAttempt.delete(refundId);
      throw err;
    }
  }

  /**
   * A supervisor checked (the service's dashboard, the payer's bank statement) and the
   * refund not confirmed WAS made: journaled in their name as made, for the amount asked.
   */
  async confirmMade(input: { saleId: string; refundId: string; by: string }): Promise<Sale> {
    const { journal, clock } = this.#ctx;
    const checkout = await this.#answer(input, (fact) =>
      journal.append([
        saleFact(
          [
            {
              type: 'refund.made',
              sale_id: input.saleId,
              refund_id: input.refundId,
              pay_in_refund_request_id: null,
              service_refund_id: null,
              refunded_cents: fact.amount_cents,
              confirmed_by: input.by,
              at: clock.now(),
            },
          ],
          { by: input.by },
        ),
      ]),
    );
    this.#ctx.onChange([checkout]);
    return (await journal.sales.get(input.saleId))?.sale as Sale;
  }

  /**
   * A supervisor checked and the refund not confirmed was NOT made: it is asked for again
   * under a new Idempotency-Key, in their name. `amountCents` is what their confirmation
   * named; it must be the refund's own amount, so nobody confirms one sum and sends another.
   * Resolves once the new attempt's outcome is journaled; a definite refusal rejects.
   */
  async sendAgain(input: { saleId: string; refundId: string; amountCents: number; by: string }): Promise<Sale> {
    const { journal, clock } = this.#ctx;
    const checkout = await this.#answer(input, async (fact) => {
      if (fact.amount_cents !== input.amountCents) {
        throw new CoreError(
          'invalid_argument',
          `This refund is of R$ ${formatCents(fact.amount_cents)}, not R$ ${formatCents(input.amountCents)}; nothing was sent.`,
          { problem: 'refund_amount_differs', amount_cents: fact.amount_cents },
        );
      }
      const resent: RefundEvent = { type: 'refund.resent', sale_id: input.saleId, refund_id: input.refundId, idempotency_key: newIdempotencyKey(), by: input.by, at: clock.now() };
      await this.#journalIntent(input.refundId, resent, input.by);
    });
    this.#nextAt.delete(input.refundId);
    this.#wait.delete(input.refundId);
    this.#ctx.onChange([checkout]);
    await this.#firstSend(input.saleId, input.refundId);
    return (await journal.sales.get(input.saleId))?.sale as Sale;
  }

  /**
   * A person's answer to a refund not confirmed, journaled by `journalAnswer` under its
   * checkout's lock while the refund still waits for one (else a sentence saying why not).
   * Resolves with the checkout.
   */
  async #answer(input: { saleId: string; refundId: string }, journalAnswer: (fact: RefundFact) => Promise<unknown>): Promise<CheckoutKey> {
    const { journal, locks } = this.#ctx;
    const row = await journal.sales.get(input.saleId);
    if (!row) throw new CoreError('not_found', 'That sale is not in this terminal’s journal.');
    const checkout = checkoutOf(row.sale);
    await locks.exclusive(keyOf(checkout), async () => {
      const fact = (await journal.sales.get(input.saleId))?.sale.refunds?.find((r) => r.refund_id === input.refundId);
      if (!fact) throw new CoreError('not_found', 'That refund is not in this terminal’s journal.');
      if (fact.state !== 'unconfirmed') {
        throw new CoreError('conflict', 'This refund does not wait for a person’s answer any more: it was answered already. Nothing was changed.', { problem: 'refund_not_unconfirmed', state: fact.state });
      }
      await journalAnswer(fact);
    });
    return checkout;
  }

  /** Asks the service (again) for an open refund; the refusal's error when it was refused for certain. */
  async send(saleId: string, refundId: string, resumed: boolean): Promise<CoreError | null> {
    const { journal, client, clock, log, locks } = this.#ctx;
    if (this.#sending.has(refundId)) return null;
    this.#sending.add(refundId);
    try {
      const sale = (await journal.sales.get(saleId))?.sale;
      const fact = sale?.refunds?.find((r) => r.refund_id === refundId);
      if (!sale || !fact || (fact.state !== 'requested' && fact.state !== 'uncertain') || sale.service_id === undefined) return null;
      const checkout = checkoutOf(sale);
      if (resumed && (await this.#settledByStatus(sale, fact))) return null;
      if (resumed) {
        const may = mayAskAgain(fact, clock.now(), this.#keys);
        if (may !== true) {
          // Asking again could refund twice: a person decides (Refund not confirmed).
          const e: RefundEvent = { type: 'refund.unconfirmed', sale_id: saleId, refund_id: refundId, reason: may, at: clock.now() };
          await locks.exclusive(keyOf(checkout), async () => {
            if ((await journal.sales.get(saleId))?.sale.refunds?.find((r) => r.refund_id === refundId)?.state !== fact.state) return;
            await journal.append([saleFact([e])]);
          });
          log.warn('a refund’s outcome is unknown and it may not be asked again by itself; a supervisor decides', { saleId, refundId, reason: may });
          this.#ctx.onChange([checkout]);
          return null;
        }
      }
      let event: RefundEvent | null;
      let refusal: CoreError | null = null;
      try {
        const made = await client.requestRefund(
          { service_id: sale.service_id, amount_cents: fact.amount_cents, ...(fact.reason === undefined ? {} : { reason: fact.reason }) },
          { idempotencyKey: fact.idempotency_key },
        );
        event = {
          type: 'refund.made',
          sale_id: saleId,
          refund_id: refundId,
          pay_in_refund_request_id: made.pay_in_refund_request_id,
          service_refund_id: made.service_refund_id,
          refunded_cents: made.refunded_cents,
          at: clock.now(),
        };
      } catch (err) {
        if (!(err instanceof ServiceError)) throw err;
        log.warn('refund request failed', { saleId, refundId, ...err.logFields() });
        if (err.outcome === 'not_created' && !(resumed || fact.state === 'uncertain')) {
          refusal = serviceRefusal(err);
          event = {
            type: 'refund.refused',
            sale_id: saleId,
            refund_id: refundId,
            error: { status: err.httpStatus ?? 0, code: refusal.params?.problem === undefined ? err.problem : String(refusal.params.problem), ...(typeof err.detail === 'string' ? { detail: err.detail.slice(0, 300) } : {}) },
            at: clock.now(),
          };
        } else if (err.outcome === 'not_created') {
          // A refusal of a repeat says nothing of the earlier attempt, which may have been
          // made: the refund stays uncertain (the sale may not be refunded twice). One left
          // `requested` by a crash is uncertain from here on.
          event = fact.state === 'requested' ? { type: 'refund.uncertain', sale_id: saleId, refund_id: refundId, reason: 'interrupted', attempts: err.attempts, at: clock.now() } : null;
        } else {
          event = fact.state === 'requested' ? { type: 'refund.uncertain', sale_id: saleId, refund_id: refundId, reason: uncertainReason(err), attempts: err.attempts, at: clock.now() } : null;
        }
        const wait = Math.min((this.#wait.get(refundId) ?? REFUND_RETRY_MS / 2) * 2, REFUND_RETRY_MAX_MS);
        this.#wait.set(refundId, wait);
        this.#nextAt.set(refundId, clock.now() + wait);
      }
      if (event !== null) {
        const e = event;
        await locks.exclusive(keyOf(checkout), () => journal.append([saleFact([e])]));
        this.#ctx.onChange([checkout]);
      }
      if (refusal !== null && refusal.params?.problem === 'refund_less_left') {
        // Less is left at the service than this app knew: a refund made elsewhere. Tx Status
        // tells when it was all of it (contract 3); a part is not learnable (see README).
        await this.#settledByStatus(sale, null).catch(() => false);
      }
      if (event?.type === 'refund.made' || event?.type === 'refund.refused') {
        this.#nextAt.delete(refundId);
        this.#wait.delete(refundId);
      }
      return refusal;
    } finally {
      this.#sending.delete(refundId);
    }
  }

  /**
   * One pass over the open refunds: those due are asked again (same key), not awaited, so a
   * request the service holds for its whole deadline never stalls the follow-up of sales.
   */
  async resume(): Promise<void> {
    const { journal, clock, log } = this.#ctx;
    const open = journal.projection<OpenRefunds>(OPEN_REFUNDS_PROJECTION);
    for (const refundId of this.#nextAt.keys()) {
      if (Object.hasOwn(open, refundId)) continue;
      this.#nextAt.delete(refundId);
      this.#wait.delete(refundId);
    }
    for (const [refundId, saleId] of Object.entries(open)) {
      if (this.#firstAttempt.has(refundId) || (this.#nextAt.get(refundId) ?? 0) > clock.now()) continue;
      this.#nextAt.set(refundId, clock.now() + REFUND_RETRY_MS);
      const resend = this.send(saleId, refundId, true).catch((err: unknown) => log.error('asking again for a refund failed; will try again', { saleId, refundId, error: err }));
      this.#resends.add(resend);
      void resend.finally(() => this.#resends.delete(resend));
    }
  }

  /** Resolves once the requests the follow-up sent have ended. */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.#resends]);
  }

  /**
   * Tx Status of the sale's charge: `refunded` is journaled as the payment's refund
   * (contract 3), and settles `fact` when it asked for all that was left. True when settled.
   */
  async #settledByStatus(sale: Sale, fact: RefundFact | null): Promise<boolean> {
    const { journal, client, clock, locks } = this.#ctx;
    if (sale.pix_id === undefined) return false;
    const answer = await client.txStatus(sale.pix_id, { deadlineMs: 8_000 });
    if (!answer.found || answer.status !== 'refunded') return false;
    await this.#payments.recordTxStatus(answer);
    const charged = sale.paid?.received_cents ?? null;
    if (fact === null || charged === null || fact.amount_cents !== charged - refundsMadeCents(sale)) return false;
    const checkout = checkoutOf(sale);
    await locks.exclusive(keyOf(checkout), async () => {
      const current = (await journal.sales.get(sale.sale_id))?.sale;
      if (current && openRefund(current)?.refund_id !== fact.refund_id) return;
      await journal.append([
        saleFact([{ type: 'refund.made', sale_id: sale.sale_id, refund_id: fact.refund_id, pay_in_refund_request_id: null, service_refund_id: null, refunded_cents: fact.amount_cents, at: clock.now() }]),
      ]);
    });
    this.#ctx.onChange([checkout]);
    return true;
  }
}

/** The sentence for a refund this app will not ask for; params.problem picks the translation. */
function refusalError(reason: RefundRefusal, leftCents: number): CoreError {
  const left = formatCents(leftCents);
  switch (reason) {
    case 'not_paid':
      return new CoreError('conflict', 'Only a paid sale can be refunded; this one has no payment to give back.', { problem: 'refund_not_paid' });
    case 'refund_open':
      return new CoreError('conflict', 'A refund of this sale is still waiting for the payment service’s answer; wait for it before refunding more.', { problem: 'refund_open' });
    case 'nothing_left':
      return new CoreError('conflict', 'This sale has already been refunded in full; nothing is left to give back.', { problem: 'refund_nothing_left' });
    case 'amount_invalid':
      return new CoreError('invalid_argument', 'The refund amount must be more than R$ 0.00; nothing was sent.', { problem: 'refund_amount_invalid', left_cents: leftCents });
    case 'amount_too_large':
      return new CoreError('invalid_argument', `At most R$ ${left} is left to refund on this sale; nothing was sent.`, { problem: 'refund_amount_too_large', left_cents: leftCents });
    case 'reason_too_long':
      return new CoreError('invalid_argument', `The reason may have at most ${REFUND_REASON_MAX} characters; nothing was sent.`, { problem: 'refund_reason_too_long', max: REFUND_REASON_MAX });
  }
}

/** A definite refusal by the service, in words a supervisor can act on (contract 5: 404, 422). */
function serviceRefusal(err: ServiceError): CoreError {
  if (err.httpStatus === 422 && err.problem === 'validation') {
    return new CoreError('conflict', 'The payment service says less is left to refund on this charge than this app knew: part of it was refunded elsewhere. Nothing was refunded now.', { problem: 'refund_less_left' }, { cause: err });
  }
  if (err.httpStatus === 404) {
    return new CoreError('not_found', 'The payment service does not know this charge, so it cannot refund it. Nothing was refunded.', { problem: 'refund_charge_not_found' }, { cause: err });
  }
  return err;
}

function uncertainReason(err: ServiceError): UncertainReason {
  if (err.kind === 'timeout') return 'timeout';
  if (err.kind === 'network') return 'network';
  return 'server_error';
}
