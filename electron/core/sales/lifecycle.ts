/**
 * The sale lifecycle of a printed checkout, as a pure projection of journaled events.
 *
 * A Sale is not a mutable state machine driven in arrival order: it is the set of facts
 * the journal holds about one sale (the intent, the service's answer, displacements,
 * expiries, payments, acknowledgements), and its `status` is derived from those facts by
 * one rule (`settle`). Every fact is merged commutatively and idempotently, so webhooks
 * delivered twice or out of order (contract 4), a Tx Status answer racing a webhook, or a
 * replay after a crash all give the same Sale as the ordered, de-duplicated history.
 *
 *   requested ──created──▶ pending ──payment (equal)──▶ paid
 *       │                    │  └────payment (other)──▶ amount_mismatch
 *       │                    ├──expired (Tx Status, read 60 s past expires_at)──▶ expired ──payment──▶ paid (flagged)
 *       │                    │    (past expires_at until then: still pending, "expiring", no QR)
 *       │                    ├──newer sale on the checkout──▶ displaced ──payment──▶ paid_late
 *       │                    └──withdrawn by a person──▶ withdrawn ──payment──▶ paid_late
 *       │                          (still payable: expires or is displaced like a pending sale)
 *       │                       paid, amount_mismatch, paid_late ──Tx Status refunded──▶ refunded
 *       │                       paid, amount_mismatch, paid_late ──refund made (part)──▶ partly_refunded ──(rest)──▶ refunded
 *       ├──definite refusal──▶ failed
 *       └──timeout, retry could not resolve──▶ uncertain ──newer sale──▶ displaced
 *
 * No I/O, no clock: time arrives inside events (epoch ms). Money is integer cents.
 */
import { wireBrlCents } from '../../shared/money.ts';
import { compareAmount } from './amount.ts';
import type { AmountComparison } from './amount.ts';
import { canonicalMin, compareText, sameCanonical, minDefined, pickDefined, sortedUnique, upsert } from './order.ts';

/** Reference 8: a printed sale lives 5 minutes. */
export const SALE_LIFETIME_MS = 5 * 60_000;

export type SaleStatus =
  | 'requested'
  | 'pending'
  | 'paid'
  | 'amount_mismatch'
  | 'expired'
  | 'displaced'
  | 'withdrawn'
  | 'paid_late'
  | 'refunded'
  | 'uncertain'
  | 'failed'
  | 'partly_refunded';

export const SALE_STATUSES: readonly SaleStatus[] = [
  'requested',
  'pending',
  'paid',
  'amount_mismatch',
  'expired',
  'displaced',
  'withdrawn',
  'paid_late',
  'refunded',
  'uncertain',
  'failed',
  'partly_refunded',
];

/** Reference 4.5: always branch on qr_type; a printed checkout can still answer `dynamic`. */
export type QrType = 'printed_dynamic' | 'dynamic';

/** A create the service refused for certain: nothing was created (ServiceError outcome `not_created`). */
export interface CreateRefusal {
  readonly status: number;
  /** A stable identifier chosen by the API client (e.g. `no_printed_qr`, `printed_qr_disabled`). */
  readonly code: string;
  readonly detail?: string;
}

/** Why a create's outcome stayed unknown after its idempotent retries. */
export type UncertainReason = 'timeout' | 'server_error' | 'network' | 'interrupted';

/**
 * `newer_sale_requested`: provisional, journaled the moment the newer sale's intent is.
 * `newer_sale_created`: the service answered 201 for the newer sale, so it displaced this one
 * on its side (reference 3.1). `tx_not_found`: Tx Status no longer knows a sale we hold as
 * pending (contract 3), so something we did not create displaced it.
 */
export type DisplacementEvidence = 'newer_sale_requested' | 'newer_sale_created' | 'tx_not_found';

/**
 * `tx_status`: the last Tx Status read, made at least a minute past expires_at, says it was
 * not paid: the sale is over. `clock`: journaled by earlier versions when the clock alone
 * passed the expiry; it ends the sale the same way. `newer_sale`: the next sale was charged
 * on the checkout after this one's expires_at; it ends nothing (the last read decides), it
 * records that the cashier moved on, so a payment found afterwards is for a person.
 */
export type ExpirySource = 'clock' | 'tx_status' | 'newer_sale';
export type PaymentSource = 'webhook' | 'tx_status';

// ---------------------------------------------------------------------------------------
// Events: the payloads of journal entries.
// ---------------------------------------------------------------------------------------

/** The sale's intent, journaled BEFORE the create is sent: from here on it cannot be lost. */
export interface SaleRequested {
  readonly type: 'sale.requested';
  readonly sale_id: string;
  readonly idempotency_key: string;
  readonly store_id: number;
  readonly checkout_id: number;
  /** Position among the checkout's sales; the highest is the newest (see planCharge). */
  readonly seq: number;
  readonly amount_cents: number;
  readonly external_id?: string;
  readonly requested_by: string;
  readonly at: number;
}

/** The service answered 201. Datetimes already read into epoch ms by the API client. */
export interface SaleCreated {
  readonly type: 'sale.created';
  readonly sale_id: string;
  readonly pix_id: string;
  readonly service_id: string;
  readonly operation_id?: string;
  readonly qr_type: QrType;
  readonly emv: string;
  /** printed_dynamic_qr_data.pqr_emv; null when the gateway fell back to `dynamic`. */
  readonly pqr_emv: string | null;
  /** The amount the service echoes back, as received. */
  readonly amount_brl?: string | number;
  readonly store_id?: number;
  readonly checkout_id?: number;
  readonly created_at: number;
  readonly expires_at: number;
  readonly at: number;
}

export interface SaleCreateFailed {
  readonly type: 'sale.create_failed';
  readonly sale_id: string;
  readonly error: CreateRefusal;
  readonly at: number;
}

export interface SaleCreateUncertain {
  readonly type: 'sale.create_uncertain';
  readonly sale_id: string;
  readonly reason: UncertainReason;
  readonly attempts: number;
  readonly at: number;
}

export interface SaleDisplaced {
  readonly type: 'sale.displaced';
  readonly sale_id: string;
  /** The newer sale; null when Tx Status says TX not found and we know no newer sale. */
  readonly by: string | null;
  readonly by_seq: number | null;
  readonly evidence: DisplacementEvidence;
  readonly at: number;
}

/** The newer sale `by` was refused for certain, so its provisional displacement of this one is void. */
export interface SaleReinstated {
  readonly type: 'sale.reinstated';
  readonly sale_id: string;
  readonly by: string;
  readonly at: number;
}

export interface SaleExpired {
  readonly type: 'sale.expired';
  readonly sale_id: string;
  readonly source: ExpirySource;
  readonly at: number;
}

/** A person has seen what needed a person (`attention` of the sale) and acted on it. */
export interface SaleAcknowledged {
  readonly type: 'sale.acknowledged';
  readonly sale_id: string;
  readonly reason: AttentionReason;
  /** The attention item's subject ('' for the sale's main payment, a payment key for an extra one). */
  readonly subject: string;
  readonly by: string;
  readonly at: number;
}

