import { validateBrCode } from '../../shared/emv.ts';
import { deepFreeze } from '../../shared/freeze.ts';
import { keepJsonText } from '../../shared/json-text.ts';
import { checkoutScreen } from '../sales/checkout.ts';
import { describeSale, type SaleDescription } from '../sales/describe.ts';
import { refundsMadeCents, type AttentionReason, type QrType, type RefundState, type Sale, type SaleIssue, type SaleStatus } from '../sales/lifecycle.ts';
import { refundableCents } from '../sales/refunds.ts';

/**
 * What the renderer is shown. The core decides every state; the renderer only displays
 * these views (money in integer cents, times in epoch ms, texts as message keys).
 */
export interface SaleSummary {
  sale_id: string;
  store_id: number;
  checkout_id: number;
  seq: number;
  status: SaleStatus;
  amount_cents: number;
  external_id: string | null;
  requested_at: number;
  requested_by: string;
  pix_id: string | null;
  service_id: string | null;
  qr_type: QrType | null;
  expires_at: number | null;
  displaced_by: string | null;
  /** The payment that decides the status. */
  received_cents: number | null;
  /**
   * Every payment received on the sale and kept, extra ones included (a charge.done alone
   * counts as its payment); a refunded payment is in refunded_cents instead.
   */
  received_total_cents: number;
  /**
   * Money received, then given back: a payment whose charge Tx Status reads `refunded`, or
   * the refunds this app made (contract 5). Never also in received_total_cents.
   */
  refunded_cents: number;
  /** What a supervisor may still refund (0 while a refund is unanswered: one at a time). */
  refundable_cents: number;
  /** The refunds asked for through this app, oldest first. */
  refunds: RefundView[];
  paid_at: number | null;
  e2e_id: string | null;
  /**
   * The settlement that included the sale's charge (reference 4.7): null while none has, as
   * this journal knows it now (a closed shift's sale learns it after the close too).
   */
  settlement: { settlement_id: number; settled_at: number | null } | null;
  description: SaleDescription;
  issues: SaleIssue[];
}

export interface RefundView {
  refund_id: string;
  amount_cents: number;
  reason: string | null;
  requested_by: string;
  requested_at: number;
  /** requested/uncertain: not answered for certain yet (followed up); unconfirmed: a supervisor decides; made; refused. */
  state: RefundState;
  refunded_cents: number | null;
  /** A refusal's stable code (ServiceError.problem), and the service's detail. */
  error_code: string | null;
  error_detail: string | null;
  /** The supervisor who said a refund not confirmed was made (no answer of the service did). */
  confirmed_by: string | null;
  /** The supervisor who last sent it again under a new key. */
  resent_by: string | null;
}

export type ScreenView =
  | { kind: 'idle' }
  | { kind: 'creating'; sale_id: string }
  | { kind: 'uncertain'; sale_id: string }
  /**
   * The newest sale is past its expires_at and waits for its last Tx Status read (a payment
   * made just before expiry is still found): no QR, "Expiring — checking payment".
   */
  | { kind: 'expiring'; sale_id: string; amount_cents: number; expires_at: number }
  /** The only QR that may be shown: the newest sale's, its CRC checked. */
  | { kind: 'qr'; sale_id: string; emv: string; amount_cents: number; expires_at: number; printed: boolean }
  /**
   * The newest sale is pending, but a payment on this checkout waits for a person (see
   * CheckoutView.hold): no QR anywhere, the customer display says Please wait. No `emv`, so
   * no window can show it by mistake.
   */
  | { kind: 'held'; sale_id: string; amount_cents: number; expires_at: number; printed: boolean }
  /** The service returned a QR that is not a valid Pix BR Code: never shown. */
  | { kind: 'qr_invalid'; sale_id: string; problem: string }
  | { kind: 'settled'; sale_id: string; status: SaleStatus };

export interface CheckoutView {
  store_id: number;
  checkout_id: number;
  now: number;
  screen: ScreenView;
  /** The newest sale, whatever its state. */
  newest: SaleSummary | null;
  /** Recent sales, newest first. */
  recent: SaleSummary[];
  /** Sales that still need a person (amount mismatch, late payment...), newest first. */
  attention: SaleSummary[];
  /**
   * A payment that waits for a person (HOLDING_REASONS) on this checkout: while it does, no
   * window shows a QR (the screen is `held` instead of `qr`) and the customer display says
   * Please wait, so the customer is never invited to pay a second time. Null otherwise.
   */
  hold: CustomerHold | null;
}

