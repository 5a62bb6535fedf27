/**
 * Reconciling a settlement against the journal (issue 11; reference 4.7, 6.1; contract 6
 * and 8), pure: each charge and refund matched to its sale, each match checked, and the 6.1
 * invariants that apply to the settlement's mode, all in exact minor units. Nothing here is
 * "corrected": a difference is a line a person reads and acknowledges.
 */
import type { Amount } from '../api/decode.ts';
import type { SettledEvent, SettlementDetail } from '../api/routes/settlements.ts';

/** What a settlement says, from its webhook or its REST detail, in one shape. */
export interface SettlementFacts {
  settlement_id: number;
  from: 'webhook' | 'rest';
  amount: Amount;
  currency: string;
  settled_at: string | null;
  provider_settlement_id: string | null;
  external_settlement_id: string | null;
  /** Webhook only (reference 6.1): what moved on the source side. */
  source: { amount: Amount; currency: string; net_price: Amount } | null;
  charges: Array<{ service_id: string; external_id: string | null; service_request_id: string; charged: Amount; settlement_amount: Amount | null; settlement_currency: string | null }>;
  refunds: Array<{ service_refund_id: string; service_id: string; external_id: string | null; service_request_id: string | null; refunded: Amount; deduction: Amount; deduction_currency: string | null }>;
}

export function factsOfEvent(e: SettledEvent): SettlementFacts {
  return {
    settlement_id: e.settlement_id,
    from: 'webhook',
    amount: e.amount,
    currency: e.currency,
    settled_at: e.settled_at,
    provider_settlement_id: e.provider_settlement_id,
    external_settlement_id: e.external_settlement_id,
    source: { amount: e.source_amount, currency: e.source_currency, net_price: e.source_net_price },
    charges: e.charges.map((c) => ({ service_id: c.service_id, external_id: c.external_id, service_request_id: c.service_request_id, charged: c.charged_amount, settlement_amount: c.settlement_amount, settlement_currency: c.settlement_currency })),
    refunds: e.refunds.map((r) => ({ service_refund_id: r.service_refund_id, service_id: r.service_id, external_id: r.external_id, service_request_id: r.service_request_id, refunded: r.refunded_amount, deduction: r.deduction_amount, deduction_currency: r.deduction_currency })),
  };
}

export function factsOfDetail(d: SettlementDetail): SettlementFacts {
  return {
    settlement_id: d.settlement_id,
    from: 'rest',
    amount: d.amount,
    currency: d.currency,
    settled_at: d.settled_at,
    provider_settlement_id: d.provider_settlement_id,
    external_settlement_id: d.external_settlement_id,
    source: null,
    charges: d.charges.map((c) => ({ service_id: c.service_id, external_id: c.external_id, service_request_id: c.service_request_id, charged: c.charged_amount, settlement_amount: c.settlement_amount, settlement_currency: c.settlement_currency })),
    refunds: d.refunds.map((r) => ({ service_refund_id: r.service_refund_id, service_id: r.service_id, external_id: r.external_id, service_request_id: r.service_request_id, refunded: r.refunded_amount, deduction: r.deduction_amount, deduction_currency: r.deduction_currency })),
  };
}

/** A sale as reconciliation needs it. */
export interface SaleForSettlement {
  sale_id: string;
  external_id: string | null;
  service_id: string | null;
  pix_id: string | null;
  /** What the sale received, in cents; null when not paid. */
  received_cents: number | null;
  /** Settlements that already included this sale's charge (earlier reconciliations, legacy done events). */
  settled_in: readonly number[];
  /**
   * The refunds the service confirmed to this app (lifecycle RefundFact.made). A refund that
   * Tx Status settled has no service_refund_id: the service never told which refund it was.
   */
  refunds: ReadonlyArray<{ service_refund_id: string | null; refunded_cents: number }>;
  /**
   * The amounts of this sale's refunds asked for and not answered for certain (requested,
   * uncertain, or Refund not confirmed): a deduction of one of them is the service's word
   * that it was made, for the supervisor who answers it. Absent: none.
   */
  open_refunds?: readonly number[];
  /** The refund deductions of this sale that earlier reconciliations found, by settlement. */
  deducted: ReadonlyArray<{ service_refund_id: string; settlement_id: number }>;
}

/**
 * A line found a sale by one id while another id both sides have differs (issue 24 point 3):
 * not that sale's line, so `candidate` (never `sale_id`: the sale does not learn this settlement).
 */
