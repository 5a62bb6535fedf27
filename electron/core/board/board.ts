import type { SaleQueries } from '../journal/port.ts';
import { correctionSuccessor } from '../sales/describe.ts';
import type { Sale, SaleStatus } from '../sales/lifecycle.ts';
import type { SaleRow } from '../terminal/entries.ts';
import { localDayOf, localDayRange, type LocalDay } from '../terminal/local-day.ts';
import type { CheckoutKey } from '../terminal/terminal.ts';
import type { CheckoutView, SaleSummary } from '../terminal/views.ts';

/**
 * The floor board (issue 29): every checkout of every store as a supervisor needs it when a
 * customer holds up a phone at a poster — "what will this charge me?". Built from the very
 * view a checkout's till is shown (terminal.checkoutView: the screen rule, the hold, what needs
 * a person) plus the day's displacements read from the journal; money in integer cents, times
 * in epoch ms, the day in the reader's time zone as the shift journal counts it.
 */

/** A checkout the core knows, with the names people call it by (null when the service did not say). */
export interface KnownCheckout extends CheckoutKey {
  storeName: string | null;
  checkoutDesc: string | null;
  /** The paired tills that ring up on it, by name. */
  tills: readonly string[];
  /** The store computer's own till rings up on it. */
  storeComputer: boolean;
}

/** What the printed QR charges if a customer pays now: the newest sale while it is open. */
export interface BoardCharge {
  sale_id: string;
  /**
   * qr: payable, the poster charges `amount_cents`; held: payable, but a payment waits for a
   * person and no screen shows the QR; expiring: past its time, its last read pending;
   * creating / uncertain: the service has not (surely) answered yet.
   */
  state: 'qr' | 'held' | 'expiring' | 'creating' | 'uncertain';
  amount_cents: number;
  /** When it was rung up. */
  since: number;
  expires_at: number | null;
  requested_by: string;
  external_id: string | null;
}

/** A sale corrected by a newer one on its checkout: amount → corrected amount, by whom, when. */
export interface BoardDisplacement {
  sale_id: string;
  amount_cents: number;
  /** The newer sale's amount; null when the service alone says it was displaced (by a sale not rung up here). */
  corrected_cents: number | null;
  /** Who rang up the newer sale; null as above. */
  by: string | null;
  /** When the newer sale was rung up (or, unknown, when the displacement was learnt). */
  at: number;
  /** The displaced sale's status now: a customer may still have paid it late. */
  status: SaleStatus;
}

export interface BoardCheckout {
  store_id: number;
  checkout_id: number;
  store_name: string | null;
  checkout_desc: string | null;
  tills: readonly string[];
  store_computer: boolean;
  charge: BoardCharge | null;
  /** The newest sale that reached an outcome (paid, expired, displaced…). */
  last: SaleSummary | null;
  /** Sales still waiting for a person, newest first. */
  attention: SaleSummary[];
  /** A payment waits for a person: the checkout shows no QR. */
  held: boolean;
  /** The day's displacements, oldest first. */
  displacements: BoardDisplacement[];
}

export interface FloorBoard {
  now: number;
  time_zone: string;
  day: LocalDay;
  checkouts: BoardCheckout[];
}

/** What building a board reads: the journal's sale queries and a checkout's till view. */
export interface BoardReads {
  sales: SaleQueries<SaleRow>;
  checkoutView(checkout: CheckoutKey): Promise<CheckoutView>;
}

const OPEN_STATUSES: readonly SaleStatus[] = ['requested', 'pending', 'uncertain'];

export function boardDay(now: number, timeZone: string): { day: LocalDay; from: number; to: number } {
  const day = localDayOf(now, timeZone);
  return { day, ...localDayRange(day, timeZone) };
}

/** One checkout's row: its till's view, and the day's displacements read from the journal. */
export async function boardCheckout(reads: BoardReads, checkout: KnownCheckout, day: { from: number; to: number }): Promise<BoardCheckout> {
  const { storeId, checkoutId } = checkout;
  const [view, rows] = await Promise.all([reads.checkoutView({ storeId, checkoutId }), reads.sales.byCheckout(storeId, checkoutId, { fromMs: day.from, toMs: day.to })]);
  return {
    store_id: storeId,
    checkout_id: checkoutId,
    store_name: checkout.storeName,
    checkout_desc: checkout.checkoutDesc,
    tills: checkout.tills,
    store_computer: checkout.storeComputer,
    charge: chargeOf(view),
    last: view.recent.find((s) => !OPEN_STATUSES.includes(s.status)) ?? null,
    attention: view.attention,
    held: view.hold !== null,
    displacements: await displacementsOf(reads.sales, rows.map((r) => r.sale)),
  };
}

/** The screen rule (sales/checkout.ts) says which sale a customer paying now would pay. */
export function chargeOf(view: CheckoutView): BoardCharge | null {
  const { screen, newest } = view;
  if (newest === null) return null;
  const base = { sale_id: newest.sale_id, amount_cents: newest.amount_cents, since: newest.requested_at, expires_at: newest.expires_at, requested_by: newest.requested_by, external_id: newest.external_id };
  switch (screen.kind) {
    case 'qr':
    case 'held':
    case 'expiring':
      return screen.sale_id === newest.sale_id ? { ...base, state: screen.kind, amount_cents: screen.amount_cents, expires_at: screen.expires_at } : null;
    case 'creating':
    case 'uncertain':
      return screen.sale_id === newest.sale_id ? { ...base, state: screen.kind } : null;
    default:
      return null;
  }
}

/**
 * A sale of the day that a newer one displaced, as a correction of its amount (describe.ts
 * correctionSuccessor: a withdrawn sale's successor is the next customer's, no correction).
 * The newer sale is looked up among the day's, then in the journal (it may be past midnight).
 */
export async function displacementsOf(sales: SaleQueries<SaleRow>, daySales: readonly Sale[]): Promise<BoardDisplacement[]> {
  const byId = new Map(daySales.map((s) => [s.sale_id, s]));
  const out: BoardDisplacement[] = [];
  for (const sale of daySales) {
    if (sale.displacements.length === 0) continue;
    const next = correctionSuccessor(sale);
    if (next === undefined) continue;
    const newer = next === null ? undefined : (byId.get(next) ?? (await sales.get(next))?.sale);
    const learnt = Math.min(...sale.displacements.map((d) => d.at));
    out.push({
      sale_id: sale.sale_id,
      amount_cents: sale.amount_cents,
      corrected_cents: newer?.amount_cents ?? null,
      by: newer?.requested_by ?? null,
      at: newer?.requested_at ?? learnt,
      status: sale.status,
    });
  }
  return out.sort((a, b) => a.at - b.at || a.sale_id.localeCompare(b.sale_id));
}

/** Every known checkout's row, by store then checkout. */
export async function floorBoard(reads: BoardReads, checkouts: readonly KnownCheckout[], now: number, timeZone: string): Promise<FloorBoard> {
  const { day, from, to } = boardDay(now, timeZone);
  const rows = await Promise.all(sortCheckouts(checkouts).map((c) => boardCheckout(reads, c, { from, to })));
  return { now, time_zone: timeZone, day, checkouts: rows };
}

export function sortCheckouts<C extends CheckoutKey>(checkouts: readonly C[]): C[] {
  return [...new Map(checkouts.map((c) => [`${c.storeId}/${c.checkoutId}`, c])).values()].sort((a, b) => a.storeId - b.storeId || a.checkoutId - b.checkoutId);
}
