/**
 * Settlements: the pending pool of done charges and refund deductions, the recurring batch
 * windows, the settlement lifecycle (CREATED -> PROCESSING -> DONE), the `settlement.settled`
 * payload with its invariants, and the read views of reference 4.7. Everything here works on
 * plain serializable data (`SettlementBook`) and explicit times, so the routes stay thin and
 * the rules are unit-tested without a server.
 */
import { createHash } from 'node:crypto';
import { checkoutKey, type SandboxState } from './state.ts';
import {
  CURRENCY_ID,
  arsToUsdt,
  isBatched,
  quoteCurrencyOf,
  subtractAmounts,
  sumAmounts,
  toUnits,
  toWireNumber,
  CURRENCY_SCALE,
  type QuoteCurrency,
  type SettlementMode,
} from './quotes.ts';

// ---------------------------------------------------------------------------------------
// Dates: ISO 8601 with a UTC offset, and the 31-day ranges (reference 4.7, 8)

export const DAY_MS = 86_400_000;
/** reference 8: settlement list, transactions and pending charges span at most 31 days. */
export const MAX_RANGE_MS = 31 * DAY_MS;
/** reference 4.7: pending charges default to the last 30 days. */
export const PENDING_DEFAULT_WINDOW_MS = 30 * DAY_MS;

export type ParsedDateTime = { ok: true; ms: number } | { ok: false; problem: 'no_offset' | 'malformed' };

const ISO_DATETIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))?)?$/;

/**
 * Parses an ISO 8601 datetime and insists on an explicit UTC offset (`Z` or `+hh:mm`).
 * A date alone, or a datetime without offset, is `no_offset` (reference 4.7: 400); text that
 * is no datetime at all is `malformed` (a 422 validation item, contract validation rule).
 * Note: a literal `+` in a query string decodes to a space, so `+03:00` must be sent as
 * `%2B03:00`; the decoded space makes the value malformed, as it would on the real service.
 */
export function parseOffsetDateTime(text: string): ParsedDateTime {
  const m = ISO_DATETIME.exec(text);
  if (!m) return { ok: false, problem: 'malformed' };
  const [, y, mo, d, h, mi, s, fraction, zulu, sign, oh, om] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h ?? '0');
  const minute = Number(mi ?? '0');
  const second = Number(s ?? '0');
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) {
    return { ok: false, problem: 'malformed' };
  }
  const base = Date.UTC(year, month - 1, day, hour, minute, second);
  // Date.UTC rolls 31 February over into March: a real calendar date must survive the trip.
  if (new Date(base).getUTCDate() !== day) return { ok: false, problem: 'malformed' };
  if (h === undefined || (zulu === undefined && sign === undefined)) return { ok: false, problem: 'no_offset' };
  let offsetMinutes = 0;
  if (sign !== undefined) {
    const offH = Number(oh);
    const offM = Number(om);
    if (offH > 23 || offM > 59) return { ok: false, problem: 'malformed' };
    offsetMinutes = (sign === '-' ? -1 : 1) * (offH * 60 + offM);
  }
  const millis = fraction === undefined ? 0 : Number(fraction.slice(0, 3).padEnd(3, '0'));
  return { ok: true, ms: base + millis - offsetMinutes * 60_000 };
}

/**
 * Every detail string of the settlement endpoints, in one place. Only `Settlement not found`
 * is verbatim in the reference; the rest are our sentences for the conditions it names.
 */
export const SETTLEMENT_DETAIL = {
  notFound: 'Settlement not found',
  missingOffset: (param: string): string =>
    `${param} must be an ISO 8601 datetime with a UTC offset (for example 2026-11-21T13:45:00Z or 2026-11-21T10:45:00-03:00)`,
  endNotAfterStart: (startParam: string, endParam: string): string => `${endParam} must be after ${startParam}`,
  rangeTooLong: (startParam: string, endParam: string): string => `${startParam} and ${endParam} must be at most 31 days apart`,
  checkoutIdRequired:
    'checkout_id is required when more than one checkout is enrolled in the batched settlement program',
  storeIdRequired: (checkoutId: number): string =>
    `store_id is required: checkout_id ${checkoutId} is enrolled in the batched settlement program in more than one store`,
} as const;

/**
 * reference 4.7 date rules after both ends parsed: end after start, at most 31 days.
 * Returns the 400 detail, or null when the range is acceptable.
 */