export type IdsDiffer = { kind: 'ids_differ'; candidate: string; fields: Array<'external_id' | 'service_id' | 'service_request_id'> };

export type ChargeCheck =
  | { kind: 'matched'; sale_id: string }
  | { kind: 'amount_differs'; sale_id: string; charged_cents: number | null; received_cents: number | null }
  | { kind: 'settled_twice'; sale_id: string; earlier: number }
  | IdsDiffer
  | { kind: 'not_in_journal' };

/**
 * A refund deduction against the app's own refunds of its sale (issue 24 point 1): the same
 * service_refund_id and amount; `matched_by_amount` when the app's refund has no id (Tx Status
 * settled it) and only the charge and the amount agree, which a person confirms; a deduction
 * of a refund the app does not know, or of another amount, is a difference.
 */
export type RefundCheck =
  | { kind: 'matched'; sale_id: string }
  | { kind: 'matched_by_amount'; sale_id: string; refunded_cents: number }
  | { kind: 'amount_differs'; sale_id: string; refunded_cents: number | null; app_cents: number }
  | { kind: 'unknown_refund'; sale_id: string; refunded_cents: number | null }
  /** A deduction of a refund of this sale whose answer the app never had: still a difference, but it says the refund was made. */
  | { kind: 'unconfirmed_refund'; sale_id: string; refunded_cents: number }
  | { kind: 'deducted_twice'; sale_id: string; earlier: number }
  | IdsDiffer
  | { kind: 'not_in_journal' };

export interface InvariantLine {
  /** e.g. `amount = charges − deductions`. */
  rule: 'net' | 'source_net' | 'no_refunds_equal' | 'net_price' | 'currency';
  holds: boolean;
  /** The figures that could not be read (issue 24 point 2): the line then does not hold. */
  missing?: string[];
  /** The figures compared, as exact decimals in the settlement's currency. */
  left: string;
  right: string;
}

export interface Reconciliation {
  settlement_id: number;
  charges: Array<{ service_id: string; check: ChargeCheck }>;
  refunds: Array<{ service_refund_id: string; service_id: string; check: RefundCheck }>;
  invariants: InvariantLine[];
  /** Fields on which the webhook and the REST detail disagree (when both are known). */
  differs: string[];
  status: 'reconciled' | 'needs_attention';
}

/** Finds a sale by external_id first, then service_id, then service_request_id = pix_id (reference 6.1). */
export function findSale(sales: readonly SaleForSettlement[], ids: { external_id: string | null; service_id: string | null; service_request_id: string | null }): SaleForSettlement | null {
  if (ids.external_id !== null) {
    const byExternal = sales.filter((s) => s.external_id === ids.external_id);
    // An external_id two sales share decides nothing: the service's own ids do.
    if (byExternal.length === 1) return byExternal[0]!;
  }
  return sales.find((s) => ids.service_id !== null && s.service_id === ids.service_id) ?? sales.find((s) => ids.service_request_id !== null && s.pix_id === ids.service_request_id) ?? null;
}

/**
 * The ids of a line that both it and its sale have and that differ (issue 24 point 3): a
 * line found by external_id whose service_id or pix_id is another sale's is not this sale's.
 */
export function idsDiffering(sale: SaleForSettlement, ids: { external_id: string | null; service_id: string | null; service_request_id: string | null }): IdsDiffer['fields'] {
  const out: IdsDiffer['fields'] = [];
  if (sale.external_id !== null && ids.external_id !== null && sale.external_id !== ids.external_id) out.push('external_id');
  if (sale.service_id !== null && ids.service_id !== null && sale.service_id !== ids.service_id) out.push('service_id');
  if (sale.pix_id !== null && ids.service_request_id !== null && sale.pix_id !== ids.service_request_id) out.push('service_request_id');
  return out;
}

/** A line of the settlement against the journal: no sale of its ids, a sale whose other ids differ, or `check`'s answer. */
function lineCheck<C>(sales: readonly SaleForSettlement[], ids: Parameters<typeof findSale>[1], check: (sale: SaleForSettlement) => C): C | IdsDiffer | { kind: 'not_in_journal' } {
  const sale = findSale(sales, ids);
  if (sale === null) return { kind: 'not_in_journal' };
  const fields = idsDiffering(sale, ids);
  return fields.length > 0 ? { kind: 'ids_differ', candidate: sale.sale_id, fields } : check(sale);
}