/**
 * A person withdrew a pending sale: the service has no cancel (reference 4.5), so the sale
 * stays payable at the service until it expires or is displaced; from here on no QR of it is
 * shown, and a payment that still arrives is a late payment a person must settle.
 */
export interface SaleWithdrawn {
  readonly type: 'sale.withdrawn';
  readonly sale_id: string;
  readonly by: string;
  readonly at: number;
}

/**
 * A payment reported by the `charge.paid` webhook or by Tx Status `paid`. It names no sale:
 * the terminal matches it by pix_id or service_id (matching.ts, reference 4.5 rule 6).
 */
export interface PaymentReceived {
  readonly type: 'payment.received';
  readonly source: PaymentSource;
  readonly webhook_id?: string;
  readonly pix_id?: string;
  readonly service_id?: string;
  readonly external_id?: string | null;
  /** As received: a decimal string, or a JSON number (contract, wire conventions). */
  readonly amount_brl: string | number;
  readonly paid_at?: number | null;
  readonly e2e_id?: string | null;
  /**
   * Tx Status answered `refunded` (contract 3): the charge was paid, then refunded in full
   * (the sandbox README: only a full refund reads `refunded`). The money went back.
   */
  readonly refunded?: boolean;
  readonly at: number;
}

/** The per-charge `charge.done` webhook (contract 4). Proof the charge was paid and completed. */
export interface ChargeDone {
  readonly type: 'charge.done';
  readonly webhook_id?: string;
  readonly pix_id?: string;
  readonly service_id?: string;
  readonly external_id?: string | null;
  readonly amount_brl: string | number;
  readonly settlement_id?: number | null;
  readonly at: number;
}

/**
 * A settlement included this sale (reference 4.7, 6.1): its charge (`line: 'charge'`), or a
 * refund deduction of it (`line: 'refund'`), usually in a later settlement. Journaled with
 * the settlement's reconciliation; it changes no status ("paid" is not "settled"), it is
 * what the sale learns of where its money went.
 */
export interface SaleSettled {
  readonly type: 'sale.settled';
  readonly sale_id: string;
  readonly settlement_id: number;
  readonly line: 'charge' | 'refund';
  /** The service's settled_at, epoch ms; null while the settlement has none. */
  readonly settled_at: number | null;
  readonly at: number;
}

// --- refunds (contract 5) ------------------------------------------------------------------

/**
 * A supervisor's refund of a paid sale, journaled with its Idempotency-Key BEFORE the
 * request is first sent: from here on it cannot be lost, and every attempt carries that key.
 */
export interface RefundRequested {
  readonly type: 'refund.requested';
  readonly sale_id: string;
  readonly refund_id: string;
  readonly idempotency_key: string;
  readonly amount_cents: number;
  readonly reason?: string;
  readonly requested_by: string;
  readonly at: number;
}

/**
 * The service answered 201 (contract 5), or, for a refund whose answer was lost, Tx Status
 * read `refunded` when it asked for all that was left (contract 3), or a supervisor said
 * "It was refunded" (`confirmed_by`): then the ids are null.
 */
export interface RefundMade {
  readonly type: 'refund.made';
  readonly sale_id: string;
  readonly refund_id: string;
  readonly pay_in_refund_request_id: string | null;
  readonly service_refund_id: string | null;
  readonly refunded_cents: number;
  /** The supervisor who checked and said the refund was made (no answer of the service said so). */
  readonly confirmed_by?: string;
  readonly at: number;
}

/** A definite refusal: nothing was refunded. */
export interface RefundRefused {
  readonly type: 'refund.refused';
  readonly sale_id: string;
  readonly refund_id: string;
  readonly error: CreateRefusal;
  readonly at: number;
}

/** No definite answer (timeout, 5xx, connection lost, a crash): followed up, never forgotten. */
export interface RefundUncertain {
  readonly type: 'refund.uncertain';
  readonly sale_id: string;
  readonly refund_id: string;
  readonly reason: UncertainReason;
  readonly attempts: number;
  readonly at: number;
}

/**
 * The follow-up may not ask again by itself (the provider is not known to honour refund keys,
 * or the key's window has passed; api/routes.ts REFUND_KEYS): a person decides. Until one
 * does, the refund is **Refund not confirmed** on every supervisor's list.
 */
export interface RefundUnconfirmed {
  readonly type: 'refund.unconfirmed';
  readonly sale_id: string;
  readonly refund_id: string;
  readonly reason: 'keys_not_honoured' | 'key_expired';
  readonly at: number;
}

/**
 * A supervisor checked and found the refund was not made, and sends it again under a NEW
 * Idempotency-Key, in their name: the refund is asked for once more, as at its first attempt.
 */
export interface RefundResent {
  readonly type: 'refund.resent';
  readonly sale_id: string;
  readonly refund_id: string;
  readonly idempotency_key: string;
  readonly by: string;
  readonly at: number;
}

export type RefundEvent = RefundRequested | RefundMade | RefundRefused | RefundUncertain | RefundUnconfirmed | RefundResent;
export const REFUND_EVENT_TYPES: readonly RefundEvent['type'][] = ['refund.requested', 'refund.made', 'refund.refused', 'refund.uncertain', 'refund.unconfirmed', 'refund.resent'];

export type RefundState = 'requested' | 'uncertain' | 'unconfirmed' | 'made' | 'refused';

/** One refund of the sale as the journal knows it. */
export interface RefundFact {
  readonly refund_id: string;
  readonly idempotency_key: string;
  readonly amount_cents: number;
  readonly reason?: string;
  readonly requested_by: string;
  readonly requested_at: number;
  /** When `idempotency_key` was first sent (the request, or the last Send again): its window starts here. */
  readonly key_at: number;
  /**
   * made and refused are final; requested/uncertain are open (the follow-up resolves them);
   * unconfirmed is open and waits for a supervisor.
   */
  readonly state: RefundState;
  readonly made?: {
    readonly pay_in_refund_request_id: string | null;
    readonly service_refund_id: string | null;
    readonly refunded_cents: number;
    readonly at: number;
    readonly confirmed_by?: string;
  };
  readonly error?: CreateRefusal;
  readonly uncertain?: { readonly reason: UncertainReason; readonly attempts: number; readonly at: number };
  readonly unconfirmed?: { readonly reason: RefundUnconfirmed['reason']; readonly at: number };
  /** Each supervisor's Send again, oldest first. */
  readonly resent?: readonly { readonly by: string; readonly at: number }[];
}

export type SaleEvent =
  | RefundEvent
  | SaleRequested
  | SaleCreated
  | SaleCreateFailed
  | SaleCreateUncertain
  | SaleDisplaced
  | SaleReinstated
  | SaleExpired
  | SaleAcknowledged
  | SaleWithdrawn
  | PaymentReceived
  | ChargeDone
  | SaleSettled;

