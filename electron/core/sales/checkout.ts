/**
 * Decisions at the level of one printed checkout: what to journal when a sale is asked
 * for, when the service answers, when the clock passes an expiry; what must still be
 * followed; which QR may be shown. Pure: the caller (the terminal) passes the sales from
 * the journal and the time, and journals the events returned; the journal folds them in.
 *
 * THE DISPLACEMENT RULE (reference 3.1 and 4.5 rules 1 and 6; contract 2):
 * - The moment a newer sale's intent is journaled, every unpaid earlier sale of the
 *   checkout is marked displaced (`newer_sale_requested`, provisional). The UI never shows
 *   the earlier QR again: the cashier is correcting the amount, and a payer must not pay the
 *   old one. If the earlier sale is paid meanwhile (it is still the service's newest until
 *   the new create succeeds), the payment lands on a displaced sale: `paid_late`, which
 *   a person must acknowledge — exactly the warning needed ("do not collect twice").
 * - When the service answers 201 for the newer sale, it HAS displaced the earlier one on
 *   its side (reference 3.1): the displacement is confirmed (`newer_sale_created`).
 * - When the newer create is refused for certain (a 4xx, 503 printed_qr_disabled: nothing
 *   was created), the service still holds the earlier sale as pending: its provisional
 *   displacement is voided (`sale.reinstated`) and it is pending again, QR and all, unless
 *   it expired meanwhile. A payment it received meanwhile becomes an ordinary `paid`.
 * - When the newer create's outcome stays unknown (`uncertain`), the newer sale may exist,
 *   so the earlier one stays displaced; the uncertain sale itself is displaced by whatever
 *   is requested next (the rule), and it can still be paid late.
 * - A confirmed displacement is never voided; a later refusal cannot bring a sale back.
 */
import { IDEMPOTENCY_KEY_WINDOW_MS } from '../api/routes/route.ts';
import { MAX_SALE_CENTS } from './amount.ts';
import { activeDisplacements, reduceSale, SALE_LIFETIME_MS } from './lifecycle.ts';
import type {
  CreatedFacts,
  CreateRefusal,
  Sale,
  SaleCreateFailed,
  SaleCreateUncertain,
  SaleCreated,
  SaleDisplaced,
  SaleEvent,
  SaleExpired,
  SaleReinstated,
  SaleRequested,
  SaleWithdrawn,
  UncertainReason,
} from './lifecycle.ts';
import { compareText } from './order.ts';

/**
 * Issue 24: a sale past its expires_at is over only once a Tx Status read made at least this
 * long after expires_at says it was not paid (the last read). A payment made in the last
 * seconds reaches the service's record some seconds later, and the terminal's clock and the
 * service's differ; until that read the sale is *expiring*: no QR, not closed. A payment
 * found after that is still taken (expired + payment = paid, flagged).
 */
export const EXPIRY_GRACE_MS = 60_000;

/** Whether a Tx Status read made `at` is the last read of the sale (see EXPIRY_GRACE_MS). */
export function isLastRead(sale: Sale, at: number): boolean {
  return sale.created !== undefined && at >= sale.created.expires_at + EXPIRY_GRACE_MS;
}

/**
 * Contract 2: the service answers a create sent again with the same Idempotency-Key and body
 * with its first 201 for 24 hours. The follow-up resends an unresolved create within it.
 */
export const CREATE_KEY_WINDOW_MS = IDEMPOTENCY_KEY_WINDOW_MS;

function onCheckout(sales: Iterable<Sale>, storeId: number, checkoutId: number): Sale[] {
  return [...sales]
    .filter((s) => s.store_id === storeId && s.checkout_id === checkoutId)
    .sort((a, b) => a.seq - b.seq || compareText(a.sale_id, b.sale_id));
}

// ---------------------------------------------------------------------------------------
// Asking for a sale.
// ---------------------------------------------------------------------------------------

export interface SaleIntent {
  readonly sale_id: string;
  readonly idempotency_key: string;
  readonly store_id: number;
  readonly checkout_id: number;
  readonly amount_cents: number;
  readonly external_id?: string;
  readonly requested_by: string;
  readonly at: number;
}

export type ChargePlan =
  | { readonly ok: true; readonly events: readonly [SaleRequested, ...(SaleExpired | SaleDisplaced)[]] }
  | {
      readonly ok: false;
      readonly reason: 'invalid_amount' | 'sale_id_taken' | 'create_in_flight';
      /** For create_in_flight: the sale whose create must be resolved first. */
      readonly sale_id?: string;
    };