export interface CustomerHold {
  /** The sales whose payment waits for a person, newest first, with why. */
  items: { sale_id: string; reason: AttentionReason }[];
}

/**
 * What stops the checkout from inviting a payment: a customer has paid something a person
 * must settle first (a late payment on a displaced sale, an amount that differs, a payment
 * on a withdrawn sale, a payment found once the sale's time was up and the cashier had moved
 * on). A second QR now could take the customer's money twice.
 */
export const HOLDING_REASONS: readonly AttentionReason[] = ['paid_late', 'amount_mismatch', 'paid_withdrawn', 'paid_after_expiry'];

export function customerHold(sales: readonly Sale[], storeId: number, checkoutId: number): CustomerHold | null {
  // Built at every change of the checkout's view: most of the time nothing holds the customer.
  if (!sales.some((s) => s.attention.some((a) => HOLDING_REASONS.includes(a.reason)))) return null;
  const items = sales
    .filter((s) => s.store_id === storeId && s.checkout_id === checkoutId)
    .sort((a, b) => b.seq - a.seq)
    .flatMap((s) => s.attention.filter((a) => HOLDING_REASONS.includes(a.reason)).map((a) => ({ sale_id: s.sale_id, reason: a.reason })));
  return items.length > 0 ? { items } : null;
}

/** The screen under a hold: the pending sale keeps its countdown, never its QR. */
export function heldScreen(screen: ScreenView, hold: CustomerHold | null): ScreenView {
  if (hold === null || screen.kind !== 'qr') return screen;
  return { kind: 'held', sale_id: screen.sale_id, amount_cents: screen.amount_cents, expires_at: screen.expires_at, printed: screen.printed };
}

/** The first settlement that included the sale's charge (a second one is flagged by its reconciliation). */
export function chargeSettlement(sale: Sale): SaleSummary['settlement'] {
  const first = (sale.settlements ?? []).filter((f) => f.line === 'charge').sort((a, b) => a.at - b.at || a.settlement_id - b.settlement_id)[0];
  return first === undefined ? null : { settlement_id: first.settlement_id, settled_at: first.settled_at };
}

/**
 * Summaries whose description read nothing but the sale itself, by sale. A sale read from
 * the journal is frozen and replaced whenever it changes (journal/view.ts), so its summary
 * holds as long as that object lives: a checkout's view, built at every change of any of its
 * sales, reuses the summaries of the sales that did not change (issue 9: they were a tenth
 * of the core's work with 64 tills), and comparing two views stops at the same summary. A
 * late payment's summary reads the sales of its correction chain, so it is never kept.
 */
const SUMMARIES = new WeakMap<Sale, SaleSummary>();

export function saleSummary(sale: Sale, checkoutSales: Iterable<Sale>): SaleSummary {
  const kept = SUMMARIES.get(sale);
  if (kept !== undefined) return kept;
  let readContext = false;
  const summary = buildSummary(sale, checkoutSales, () => (readContext = true));
  // A sale frozen by the journal is journal data (plain JSON, no Date): so is its summary.
  if (!readContext && Object.isFrozen(sale)) {
    SUMMARIES.set(sale, deepFreeze(summary));
    keepJsonText(summary);
  }
  return summary;
}

function buildSummary(sale: Sale, checkoutSales: Iterable<Sale>, onContext: () => void): SaleSummary {
  return {
    sale_id: sale.sale_id,
    store_id: sale.store_id,
    checkout_id: sale.checkout_id,
    seq: sale.seq,
    status: sale.status,
    amount_cents: sale.amount_cents,
    external_id: sale.external_id ?? null,
    requested_at: sale.requested_at,
    requested_by: sale.requested_by,
    pix_id: sale.pix_id ?? null,
    service_id: sale.service_id ?? null,
    qr_type: sale.created?.qr_type ?? null,
    expires_at: sale.created?.expires_at ?? null,
    displaced_by: sale.displaced_by ?? null,
    received_cents: sale.paid?.received_cents ?? null,
    received_total_cents: receivedTotal(sale),
    refunded_cents: refundedCents(sale),
    refundable_cents: refundableCents(sale),
    refunds: (sale.refunds ?? []).map((r) => ({
      refund_id: r.refund_id,
      amount_cents: r.amount_cents,
      reason: r.reason ?? null,
      requested_by: r.requested_by,
      requested_at: r.requested_at,
      state: r.state,
      refunded_cents: r.made?.refunded_cents ?? null,
      error_code: r.error?.code ?? null,
      error_detail: r.error?.detail ?? null,
      confirmed_by: r.made?.confirmed_by ?? null,
      resent_by: r.resent?.at(-1)?.by ?? null,
    })),
    paid_at: sale.paid?.paid_at ?? null,
    e2e_id: sale.paid?.e2e_id ?? null,
    settlement: chargeSettlement(sale),
    description: describeSale(sale, checkoutSales, onContext),
    issues: [...sale.issues, ...sale.conflicts],
  };
}