export type SaleEventType = SaleEvent['type'];

export type PaymentReport = PaymentReceived | ChargeDone;

// ---------------------------------------------------------------------------------------
// The Sale record.
// ---------------------------------------------------------------------------------------

export interface CreatedFacts {
  readonly pix_id: string;
  readonly service_id: string;
  readonly operation_id?: string;
  readonly qr_type: QrType;
  readonly emv: string;
  readonly pqr_emv: string | null;
  readonly amount_brl?: string | number;
  readonly store_id?: number;
  readonly checkout_id?: number;
  readonly created_at: number;
  readonly expires_at: number;
}

export interface Displacement {
  readonly by: string | null;
  readonly by_seq: number | null;
  readonly evidence: DisplacementEvidence;
  readonly at: number;
}

export interface Expiry {
  readonly source: ExpirySource;
  readonly at: number;
}

export interface Payment {
  /** Identity of the payment across sources and retries (see paymentKey). */
  readonly key: string;
  readonly pix_id?: string;
  readonly service_id?: string;
  readonly external_id?: string;
  readonly amount_brl: string | number;
  readonly received_cents: number | null;
  /** Every amount any report of this payment carried, as text; more than one value in cents is a conflict. */
  readonly reported_amounts: readonly string[];
  readonly paid_at: number | null;
  readonly e2e_id: string | null;
  readonly sources: readonly PaymentSource[];
  readonly webhook_ids: readonly string[];
  readonly first_seen_at: number;
  /** Some report of it (Tx Status) says the charge was refunded: the money is not the store's. */
  readonly refunded: boolean;
  /** Set when a person, not the ids, tied this payment to the sale. */
  readonly attributed?: { readonly by: string; readonly at: number };
}

export interface ChargeDoneFact {
  /** doneKey of the report: one charge, whatever the retries. */
  readonly key: string;
  readonly pix_id?: string;
  readonly service_id?: string;
  readonly amount_brl: string | number;
  readonly received_cents: number | null;
  readonly settlement_id: number | null;
  readonly webhook_ids: readonly string[];
  readonly first_seen_at: number;
  readonly attributed?: { readonly by: string; readonly at: number };
}

/** The payment that decides the sale's status. */
export interface PaidSummary {
  /** The payment's key, or the charge.done's key when only charge.done has told us so far. */
  readonly payment_key: string;
  readonly implied_by_done: boolean;
  readonly amount_brl: string | number;
  readonly received_cents: number | null;
  readonly expected_cents: number;
  readonly amount_check: AmountComparison;
  readonly paid_at: number | null;
  readonly e2e_id: string | null;
}

export type AttentionReason =
  | 'amount_mismatch'
  | 'paid_late'
  | 'paid_withdrawn'
  | 'paid_after_expiry'
  | 'extra_payment'
  | 'displaced_unknown'
  | 'conflict'
  /** A refund whose outcome is unknown and that may not be asked again by itself: a supervisor answers it (subject: refund_id). */
  | 'refund_not_confirmed';

/** Every attention reason, for the tests that each has its words in every language. */
export const ATTENTION_REASONS = [
  'amount_mismatch',
  'paid_late',
  'paid_withdrawn',
  'paid_after_expiry',
  'extra_payment',
  'displaced_unknown',
  'conflict',
  'refund_not_confirmed',
] as const satisfies readonly AttentionReason[];

/**
 * Reasons a supervisor answers with an action of their own, never a plain acknowledgement
 * (a refund not confirmed: It was refunded, or Send again).
 */
export const ANSWERED_NOT_ACKNOWLEDGED: readonly AttentionReason[] = ['refund_not_confirmed'];

/** Something a person must see and acknowledge. `subject` tells two items of one reason apart. */
export interface Attention {
  readonly reason: AttentionReason;
  readonly subject: string;
}

export interface Acknowledgement {
  readonly reason: AttentionReason;
  readonly subject: string;
  readonly by: string;
  readonly at: number;
}

export type SaleIssueCode =
  | 'conflicting_request'
  | 'conflicting_create'
  | 'created_and_refused'
  | 'paid_but_refused'
  | 'created_amount_differs'
  | 'created_location_differs'
  | 'payment_amounts_disagree'
  | 'payment_ids_differ'
  | 'done_amount_differs';

/** Every contradiction code, for the tests that each has a sentence in every language. */
export const SALE_ISSUE_CODES = [
  'conflicting_request',
  'conflicting_create',
  'created_and_refused',
  'paid_but_refused',
  'created_amount_differs',
  'created_location_differs',
  'payment_amounts_disagree',
  'payment_ids_differ',
  'done_amount_differs',
] as const satisfies readonly SaleIssueCode[];

// A code missing from the lists above is a type error.
export const _allListed: [Exclude<AttentionReason, (typeof ATTENTION_REASONS)[number]> | Exclude<SaleIssueCode, (typeof SALE_ISSUE_CODES)[number]>] extends [never] ? true : false = true;

/** Facts that contradict each other: kept and shown to a person, never resolved silently. */
export interface SaleIssue {
  readonly code: SaleIssueCode;
  readonly detail: string;
}

export interface Sale {
  /** Local id, assigned when the intent is journaled. */
  readonly sale_id: string;
  readonly idempotency_key: string;
  readonly store_id: number;
  readonly checkout_id: number;
  readonly seq: number;
  /** What the customer owes, in integer cents. */
  readonly amount_cents: number;
  readonly external_id?: string;
  readonly requested_at: number;
  readonly requested_by: string;

  /** Derived from the facts below by `settle`; never set directly. */
  readonly status: SaleStatus;

  /**
   * The sale's identity at the service, from its 201 only. A payment a person tied to the
   * sale does not teach it ids: the 201 may still arrive, and an identity that could change
   * would make matching depend on the order events came in.
   */
  readonly pix_id?: string;
  readonly service_id?: string;
  readonly created?: CreatedFacts;
  /** The QR this sale may show while it is the newest and pending (see displayEmv). */
  readonly display_emv?: string;
  readonly create_error?: CreateRefusal;
  readonly uncertain?: { readonly reason: UncertainReason; readonly attempts: number; readonly at: number };

  readonly displacements: readonly Displacement[];
  /** Newer sales whose provisional displacement of this one was voided by their refusal. */
  readonly reinstated_from: readonly string[];
  /** The active displacer: a newer sale id, or null when only Tx Status' TX not found says so. */
  readonly displaced_by?: string | null;

  readonly expiries: readonly Expiry[];
  /** Who withdrew the sale and when (the first withdrawal stands); absent while not withdrawn. */
  readonly withdrawn?: { readonly by: string; readonly at: number };

  /**
   * The payment reports as merged: one per e2e_id, and one for every report that carries
   * none (see paymentKey). The facts `payments` is derived from.
   */
  readonly payment_reports: readonly Payment[];
  /** The sale's payments, derived by `settle` from payment_reports (see paymentsOf). */
  readonly payments: readonly Payment[];
  /** charge.done reports, one per charge (normally one: this sale's). */
  readonly dones: readonly ChargeDoneFact[];
  readonly paid?: PaidSummary;
  /** Every webhook-id seen for this sale (payments and charge.done). */
  readonly webhook_ids: readonly string[];