export function reconcile(facts: SettlementFacts, sales: readonly SaleForSettlement[], other: SettlementFacts | null = null): Reconciliation {
  const charges = facts.charges.map((c) => {
    const check = lineCheck<ChargeCheck>(sales, c, (sale) => {
      const earlier = sale.settled_in.find((id) => id !== facts.settlement_id);
      const charged = c.charged.scale === 2 ? c.charged.minor : null;
      if (earlier !== undefined) return { kind: 'settled_twice', sale_id: sale.sale_id, earlier };
      if (charged === null || sale.received_cents !== charged) return { kind: 'amount_differs', sale_id: sale.sale_id, charged_cents: charged, received_cents: sale.received_cents };
      return { kind: 'matched', sale_id: sale.sale_id };
    });
    return { service_id: c.service_id, check };
  });
  // Each of the app's refunds without an id answers for one deduction at most.
  const usedWithoutId = new Set<object>();
  const refunds = facts.refunds.map((r) => {
    const check = lineCheck<RefundCheck>(sales, r, (sale) => refundCheck(sale, r, usedWithoutId, facts.settlement_id));
    return { service_refund_id: r.service_refund_id, service_id: r.service_id, check };
  });
  const invariants = invariantLines(facts);
  const differs = other === null ? [] : compare(facts, other);
  const ok = charges.every((c) => c.check.kind === 'matched') && refunds.every((r) => r.check.kind === 'matched') && invariants.every((i) => i.holds) && differs.length === 0;
  return { settlement_id: facts.settlement_id, charges, refunds, invariants, differs, status: ok ? 'reconciled' : 'needs_attention' };
}

/** A refund deduction against the refunds the service confirmed to this app for its sale. */
function refundCheck(sale: SaleForSettlement, r: SettlementFacts['refunds'][number], usedWithoutId: Set<object>, settlementId: number): RefundCheck {
  // A refund is deducted once: the same refund in an earlier settlement takes the money twice.
  const earlier = sale.deducted.find((d) => d.service_refund_id === r.service_refund_id && d.settlement_id !== settlementId);
  if (earlier !== undefined) return { kind: 'deducted_twice', sale_id: sale.sale_id, earlier: earlier.settlement_id };
  // refunded_amount is what went back to the payer, in BRL cents like the app's refunds.
  const cents = r.refunded.scale === 2 && (r.refunded.currency === null || r.refunded.currency.toUpperCase() === 'BRL') ? r.refunded.minor : null;
  const mine = sale.refunds.find((x) => x.service_refund_id === r.service_refund_id);
  if (mine !== undefined) {
    return cents === mine.refunded_cents ? { kind: 'matched', sale_id: sale.sale_id } : { kind: 'amount_differs', sale_id: sale.sale_id, refunded_cents: cents, app_cents: mine.refunded_cents };
  }
  // A refund Tx Status settled was never named by the service: the charge and the amount are
  // all that can tie it to this deduction, and the line says so for a person to confirm.
  const withoutId = sale.refunds.find((x) => x.service_refund_id === null && !usedWithoutId.has(x) && x.refunded_cents === cents);
  if (withoutId !== undefined && cents !== null) {
    usedWithoutId.add(withoutId);
    return { kind: 'matched_by_amount', sale_id: sale.sale_id, refunded_cents: cents };
  }
  // The service deducted a refund of the amount the app asked for and never heard back about:
  // it was made. A person answers the refund on the sale (It was refunded); this line tells them.
  if (cents !== null && (sale.open_refunds ?? []).includes(cents)) return { kind: 'unconfirmed_refund', sale_id: sale.sale_id, refunded_cents: cents };
  return { kind: 'unknown_refund', sale_id: sale.sale_id, refunded_cents: cents };
}

/**
 * Reference 6.1 as contract 8 reads it per mode. In both modes `amount` is the charges'
 * settlement amounts minus the deductions, in the settlement's currency. Blockchain batched
 * (USDt) also has the source side in USDt: source_amount equals that net, source_net_price the
 * gross, and with no refunds all three are equal. ARS batched moves USDt on the source side,
 * which no figure in ARS can check.
 */
