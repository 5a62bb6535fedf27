import { randomUUID } from 'node:crypto';
import { formatCents, MAX_SALE_CENTS } from '../../shared/money.ts';
import { newIdempotencyKey } from '../api/client.ts';
import { ServiceError } from '../api/errors.ts';
import { CoreError } from '../errors.ts';
import { newestSaleFor, planCharge, planCreateOutcome, planWithdraw, withdrawIfMadeTooLate, type CreateOutcome } from '../sales/checkout.ts';
import type { Sale, UncertainReason } from '../sales/lifecycle.ts';
import { keyOf, planningSales, salesOf, uniqueSales, type CheckoutKey, type TerminalContext } from './context.ts';
import { factData, saleFact } from './entries.ts';
import { STEP, steps } from './steps.ts';

/**
 * Ringing up sales: journals the intent, sends the create (and resends it, with the same
 * Idempotency-Key, when the follow-up loop asks) and journals the outcome. A sale's 201
 * teaches it its ids: `onIdsLearned` lets payment intake tie reports that came first.
 */
export interface ChargeInput extends CheckoutKey {
  amountCents: number;
  externalId?: string;
  by: string;
  shiftId?: string;
}

export class Charging {
  readonly #ctx: TerminalContext;
  readonly #onIdsLearned: (pixId: string, serviceId: string) => Promise<CheckoutKey[]>;
  /** Sales whose create is in flight, so one checkout never has two at once. */
  readonly #creating = new Set<string>();

  constructor(ctx: TerminalContext, onIdsLearned: (pixId: string, serviceId: string) => Promise<CheckoutKey[]>) {
    this.#ctx = ctx;
    this.#onIdsLearned = onIdsLearned;
  }