  readonly acknowledgements: readonly Acknowledgement[];
  /** What still needs a person: derived, minus what was acknowledged. */
  readonly attention: readonly Attention[];
  readonly issues: readonly SaleIssue[];
  /** Contradicting facts that were refused rather than stored (the first fact stands). */
  readonly conflicts: readonly SaleIssue[];
  /** Refunds asked for in this app, in the order asked (absent on sales journaled before refunds existed). */
  readonly refunds?: readonly RefundFact[];
  /** The settlements that included this sale's charge or a refund of it (absent until one did). */
  readonly settlements?: readonly SettlementFact[];
}

/** A settlement line that names the sale (see SaleSettled); one per line and settlement. */
export interface SettlementFact {
  readonly settlement_id: number;
  readonly line: 'charge' | 'refund';
  readonly settled_at: number | null;
  /** When this journal first learnt it. */
  readonly at: number;
}

// ---------------------------------------------------------------------------------------
// Identity of reports.
// ---------------------------------------------------------------------------------------

/**
 * A payment of a sale, whatever reported it. A sale is paid once (reference 4.5: the
 * charge for one payer), so every report tied to a sale is its one payment, except that
 * two reports carrying different e2e_ids name two Pix transactions: a real second payment.
 * A report without an e2e_id (a webhook may lack it, contract 4) is therefore the sale's
 * payment, never a payment of its own: `paymentsOf` folds it into the sale's first one.
 */
export function paymentKey(report: Pick<PaymentReceived, 'e2e_id'>): string {
  return report.e2e_id ? `e2e:${report.e2e_id}` : UNNAMED_PAYMENT;
}

/** The key of the reports that name no e2e_id: the sale's payment, whichever it is. */
export const UNNAMED_PAYMENT = 'payment';

/**
 * Whether two reports of one sale are the same payment (see paymentKey): yes unless both
 * carry an e2e_id and they differ.
 */
export function samePayment(a: Pick<PaymentReceived, 'e2e_id'>, b: Pick<PaymentReceived, 'e2e_id'>): boolean {
  return !a.e2e_id || !b.e2e_id || a.e2e_id === b.e2e_id;
}

/**
 * A report before it is tied to a sale (kept apart, or re-delivered while apart): the
 * e2e_id, else the webhook-id (identical on every retry, contract 4), else its ids and
 * paid_at, so a poll that keeps answering the same is kept apart once.
 */
export function unmatchedPaymentKey(report: PaymentReceived): string {
  if (report.e2e_id) return `e2e:${report.e2e_id}`;
  if (report.webhook_id) return `webhook:${report.webhook_id}`;
  return `${report.source}:${report.pix_id ?? ''}:${report.service_id ?? ''}:${report.paid_at ?? ''}`;
}

/** A charge completes once: its ids identify the charge.done report across retries. */
export function doneKey(report: ChargeDone): string {
  if (report.pix_id || report.service_id) return `done:${report.pix_id ?? ''}:${report.service_id ?? ''}`;
  return `done:webhook:${report.webhook_id ?? ''}`;
}

/** A report's identity while no sale holds it (unmatched lists, a person's attribution). */
export function reportKey(report: PaymentReport): string {
  return report.type === 'payment.received' ? unmatchedPaymentKey(report) : doneKey(report);
}

// ---------------------------------------------------------------------------------------
// The reducer.
// ---------------------------------------------------------------------------------------

/**
 * Why an event did not fit the sale's state. The event is still recorded when it carries a
 * fact (a payment above all: money is never dropped); the code is reported to the caller,
 * who journals or logs it.
 */
export type IllegalCode =
  | 'unknown_sale'
  | 'wrong_sale'
  | 'identity_mismatch'
  | 'requested_twice'
  | 'created_twice'
  | 'created_after_refusal'
  | 'refused_after_created'
  | 'refused_after_payment'
  | 'uncertain_after_outcome'
  | 'displaced_in_flight'
  | 'displaced_after_payment'
  | 'displaced_after_expiry'
  | 'displaced_refused_sale'
  | 'reinstated_without_displacement'
  | 'expired_while_displaced'
  | 'expired_after_payment'
  | 'expired_before_created'
  | 'withdrawn_not_pending'
  | 'payment_on_refused_sale'
  | 'nothing_to_acknowledge';

export interface StepReport {
  /** applied: the record changed; duplicate: it already held this; rejected: the event is not this sale's. */
  readonly effect: 'applied' | 'duplicate' | 'rejected';
  readonly from: SaleStatus | null;
  readonly to: SaleStatus | null;
  readonly illegal: IllegalCode | null;
}

export interface SaleStep {
  readonly sale: Sale | undefined;
  readonly report: StepReport;
}

/** Pure reducer: the sale after the event. See applySaleEvent for the report of what happened. */
export function reduceSale(sale: Sale | undefined, event: SaleEvent): Sale | undefined {
  return applySaleEvent(sale, event).sale;
}

/**
 * Applies one event to one sale and says what happened.
 *
 * A payment or charge.done given here is taken as this sale's: the terminal (matching.ts) only
 * hands one over when its pix_id or service_id matched, or when a person tied it to the
 * sale. A payment whose ids contradict the sale's identity is rejected, so the caller keeps
 * it as unmatched.
 */
export function applySaleEvent(sale: Sale | undefined, event: SaleEvent): SaleStep {
  return apply(sale, event, undefined);
}

/** A person's decision that a payment belongs to a sale (see PaymentAttributed in matching.ts). */
export interface AttributionNote {
  readonly by: string;
  readonly at: number;
}

/** applySaleEvent for a report a person tied to the sale: the identity check gives way to them. */
export function applyAttributedReport(sale: Sale, report: PaymentReport, attribution: AttributionNote): SaleStep {
  return apply(sale, report, attribution);
}

function apply(sale: Sale | undefined, event: SaleEvent, attribution: AttributionNote | undefined): SaleStep {
  if (sale === undefined) {
    if (event.type !== 'sale.requested') return reject(null, 'unknown_sale');
    const created = settle(fromRequest(event));
    return { sale: created, report: { effect: 'applied', from: null, to: created.status, illegal: null } };
  }
  const from = sale.status;
  if ('sale_id' in event && event.sale_id !== sale.sale_id) return { sale, report: rejected(from, 'wrong_sale') };
  if ((event.type === 'payment.received' || event.type === 'charge.done') && !attribution && contradictsIdentity(sale, event)) {
    return { sale, report: rejected(from, 'identity_mismatch') };
  }

  const next = settle(merge(sale, event, attribution));
  const changed = !sameCanonical(next, sale);
  return {
    sale: changed ? next : sale,
    report: {
      effect: changed ? 'applied' : 'duplicate',
      from,
      to: next.status,
      // A duplicate is at-least-once delivery doing its job, never an illegal transition.
      illegal: changed ? illegalTransition(sale, event) : null,
    },
  };
}

