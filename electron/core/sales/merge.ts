/**
 * Merging the facts of a sale: every event adds what it says to the record commutatively and
 * idempotently (contract 4: at least once, in no guaranteed order), so the record is a
 * function of the set of facts. lifecycle.ts derives the status from what these build.
 */
import { wireBrlCents } from '../../shared/money.ts';
import { canonicalMin, compareText, sameCanonical, minDefined, pickDefined, sortedUnique, upsert } from './order.ts';
import { doneKey, isRefundEvent, paymentKey, UNNAMED_PAYMENT } from './sale.ts';
import type { Acknowledgement, AttributionNote, ChargeDone, ChargeDoneFact, CreatedFacts, Displacement, Payment, PaymentReceived, PaymentReport, PaymentSource, RefundEvent, RefundFact, RefundState, Sale, SaleCreated, SaleEvent, SaleIssue, SaleRequested, SettlementFact } from './sale.ts';


export function fromRequest(e: SaleRequested): Sale {
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

export function merge(sale: Sale, event: SaleEvent, attribution: AttributionNote | undefined): Sale {
  if (isRefundEvent(event)) return mergeRefund(sale, event);
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

export function issueId(i: SaleIssue): string {
  return `${i.code}\u0000${i.detail}`;
}

export function amountText(amount: unknown): string {
  return typeof amount === 'string' ? amount : String(amount);
}

/** What every report of a charge says, a payment or its charge.done: the members both facts share. */
type ReportFact = Payment | ChargeDoneFact;
type SharedFacts = Pick<ReportFact, 'key' | 'pix_id' | 'service_id' | 'amount_brl' | 'received_cents' | 'webhook_ids' | 'first_seen_at' | 'attributed'>;

function reportFrom(e: PaymentReport, key: string, attribution: AttributionNote | undefined): SharedFacts {
  return {
    key,
    ...(e.pix_id === undefined ? {} : { pix_id: e.pix_id }),
    ...(e.service_id === undefined ? {} : { service_id: e.service_id }),
    amount_brl: e.amount_brl,
    received_cents: wireBrlCents(e.amount_brl),
    webhook_ids: e.webhook_id === undefined ? [] : [e.webhook_id],
    first_seen_at: e.at,
    ...(attribution === undefined ? {} : { attributed: { by: attribution.by, at: attribution.at } }),
  };
}

function paymentFrom(e: PaymentReceived, attribution: AttributionNote | undefined): Payment {
  return {
    ...reportFrom(e, paymentKey(e), attribution),
    ...(e.external_id === undefined || e.external_id === null ? {} : { external_id: e.external_id }),
    reported_amounts: [amountText(e.amount_brl)],
    paid_at: e.paid_at ?? null,
    e2e_id: e.e2e_id ?? null,
    sources: [e.source],
    refunded: e.refunded === true,
  };
}

function doneFrom(e: ChargeDone, attribution: AttributionNote | undefined): ChargeDoneFact {
  return { ...reportFrom(e, doneKey(e), attribution), settlement_id: e.settlement_id ?? null };
}

/**
 * How two reports of one fact combine, member by member: each rule is commutative and
 * idempotent (the union of what they say; where they differ, a canonical choice), and a rule
 * that gives undefined leaves the member out.
 */
type MergeRules<T> = { readonly [K in keyof T]-?: (a: T, b: T) => T[K] | undefined };

const SHARED_RULES: MergeRules<SharedFacts> = {
  key: (a) => a.key,
  pix_id: (a, b) => pickDefined(a.pix_id, b.pix_id),
  service_id: (a, b) => pickDefined(a.service_id, b.service_id),
  amount_brl: (a, b) => canonicalMin(a.amount_brl, b.amount_brl),
  received_cents: (a, b) => wireBrlCents(canonicalMin(a.amount_brl, b.amount_brl)),
  webhook_ids: (a, b) => sortedUnique([...a.webhook_ids, ...b.webhook_ids]),
  first_seen_at: (a, b) => Math.min(a.first_seen_at, b.first_seen_at),
  attributed: (a, b) => pickDefined(a.attributed, b.attributed),
};

/** Two reports of one payment, or of one charge.done: the one merge, told what the fact adds. */
function mergeReports<T extends ReportFact>(own: MergeRules<Omit<T, keyof SharedFacts>>): (a: T, b: T) => T {
  const rules: Readonly<Record<string, (a: T, b: T) => unknown>> = { ...SHARED_RULES, ...own };
  return (a, b) => {
    const merged: Record<string, unknown> = {};
    for (const [member, rule] of Object.entries(rules)) {
      const value = rule(a, b);
      if (value !== undefined) merged[member] = value;
    }
    return merged as T;
  };
}

const mergePayments = mergeReports<Payment>({
  external_id: (a, b) => pickDefined(a.external_id, b.external_id),
  reported_amounts: (a, b) => sortedUnique([...a.reported_amounts, ...b.reported_amounts]),
  paid_at: (a, b) => minDefined(a.paid_at, b.paid_at),
  e2e_id: (a, b) => pickDefined(a.e2e_id, b.e2e_id) ?? null,
  sources: (a, b) => sortedUnique([...a.sources, ...b.sources]) as PaymentSource[],
  refunded: (a, b) => a.refunded || b.refunded,
});

const mergeDone = mergeReports<ChargeDoneFact>({
  settlement_id: (a, b) => minDefined(a.settlement_id, b.settlement_id),
});

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