/**
 * The events to journal, in this order, before the create is sent.
 *
 * Refused while the checkout's newest sale is still `requested` (its create has no outcome
 * yet): with two creates in flight nobody knows which one the service will hold as the
 * newest, and so which one a payment will be credited to (reference 4.5 rule 3). Resolve it
 * first: the idempotent retry, or `uncertain` (see openSales).
 */
export function planCharge(sales: Iterable<Sale>, intent: SaleIntent): ChargePlan {
  // Contract 2: greater than 0, at most 1,000,000.00, and we only ever hold whole cents.
  if (!Number.isSafeInteger(intent.amount_cents) || intent.amount_cents <= 0 || intent.amount_cents > MAX_SALE_CENTS) {
    return { ok: false, reason: 'invalid_amount' };
  }
  const all = [...sales];
  if (all.some((s) => s.sale_id === intent.sale_id)) return { ok: false, reason: 'sale_id_taken', sale_id: intent.sale_id };
  const mine = onCheckout(all, intent.store_id, intent.checkout_id);
  const newest = mine.at(-1);
  if (newest && newest.status === 'requested') return { ok: false, reason: 'create_in_flight', sale_id: newest.sale_id };

  const seq = (newest?.seq ?? 0) + 1;
  const requested: SaleRequested = {
    type: 'sale.requested',
    sale_id: intent.sale_id,
    idempotency_key: intent.idempotency_key,
    store_id: intent.store_id,
    checkout_id: intent.checkout_id,
    seq,
    amount_cents: intent.amount_cents,
    ...(intent.external_id === undefined ? {} : { external_id: intent.external_id }),
    requested_by: intent.requested_by,
    at: intent.at,
  };
  // Reference 8: a sale lives 5 minutes. One past its expires_at when the next is charged has
  // expired at the service, or was paid in its last seconds: the new sale cannot displace
  // it. It stays open (expiring, no QR) until its last Tx Status read (EXPIRY_GRACE_MS); the
  // note `newer_sale` records that the cashier moved on, so a payment that read finds is
  // one a person must see (the customer may be paying the new sale too).
  const pastExpiry = mine.filter((s) => (s.status === 'pending' || s.status === 'withdrawn') && s.created !== undefined && intent.at >= s.created.expires_at);
  const expired: SaleExpired[] = pastExpiry
    .filter((s) => !s.expiries.some((e) => e.source === 'newer_sale'))
    .map((s) => ({ type: 'sale.expired', sale_id: s.sale_id, source: 'newer_sale', at: intent.at }));
  const ended = new Set(pastExpiry.map((s) => s.sale_id));
  const displaced: SaleDisplaced[] = mine.filter((s) => displaceable(s) && !ended.has(s.sale_id)).map((s) => ({
    type: 'sale.displaced',
    sale_id: s.sale_id,
    by: intent.sale_id,
    by_seq: seq,
    evidence: 'newer_sale_requested',
    at: intent.at,
  }));
  return { ok: true, events: [requested, ...expired, ...displaced] };
}

/**
 * Reference 4.5 rule 1: a new sale replaces the UNPAID pending one. Uncertain and unresolved
 * sales may exist at the service, so they are displaced too (the rule). A displaced
 * sale whose displacement is only provisional takes the new displacer as well, so that a
 * late refusal of the intermediate sale cannot bring it back while a newer one exists.
 */
export function displaceable(s: Sale): boolean {
  // A withdrawn sale is still the service's pending one (there is no cancel): displaced alike.
  if (s.status === 'pending' || s.status === 'withdrawn' || s.status === 'uncertain' || s.status === 'requested') return true;
  if (s.status !== 'displaced') return false;
  return activeDisplacements(s).every((d) => d.evidence === 'newer_sale_requested');
}

// ---------------------------------------------------------------------------------------
// The service's answer.
// ---------------------------------------------------------------------------------------

/** The create's outcome, as the API client read it (times as epoch ms). */
export type CreateOutcome =
  /** The 201's facts, exactly what `sale.created` records. */
  | ({ readonly kind: 'created' } & CreatedFacts)
  | { readonly kind: 'refused'; readonly error: CreateRefusal }
  | { readonly kind: 'uncertain'; readonly reason: UncertainReason; readonly attempts: number };