export function rangeProblem(startMs: number, endMs: number, startParam: string, endParam: string): string | null {
  if (endMs <= startMs) return SETTLEMENT_DETAIL.endNotAfterStart(startParam, endParam);
  if (endMs - startMs > MAX_RANGE_MS) return SETTLEMENT_DETAIL.rangeTooLong(startParam, endParam);
  return null;
}

// ---------------------------------------------------------------------------------------
// The book

export type SettlementStatus = 'CREATED' | 'PROCESSING' | 'DONE' | 'CANCELED' | 'FAILED';

/** One checkout, as the settlement domain addresses it. */
export interface CheckoutRef {
  merchantId: number;
  storeId: number;
  checkoutId: number;
}

/** A done charge as settlements see it (reference 2.8), with its quote fixed at creation. */
export interface SettledCharge extends CheckoutRef {
  mode: SettlementMode;
  service_id: string;
  external_id: string | null;
  service_request_id: string;
  /** BRL decimal string, "12.50". */
  charged_amount: string;
  charged_currency: 'BRL';
  settlement_amount: string;
  settlement_currency: QuoteCurrency;
  /** Epoch ms: when the pay-in request was created. */
  charged_timestamp: number;
  /** Epoch ms: when payment was received. */
  received_timestamp: number | null;
  /** Epoch ms: when the charge was done and entered the pool ("the time each charge was added"). */
  added_at: number;
}

/** A refund deduction (reference 2.9). */
export interface Deduction extends CheckoutRef {
  mode: SettlementMode;
  service_refund_id: string;
  pay_in_refund_request_id: string | null;
  service_id: string;
  external_id: string | null;
  service_request_id: string;
  refunded_amount: string;
  refunded_currency: 'BRL';
  deduction_amount: string;
  deduction_currency: QuoteCurrency;
  /** Epoch ms: when the refund was requested. */
  requested_at: number;
  /** Epoch ms: when it was attached to a settlement (detail's created_at); null while pending. */
  attached_at: number | null;
}

export interface SettlementRecord extends CheckoutRef {
  settlement_id: number;
  mode: SettlementMode;
  settlement_provider_name: string;
  provider_settlement_id: string | null;
  external_settlement_id: string | null;
  /** Net amount delivered, in `currency`. */
  amount: string;
  currency: QuoteCurrency;
  /** Amount actually transferred, and the gross on the source side (reference 6.1). */
  source_amount: string;
  source_currency: QuoteCurrency;
  source_net_price: string;
  address_to: string;
  address_from: string;
  settlement_message: string | null;
  status: SettlementStatus;
  created_at: number;
  /** Scheduled lifecycle: the transfer is issued at processing_at and confirmed at confirm_at. */
  processing_at: number;
  confirm_at: number;
  settled_at: number | null;
  /** Oldest first, by added_at (reference 6.1 ordering). */
  charges: SettledCharge[];
  refunds: Deduction[];
}

/** The bookkeeping the settlement domain keeps besides its records. */
export interface SettlementMeta {
  nextSettlementId: number;
  /** Epoch ms of the last window boundary already processed. */
  windowsClosedUpTo: number;
}

/**
 * The settlement domain's slice of the sandbox state (state.ts): each field is the very
 * object stored there, so the functions below mutate the state in place.
 */
/**
 * What a settlement reads of a refund request (refunds.ts' RefundRecord): the deduction it
 * carries, if its charge was settled in a batched mode. The rest of a refund is not its business.
 */
export interface RefundDeduction {
  deduction: Deduction | null;
}

export interface SettlementBook {
  /** By settlement_id (state.settlements). */
  settlements: Record<string, SettlementRecord>;
  /** Done charges in a batched mode not yet in a settlement, by service_id (state.pendingPool). */
  pool: Record<string, SettledCharge>;
  /** Refund requests by service_refund_id (state.refunds); their deductions pend until attached. */
  refunds: Record<string, RefundDeduction>;
  meta: SettlementMeta;
}

/** contract 6: batched windows recur every hour of sandbox time. */
export const WINDOW_MS = 3_600_000;
/** The sandbox's transfer timeline: issued one minute after creation, confirmed one minute later. */
export const PROCESSING_DELAY_MS = 60_000;
export const CONFIRM_DELAY_MS = 120_000;