function reject(from: SaleStatus | null, illegal: IllegalCode): SaleStep {
  return { sale: undefined, report: rejected(from, illegal) };
}

function rejected(from: SaleStatus | null, illegal: IllegalCode): StepReport {
  return { effect: 'rejected', from, to: from, illegal };
}

/**
 * Reference 4.5 rule 6: a payment belongs to a sale by pix_id or service_id; a contradiction is
 * not ours. applySaleEvent rejects such a report (unless a person tied it to the sale), and
 * matching asks this before it hands a report over, without applying it.
 */
export function contradictsIdentity(sale: Sale, report: PaymentReport): boolean {
  if (report.pix_id !== undefined && sale.pix_id !== undefined && report.pix_id !== sale.pix_id) return true;
  if (report.service_id !== undefined && sale.service_id !== undefined && report.service_id !== sale.service_id) return true;
  return false;
}

function fromRequest(e: SaleRequested): Sale {
  return {
    sale_id: e.sale_id,
    idempotency_key: e.idempotency_key,
    store_id: e.store_id,
    checkout_id: e.checkout_id,
    seq: e.seq,
    amount_cents: e.amount_cents,
    ...(e.external_id === undefined ? {} : { external_id: e.external_id }),
    requested_at: e.at,
    requested_by: e.requested_by,
    status: 'requested',
    displacements: [],
    reinstated_from: [],
    expiries: [],
    payment_reports: [],
    payments: [],
    dones: [],
    webhook_ids: [],
    acknowledgements: [],
    attention: [],
    issues: [],
    conflicts: [],
  };
}

// --- merging facts (commutative, idempotent) -------------------------------------------

function merge(sale: Sale, event: SaleEvent, attribution: AttributionNote | undefined): Sale {
  switch (event.type) {
    case 'sale.requested': {
      const again = fromRequest(event);
      if (sameCanonical(requestFacts(again), requestFacts(sale))) return sale;
      // The first intent stands: it is what the create was sent with.
      return addConflict(sale, { code: 'conflicting_request', detail: event.idempotency_key });
    }
    case 'sale.created': {
      const facts = createdFacts(event);
      if (sale.created === undefined) return { ...sale, created: facts };
      if (sale.created.pix_id === facts.pix_id && sale.created.service_id === facts.service_id) return sale;
      // Two different sales answered for one intent: keep the first, show the second to a person.
      return addConflict(sale, { code: 'conflicting_create', detail: `${facts.pix_id} ${facts.service_id}` });
    }
    case 'sale.create_failed':
      return { ...sale, create_error: sale.create_error ? canonicalMin(sale.create_error, event.error) : event.error };
    case 'sale.create_uncertain': {
      const u = { reason: event.reason, attempts: event.attempts, at: event.at };
      return { ...sale, uncertain: sale.uncertain ? canonicalMin(sale.uncertain, u) : u };
    }
    case 'sale.displaced': {
      const d: Displacement = { by: event.by, by_seq: event.by_seq, evidence: event.evidence, at: event.at };
      const displacements = upsert(sale.displacements, d, displacementId, (a, b) => ({ ...a, at: Math.min(a.at, b.at) }));
      return { ...sale, displacements };
    }
    case 'sale.reinstated':
      return { ...sale, reinstated_from: sortedUnique([...sale.reinstated_from, event.by]) };
    case 'sale.expired': {
      const expiries = upsert(sale.expiries, { source: event.source, at: event.at }, (x) => x.source, (a, b) => ({
        source: a.source,
        at: Math.min(a.at, b.at),
      }));
      return { ...sale, expiries };
    }
    case 'sale.withdrawn': {
      const w = { by: event.by, at: event.at };
      // Commutative: the earliest withdrawal is the one recorded, whatever the replay order.
      return { ...sale, withdrawn: sale.withdrawn ? (sale.withdrawn.at !== w.at ? (sale.withdrawn.at < w.at ? sale.withdrawn : w) : canonicalMin(sale.withdrawn, w)) : w };
    }
    case 'sale.acknowledged': {
      const ack: Acknowledgement = { reason: event.reason, subject: event.subject, by: event.by, at: event.at };
      const acknowledgements = upsert(sale.acknowledgements, ack, (a) => `${a.reason}\u0000${a.subject}`, (a, b) =>
        // The first person to acknowledge is the one recorded.
        a.at !== b.at ? (a.at < b.at ? a : b) : canonicalMin(a, b),
      );
      return { ...sale, acknowledgements };
    }
    case 'payment.received': {
      const reports = upsert(sale.payment_reports, paymentFrom(event, attribution), (p) => p.key, mergePayments);
      return { ...sale, payment_reports: reports };
    }
    case 'charge.done':
      return { ...sale, dones: upsert(sale.dones, doneFrom(event, attribution), (d) => d.key, mergeDone) };
    case 'refund.requested':
    case 'refund.made':
    case 'refund.refused':
    case 'refund.uncertain':
    case 'refund.unconfirmed':
    case 'refund.resent':
      return mergeRefund(sale, event);
    case 'sale.settled': {
      const fact: SettlementFact = { settlement_id: event.settlement_id, line: event.line, settled_at: event.settled_at, at: event.at };
      const settlements = upsert(sale.settlements ?? [], fact, (f) => `${f.line}:${f.settlement_id}`, (a, b) => ({
        ...a,
        // The first time this journal learnt it stands; a settled_at the service filled in later is kept.
        settled_at: a.settled_at ?? b.settled_at,
        at: Math.min(a.at, b.at),
      }));
      return { ...sale, settlements };
    }
  }
}

/**
 * What a refund's state may become: a definite answer is final, the first one stands. The one
 * way back is a supervisor's Send again, from unconfirmed to requested under a new key.
 */
const REFUND_RANK: Readonly<Record<RefundState, number>> = { requested: 0, uncertain: 1, unconfirmed: 2, refused: 3, made: 4 };