/** The events to journal for a create's outcome (see the displacement rule above). */
export function planCreateOutcome(sales: Iterable<Sale>, saleId: string, outcome: CreateOutcome, at: number): SaleEvent[] {
  const all = [...sales];
  const sale = all.find((s) => s.sale_id === saleId);
  // Earlier sales this one displaced provisionally.
  const affected = sale
    ? onCheckout(all, sale.store_id, sale.checkout_id).filter((s) =>
        s.displacements.some((d) => d.by === saleId && d.evidence === 'newer_sale_requested'),
      )
    : [];
  switch (outcome.kind) {
    case 'created': {
      const { kind: _kind, ...facts } = outcome;
      const created: SaleCreated = { type: 'sale.created', sale_id: saleId, ...facts, at };
      // Reference 3.1: the service displaced the earlier sale when this create succeeded.
      const confirmed: SaleDisplaced[] = affected.map((s) => ({
        type: 'sale.displaced',
        sale_id: s.sale_id,
        by: saleId,
        by_seq: sale?.seq ?? null,
        evidence: 'newer_sale_created',
        at,
      }));
      return [created, ...confirmed];
    }
    case 'refused': {
      const failed: SaleCreateFailed = { type: 'sale.create_failed', sale_id: saleId, error: outcome.error, at };
      // Nothing was created: the service still holds the earlier sale as its pending one.
      const reinstated: SaleReinstated[] = affected.map((s) => ({ type: 'sale.reinstated', sale_id: s.sale_id, by: saleId, at }));
      return [failed, ...reinstated];
    }
    case 'uncertain': {
      const uncertain: SaleCreateUncertain = { type: 'sale.create_uncertain', sale_id: saleId, reason: outcome.reason, attempts: outcome.attempts, at };
      // The newer sale may exist: earlier sales stay displaced.
      return [uncertain];
    }
  }
}

/**
 * What a Tx Status read made `at` says about a sale we follow (contract 3), as events. `paid`
 * is not here: it is a payment report (PaymentReceived, source `tx_status`) and goes through
 * payment intake (matching.ts). Nothing here ends a sale silently:
 * - `expired` ends a pending (or withdrawn) sale only as its last read (EXPIRY_GRACE_MS);
 *   earlier, the caller reads again then.
 * - `not_found` on a sale we hold as pending means the service displaced it for a sale we
 *   did not create (contract 3): a person is told (`displaced_unknown`).
 * - A sale our newer sale displaced is read once (see needsDisplacedRead): `not_found` says
 *   the service displaced it too (a late payment can now come only by webhook), `expired`
 *   that it expired there first; either is journaled so the sale is read no more.
 */
export function planTxStatus(sale: Sale, answer: 'pending' | 'expired' | 'not_found', at: number): SaleEvent[] {
  const open = sale.status === 'pending' || sale.status === 'withdrawn';
  if (answer === 'expired') {
    if (open && !isLastRead(sale, at)) return [];
    if (!open && !needsDisplacedRead(sale)) return [];
    return [{ type: 'sale.expired', sale_id: sale.sale_id, source: 'tx_status', at }];
  }
  if (answer === 'not_found' && open) {
    return [{ type: 'sale.displaced', sale_id: sale.sale_id, by: null, by_seq: null, evidence: 'tx_not_found', at }];
  }
  if (answer === 'not_found' && needsDisplacedRead(sale)) {
    const ours = activeDisplacements(sale).find((d) => d.evidence === 'newer_sale_created');
    return [{ type: 'sale.displaced', sale_id: sale.sale_id, by: ours?.by ?? null, by_seq: ours?.by_seq ?? null, evidence: 'tx_not_found', at }];
  }
  return [];
}

/**
 * A sale our newer sale displaced (its 201 came) is read once by Tx Status: had the customer
 * paid it just before the newer create reached the service, the service did not displace it
 * and answers `paid` (reference 3.1: only an unpaid sale is displaced), which without a
 * webhook (polling only) is the one way to learn of that payment. Not while the newer create
 * is in flight (the sale may still be paid as the newest), nor once a read or a payment
 * answered.
 */
export function needsDisplacedRead(sale: Sale): boolean {
  if (sale.status !== 'displaced' || sale.pix_id === undefined) return false;
  const active = activeDisplacements(sale);
  if (!active.some((d) => d.evidence === 'newer_sale_created')) return false;
  return !active.some((d) => d.evidence === 'tx_not_found') && !sale.expiries.some((e) => e.source === 'tx_status');
}

// ---------------------------------------------------------------------------------------
// Withdrawing a sale.
// ---------------------------------------------------------------------------------------