export const PROVIDER_NAME: Readonly<Record<QuoteCurrency, string>> = {
  ARS: 'sandbox-ars-provider',
  USDt: 'sandbox-usdt-chain',
};
/** The originating vault of every sandbox settlement. */
export const VAULT_ADDRESS: Readonly<Record<QuoteCurrency, string>> = {
  ARS: 'sandbox-vault-ars',
  USDt: 'sandbox-vault-usdt',
};

function keyOf(ref: CheckoutRef): string {
  return checkoutKey(ref.merchantId, ref.storeId, ref.checkoutId);
}

export function newMeta(now: number): SettlementMeta {
  return { nextSettlementId: 1, windowsClosedUpTo: Math.floor(now / WINDOW_MS) * WINDOW_MS };
}

export function emptyBook(now: number): SettlementBook {
  return { settlements: {}, pool: {}, refunds: {}, meta: newMeta(now) };
}

/** The book over the sandbox state (read it per request: a reset replaces the contents). */
export function settlementBookOf(state: SandboxState, now: number): SettlementBook {
  let meta = state.ext['settlement'] as SettlementMeta | undefined;
  if (meta === undefined) {
    meta = newMeta(now);
    state.ext['settlement'] = meta;
  }
  return {
    settlements: state.settlements as Record<string, SettlementRecord>,
    pool: state.pendingPool as Record<string, SettledCharge>,
    refunds: state.refunds as Record<string, RefundDeduction>,
    meta,
  };
}

/** Where a settlement goes: the checkout's current wallet address (reference 2.2). */
export type AddressOf = (ref: CheckoutRef) => string;

function sameCheckout(a: CheckoutRef, b: CheckoutRef): boolean {
  return a.merchantId === b.merchantId && a.storeId === b.storeId && a.checkoutId === b.checkoutId;
}

/**
 * The deductions still pending at `at`, in request order, at most one per charge
 * (reference 4.7: "at most one per refunded charge"): of several pending deductions for one
 * charge only the earliest takes part; the next waits for the following window.
 */
export function activeDeductions(refunds: Readonly<Record<string, RefundDeduction>>, at: number): Deduction[] {
  const pending = Object.values(refunds)
    .map((r) => r.deduction)
    .filter((d): d is Deduction => d !== null && d.attached_at === null && d.requested_at <= at)
    .sort((x, y) => x.requested_at - y.requested_at);
  const seen = new Set<string>();
  return pending.filter((d) => {
    if (seen.has(d.service_id)) return false;
    seen.add(d.service_id);
    return true;
  });
}

// ---------------------------------------------------------------------------------------
// Lifecycle

function bulkTransferHash(settlementId: number): string {
  return `0x${createHash('sha256').update(`sandbox-bulk-transfer:${settlementId}`).digest('hex')}`;
}

interface NewSettlement extends CheckoutRef {
  mode: SettlementMode;
  charges: SettledCharge[];
  refunds: Deduction[];
  at: number;
  addressTo: string;
}

function createSettlement(book: SettlementBook, s: NewSettlement): SettlementRecord {
  const currency = quoteCurrencyOf(s.mode);
  const gross = sumAmounts(s.charges.map((c) => c.settlement_amount), currency);
  const deducted = sumAmounts(s.refunds.map((r) => r.deduction_amount), currency);
  const amount = subtractAmounts(gross, deducted, currency);
  // reference 6.1: ARS batched moves USDt to its provider (source_*); on-chain nothing is requoted.
  const onChain = currency === 'USDt';
  const settlementId = book.meta.nextSettlementId++;
  for (const d of s.refunds) d.attached_at = s.at;
  const record: SettlementRecord = {
    settlement_id: settlementId,
    merchantId: s.merchantId,
    storeId: s.storeId,
    checkoutId: s.checkoutId,
    mode: s.mode,
    settlement_provider_name: PROVIDER_NAME[currency],
    provider_settlement_id: null,
    external_settlement_id: null,
    amount,
    currency,
    source_amount: onChain ? amount : arsToUsdt(amount),
    source_currency: 'USDt',
    source_net_price: onChain ? gross : arsToUsdt(gross),
    address_to: s.addressTo,
    address_from: VAULT_ADDRESS[currency],
    settlement_message: isBatched(s.mode)
      ? `Batched settlement of ${s.charges.length} charge(s) and ${s.refunds.length} refund deduction(s)`
      : null,
    status: 'CREATED',
    created_at: s.at,
    processing_at: s.at + PROCESSING_DELAY_MS,
    confirm_at: s.at + CONFIRM_DELAY_MS,
    settled_at: null,
    charges: s.charges.map((c) => ({ ...c })),
    refunds: s.refunds.map((d) => ({ ...d })),
  };
  const state = inFlightOf(book);
  state.ids.add(String(settlementId));
  heapPush(state.queue, { due: record.processing_at, id: String(settlementId) });
  state.changes++;
  book.settlements[String(settlementId)] = record;
  return record;
}