function mergeRefund(sale: Sale, e: RefundEvent): Sale {
  const refunds = sale.refunds ?? [];
  const current = refunds.find((r) => r.refund_id === e.refund_id);
  if (e.type === 'refund.requested') {
    if (current) return sale;
    const fact: RefundFact = {
      refund_id: e.refund_id,
      idempotency_key: e.idempotency_key,
      amount_cents: e.amount_cents,
      ...(e.reason === undefined ? {} : { reason: e.reason }),
      requested_by: e.requested_by,
      requested_at: e.at,
      key_at: e.at,
      state: 'requested',
    };
    return { ...sale, refunds: [...refunds, fact] };
  }
  // An outcome of a refund this sale never asked for is not this sale's to record.
  if (!current) return sale;
  let next: RefundFact = current;
  if (e.type === 'refund.made' && REFUND_RANK[current.state] < REFUND_RANK.made) {
    const { error: _e, ...rest } = current;
    next = {
      ...rest,
      state: 'made',
      made: {
        pay_in_refund_request_id: e.pay_in_refund_request_id,
        service_refund_id: e.service_refund_id,
        refunded_cents: e.refunded_cents,
        at: e.at,
        ...(e.confirmed_by === undefined ? {} : { confirmed_by: e.confirmed_by }),
      },
    };
  } else if (e.type === 'refund.refused' && REFUND_RANK[current.state] < REFUND_RANK.refused) {
    next = { ...current, state: 'refused', error: e.error };
  } else if (e.type === 'refund.uncertain' && current.state === 'requested') {
    next = { ...current, state: 'uncertain', uncertain: { reason: e.reason, attempts: e.attempts, at: e.at } };
  } else if (e.type === 'refund.unconfirmed' && REFUND_RANK[current.state] < REFUND_RANK.unconfirmed) {
    next = { ...current, state: 'unconfirmed', unconfirmed: { reason: e.reason, at: e.at } };
  } else if (e.type === 'refund.resent' && current.state === 'unconfirmed' && e.idempotency_key !== current.idempotency_key) {
    const { uncertain: _u, unconfirmed: _c, ...rest } = current;
    next = { ...rest, state: 'requested', idempotency_key: e.idempotency_key, key_at: e.at, resent: [...(current.resent ?? []), { by: e.by, at: e.at }] };
  }
  return next === current ? sale : { ...sale, refunds: refunds.map((r) => (r.refund_id === e.refund_id ? next : r)) };
}

/** Cents the service confirmed refunded through this app. */
export function refundsMadeCents(sale: Pick<Sale, 'refunds'>): number {
  return (sale.refunds ?? []).reduce((sum, r) => sum + (r.made?.refunded_cents ?? 0), 0);
}

/** The refund asked for and not yet answered for certain, if any (one at a time per sale). */
export function openRefund(sale: Pick<Sale, 'refunds'>): RefundFact | undefined {
  return (sale.refunds ?? []).find((r) => r.state === 'requested' || r.state === 'uncertain' || r.state === 'unconfirmed');
}

function requestFacts(s: Sale): unknown {
  return [s.idempotency_key, s.store_id, s.checkout_id, s.seq, s.amount_cents, s.external_id ?? null, s.requested_by, s.requested_at];
}

function createdFacts(e: SaleCreated): CreatedFacts {
  return {
    pix_id: e.pix_id,
    service_id: e.service_id,
    ...(e.operation_id === undefined ? {} : { operation_id: e.operation_id }),
    qr_type: e.qr_type,
    emv: e.emv,
    pqr_emv: e.pqr_emv,
    ...(e.amount_brl === undefined ? {} : { amount_brl: e.amount_brl }),
    ...(e.store_id === undefined ? {} : { store_id: e.store_id }),
    ...(e.checkout_id === undefined ? {} : { checkout_id: e.checkout_id }),
    created_at: e.created_at,
    expires_at: e.expires_at,
  };
}

function addConflict(sale: Sale, issue: SaleIssue): Sale {
  return { ...sale, conflicts: upsert(sale.conflicts, issue, issueId, (a) => a) };
}

function displacementId(d: Displacement): string {
  return `${d.evidence}\u0000${d.by ?? ''}`;
}

function issueId(i: SaleIssue): string {
  return `${i.code}\u0000${i.detail}`;
}

function amountText(amount: unknown): string {
  return typeof amount === 'string' ? amount : String(amount);
}

function paymentFrom(e: PaymentReceived, attribution: AttributionNote | undefined): Payment {
  return {
    key: paymentKey(e),
    ...(e.pix_id === undefined ? {} : { pix_id: e.pix_id }),
    ...(e.service_id === undefined ? {} : { service_id: e.service_id }),
    ...(e.external_id === undefined || e.external_id === null ? {} : { external_id: e.external_id }),
    amount_brl: e.amount_brl,
    received_cents: wireBrlCents(e.amount_brl),
    reported_amounts: [amountText(e.amount_brl)],
    paid_at: e.paid_at ?? null,
    e2e_id: e.e2e_id ?? null,
    sources: [e.source],
    webhook_ids: e.webhook_id === undefined ? [] : [e.webhook_id],
    first_seen_at: e.at,
    refunded: e.refunded === true,
    ...(attribution === undefined ? {} : { attributed: { by: attribution.by, at: attribution.at } }),
  };
}

/** Two reports of one payment: union of what they say; where they differ, a canonical choice. */
function mergePayments(a: Payment, b: Payment): Payment {
  const amountBrl = canonicalMin(a.amount_brl, b.amount_brl);
  const pix = pickDefined(a.pix_id, b.pix_id);
  const service = pickDefined(a.service_id, b.service_id);
  const external = pickDefined(a.external_id, b.external_id);
  const attributed = pickDefined(a.attributed, b.attributed);
  return {
    key: a.key,
    ...(pix === undefined ? {} : { pix_id: pix }),
    ...(service === undefined ? {} : { service_id: service }),
    ...(external === undefined ? {} : { external_id: external }),
    amount_brl: amountBrl,
    received_cents: wireBrlCents(amountBrl),
    reported_amounts: sortedUnique([...a.reported_amounts, ...b.reported_amounts]),
    paid_at: minDefined(a.paid_at, b.paid_at),
    e2e_id: pickDefined(a.e2e_id, b.e2e_id) ?? null,
    sources: sortedUnique([...a.sources, ...b.sources]) as PaymentSource[],
    webhook_ids: sortedUnique([...a.webhook_ids, ...b.webhook_ids]),
    first_seen_at: Math.min(a.first_seen_at, b.first_seen_at),
    refunded: a.refunded || b.refunded,
    ...(attributed === undefined ? {} : { attributed }),
  };
}

/** Payments in the order that picks the sale's first: earliest paid_at, then key. */
function byPaidAt(a: Payment, b: Payment): number {
  return (a.paid_at ?? Number.MAX_SAFE_INTEGER) - (b.paid_at ?? Number.MAX_SAFE_INTEGER) || compareText(a.key, b.key);
}

/**
 * The sale's payments from its merged reports (see paymentKey): one per e2e_id, and the
 * reports without one belong to the first of those, or are the payment when none has an
 * e2e_id. A function of the set of reports, so any order of arrival gives the same payments.
 */
export function paymentsOf(reports: readonly Payment[]): Payment[] {
  const named = reports.filter((p) => p.key !== UNNAMED_PAYMENT).sort(byPaidAt);
  const unnamed = reports.find((p) => p.key === UNNAMED_PAYMENT);
  const [first, ...rest] = named;
  if (unnamed === undefined) return named;
  if (first === undefined) return [unnamed];
  return [mergePayments(first, unnamed), ...rest];
}