export function invariantLines(f: SettlementFacts): InvariantLine[] {
  const lines: InvariantLine[] = [];
  const scale = f.amount.scale;
  // A figure whose unit or amount is not given cannot be counted: it is named, and every line
  // it takes part in does not hold (issue 24 point 2), never left out as if it held.
  const missing = [
    ...f.charges.flatMap((c) => [...(c.settlement_amount === null ? [`${c.service_id}.settlement_amount`] : []), ...(c.settlement_currency === null ? [`${c.service_id}.settlement_currency`] : [])]),
    ...f.refunds.flatMap((r) => (r.deduction_currency === null ? [`${r.service_refund_id}.deduction_currency`] : [])),
  ];
  const foreign = [...f.charges.map((c) => c.settlement_currency), ...f.refunds.map((r) => r.deduction_currency)].filter((c) => c !== null && c !== f.currency);
  lines.push({
    rule: 'currency',
    holds: foreign.length === 0 && missing.length === 0,
    left: f.currency,
    right: [...new Set(foreign), ...(missing.length > 0 ? [NOT_COMPUTABLE] : [])].join(', ') || f.currency,
    ...(missing.length > 0 ? { missing } : {}),
  });
  const gross = sum(f.charges.map((c) => (c.settlement_currency === null ? null : c.settlement_amount)), scale);
  const deducted = sum(
    f.refunds.map((r) => (r.deduction_currency === null ? null : r.deduction)),
    scale,
  );
  if (gross === null || deducted === null) {
    // Named: each figure missing, and each at another scale than the settlement's (another unit).
    const otherScale = [
      ...f.charges.flatMap((c) => (c.settlement_amount !== null && c.settlement_amount.scale !== scale ? [`${c.service_id}.settlement_amount`] : [])),
      ...f.refunds.flatMap((r) => (r.deduction.scale !== scale ? [`${r.service_refund_id}.deduction_amount`] : [])),
    ];
    lines.push({ rule: 'net', holds: false, left: show(BigInt(f.amount.minor), scale), right: NOT_COMPUTABLE, missing: [...new Set([...missing, ...otherScale])] });
    return lines;
  }
  lines.push({ rule: 'net', holds: gross - deducted === BigInt(f.amount.minor), left: show(BigInt(f.amount.minor), scale), right: `${show(gross, scale)} − ${show(deducted, scale)}` });
  if (f.source !== null && f.source.currency === f.currency && f.source.amount.scale === scale && f.source.net_price.scale === scale) {
    lines.push({ rule: 'source_net', holds: gross - deducted === BigInt(f.source.amount.minor), left: show(BigInt(f.source.amount.minor), scale), right: `${show(gross, scale)} − ${show(deducted, scale)}` });
    lines.push({ rule: 'net_price', holds: gross === BigInt(f.source.net_price.minor), left: show(BigInt(f.source.net_price.minor), scale), right: show(gross, scale) });
    if (f.refunds.length === 0) {
      const same = f.amount.minor === f.source.amount.minor && f.amount.minor === f.source.net_price.minor;
      lines.push({ rule: 'no_refunds_equal', holds: same, left: show(BigInt(f.amount.minor), scale), right: `${show(BigInt(f.source.amount.minor), scale)}, ${show(BigInt(f.source.net_price.minor), scale)}` });
    }
  }
  return lines;
}

/** What an invariant line shows in place of a figure it could not compute. */
export const NOT_COMPUTABLE = 'not computable';

/** Exact sum at one scale; null when a figure is missing or at another scale (flagged as a currency line). */
function sum(amounts: readonly (Amount | null)[], scale: number): bigint | null {
  let total = 0n;
  for (const a of amounts) {
    if (a === null || a.scale !== scale) return null;
    total += BigInt(a.minor);
  }
  return total;
}

/** An exact decimal: 12345n at scale 2 is "123.45". */
export function show(minor: bigint, scale: number): string {
  const negative = minor < 0n;
  const digits = (negative ? -minor : minor).toString().padStart(scale + 1, '0');
  const text = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return negative ? `-${text}` : text;
}

/** The fields both surfaces carry (2.7 and 6.1), compared one by one. */
function compare(a: SettlementFacts, b: SettlementFacts): string[] {
  const out: string[] = [];
  const same = (x: Amount, y: Amount) => x.minor === y.minor && x.scale === y.scale;
  if (!same(a.amount, b.amount)) out.push('amount');
  if (a.currency !== b.currency) out.push('currency');
  if (a.settled_at !== null && b.settled_at !== null && Date.parse(a.settled_at) !== Date.parse(b.settled_at)) out.push('settled_at');
  if (a.provider_settlement_id !== b.provider_settlement_id) out.push('provider_settlement_id');
  if (a.external_settlement_id !== b.external_settlement_id) out.push('external_settlement_id');
  const charges = (f: SettlementFacts) => f.charges.map((c) => `${c.service_id}:${c.charged.minor}/${c.charged.scale}:${c.settlement_amount?.minor ?? '-'}`).sort().join('|');
  if (charges(a) !== charges(b)) out.push('charges');
  const refunds = (f: SettlementFacts) => f.refunds.map((r) => `${r.service_refund_id}:${r.deduction.minor}/${r.deduction.scale}`).sort().join('|');
  if (refunds(a) !== refunds(b)) out.push('refunds');
  return out;
}