function inFlight(s: SettlementRecord): boolean {
  return s.status === 'CREATED' || s.status === 'PROCESSING';
}

/**
 * The settlements still in flight, per book's settlements object (the state's, so a reset or
 * a load starts anew): their ids, the earliest moment one of them is due, and a count of the
 * changes made to them. A legacy 1:1 charge makes a settlement and brings the book up to date:
 * walking every settlement (thousands in flight within a transfer's two minutes) at each charge
 * made a long run slower with every sale. Built from the records on first use (and so after a
 * restart), kept by createSettlement, advanceSettlements and expediteSettlements, the only
 * places that move a settlement; not persisted.
 */
interface InFlight {
  ids: Set<string>;
  /**
   * The settlements in flight by when they are next due, earliest first (a binary heap).
   * An entry may be stale: its settlement no longer in flight, or due later than it says
   * (it moved on to PROCESSING); the top is put right before it is read (earliestDue). Every
   * settlement in flight has an entry no later than when it is due. Walking every settlement
   * in flight whenever one was due made each charge's settlement cost more as the run went on
   * (issue 9's benchmark: the sandbox's CPU a sale tripled over 40,000 sales).
   */
  queue: Due[];
  changes: number;
}
interface Due {
  due: number;
  id: string;
}
const IN_FLIGHT = new WeakMap<Record<string, SettlementRecord>, InFlight>();

function inFlightOf(book: SettlementBook): InFlight {
  let state = IN_FLIGHT.get(book.settlements);
  if (state === undefined) {
    state = { ids: new Set(Object.keys(book.settlements).filter((id) => inFlight(book.settlements[id]!))), queue: [], changes: 0 };
    state.queue = queueOf(book, state.ids);
    IN_FLIGHT.set(book.settlements, state);
  }
  return state;
}

function queueOf(book: SettlementBook, ids: Iterable<string>): Due[] {
  const queue: Due[] = [];
  for (const id of ids) heapPush(queue, { due: dueOf(book.settlements[id]!), id });
  return queue;
}

function inFlightRecords(book: SettlementBook): SettlementRecord[] {
  const { ids } = inFlightOf(book);
  const records: SettlementRecord[] = [];
  for (const id of ids) {
    const s = book.settlements[id];
    // A record replaced or removed behind the book's back is no longer followed here.
    if (s === undefined || !inFlight(s)) ids.delete(id);
    else records.push(s);
  }
  return records;
}

function dueOf(s: SettlementRecord): number {
  return s.status === 'CREATED' ? s.processing_at : s.confirm_at;
}

/** The earliest moment a settlement in flight is due, or null when none is in flight. */
function earliestDue(book: SettlementBook): number | null {
  const { ids, queue } = inFlightOf(book);
  for (;;) {
    const top = queue[0];
    if (top === undefined) return null;
    const s = book.settlements[top.id];
    if (s === undefined || !inFlight(s)) {
      heapPop(queue);
      ids.delete(top.id);
    } else if (dueOf(s) > top.due) {
      heapPop(queue);
      heapPush(queue, { due: dueOf(s), id: top.id });
    } else {
      return top.due;
    }
  }
}

/** Changes whenever the book moves: a window closed, a settlement made, one moved along. */
export function bookVersion(book: SettlementBook): string {
  return `${book.meta.windowsClosedUpTo}|${book.meta.nextSettlementId}|${inFlightOf(book).changes}`;
}

/**
 * Moves in-flight settlements along their schedule up to `now` and returns the batched ones
 * that reached DONE, in confirmation order: each needs its one `settlement.settled`
 * (reference 6.1; legacy 1:1 settlements never send it).
 */