function receivedTotal(sale: Sale): number {
  // charge.done before charge.paid (contract 4: no order): the done stands for its payment.
  const kept = sale.payments.length === 0 ? (sale.paid?.received_cents ?? 0) : sale.payments.filter((p) => !p.refunded).reduce((sum, p) => sum + (p.received_cents ?? 0), 0);
  // A charge Tx Status reads `refunded` is already out of `kept`; otherwise the refunds made here come off it.
  return sale.payments.some((p) => p.refunded) ? kept : Math.max(0, kept - refundsMadeCents(sale));
}

function refundedCents(sale: Sale): number {
  const byStatus = sale.payments.filter((p) => p.refunded).reduce((sum, p) => sum + (p.received_cents ?? 0), 0);
  // Tx Status `refunded` covers the whole charge, the refunds made here included.
  return byStatus > 0 ? byStatus : refundsMadeCents(sale);
}

/**
 * The checks of the codes on screen now, by code: a checkout's code is checked at every
 * change of its view (four a sale at each of 64 tills, issue 9), and a code's check never
 * changes. A few per checkout at most; the oldest goes first.
 */
const CHECKED_CODES = new Map<string, ReturnType<typeof validateBrCode>>();
const CHECKED_CODES_KEPT = 1024;

function checkedCode(emv: string): ReturnType<typeof validateBrCode> {
  let check = CHECKED_CODES.get(emv);
  if (check === undefined) {
    check = validateBrCode(emv);
    CHECKED_CODES.set(emv, check);
    if (CHECKED_CODES.size > CHECKED_CODES_KEPT) CHECKED_CODES.delete(CHECKED_CODES.keys().next().value!);
  }
  return check;
}

/** Contract 2: a client validates the CRC before it ever shows a code. */
export function screenView(sales: readonly Sale[], storeId: number, checkoutId: number, now: number): ScreenView {
  const screen = checkoutScreen(sales, storeId, checkoutId, now);
  if (screen.kind !== 'qr') return screen;
  const check = checkedCode(screen.emv);
  if (!check.ok) return { kind: 'qr_invalid', sale_id: screen.sale_id, problem: check.message };
  const sale = sales.find((s) => s.sale_id === screen.sale_id);
  return { ...screen, printed: sale?.created?.qr_type === 'printed_dynamic' };
}

/**
 * How many recent sales a checkout view carries: the cashier's screen lists 8 (RecentSales),
 * what needs a person comes in `attention` however old, and the shift journal reads the
 * journal itself. Every push to a till carries the view, four a sale: 30 here made the views
 * and their sending a fifth of the core's work at 64 tills (issue 9's benchmark).
 */
export const RECENT = 10;

/**
 * `sales`: the checkout's recent and open sales (the screen and the recent list come from
 * them); `extraAttention`: older sales that may need a person, and sales read only to
 * describe them (a late payment's newer sale).
 */
export function checkoutView(sales: readonly Sale[], extraAttention: readonly Sale[], storeId: number, checkoutId: number, now: number): CheckoutView {
  const newestFirst = [...sales].sort((a, b) => b.seq - a.seq || b.requested_at - a.requested_at);
  const context = [...sales, ...extraAttention];
  const views = new Map(newestFirst.map((s) => [s.sale_id, saleSummary(s, context)]));
  for (const s of extraAttention) if (!views.has(s.sale_id)) views.set(s.sale_id, saleSummary(s, context));
  const newest = newestFirst.find((s) => s.status !== 'failed') ?? newestFirst[0];
  const hold = customerHold(uniqueById([...sales, ...extraAttention]), storeId, checkoutId);
  return {
    store_id: storeId,
    checkout_id: checkoutId,
    now,
    screen: heldScreen(screenView(sales, storeId, checkoutId, now), hold),
    hold,
    newest: newest ? (views.get(newest.sale_id) ?? null) : null,
    recent: newestFirst.slice(0, RECENT).map((s) => views.get(s.sale_id) as SaleSummary),
    attention: [...views.values()].filter((v) => v.description.needs_person).sort((a, b) => b.requested_at - a.requested_at),
  };
}

function uniqueById(sales: readonly Sale[]): Sale[] {
  return [...new Map(sales.map((s) => [s.sale_id, s])).values()];
}