  /**
   * Journals the intent (and, in the same entry, the displacement of the checkout's unpaid
   * sale: reference 4.5 rule 6, mark it at once), shows it, then asks the service. Resolves
   * once the outcome is journaled; a definite refusal rejects with the service's sentence
   * after it is journaled.
   */
  async charge(input: ChargeInput): Promise<void> {
    const { journal, clock, locks } = this.#ctx;
    steps.since('bridge.in', STEP.toCharge);
    const checkout = { storeId: input.storeId, checkoutId: input.checkoutId };
    const t0 = steps.now();
    const planned = await locks.exclusive(keyOf(checkout), async () => {
      const sales = await planningSales(journal, checkout);
      // planCharge refuses while the newest sale is `requested`; an `uncertain` one whose
      // create the follow-up loop is sending again right now is just as unresolved: the
      // service could make it after this one, and then hold it as the newest (4.5 rule 3).
      const newest = newestSaleFor(sales, input.storeId, input.checkoutId);
      if (newest && this.#creating.has(newest.sale_id)) throw createInFlight();
      const plan = planCharge(sales, {
        sale_id: randomUUID(),
        idempotency_key: newIdempotencyKey(),
        store_id: input.storeId,
        checkout_id: input.checkoutId,
        amount_cents: input.amountCents,
        ...(input.externalId === undefined ? {} : { external_id: input.externalId }),
        requested_by: input.by,
        at: clock.now(),
      });
      if (!plan.ok) {
        if (plan.reason === 'create_in_flight') throw createInFlight();
        throw new CoreError('invalid_argument', `The amount must be more than R$ 0.00 and at most R$ ${formatCents(MAX_SALE_CENTS)}.`, { field: 'amount' });
      }
      const fact = saleFact(plan.events, input.shiftId === undefined ? {} : { shift_id: input.shiftId });
      steps.add(STEP.plan, t0);
      const t1 = steps.now();
      await journal.append([fact]);
      steps.add(STEP.intent, t1);
      steps.mark('charge.intent');
      const saleId = plan.events[0].sale_id;
      return { saleId, displaced: (fact.data.sale_ids as string[]).filter((id) => id !== saleId) };
    });
    this.#ctx.onChange([checkout]);
    const refusal = await this.create(planned.saleId, false, planned.displaced);
    if (refusal) throw refusal;
  }

  /**
   * A person withdraws the checkout's pending sale (journaled as their action before it is
   * shown). The service has no cancel: the sale stays payable until it expires or is
   * displaced, so it is still followed; a payment for it then needs a person (lifecycle).
   */
  async withdraw(input: { saleId: string; by: string }): Promise<CheckoutKey> {
    const { journal, clock, locks } = this.#ctx;
    const row = await journal.sales.get(input.saleId);
    if (!row) throw new CoreError('not_found', 'That sale is not in this terminal’s journal.');
    const checkout = { storeId: row.sale.store_id, checkoutId: row.sale.checkout_id };
    await locks.exclusive(keyOf(checkout), async () => {
      // Read again under the checkout's lock: a payment journaled meanwhile has settled it.
      const sales = await planningSales(journal, checkout);
      const plan = planWithdraw(uniqueSales([...sales, ...salesOf([await journal.sales.get(input.saleId)])]), input.saleId, input.by, clock.now());
      if (!plan.ok) throw new CoreError('conflict', 'Only a sale still waiting for payment can be withdrawn; this one is no longer waiting.');
      await journal.append([saleFact(plan.events, { by: input.by })]);
    });
    this.#ctx.onChange([checkout]);
    return checkout;
  }

  /** Whether the sale's create is in flight right now. */
  isCreating(saleId: string): boolean {
    return this.#creating.has(saleId);
  }

  /**
   * Sends (or resends, with the same Idempotency-Key) a sale's create and journals the
   * outcome. `resumed`: sent again by the follow-up loop, not by the charge that planned it.
   * `displaced`: the sales the charge's own entry displaced, when the charge is the caller
   * (else they are read back from the journal).
   */
  async create(saleId: string, resumed: boolean, displaced?: readonly string[]): Promise<ServiceError | null> {
    const { journal, client, clock, log, locks } = this.#ctx;
    if (this.#creating.has(saleId)) return null;
    this.#creating.add(saleId);
    try {
      const row = await journal.sales.get(saleId);
      if (!row || (row.sale.status !== 'requested' && row.sale.status !== 'uncertain')) return null;
      let sale = row.sale;
      const checkout = { storeId: sale.store_id, checkoutId: sale.checkout_id };
      if (resumed) {
        // The loop planned this retry from an earlier read: checked again under the
        // checkout's lock, so a charge journaled meanwhile is seen. Only the checkout's newest
        // sale may be sent again: were the key ignored, a retry after a newer sale exists
        // would make a sale that displaces the newer one (contract 2).
        const current = await locks.exclusive(keyOf(checkout), async () => {
          const sales = await planningSales(journal, checkout);
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
      if (!resumed) steps.since('charge.intent', STEP.toCreate);
      const t0 = steps.now();
      try {
        const created = await client.createDynamicPix(
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
        if (!resumed) steps.add(STEP.create, t0);
      } catch (err) {
        if (!(err instanceof ServiceError)) throw err;
        log.warn('sale create failed', { saleId, ...err.logFields() });
        attempts = err.attempts;
        if (err.outcome === 'not_created') {
          refusal = err;
          outcome = { kind: 'refused', error: { status: err.httpStatus ?? 0, code: err.problem, ...(typeof err.detail === 'string' ? { detail: err.detail.slice(0, 300) } : {}) } };
        } else {
          outcome = { kind: 'uncertain', reason: uncertainReason(err), attempts: err.attempts };
        }
      }
      const t1 = steps.now();
      const changed = await locks.exclusive(keyOf(checkout), async (): Promise<CheckoutKey[]> => {
        const current = (await journal.sales.get(saleId))?.sale;
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
        const sales = uniqueSales([...(await planningSales(journal, checkout)), ...(await this.#displacedBy(saleId, displaced))]);
        const planned = planCreateOutcome(sales, saleId, outcome, clock.now());
        // One entry: a sale made too late is never pending without its withdrawal, even across a crash.
        const events = outcome.kind === 'created' ? withdrawIfMadeTooLate(current, planned, outcome.created_at, clock.now()) : planned;
        if (events.length > planned.length) log.warn('a resent create made a new sale after its customer had gone; its QR is not shown', { saleId });
        if (events.length > 0) await journal.append([saleFact(events)]);
        return outcome.kind === 'created' ? this.#onIdsLearned(outcome.pix_id, outcome.service_id) : [];
      });
      if (!resumed) {
        steps.add(STEP.outcome, t1);
        steps.mark('charge.outcome');
      }
      this.#ctx.onChange([checkout, ...changed]);
      return refusal;
    } finally {
      this.#creating.delete(saleId);
    }
  }

  /**
   * The sales this one displaced when its intent was journaled (planCharge puts them in the
   * same entry), whatever they became since: its 201 confirms those displacements and its
   * refusal voids them, a sale paid meanwhile included. `known`: those sales' ids, from the
   * charge that journaled the entry (reading the entry back costs a file read a sale).
   */
  async #displacedBy(saleId: string, known: readonly string[] | undefined): Promise<Sale[]> {
    const { journal } = this.#ctx;
    const ids = new Set<string>(known);
    for (const entry of known === undefined ? await journal.eventsForSale(saleId) : []) {
      const data = factData(entry);
      if (!data?.events.some((e) => e.type === 'sale.requested' && e.sale_id === saleId)) continue;
      for (const id of data.sale_ids) if (id !== saleId) ids.add(id);
    }
    return salesOf(await Promise.all([...ids].map((id) => journal.sales.get(id))));
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