export function advanceSettlements(book: SettlementBook, now: number): SettlementRecord[] {
  const settled: SettlementRecord[] = [];
  const state = inFlightOf(book);
  // Only the settlements due by now are visited: most calls (one at every charge) visit none.
  for (let due = earliestDue(book); due !== null && now >= due; due = earliestDue(book)) {
    const { id } = heapPop(state.queue)!;
    const s = book.settlements[id]!;
    if (s.status === 'CREATED' && now >= s.processing_at) {
      state.changes++;
      s.status = 'PROCESSING';
      // reference 2.7: for blockchain settlements the on-chain hash of the single bulk transfer
      if (s.currency === 'USDt') s.external_settlement_id = bulkTransferHash(s.settlement_id);
    }
    if (s.status === 'PROCESSING' && now >= s.confirm_at) {
      s.status = 'DONE';
      s.settled_at = s.confirm_at;
      // reference 2.7: null until the provider confirms
      s.provider_settlement_id = `${s.currency === 'USDt' ? 'usdt' : 'ars'}-transfer-${s.settlement_id}`;
      if (isBatched(s.mode)) settled.push(s);
      state.ids.delete(id);
      state.changes++;
    } else {
      // Still in flight: due again when it is confirmed, after now.
      heapPush(state.queue, { due: dueOf(s), id });
    }
  }
  return settled.sort((a, b) => a.confirm_at - b.confirm_at || a.settlement_id - b.settlement_id);
}

/** Control API: the transfers in flight are issued and confirmed now instead of later. */
export function expediteSettlements(book: SettlementBook, now: number): void {
  const state = inFlightOf(book);
  state.changes++;
  for (const s of inFlightRecords(book)) {
    s.processing_at = Math.min(s.processing_at, now);
    s.confirm_at = Math.min(s.confirm_at, now);
  }
  // Due sooner than their entries say: the queue is made again.
  state.queue = queueOf(book, state.ids);
}

function heapPush(heap: Due[], item: Due): void {
  heap.push(item);
  let i = heap.length - 1;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (!earlier(heap[i]!, heap[parent]!)) break;
    [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
    i = parent;
  }
}

function heapPop(heap: Due[]): Due | undefined {
  const top = heap[0];
  const last = heap.pop();
  if (heap.length > 0 && last !== undefined) {
    heap[0] = last;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let least = i;
      if (left < heap.length && earlier(heap[left]!, heap[least]!)) least = left;
      if (right < heap.length && earlier(heap[right]!, heap[least]!)) least = right;
      if (least === i) break;
      [heap[i], heap[least]] = [heap[least]!, heap[i]!];
      i = least;
    }
  }
  return top;
}

/** Earlier due first; among equals, the lower id (settlements are numbered in order). */
function earlier(a: Due, b: Due): boolean {
  return a.due < b.due || (a.due === b.due && Number(a.id) < Number(b.id));
}

/**
 * Closes a batch window at `at`: for every checkout with pooled items (charges added and
 * refunds requested by `at`), one settlement per (checkout, mode), unless its net is not
 * positive, in which case everything stays pending for the next window (contract 6).
 */
export function closeWindow(book: SettlementBook, at: number, addressOf: AddressOf): SettlementRecord[] {
  const groups = new Map<string, { ref: CheckoutRef & { mode: SettlementMode }; charges: SettledCharge[]; refunds: Deduction[] }>();
  const groupOf = (item: CheckoutRef & { mode: SettlementMode }) => {
    const key = `${keyOf(item)}/${item.mode}`;
    let group = groups.get(key);
    if (group === undefined) {
      const ref = { merchantId: item.merchantId, storeId: item.storeId, checkoutId: item.checkoutId, mode: item.mode };
      groups.set(key, (group = { ref, charges: [], refunds: [] }));
    }
    return group;
  };
  for (const c of Object.values(book.pool)) if (c.added_at <= at) groupOf(c).charges.push(c);
  for (const d of activeDeductions(book.refunds, at)) groupOf(d).refunds.push(d);
  const created: SettlementRecord[] = [];
  for (const { ref, charges, refunds } of groups.values()) {
    const scale = CURRENCY_SCALE[quoteCurrencyOf(ref.mode)];
    const net =
      charges.reduce((t, c) => t + toUnits(c.settlement_amount, scale), 0n) -
      refunds.reduce((t, d) => t + toUnits(d.deduction_amount, scale), 0n);
    if (net <= 0n) continue; // contract 6: a non-positive window leaves its items pending
    charges.sort((x, y) => x.added_at - y.added_at); // reference 6.1: oldest added first
    for (const c of charges) delete book.pool[c.service_id];
    created.push(createSettlement(book, { ...ref, charges, refunds, at, addressTo: addressOf(ref) }));
  }
  return created;
}

