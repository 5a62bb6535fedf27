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
 * No I/O, no clock: time arrives inside events (epoch ms). Money is integer cents. The record
 * and its events are sale.ts; how facts combine is merge.ts; this module derives the status.
 */
import { wireBrlCents } from '../../shared/money.ts';
import { compareAmount } from './amount.ts';
import { compareText, sameCanonical, sortedUnique } from './order.ts';
import { amountText, fromRequest, issueId, merge, paymentsOf } from './merge.ts';
import { ANSWERED_NOT_ACKNOWLEDGED, isRefundEvent } from './sale.ts';
import type { Attention, AttributionNote, ChargeDoneFact, CreatedFacts, Displacement, Expiry, Payment, PaidSummary, PaymentReport, RefundFact, Sale, SaleEvent, SaleIssue, SaleStatus } from './sale.ts';

export * from './sale.ts';
export { paymentsOf } from './merge.ts';

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
/** Cents the service confirmed refunded through this app. */
export function refundsMadeCents(sale: Pick<Sale, 'refunds'>): number {
  return (sale.refunds ?? []).reduce((sum, r) => sum + (r.made?.refunded_cents ?? 0), 0);
}

/** The refund asked for and not yet answered for certain, if any (one at a time per sale). */
export function openRefund(sale: Pick<Sale, 'refunds'>): RefundFact | undefined {
  return (sale.refunds ?? []).find((r) => r.state === 'requested' || r.state === 'uncertain' || r.state === 'unconfirmed');
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
  const decisive = ordered[0] ?? f.dones[0];
  const paid = decisive === undefined ? undefined : summaryOf(f.amount_cents, decisive);
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

/**
 * The payment that decides the status, or the charge.done alone: charge.done before
 * charge.paid (contract 4: no guaranteed order) says a completed charge was paid, without
 * the payment's paid_at and e2e_id.
 */
function summaryOf(expected: number, report: Payment | ChargeDoneFact): PaidSummary {
  const payment = 'e2e_id' in report ? report : undefined;
  return {
    payment_key: report.key,
    implied_by_done: payment === undefined,
    amount_brl: report.amount_brl,
    received_cents: report.received_cents,
    expected_cents: expected,
    amount_check: compareAmount(expected, report.amount_brl),
    paid_at: payment?.paid_at ?? null,
    e2e_id: payment?.e2e_id ?? null,
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
  // The terminal asks for a refund only for a paid sale; an answer is always recorded (money is never dropped).
  if (isRefundEvent(event)) return null;
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
