/**
 * Settlements over HTTP (reference 4.7) and the machinery that makes them happen: quotes at
 * charge creation, the pending pool at charge done, the hourly windows on sandbox time, and
 * `settlement.settled` (reference 6.1). The rules are in settlement.ts; this module wires
 * them to the sale hooks, the sandbox timers and the webhook outbox.
 *
 * When things happen: the book is brought up to the sandbox clock (settlement.ts catchUp) by
 * a sandbox timer at the next thing due (window boundary, transfer issue or confirmation),
 * after every control-API clock advance, and before every settlement read, refund and paid
 * charge, so a reader never sees a state the clock has already left behind.
 *
 * Control routes (contract 7): `PUT /_sandbox/checkouts/{store_id}/{checkout_id}/mode` and
 * `POST /_sandbox/settlements/run`.
 */
import { ACCESS, guard } from '../auth.ts';
import type { SandboxContext } from '../context.ts';
import { detailError } from '../http.ts';
import { findCheckout, findWallet } from '../lookup.ts';
import type { Reply, Router } from '../http.ts';
import { quoteCharge, SETTLEMENT_MODES, type ChargeQuote, type SettlementMode } from '../quotes.ts';
import {
  PENDING_DEFAULT_WINDOW_MS,
  SETTLEMENT_DETAIL,
  catchUp,
  closeWindow,
  expediteSettlements,
  advanceSettlements,
  bookVersion,
  findSettlement,
  listSettlements,
  listTransactions,
  nextDueAt,
  parseOffsetDateTime,
  pendingPreview,
  rangeProblem,
  recordDoneCharge,
  settledEventPayload,
  settlementBookOf,
  settlementDetailView,
  settlementInvariantProblems,
  settlementView,
  type CheckoutRef,
  type SettledCharge,
  type SettlementBook,
  type SettlementRecord,
} from '../settlement.ts';
import { formatCents } from '../../shared/money.ts';
import type { SaleRecord, SandboxState } from '../state.ts';
import { body, field, fields, optional, readRequest } from '../validate.ts';

/** reference 4.7 / 8: page bounds. */
const LIST_LIMIT = { min: 1, max: 1000, default: 100 } as const;
const PENDING_LIMIT = { min: 1, max: 500, default: 100 } as const;

/** One per sandbox: keeps the single timer that wakes the book up. */
export class SettlementRunner {
  readonly #ctx: SandboxContext;
  #cancelTimer: (() => void) | null = null;