/** When the book next needs attention, or null when nothing is pooled or in flight. */
export function nextDueAt(book: SettlementBook): number | null {
  const due: number[] = [];
  const earliest = earliestDue(book);
  if (earliest !== null) due.push(earliest);
  const hasPool = Object.keys(book.pool).length > 0 || activeDeductions(book.refunds, Number.POSITIVE_INFINITY).length > 0;
  if (hasPool) due.push(book.meta.windowsClosedUpTo + WINDOW_MS);
  return due.length === 0 ? null : Math.min(...due);
}

/**
 * Brings the book up to `now`: closes every hourly window boundary passed since the last one
 * processed (settlements are stamped with the boundary's time, not with the moment the
 * sandbox noticed) and moves transfers along. Returns the settlements that reached DONE.
 * Items carry their own times, so closing a past boundary late never sweeps in something
 * that arrived after it.
 */
export function catchUp(book: SettlementBook, now: number, addressOf: AddressOf): SettlementRecord[] {
  const settled: SettlementRecord[] = [];
  const lastBoundary = Math.floor(now / WINDOW_MS) * WINDOW_MS;
  let boundary = book.meta.windowsClosedUpTo + WINDOW_MS;
  while (boundary <= now) {
    settled.push(...advanceSettlements(book, boundary));
    closeWindow(book, boundary, addressOf);
    book.meta.windowsClosedUpTo = boundary;
    // Nothing changes between boundaries unless an item arrives or a transfer is in flight:
    // jump to the first boundary that can see a newer item, or to the last one before now.
    const closed = boundary;
    const later = [
      ...Object.values(book.pool).map((c) => c.added_at),
      ...activeDeductions(book.refunds, Number.POSITIVE_INFINITY).map((d) => d.requested_at),
    ].filter((t) => t > closed);
    let next = lastBoundary;
    if (earliestDue(book) !== null) next = boundary + WINDOW_MS;
    else if (later.length > 0) next = Math.ceil(Math.min(...later) / WINDOW_MS) * WINDOW_MS;
    boundary = Math.max(boundary + WINDOW_MS, next);
  }
  settled.push(...advanceSettlements(book, now));
  return settled;
}

/**
 * A charge is done: batched charges join their checkout's pool; a legacy 1:1 charge gets its
 * own settlement at once, whose id the charge's done webhook carries (contract 4).
 * Returns that settlement id, or null in the batched modes. Called once per charge.
 */
export function recordDoneCharge(book: SettlementBook, charge: SettledCharge, addressOf: AddressOf): number | null {
  if (isBatched(charge.mode)) {
    book.pool[charge.service_id] = charge;
    return null;
  }
  return createSettlement(book, { ...charge, charges: [charge], refunds: [], at: charge.added_at, addressTo: addressOf(charge) })
    .settlement_id;
}

// ---------------------------------------------------------------------------------------
// Wire views (reference 2.7, 2.8, 2.9, 4.7, 6.1)

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : iso(ms);
}

/**
 * The `fields` of a record as the wire carries them, in that order: each exact decimal text of
 * `amounts` as a JSON number (reference 2.7-2.9), everything else as it is.
 */
function wireView<R extends object, K extends keyof R & string>(record: R, fields: readonly K[], amounts: readonly K[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of fields) out[name] = amounts.includes(name) ? toWireNumber(String(record[name])) : record[name];
  return out;
}

export function settlementView(s: SettlementRecord): Record<string, unknown> {
  return {
    ...wireView(
      s,
      ['settlement_id', 'settlement_provider_name', 'provider_settlement_id', 'external_settlement_id', 'amount', 'currency', 'address_to', 'address_from', 'settlement_message'],
      ['amount'],
    ),
    settled_at: isoOrNull(s.settled_at),
    created_at: iso(s.created_at),
    status: s.status,
  };
}

const CHARGE_AMOUNTS = ['charged_amount', 'settlement_amount'] as const;
const REFUND_AMOUNTS = ['refunded_amount', 'deduction_amount'] as const;

/** The seven fields shared by the detail and the webhook (reference 2.8). */
function chargeCore(c: SettledCharge): Record<string, unknown> {
  return wireView(c, ['service_id', 'external_id', 'service_request_id', 'charged_amount', 'charged_currency', 'settlement_amount', 'settlement_currency'], CHARGE_AMOUNTS);
}