function doneFrom(e: ChargeDone, attribution: AttributionNote | undefined): ChargeDoneFact {
  return {
    key: doneKey(e),
    ...(e.pix_id === undefined ? {} : { pix_id: e.pix_id }),
    ...(e.service_id === undefined ? {} : { service_id: e.service_id }),
    amount_brl: e.amount_brl,
    received_cents: wireBrlCents(e.amount_brl),
    settlement_id: e.settlement_id ?? null,
    webhook_ids: e.webhook_id === undefined ? [] : [e.webhook_id],
    first_seen_at: e.at,
    ...(attribution === undefined ? {} : { attributed: { by: attribution.by, at: attribution.at } }),
  };
}

function mergeDone(a: ChargeDoneFact, b: ChargeDoneFact): ChargeDoneFact {
  const amountBrl = canonicalMin(a.amount_brl, b.amount_brl);
  const pix = pickDefined(a.pix_id, b.pix_id);
  const service = pickDefined(a.service_id, b.service_id);
  const attributed = pickDefined(a.attributed, b.attributed);
  return {
    key: a.key,
    ...(pix === undefined ? {} : { pix_id: pix }),
    ...(service === undefined ? {} : { service_id: service }),
    amount_brl: amountBrl,
    received_cents: wireBrlCents(amountBrl),
    settlement_id: minDefined(a.settlement_id, b.settlement_id),
    webhook_ids: sortedUnique([...a.webhook_ids, ...b.webhook_ids]),
    first_seen_at: Math.min(a.first_seen_at, b.first_seen_at),
    ...(attributed === undefined ? {} : { attributed }),
  };
}

// --- deriving the status from the facts ---------------------------------------------------

/** Whether an expiry ends the sale (see ExpirySource): all but the next sale's note. */
export function endsSale(e: Expiry): boolean {
  return e.source !== 'newer_sale';
}

/** Displacements still in force: a refusal of the newer sale voids only its provisional one. */
export function activeDisplacements(sale: Pick<Sale, 'displacements' | 'reinstated_from'>): Displacement[] {
  return sale.displacements.filter(
    (d) => !(d.evidence === 'newer_sale_requested' && d.by !== null && sale.reinstated_from.includes(d.by)),
  );
}

function settle(f: Sale): Sale {
  const active = activeDisplacements(f);
  const displaced = active.length > 0;
  // The immediate successor (lowest seq) is the one that displaced it; the rest came later.
  const first = [...active].sort(
    (a, b) => (a.by_seq ?? Number.MAX_SAFE_INTEGER) - (b.by_seq ?? Number.MAX_SAFE_INTEGER) || compareText(a.by ?? '', b.by ?? ''),
  )[0];

  const ordered = paymentsOf(f.payment_reports);
  const primary = ordered[0];
  const firstDone = f.dones[0];
  const paid = primary ? summaryOf(f.amount_cents, primary) : firstDone ? summaryOfDone(f.amount_cents, firstDone) : undefined;
  const pixId = f.created?.pix_id;
  const serviceId = f.created?.service_id;
  // Withdrawn before any payment was seen: a payment seen earlier had already paid the sale,
  // and a withdrawal journaled after it (refused by the terminal) cannot make it late.
  const firstSeen = Math.min(...ordered.map((p) => p.first_seen_at), ...f.dones.map((d) => d.first_seen_at));
  const withdrawn = f.withdrawn !== undefined && f.withdrawn.at <= firstSeen;

  let status: SaleStatus;
  if (paid && ordered.some((p) => p.refunded)) {
    // Tx Status `refunded` (contract 3) is about the charge: its money went back to the payer.
    status = 'refunded';
  } else if (paid) {
    // Reference 4.5 rule 5: a displaced sale can still be reported paid; a person must know.
    // A withdrawn sale too: the cashier told the customer not to pay it, never silently Paid.
    status = displaced || withdrawn ? 'paid_late' : paid.amount_check === 'equal' ? 'paid' : 'amount_mismatch';
  } else if (f.created === undefined && f.create_error) {
    status = 'failed';
  } else if (displaced) {
    // Reference 4.5 rule 4: a displaced sale never expires by itself; it stays payable late.
    status = 'displaced';
  } else if (f.created) {
    // Issue 24: a payment made just before expires_at can still be found; only an expiry
    // that ends the sale (see ExpirySource) makes it expired.
    status = f.expiries.some(endsSale) ? 'expired' : withdrawn ? 'withdrawn' : 'pending';
  } else {
    // An expiry for a sale never created is reported as illegal and changes nothing here.
    status = f.uncertain ? 'uncertain' : 'requested';
  }

  const issues = deriveIssues(f, pixId, serviceId);
  const wanted: Attention[] = [];
  if (status === 'amount_mismatch') wanted.push({ reason: 'amount_mismatch', subject: '' });
  if (status === 'paid_late') wanted.push({ reason: displaced ? 'paid_late' : 'paid_withdrawn', subject: '' });
  // Paid, but learnt once its time was up and the cashier had moved on (the next sale charged,
  // or the sale closed by its last read): credited, and a person checks it was not paid twice.
  if (paid && !displaced && !withdrawn && f.expiries.length > 0) wanted.push({ reason: 'paid_after_expiry', subject: '' });
  for (const p of ordered.slice(1)) wanted.push({ reason: 'extra_payment', subject: p.key });
  // TX not found for a sale no newer sale of ours displaced: something we did not create did.
  if (!paid && active.some((d) => d.evidence === 'tx_not_found' && d.by === null)) wanted.push({ reason: 'displaced_unknown', subject: '' });
  for (const issue of issues) wanted.push({ reason: 'conflict', subject: `${issue.code}:${issue.detail}` });
  for (const r of f.refunds ?? []) if (r.state === 'unconfirmed') wanted.push({ reason: 'refund_not_confirmed', subject: r.refund_id });
  const acked = new Set(f.acknowledgements.map((a) => `${a.reason}\u0000${a.subject}`));
  // A refund not confirmed ends only with a supervisor's answer (its own events), never an acknowledgement.
  const attention = dedupeAttention(wanted.filter((a) => ANSWERED_NOT_ACKNOWLEDGED.includes(a.reason) || !acked.has(`${a.reason}\u0000${a.subject}`)));
  // Contract 5: money given back through this app. What needs a person about the payment
  // itself (above) stays; the status says how much of it the store kept.
  const made = refundsMadeCents(f);
  if (paid && made > 0 && (status === 'paid' || status === 'amount_mismatch' || status === 'paid_late')) {
    status = paid.received_cents !== null && made >= paid.received_cents ? 'refunded' : 'partly_refunded';
  }

  const webhookIds = sortedUnique([...ordered.flatMap((p) => p.webhook_ids), ...f.dones.flatMap((d) => d.webhook_ids)]);

  const {
    pix_id: _pix,
    service_id: _service,
    display_emv: _emv,
    displaced_by: _by,
    paid: _paid,
    ...facts
  } = f;
  return {
    ...facts,
    status,
    payments: ordered,
    ...(pixId === undefined ? {} : { pix_id: pixId }),
    ...(serviceId === undefined ? {} : { service_id: serviceId }),
    ...(f.created === undefined ? {} : { display_emv: displayEmv(f.created) }),
    ...(first === undefined ? {} : { displaced_by: first.by }),
    ...(paid === undefined ? {} : { paid }),
    webhook_ids: webhookIds,
    attention,
    issues,
  };
}

