/**
 * Reconciling a settlement against the journal (issue 11; reference 4.7, 6.1; contract 6
 * and 8), pure: each charge and refund matched to its sale, each match checked, and the 6.1
 * invariants that apply to the settlement's mode, all in exact minor units. Nothing here is
 * "corrected": a difference is a line a person reads and acknowledges.
 */
import type { Amount } from '../api/decode.ts';
import type { SettledEvent, SettlementDetail } from '../api/routes.ts';

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
  refunds: Array<{ service_refund_id: string; service_id: string; external_id: string | null; service_request_id: string | null; deduction: Amount; deduction_currency: string | null }>;
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
    refunds: e.refunds.map((r) => ({ service_refund_id: r.service_refund_id, service_id: r.service_id, external_id: r.external_id, service_request_id: r.service_request_id, deduction: r.deduction_amount, deduction_currency: r.deduction_currency })),
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
    refunds: d.refunds.map((r) => ({ service_refund_id: r.service_refund_id, service_id: r.service_id, external_id: r.external_id, service_request_id: r.service_request_id, deduction: r.deduction_amount, deduction_currency: r.deduction_currency })),
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
}

export type ChargeCheck =
  | { kind: 'matched'; sale_id: string }
  | { kind: 'amount_differs'; sale_id: string; charged_cents: number | null; received_cents: number | null }
  | { kind: 'settled_twice'; sale_id: string; earlier: number }
  | { kind: 'not_in_journal' };

export type RefundCheck = { kind: 'matched'; sale_id: string } | { kind: 'not_in_journal' };

export interface InvariantLine {
  /** e.g. `amount = charges − deductions`. */
  rule: 'net' | 'source_net' | 'no_refunds_equal' | 'net_price' | 'currency';
  holds: boolean;
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

export function reconcile(facts: SettlementFacts, sales: readonly SaleForSettlement[], other: SettlementFacts | null = null): Reconciliation {
  const charges = facts.charges.map((c) => {
    const sale = findSale(sales, c);
    let check: ChargeCheck;
    if (sale === null) check = { kind: 'not_in_journal' };
    else {
      const earlier = sale.settled_in.find((id) => id !== facts.settlement_id);
      const charged = c.charged.scale === 2 ? c.charged.minor : null;
      if (earlier !== undefined) check = { kind: 'settled_twice', sale_id: sale.sale_id, earlier };
      else if (charged === null || sale.received_cents !== charged) check = { kind: 'amount_differs', sale_id: sale.sale_id, charged_cents: charged, received_cents: sale.received_cents };
      else check = { kind: 'matched', sale_id: sale.sale_id };
    }
    return { service_id: c.service_id, check };
  });
  const refunds = facts.refunds.map((r) => {
    const sale = findSale(sales, r);
    return { service_refund_id: r.service_refund_id, service_id: r.service_id, check: sale === null ? ({ kind: 'not_in_journal' } as const) : ({ kind: 'matched', sale_id: sale.sale_id } as const) };
  });
  const invariants = invariantLines(facts);
  const differs = other === null ? [] : compare(facts, other);
  const ok = charges.every((c) => c.check.kind === 'matched') && refunds.every((r) => r.check.kind === 'matched') && invariants.every((i) => i.holds) && differs.length === 0;
  return { settlement_id: facts.settlement_id, charges, refunds, invariants, differs, status: ok ? 'reconciled' : 'needs_attention' };
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
  const foreign = [...f.charges.map((c) => c.settlement_currency), ...f.refunds.map((r) => r.deduction_currency)].filter((c) => c !== null && c !== f.currency);
  lines.push({ rule: 'currency', holds: foreign.length === 0 && f.charges.every((c) => c.settlement_amount !== null), left: f.currency, right: [...new Set(foreign)].join(', ') || f.currency });
  const gross = sum(f.charges.map((c) => c.settlement_amount), scale);
  const deducted = sum(
    f.refunds.map((r) => r.deduction),
    scale,
  );
  if (gross === null || deducted === null) return lines;
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
 * What a person has to acknowledge in a result, each under a key that stays the same when
 * the settlement is reconciled again: a charge or refund line that did not match, an
 * invariant that does not hold, a field on which the webhook and the REST detail differ.
 */
export interface Difference {
  key: string;
  kind: 'charge' | 'refund' | 'invariant' | 'field' | 'decode';
  /** The service_id, service_refund_id, rule or field name the line is about. */
  subject: string;
  /** What is wrong with it: a ChargeCheck kind, `not_in_journal`, `does_not_hold`, `differs`. */
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
    else out.push({ key: `field:${d}`, kind: 'field', subject: d, what: 'differs' });
  }
  return out;
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
export function unsettledSales(sales: readonly PaidSale[], pending: { service_ids: ReadonlySet<string>; request_ids: ReadonlySet<string> }, now: number, within: number): PaidSale[] {
  return sales
    .filter((s) => !s.settled && s.paid_at <= now - within)
    .filter((s) => !(s.service_id !== null && pending.service_ids.has(s.service_id)) && !(s.pix_id !== null && pending.request_ids.has(s.pix_id)))
    .sort((a, b) => a.paid_at - b.paid_at || (a.sale_id < b.sale_id ? -1 : 1));
}