function refundCore(r: Deduction): Record<string, unknown> {
  return wireView(r, ['service_refund_id', 'service_id', 'external_id', 'service_request_id', 'refunded_amount', 'refunded_currency', 'deduction_amount', 'deduction_currency'], REFUND_AMOUNTS);
}

export function settlementDetailView(s: SettlementRecord): Record<string, unknown> {
  return {
    ...settlementView(s),
    charges: s.charges.map((c) => ({
      ...chargeCore(c),
      charged_timestamp: iso(c.charged_timestamp),
      received_timestamp: isoOrNull(c.received_timestamp),
    })),
    refunds: s.refunds.map((r) => ({
      ...refundCore(r),
      pay_in_refund_request_id: r.pay_in_refund_request_id,
      created_at: isoOrNull(r.attached_at),
    })),
  };
}

/** reference 6.1 payload; pay_in_refund_request_id is absent from the webhook entries (2.9). */
export function settledEventPayload(s: SettlementRecord): Record<string, unknown> {
  if (s.settled_at === null) throw new Error('settlement.settled is sent only for a DONE settlement');
  return {
    event: 'settlement.settled',
    settlement_id: s.settlement_id,
    provider_settlement_id: s.provider_settlement_id,
    external_settlement_id: s.external_settlement_id,
    amount: toWireNumber(s.amount),
    currency_id: CURRENCY_ID[s.currency],
    source_amount: toWireNumber(s.source_amount),
    source_currency_id: CURRENCY_ID[s.source_currency],
    source_net_price: toWireNumber(s.source_net_price),
    settled_at: iso(s.settled_at),
    charges: s.charges.map(chargeCore),
    refunds: s.refunds.map(refundCore),
  };
}

/**
 * The 6.1 invariants as they apply to the mode (contract 8), over exact decimals. Returns
 * the broken ones; empty means the settlement is consistent. Used before every emission.
 */
export function settlementInvariantProblems(s: SettlementRecord): string[] {
  const problems: string[] = [];
  const scale = CURRENCY_SCALE[s.currency];
  const units = (text: string): bigint => toUnits(text, scale);
  const gross = s.charges.reduce((t, c) => t + units(c.settlement_amount), 0n);
  const deducted = s.refunds.reduce((t, r) => t + units(r.deduction_amount), 0n);
  if (s.charges.some((c) => c.settlement_currency !== s.currency)) problems.push('a charge is quoted in another currency');
  if (s.refunds.some((r) => r.deduction_currency !== s.currency)) problems.push('a deduction is in another currency');
  if (gross - deducted !== units(s.amount)) problems.push('amount is not charges minus deductions');
  if (s.currency === 'USDt') {
    if (s.source_amount !== s.amount) problems.push('on-chain source_amount differs from amount');
    if (units(s.source_net_price) !== gross) problems.push('on-chain source_net_price is not the gross of the charges');
  }
  if (units(s.amount) <= 0n) problems.push('a settlement delivers a positive amount');
  return problems;
}

// ---------------------------------------------------------------------------------------
// Reads

export interface Page {
  limit: number;
  offset: number;
}

function ownedBy(book: SettlementBook, merchantId: number): SettlementRecord[] {
  return Object.values(book.settlements).filter((s) => s.merchantId === merchantId);
}

/** GET /v1/settlements: by settled_at in [start, end], newest first. */
export function listSettlements(
  book: SettlementBook,
  merchantId: number,
  startMs: number,
  endMs: number,
  page: Page,
): { settlements: Record<string, unknown>[]; total: number; limit: number; offset: number } {
  const matching = ownedBy(book, merchantId)
    .filter((s) => s.settled_at !== null && s.settled_at >= startMs && s.settled_at <= endMs)
    .sort((a, b) => (b.settled_at ?? 0) - (a.settled_at ?? 0) || b.settlement_id - a.settlement_id);
  return {
    settlements: matching.slice(page.offset, page.offset + page.limit).map(settlementView),
    total: matching.length,
    limit: page.limit,
    offset: page.offset,
  };
}