/**
 * The QR a sale shows. Contract 2: on a printed checkout `emv` is the checkout location's
 * EMV and, with some gateways, its text still carries the amount of the sale it was first
 * made for; `pqr_emv` (the printed QR) carries no amount and charges the newest sale
 * (reference 4.5 rule 2). When the gateway fell back to `dynamic`, `emv` is the sale's own QR.
 */
export function displayEmv(created: CreatedFacts): string {
  return created.qr_type === 'printed_dynamic' && created.pqr_emv ? created.pqr_emv : created.emv;
}

function summaryOf(expected: number, p: Payment): PaidSummary {
  return {
    payment_key: p.key,
    implied_by_done: false,
    amount_brl: p.amount_brl,
    received_cents: p.received_cents,
    expected_cents: expected,
    amount_check: compareAmount(expected, p.amount_brl),
    paid_at: p.paid_at,
    e2e_id: p.e2e_id,
  };
}

/** charge.done before charge.paid (contract 4: no guaranteed order): a completed charge was paid. */
function summaryOfDone(expected: number, d: ChargeDoneFact): PaidSummary {
  return {
    payment_key: d.key,
    implied_by_done: true,
    amount_brl: d.amount_brl,
    received_cents: d.received_cents,
    expected_cents: expected,
    amount_check: compareAmount(expected, d.amount_brl),
    paid_at: null,
    e2e_id: null,
  };
}

function deriveIssues(f: Sale, pixId: string | undefined, serviceId: string | undefined): SaleIssue[] {
  const out: SaleIssue[] = [...f.conflicts];
  const payments = paymentsOf(f.payment_reports);
  if (f.created && f.create_error) out.push({ code: 'created_and_refused', detail: f.create_error.code });
  if (!f.created && f.create_error && (payments.length > 0 || f.dones.length > 0)) out.push({ code: 'paid_but_refused', detail: f.create_error.code });
  if (f.created?.amount_brl !== undefined && wireBrlCents(f.created.amount_brl) !== f.amount_cents) {
    out.push({ code: 'created_amount_differs', detail: amountText(f.created.amount_brl) });
  }
  if (
    (f.created?.store_id !== undefined && f.created.store_id !== f.store_id) ||
    (f.created?.checkout_id !== undefined && f.created.checkout_id !== f.checkout_id)
  ) {
    out.push({ code: 'created_location_differs', detail: `${f.created.store_id ?? ''}/${f.created.checkout_id ?? ''}` });
  }
  const differs = (r: { pix_id?: string; service_id?: string }): boolean =>
    (r.pix_id !== undefined && pixId !== undefined && r.pix_id !== pixId) ||
    (r.service_id !== undefined && serviceId !== undefined && r.service_id !== serviceId);
  for (const p of payments) {
    if (new Set(p.reported_amounts.map((a) => wireBrlCents(a))).size > 1) out.push({ code: 'payment_amounts_disagree', detail: p.key });
    // Only a person's attribution can put these here: shown, not silently accepted.
    if (differs(p)) out.push({ code: 'payment_ids_differ', detail: p.key });
  }
  for (const d of f.dones) {
    if (differs(d)) out.push({ code: 'payment_ids_differ', detail: d.key });
    // charge.done and charge.paid of the same charge must carry the same amount.
    const sameCharge = payments.find((p) => (p.pix_id ?? null) === (d.pix_id ?? null) && (p.service_id ?? null) === (d.service_id ?? null));
    if (sameCharge && sameCharge.received_cents !== d.received_cents) out.push({ code: 'done_amount_differs', detail: d.key });
  }
  const seen = new Set<string>();
  return out
    .filter((i) => (seen.has(issueId(i)) ? false : (seen.add(issueId(i)), true)))
    .sort((a, b) => compareText(issueId(a), issueId(b)));
}

function dedupeAttention(items: Attention[]): Attention[] {
  const seen = new Set<string>();
  return items.filter((a) => {
    const id = `${a.reason}\u0000${a.subject}`;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

// --- which transitions are expected -------------------------------------------------------

/** The event did not fit the state it met; null when it did. `before` is the sale before the event. */
function illegalTransition(before: Sale, event: SaleEvent): IllegalCode | null {
  const s = before.status;
  const hasPayment = before.payments.length > 0 || before.dones.length > 0;
  switch (event.type) {
    case 'sale.requested':
      return 'requested_twice';
    case 'sale.created':
      if (before.created) return 'created_twice';
      if (before.create_error) return 'created_after_refusal';
      // requested, uncertain (resolved late), displaced while unresolved, paid via a person's attribution.
      return null;
    case 'sale.create_failed':
      if (before.created) return 'refused_after_created';
      if (hasPayment) return 'refused_after_payment';
      return null;
    case 'sale.create_uncertain':
      return before.created || before.create_error || hasPayment ? 'uncertain_after_outcome' : null;
    case 'sale.displaced':
      if (s === 'requested') return 'displaced_in_flight';
      if (s === 'paid' || s === 'amount_mismatch' || s === 'refunded' || s === 'partly_refunded') return 'displaced_after_payment';
      if (s === 'expired') return 'displaced_after_expiry';
      if (s === 'failed') return 'displaced_refused_sale';
      return null; // pending, uncertain, displaced (one more displacer), paid_late
    case 'sale.reinstated':
      return before.displacements.some((d) => d.by === event.by && d.evidence === 'newer_sale_requested')
        ? null
        : 'reinstated_without_displacement';
    case 'sale.expired':
      if (s === 'pending' || s === 'expired' || s === 'withdrawn') return null;
      if (s === 'displaced' || s === 'paid_late') return 'expired_while_displaced';
      if (s === 'paid' || s === 'amount_mismatch' || s === 'refunded' || s === 'partly_refunded') return 'expired_after_payment';
      return 'expired_before_created';
    case 'sale.withdrawn':
      return s === 'pending' ? null : 'withdrawn_not_pending';
    case 'sale.acknowledged':
      return before.attention.some((a) => a.reason === event.reason && a.subject === event.subject) ? null : 'nothing_to_acknowledge';
    case 'refund.requested':
    case 'refund.made':
    case 'refund.refused':
    case 'refund.uncertain':
    case 'refund.unconfirmed':
    case 'refund.resent':
      // The terminal asks only for a paid sale; an answer is always recorded (money is never dropped).
      return null;
    case 'payment.received':
    case 'charge.done':
      // Every state takes a payment (extra ones need a person); only a sale the service
      // refused should never see one.
      return s === 'failed' ? 'payment_on_refused_sale' : null;
    case 'sale.settled':
      // The settlement's reconciliation says when its charge is not this sale's payment.
      return null;
  }
}