export type WithdrawPlan =
  | { readonly ok: true; readonly events: readonly [SaleWithdrawn] }
  | { readonly ok: false; readonly reason: 'unknown_sale' | 'not_pending' };

/**
 * A person withdraws a pending sale. The service has no cancel (reference 4.5): the sale
 * stays payable until it expires or is displaced, so it is not ended here, only marked; the
 * screen stops showing its QR (checkoutScreen) and a payment for it needs a person.
 */
/** The name under which the app journals a withdrawal of its own (never a person's). */
export const APP_WITHDRAWER = 'Pix cashier';

/**
 * The events that journal a create's 201, and the app's own withdrawal when the sale it names
 * was made after this sale's 5-minute life had passed. A 201 that replays the first attempt
 * carries that attempt's created_at; a later one means the first attempt never reached the
 * service (or the service ignored the key, contract 2) and the resend made a new, payable
 * sale for a customer who has long gone: its QR is never shown, and a payment of it needs a
 * person (a payment of a withdrawn sale). `events` are those planCreateOutcome made.
 */
export function withdrawIfMadeTooLate(sale: Sale, events: readonly SaleEvent[], createdAt: number, at: number): SaleEvent[] {
  if (createdAt <= sale.requested_at + SALE_LIFETIME_MS || !events.some((e) => e.type === 'sale.created' && e.sale_id === sale.sale_id)) return [...events];
  let after: Sale | undefined = sale;
  for (const e of events) if ('sale_id' in e && e.sale_id === sale.sale_id) after = reduceSale(after, e);
  const plan = after ? planWithdraw([after], sale.sale_id, APP_WITHDRAWER, at) : null;
  return plan?.ok ? [...events, ...plan.events] : [...events];
}

export function planWithdraw(sales: Iterable<Sale>, saleId: string, by: string, at: number): WithdrawPlan {
  const sale = [...sales].find((s) => s.sale_id === saleId);
  if (!sale) return { ok: false, reason: 'unknown_sale' };
  if (sale.status !== 'pending') return { ok: false, reason: 'not_pending' };
  return { ok: true, events: [{ type: 'sale.withdrawn', sale_id: saleId, by, at }] };
}

// ---------------------------------------------------------------------------------------
// What must still be followed.
// ---------------------------------------------------------------------------------------

export type FollowUp =
  /** Poll Tx Status by pix_id until paid or expired. */
  | { readonly sale_id: string; readonly how: 'tx_status'; readonly pix_id: string }
  /** Send the create again with the SAME Idempotency-Key and body (contract 2). */
  | { readonly sale_id: string; readonly how: 'retry_create'; readonly idempotency_key: string }
  /** The create can no longer be retried safely: journal `sale.create_uncertain`. */
  | { readonly sale_id: string; readonly how: 'mark_uncertain' }
  /** Nothing to poll: only a webhook (or a person) can still tell. */
  | { readonly sale_id: string; readonly how: 'webhook_only' };

/**
 * The sales that are not settled yet, and how each is followed.
 *
 * - pending, withdrawn: Tx Status by pix_id, past expires_at too, until paid or the last
 *   read (EXPIRY_GRACE_MS) says it expired.
 * - requested (after a crash, or while in flight), uncertain: retried with the same
 *   Idempotency-Key while the sale is still the checkout's newest and its key is inside the
 *   service's 24 hours (contract 2): however long the core was down, the retry replays the
 *   service's record of the create (its 201), so the sale learns its ids and its payment
 *   reaches it. A retry after a newer sale exists would, if the service ignores the key,
 *   create a sale that displaces the newer one (contract 2). Past the key's window a retry
 *   could only make a new sale: a requested sale becomes uncertain.
 * - displaced: read once by Tx Status after our newer sale's 201 (needsDisplacedRead: a
 *   payment made just before it), then not polled — Tx Status answers TX not found for it
 *   forever (contract 3). A late payment still reaches us: the `charge.paid` webhook
 *   carries the displaced sale's own pix_id and service_id (contract 4), and we keep those
 *   ids on the displaced sale, so matchPayment finds it. A late payment for an uncertain sale whose ids we never learned
 *   is kept apart (payment intake) for a person.
 * Final states (paid, amount_mismatch, paid_late, expired, failed) are not listed.
 */