/** GET /v1/settlements/transactions: settled charges by charged_timestamp in [start, end], oldest first. */
export function listTransactions(
  book: SettlementBook,
  merchantId: number,
  startMs: number,
  endMs: number,
  settlementId: number | null,
  page: Page,
): { transactions: Record<string, unknown>[]; total: number; limit: number; offset: number } {
  const rows = ownedBy(book, merchantId)
    .filter((s) => settlementId === null || s.settlement_id === settlementId)
    .flatMap((s) => s.charges.map((c) => ({ s, c })))
    .filter(({ c }) => c.charged_timestamp >= startMs && c.charged_timestamp <= endMs)
    .sort((a, b) => a.c.charged_timestamp - b.c.charged_timestamp || a.s.settlement_id - b.s.settlement_id);
  return {
    transactions: rows.slice(page.offset, page.offset + page.limit).map(({ s, c }) => ({
      settlement_id: s.settlement_id,
      ...wireView(c, ['service_request_id', 'service_id', 'external_id', 'charged_amount', 'charged_currency', 'settlement_amount', 'settlement_currency'], CHARGE_AMOUNTS),
      charged_timestamp: iso(c.charged_timestamp),
      received_timestamp: isoOrNull(c.received_timestamp),
      settlement_provider_name: s.settlement_provider_name,
      settled_at: isoOrNull(s.settled_at),
      provider_settlement_id: s.provider_settlement_id,
      external_settlement_id: s.external_settlement_id,
    })),
    total: rows.length,
    limit: page.limit,
    offset: page.offset,
  };
}

/** reference 5 rule 4: another merchant's settlement is answered as a missing one. */
export function findSettlement(book: SettlementBook, merchantId: number, settlementId: number): SettlementRecord | null {
  const s = book.settlements[String(settlementId)];
  return s !== undefined && s.merchantId === merchantId ? s : null;
}

export interface PendingPreview {
  items: Record<string, unknown>[];
  pending_refunds: Record<string, unknown>[];
  totals: {
    count: number;
    settlement_amount: number;
    refund_count: number;
    refund_deduction: number;
    net_settlement_amount: number;
  };
  limit: number;
  offset: number;
}

/**
 * GET /v1/settlements/pending-charges for one checkout in its current `mode` (checkout null,
 * or a legacy mode: always empty, reference 4.7). Pooled items of a mode the checkout has
 * left are not previewed; they still settle on their own at the next window.
 */
export function pendingPreview(
  book: SettlementBook,
  checkout: CheckoutRef | null,
  mode: SettlementMode,
  fromMs: number,
  toMs: number,
  page: Page,
): PendingPreview {
  if (checkout === null || !isBatched(mode)) {
    return {
      items: [],
      pending_refunds: [],
      totals: { count: 0, settlement_amount: 0, refund_count: 0, refund_deduction: 0, net_settlement_amount: 0 },
      limit: page.limit,
      offset: page.offset,
    };
  }
  const currency = quoteCurrencyOf(mode);
  const inScope = (x: CheckoutRef & { mode: SettlementMode }): boolean => sameCheckout(x, checkout) && x.mode === mode;
  const items = Object.values(book.pool)
    .filter(inScope)
    .filter((c) => c.charged_timestamp >= fromMs && c.charged_timestamp <= toMs)
    .sort((a, b) => a.charged_timestamp - b.charged_timestamp);
  // reference 4.7: pending_refunds are not paged and not windowed, at most one per charge
  const refunds = activeDeductions(book.refunds, Number.POSITIVE_INFINITY).filter(inScope);
  const gross = sumAmounts(items.map((c) => c.settlement_amount), currency);
  const deduction = sumAmounts(refunds.map((r) => r.deduction_amount), currency);
  return {
    items: items.slice(page.offset, page.offset + page.limit).map((c) => ({
      ...wireView(c, ['service_request_id', 'service_id', 'external_id', 'charged_amount', 'charged_currency', 'settlement_amount', 'settlement_currency'], CHARGE_AMOUNTS),
      charged_timestamp: iso(c.charged_timestamp),
    })),
    pending_refunds: refunds.map((r) =>
      wireView(
        r,
        ['service_refund_id', 'pay_in_refund_request_id', 'service_id', 'external_id', 'service_request_id', 'refunded_amount', 'refunded_currency', 'deduction_amount', 'deduction_currency'],
        REFUND_AMOUNTS,
      ),
    ),
    totals: {
      count: items.length,
      settlement_amount: toWireNumber(gross),
      refund_count: refunds.length,
      refund_deduction: toWireNumber(deduction),
      // reference 4.7: negative means no settlement runs this cycle
      net_settlement_amount: toWireNumber(subtractAmounts(gross, deduction, currency)),
    },
    limit: page.limit,
    offset: page.offset,
  };
}