/**
 * A settlement journaled from a signed webhook that the service answers it does not have
 * (issue 24 point 4: a forged delivery, or one the service has not made readable): whatever
 * its figures say, it needs a person. Journaled as `missing: detail` among the differs.
 */
export function notAtService(r: Reconciliation): Reconciliation {
  return { ...r, differs: [...r.differs.filter((d) => d !== MISSING_DETAIL), MISSING_DETAIL], status: 'needs_attention' };
}
const MISSING_DETAIL = 'missing: detail';

/**
 * What a person has to acknowledge in a result, each under a key that stays the same when
 * the settlement is reconciled again: a charge or refund line that did not match, an
 * invariant that does not hold, a field on which the webhook and the REST detail differ.
 */
export interface Difference {
  key: string;
  kind: 'charge' | 'refund' | 'invariant' | 'field' | 'decode' | 'missing';
  /** The service_id, service_refund_id, rule or field name the line is about. */
  subject: string;
  /** What is wrong with it: a ChargeCheck or RefundCheck kind, `does_not_hold`, `differs`. */
  what: string;
}

export function differencesOf(r: Reconciliation): Difference[] {
  const out: Difference[] = [];
  for (const c of r.charges) if (c.check.kind !== 'matched') out.push({ key: `charge:${c.service_id}`, kind: 'charge', subject: c.service_id, what: c.check.kind });
  for (const f of r.refunds) if (f.check.kind !== 'matched') out.push({ key: `refund:${f.service_refund_id}`, kind: 'refund', subject: f.service_refund_id, what: f.check.kind });
  for (const i of r.invariants) if (!i.holds) out.push({ key: `invariant:${i.rule}`, kind: 'invariant', subject: i.rule, what: 'does_not_hold' });
  for (const d of r.differs) {
    // A refused figure is journaled as `decode: <why>`; the why is not part of its key.
    if (d.startsWith('decode:')) out.push({ key: 'decode', kind: 'decode', subject: d.slice('decode:'.length).trim(), what: 'refused' });
    else if (d.startsWith('missing:')) out.push({ key: `missing:${d.slice('missing:'.length).trim()}`, kind: 'missing', subject: d.slice('missing:'.length).trim(), what: 'not_at_service' });
    else out.push({ key: `field:${d}`, kind: 'field', subject: d, what: 'differs' });
  }
  return out;
}

/** What a checkout's pending pool holds (reference 4.7 pending-charges), by the ids a sale has. */
export interface PendingIds {
  service_ids: ReadonlySet<string>;
  request_ids: ReadonlySet<string>;
}

/** A checkout is named by its store and its number (issue 24 point 3): checkout ids are per store. */
export function poolKey(storeId: number, checkoutId: number): string {
  return `${storeId}/${checkoutId}`;
}

/** A paid sale as the unsettled check needs it. */
export interface PaidSale {
  sale_id: string;
  store_id: number;
  checkout_id: number;
  external_id: string | null;
  pix_id: string | null;
  service_id: string | null;
  paid_at: number;
  received_cents: number;
  /** A settlement already included its charge. */
  settled: boolean;
}

/**
 * Reference 4.7: a batched charge enters the pending pool and is swept into the next window's
 * settlement; legacy 1:1 settles each charge. A paid sale that no settlement has included
 * once `within` has passed, and that the service does not list as pending (a negative net
 * keeps a whole pool waiting: that is said on the Pending view), is flagged for a person.
 * Oldest first.
 */
export function unsettledSales(sales: readonly PaidSale[], pending: ReadonlyMap<string, PendingIds>, now: number, within: number): PaidSale[] {
  return sales
    .filter((s) => !s.settled && s.paid_at <= now - within)
    .filter((s) => {
      // Only the sale's own checkout's pool excuses it: checkout 1 of store 2 is not checkout 1 of store 1.
      const pool = pending.get(poolKey(s.store_id, s.checkout_id));
      return pool === undefined || (!(s.service_id !== null && pool.service_ids.has(s.service_id)) && !(s.pix_id !== null && pool.request_ids.has(s.pix_id)));
    })
    .sort((a, b) => a.paid_at - b.paid_at || (a.sale_id < b.sale_id ? -1 : 1));
}
