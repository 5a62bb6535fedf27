/**
 * The Sale record and the journaled events it is made of, and how reports of a payment are
 * known again (their identity). lifecycle.ts reduces events into this record; merge.ts
 * combines the facts; both speak these types, so they live apart from either.
 */
import type { AmountComparison } from './amount.ts';

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
  /** Local id, assigned when the intent is journaled. */
  readonly sale_id: string;
  readonly idempotency_key: string;
  readonly store_id: number;
  readonly checkout_id: number;
  /** Position among the checkout's sales; the highest is the newest (see planCharge). */
  readonly seq: number;
  /** What the customer owes, in integer cents. */
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
 * or the key's window has passed; api/routes/route.ts REFUND_KEYS): a person decides. Until one
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

export function isRefundEvent(event: { readonly type: string }): event is RefundEvent {
  return (REFUND_EVENT_TYPES as readonly string[]).includes(event.type);
}

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

/** What the service's 201 said, kept on the sale: the event without its envelope. */
export type CreatedFacts = Omit<SaleCreated, 'type' | 'sale_id' | 'at'>;

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

/** The intent's facts (the event without its envelope), then all the journal learnt since. */
export interface Sale extends Omit<SaleRequested, 'type' | 'at'> {
  readonly requested_at: number;

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

/** A person's decision that a payment belongs to a sale (see PaymentAttributed in matching.ts). */
export interface AttributionNote {
  readonly by: string;
  readonly at: number;
}