export function openSales(sales: Iterable<Sale>, nowMs: number): FollowUp[] {
  const all = [...sales];
  const newestOf = new Map<string, Sale>();
  for (const s of all) {
    if (s.status === 'failed') continue;
    const k = `${s.store_id}/${s.checkout_id}`;
    const n = newestOf.get(k);
    if (!n || s.seq > n.seq) newestOf.set(k, s);
  }
  const out: FollowUp[] = [];
  for (const s of all) {
    const isNewest = newestOf.get(`${s.store_id}/${s.checkout_id}`) === s;
    const retryable = isNewest && nowMs < s.requested_at + CREATE_KEY_WINDOW_MS;
    switch (s.status) {
      case 'pending':
      case 'withdrawn':
        // A withdrawn sale can still be paid (no cancel at the service): followed to its end.
        if (s.pix_id !== undefined) out.push({ sale_id: s.sale_id, how: 'tx_status', pix_id: s.pix_id });
        break;
      case 'requested':
        out.push(retryable ? { sale_id: s.sale_id, how: 'retry_create', idempotency_key: s.idempotency_key } : { sale_id: s.sale_id, how: 'mark_uncertain' });
        break;
      case 'uncertain':
        out.push(retryable ? { sale_id: s.sale_id, how: 'retry_create', idempotency_key: s.idempotency_key } : { sale_id: s.sale_id, how: 'webhook_only' });
        break;
      case 'displaced':
        out.push(needsDisplacedRead(s) && s.pix_id !== undefined ? { sale_id: s.sale_id, how: 'tx_status', pix_id: s.pix_id } : { sale_id: s.sale_id, how: 'webhook_only' });
        break;
      default:
        break;
    }
  }
  return out.sort((a, b) => compareText(a.sale_id, b.sale_id));
}

// ---------------------------------------------------------------------------------------
// What the screen shows.
// ---------------------------------------------------------------------------------------

/**
 * The checkout's newest sale: the one every QR of the checkout charges (reference 4.5
 * rules 2 and 3). A refused create made nothing at the service, so it does not count.
 */
export function newestSaleFor(sales: Iterable<Sale>, storeId: number, checkoutId: number): Sale | undefined {
  return onCheckout(sales, storeId, checkoutId)
    .filter((s) => s.status !== 'failed')
    .at(-1);
}

export type CheckoutScreen =
  | { readonly kind: 'idle' }
  /** The only QR that may be on screen (reference 4.5 rule 6: show only the newest returned QR). */
  | { readonly kind: 'qr'; readonly sale_id: string; readonly emv: string; readonly amount_cents: number; readonly expires_at: number }
  | { readonly kind: 'creating'; readonly sale_id: string }
  /** No QR: the sale may or may not exist at the service. */
  | { readonly kind: 'uncertain'; readonly sale_id: string }
  /** No QR: past its expires_at, waiting for its last Tx Status read (EXPIRY_GRACE_MS). */
  | { readonly kind: 'expiring'; readonly sale_id: string; readonly amount_cents: number; readonly expires_at: number }
  /** The newest sale is over (paid, expired, displaced by something we did not create...). */
  | { readonly kind: 'settled'; readonly sale_id: string; readonly status: Sale['status'] };

/**
 * What the checkout's screen may show. A QR only for the newest sale, only while it is
 * pending and not past its expiry: never a displaced or uncertain sale's QR, never an older
 * `emv` (it charges the newest sale whatever amount its text shows, reference 4.5 rule 2).
 */
export function checkoutScreen(sales: Iterable<Sale>, storeId: number, checkoutId: number, nowMs: number): CheckoutScreen {
  const newest = newestSaleFor(sales, storeId, checkoutId);
  if (!newest) return { kind: 'idle' };
  switch (newest.status) {
    case 'requested':
      return { kind: 'creating', sale_id: newest.sale_id };
    case 'uncertain':
      return { kind: 'uncertain', sale_id: newest.sale_id };
    case 'pending':
      if (newest.created && newest.display_emv !== undefined && nowMs <= newest.created.expires_at) {
        return { kind: 'qr', sale_id: newest.sale_id, emv: newest.display_emv, amount_cents: newest.amount_cents, expires_at: newest.created.expires_at };
      }
      // Issue 24: past expires_at the sale is checked, not closed; its QR would invite a
      // payment the service may refuse, or a second one (EXPIRY_GRACE_MS).
      if (newest.created) return { kind: 'expiring', sale_id: newest.sale_id, amount_cents: newest.amount_cents, expires_at: newest.created.expires_at };
      return { kind: 'settled', sale_id: newest.sale_id, status: 'expired' };
    default:
      return { kind: 'settled', sale_id: newest.sale_id, status: newest.status };
  }
}
