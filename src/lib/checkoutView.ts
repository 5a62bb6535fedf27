import type { CheckoutView, SaleSummary } from '../../electron/core/contract.ts';

/**
 * Pure rules for holding the core's checkout view in the renderer. The view is the core's
 * truth; these only decide which of two views is newer and read things out of one.
 */
export interface CheckoutKey {
  storeId: number;
  checkoutId: number;
}

export function isFor(view: Pick<CheckoutView, 'store_id' | 'checkout_id'>, key: CheckoutKey | null): boolean {
  return key !== null && view.store_id === key.storeId && view.checkout_id === key.checkoutId;
}

/** How long an older-looking view can still be a crossing answer rather than a clock step back. */
export const CROSSING_MS = 5_000;

/**
 * How far the checkout's history reaches in a view: the highest sale seq it shows. The core
 * numbers sales per checkout in the order they are asked for, so this only grows. It is the
 * newest's seq, or a refused sale's above it: `newest` skips a failed sale, so after a
 * refusal it steps back to the earlier sale, and that view must still replace the one
 * that showed the refused sale being created.
 */
export function viewSeq(view: Pick<CheckoutView, 'newest' | 'recent'>): number {
  return Math.max(view.newest?.seq ?? 0, view.recent[0]?.seq ?? 0);
}

/**
 * Whether an arriving view replaces the one held. Another checkout's view is ignored (the
 * push event is broadcast); an older one is too: a call's answer and a push can cross. A
 * view that knows a newer sale wins whatever its `now` (the clocks of two reads can tie);
 * with the same sales, the core's `now` orders them, so a slow answer never brings back a
 * QR already replaced. `heldForMs` (local time since the held view arrived) lets a view
 * through after a while even if it looks older, so a core clock set back (or a core started
 * afresh) never freezes the screen.
 */
export function acceptView(current: CheckoutView | null, incoming: CheckoutView, key: CheckoutKey | null, heldForMs = 0): boolean {
  if (!isFor(incoming, key)) return false;
  if (current === null || !isFor(current, key)) return true;
  if (heldForMs > CROSSING_MS) return true;
  const seq = viewSeq(incoming) - viewSeq(current);
  if (seq !== 0) return seq > 0;
  return incoming.now >= current.now;
}

/**
 * The sale a new charge would displace: the newest one while it is still open at the service.
 * A withdrawn sale is too, but the cashier already chose to let it go: no notice for it.
 */
export function saleToReplace(view: CheckoutView | null): SaleSummary | null {
  if (!view) return null;
  const screen = view.screen;
  if (screen.kind === 'qr' || screen.kind === 'held' || screen.kind === 'creating' || screen.kind === 'uncertain') {
    return view.recent.find((s) => s.sale_id === screen.sale_id) ?? (view.newest?.sale_id === screen.sale_id ? view.newest : null);
  }
  return null;
}

/** The sale the screen is about (the QR's, the one being created, the settled one). */
export function screenSale(view: CheckoutView | null): SaleSummary | null {
  if (!view || view.screen.kind === 'idle') return null;
  const id = view.screen.sale_id;
  return view.recent.find((s) => s.sale_id === id) ?? (view.newest?.sale_id === id ? view.newest : null);
}

/** The pending sale the cashier may withdraw: the one whose QR is shown, or held back. */
export function withdrawableSale(view: CheckoutView | null): SaleSummary | null {
  if (!view || (view.screen.kind !== 'qr' && view.screen.kind !== 'held')) return null;
  const sale = screenSale(view);
  return sale?.status === 'pending' ? sale : null;
}

/**
 * A sale still open past its expires_at, on the core's clock: its QR is gone and its last
 * Tx Status read (a minute after expiry) has not closed it yet, so it reads "Expiring".
 */
export function isExpiringAt(sale: Pick<SaleSummary, 'status' | 'expires_at'>, coreNow: number): boolean {
  return sale.status === 'pending' && sale.expires_at !== null && coreNow > sale.expires_at;
}

/** Whether the screen is live (a countdown, a create in flight, a last read awaited) and the view should be refreshed. */
export function isLive(view: CheckoutView | null): boolean {
  const kind = view?.screen.kind;
  return kind === 'qr' || kind === 'held' || kind === 'creating' || kind === 'uncertain' || kind === 'expiring';
}

/**
 * How often to ask the core for the view again, or null for not at all. A countdown is on
 * the core's clock, which can jump (the sandbox's moves with it): while a QR is shown the
 * view is read every 2 s; a create in flight is pushed when it ends and is only checked
 * now and then.
 */
export function resyncEveryMs(view: CheckoutView | null): number | null {
  const kind = view?.screen.kind;
  if (kind === 'qr' || kind === 'held') return QR_RESYNC_MS;
  if (kind === 'creating' || kind === 'uncertain' || kind === 'expiring') return LIVE_RESYNC_MS;
  return null;
}

export const QR_RESYNC_MS = 2_000;
export const LIVE_RESYNC_MS = 10_000;