  constructor(ctx: SandboxContext) {
    this.#ctx = ctx;
    ctx.onSaleCreated((sale) => this.#quote(sale));
    ctx.onSalePaid((sale) => ({ settlement_id: this.#chargeDone(sale) }));
    ctx.onClockAdvance(() => this.sync());
    ctx.onReset(() => {
      this.#cancelTimer?.();
      this.#cancelTimer = null;
    });
    // A state restored from disk may hold pooled charges or transfers in flight.
    this.sync();
  }

  book(): SettlementBook {
    return settlementBookOf(this.#ctx.state, this.#ctx.clock.now());
  }

  /** Where a checkout's settlements go: its current wallet's address (reference 2.2). */
  readonly addressOf = (ref: CheckoutRef): string => {
    const { state } = this.#ctx;
    const checkout = findCheckout(state, ref.merchantId, ref.storeId, ref.checkoutId);
    return checkout === undefined ? '' : (findWallet(state, ref.merchantId, checkout.wallet_id)?.address ?? '');
  };

  /** Brings the book up to the sandbox clock and sends what became settled. */
  sync(): void {
    const book = this.book();
    const before = bookVersion(book);
    this.#emit(catchUp(book, this.#ctx.clock.now(), this.addressOf));
    this.#reschedule(book);
    if (bookVersion(book) !== before) this.#ctx.persist();
  }

  /** Control API: close the current window now; with `confirm`, the transfers complete now too. */
  run(confirm: boolean): { created: SettlementRecord[]; settled: SettlementRecord[] } {
    this.sync();
    const book = this.book();
    const now = this.#ctx.clock.now();
    const created = closeWindow(book, now, this.addressOf);
    if (confirm) expediteSettlements(book, now);
    const settled = advanceSettlements(book, now);
    this.#emit(settled);
    this.#reschedule(book);
    this.#ctx.persist();
    return { created, settled };
  }

  /** contract 6: a charge is quoted when it is created, in its checkout's mode at that time. */
  #quote(sale: SaleRecord): void {
    sale.ext['quote'] = quoteCharge(BigInt(sale.amount_cents), modeOfCheckout(this.#ctx.state, sale));
  }

  /** The per-charge done: the pool (batched) or its own 1:1 settlement (legacy). */
  #chargeDone(sale: SaleRecord): number | null {
    if (sale.ext['done_at'] !== undefined) return (sale.ext['settlement_id'] as number | null | undefined) ?? null;
    this.sync();
    const now = this.#ctx.clock.now();
    const paidCents = sale.paid_amount_cents ?? sale.amount_cents;
    let quote = sale.ext['quote'] as ChargeQuote | undefined;
    // The mode and rate stay those of creation; a payer who paid another sum is quoted on it.
    const mode = quote?.mode ?? modeOfCheckout(this.#ctx.state, sale);
    if (quote === undefined || quote.charged_amount !== formatCents(paidCents)) quote = quoteCharge(BigInt(paidCents), mode);
    sale.ext['quote'] = quote;
    const charge: SettledCharge = {
      merchantId: sale.merchant_id,
      storeId: sale.store_id,
      checkoutId: sale.checkout_id,
      mode,
      service_id: sale.service_id,
      external_id: sale.external_id,
      service_request_id: sale.pix_id,
      charged_amount: formatCents(paidCents),
      charged_currency: 'BRL',
      settlement_amount: quote.amount,
      settlement_currency: quote.currency,
      charged_timestamp: sale.created_at,
      received_timestamp: sale.paid_at,
      added_at: now,
    };
    const book = this.book();
    const settlementId = recordDoneCharge(book, charge, this.addressOf);
    sale.ext['done_at'] = now;
    sale.ext['settlement_id'] = settlementId;
    this.#reschedule(book);
    this.#ctx.persist();
    return settlementId;
  }

  /**
   * reference 6.1: one settlement.settled per batched settlement reaching DONE. Its charges'
   * done events were enqueued when they were paid, before this; attempts start in the order
   * they fell due, up to 8 at once (webhooks.ts), so with a healthy receiver it follows them,
   * but contract 4 promises no order and a receiver must not rely on it.
   */
  #emit(settled: readonly SettlementRecord[]): void {
    for (const s of settled) {
      const problems = settlementInvariantProblems(s);
      if (problems.length > 0) {
        // Never send figures that do not add up; this is a sandbox bug to look at.
        this.#ctx.log(`settlement ${s.settlement_id} not announced, invariants broken: ${problems.join('; ')}`);
        continue;
      }
      const { event: _event, ...payload } = settledEventPayload(s);
      this.#ctx.webhooks.enqueueEvent(s.merchantId, 'settlement.settled', payload);
    }
  }

  #reschedule(book: SettlementBook): void {
    this.#cancelTimer?.();
    this.#cancelTimer = null;
    const due = nextDueAt(book);
    if (due !== null) this.#cancelTimer = this.#ctx.timers.at(due, () => this.sync());
  }
}


function modeOfCheckout(state: SandboxState, sale: SaleRecord): SettlementMode {
  return findCheckout(state, sale.merchant_id, sale.store_id, sale.checkout_id)?.settlement_mode ?? 'ars_per_charge';
}

const runners = new WeakMap<SandboxContext, SettlementRunner>();

/** The sandbox's runner, created (and hooked to the sales) on first use. */
export function runnerOf(ctx: SandboxContext): SettlementRunner {
  let runner = runners.get(ctx);
  if (runner === undefined) {
    runner = new SettlementRunner(ctx);
    runners.set(ctx, runner);
  }
  return runner;
}

interface DateTimeParam {
  ms: number | undefined;
  noOffset: boolean;
}

/**
 * A datetime query parameter (reference 4.7). Malformed text joins the 422 list; a value
 * without UTC offset is kept as `noOffset`, the 400 the reference states (checkRange).
 */
const dateTime = field.parsed<DateTimeParam>((text) => {
  const parsed = parseOffsetDateTime(text);
  if (parsed.ok) return { ok: true, value: { ms: parsed.ms, noOffset: false } };
  if (parsed.problem === 'malformed') {
    return { ok: false, type: 'datetime_from_date_parsing', msg: 'Input should be a valid datetime or date, invalid date or datetime format', ctx: { error: 'invalid date or datetime format' } };
  }
  return { ok: true, value: { ms: undefined, noOffset: true } };
});

function page(bounds: { min: number; max: number; default: number }) {
  return {
    limit: optional(field.int({ ge: bounds.min, le: bounds.max }), bounds.default),
    offset: optional(field.int({ ge: 0 }), 0),
  };
}

const SettlementsQuery = fields({ start_date: dateTime, end_date: dateTime, ...page(LIST_LIMIT) });
const TransactionsQuery = fields({ start_date: dateTime, end_date: dateTime, settlement_id: optional(field.int()), ...page(LIST_LIMIT) });
const PendingQuery = fields({ checkout_id: optional(field.int()), store_id: optional(field.int()), from: optional(dateTime), to: optional(dateTime), ...page(PENDING_LIMIT) });
const SettlementPath = fields({ settlement_id: field.int() });
const ModePath = fields({ store_id: field.int(), checkout_id: field.int() });
// The control route names no merchant; merchant 1 (the fixture's main one) unless told.
const ModeBody = body({ mode: field.literal(SETTLEMENT_MODES), merchant_id: optional(field.int(), 1) });
const RunBody = body({ confirm: optional(field.boolean(), true) });

/** The 400s of reference 4.7, in order: offsets first, then the range. */
function checkRange(start: { name: string; ms: number | undefined; noOffset: boolean }, end: { name: string; ms: number | undefined; noOffset: boolean }): { startMs: number; endMs: number } {
  for (const d of [start, end]) if (d.noOffset) throw detailError(400, SETTLEMENT_DETAIL.missingOffset(d.name));
  const startMs = start.ms as number;
  const endMs = end.ms as number;
  const problem = rangeProblem(startMs, endMs, start.name, end.name);
  if (problem !== null) throw detailError(400, problem);
  return { startMs, endMs };
}

/**
 * Which checkout pending-charges previews (reference 4.7): checkout_id omitted means the one
 * enrolled checkout (400 when several, null when none). The reference has no store_id; as
 * checkout ids are per store, an optional `store_id` narrows the search, and a checkout_id
 * enrolled in several stores needs it.
 */
function previewCheckout(state: SandboxState, merchantId: number, storeId: number | undefined, checkoutId: number | undefined): { ref: CheckoutRef; mode: SettlementMode } | null {
  const candidates = Object.values(state.checkouts).filter(
    (c) => c.merchant_id === merchantId && (storeId === undefined || c.store_id === storeId) && (checkoutId === undefined || c.checkout_id === checkoutId),
  );
  const enrolled = candidates.filter((c) => c.settlement_mode !== 'ars_per_charge');
  if (enrolled.length > 1) {
    throw detailError(400, checkoutId === undefined ? SETTLEMENT_DETAIL.checkoutIdRequired : SETTLEMENT_DETAIL.storeIdRequired(checkoutId));
  }
  const chosen = enrolled[0];
  if (chosen === undefined) return null; // none enrolled (or legacy 1:1): always empty
  return { ref: { merchantId, storeId: chosen.store_id, checkoutId: chosen.checkout_id }, mode: chosen.settlement_mode };
}

export function register(router: Router, ctx: SandboxContext): void {
  const runner = runnerOf(ctx);

  router.add('GET', '/v1/settlements', (req): Reply => {
    const p = guard(req, ACCESS.payIn);
    const { start_date: start, end_date: end, limit, offset } = readRequest(req, { query: SettlementsQuery }).query;
    const { startMs, endMs } = checkRange({ name: 'start_date', ...start }, { name: 'end_date', ...end });
    runner.sync();
    return { status: 200, body: listSettlements(runner.book(), p.merchantId, startMs, endMs, { limit, offset }) };
  });

  router.add('GET', '/v1/settlements/transactions', (req): Reply => {
    const p = guard(req, ACCESS.payIn);
    const { start_date: start, end_date: end, settlement_id: settlementId, limit, offset } = readRequest(req, { query: TransactionsQuery }).query;
    const { startMs, endMs } = checkRange({ name: 'start_date', ...start }, { name: 'end_date', ...end });
    runner.sync();
    return { status: 200, body: listTransactions(runner.book(), p.merchantId, startMs, endMs, settlementId ?? null, { limit, offset }) };
  });

  router.add('GET', '/v1/settlements/pending-charges', (req): Reply => {
    const p = guard(req, ACCESS.payIn);
    const { checkout_id: checkoutId, store_id: storeId, from, to, limit, offset } = readRequest(req, { query: PendingQuery }).query;
    const now = ctx.clock.now();
    // reference 4.7: default window is the last 30 days, ending now
    const { startMs, endMs } = checkRange(
      { name: 'from', noOffset: from?.noOffset ?? false, ms: from?.ms ?? now - PENDING_DEFAULT_WINDOW_MS },
      { name: 'to', noOffset: to?.noOffset ?? false, ms: to?.ms ?? now },
    );
    const target = previewCheckout(ctx.state, p.merchantId, storeId, checkoutId);
    runner.sync();
    return { status: 200, body: pendingPreview(runner.book(), target?.ref ?? null, target?.mode ?? 'ars_per_charge', startMs, endMs, { limit, offset }) };
  });

  router.add('GET', '/v1/settlements/:settlement_id', (req): Reply => {
    const p = guard(req, ACCESS.payIn);
    const { settlement_id: settlementId } = readRequest(req, { path: SettlementPath }).path;
    runner.sync();
    const settlement = findSettlement(runner.book(), p.merchantId, settlementId);
    if (settlement === null) throw detailError(404, SETTLEMENT_DETAIL.notFound);
    return { status: 200, body: settlementDetailView(settlement) };
  });

  if (!ctx.control) return;

  router.add('PUT', '/_sandbox/checkouts/:store_id/:checkout_id/mode', (req): Reply => {
    const { path, body: sent } = readRequest(req, { path: ModePath, body: ModeBody });
    const { mode, merchant_id: merchantId } = sent;
    const checkout = findCheckout(ctx.state, merchantId, path.store_id, path.checkout_id);
    if (checkout === undefined) throw detailError(404, 'Checkout not found');
    runner.sync();
    // contract 6: charges created from now on are quoted in the new mode; earlier ones keep theirs
    checkout.settlement_mode = mode;
    ctx.persist();
    return { status: 200, body: { merchant_id: merchantId, store_id: checkout.store_id, checkout_id: checkout.checkout_id, mode: checkout.settlement_mode } };
  });

  router.add('POST', '/_sandbox/settlements/run', (req): Reply => {
    // No body at all is a run with every default.
    const { confirm } = readRequest({ body: req.body ?? {} }, { body: RunBody }).body;
    const { created, settled } = runner.run(confirm);
    return {
      status: 200,
      body: { created: created.map(settlementView), settled: settled.map((s) => s.settlement_id) },
    };
  });
}
