import type { CheckoutView, SaleView } from '../../electron/core/contract.ts';

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
 * Whether an arriving view replaces the one held. Another checkout's view is ignored (the
 * push event is broadcast); an older one is too: a call's answer and a push can cross, and
 * the core's `now` orders them, so a slow answer never brings back a QR already replaced.
 * `heldForMs` (local time since the held view arrived) lets a view through after a while
 * even if its `now` is earlier, so a core clock set back never freezes the screen.
 */
export function acceptView(current: CheckoutView | null, incoming: CheckoutView, key: CheckoutKey | null, heldForMs = 0): boolean {
  if (!isFor(incoming, key)) return false;
  if (current === null || !isFor(current, key)) return true;
  return incoming.now >= current.now || heldForMs > CROSSING_MS;
}

/** The sale a new charge would displace: the newest one while it is still open at the service. */
export function saleToReplace(view: CheckoutView | null): SaleView | null {
  if (!view) return null;
  const screen = view.screen;
  if (screen.kind === 'qr' || screen.kind === 'creating' || screen.kind === 'uncertain') {
    return view.recent.find((s) => s.sale_id === screen.sale_id) ?? (view.newest?.sale_id === screen.sale_id ? view.newest : null);
  }
  return null;
}

/** The sale the screen is about (the QR's, the one being created, the settled one). */
export function screenSale(view: CheckoutView | null): SaleView | null {
  if (!view || view.screen.kind === 'idle') return null;
  const id = view.screen.sale_id;
  return view.recent.find((s) => s.sale_id === id) ?? (view.newest?.sale_id === id ? view.newest : null);
}

/** Whether the screen is live (a countdown, a create in flight) and the view should be refreshed. */
export function isLive(view: CheckoutView | null): boolean {
  const kind = view?.screen.kind;
  return kind === 'qr' || kind === 'creating' || kind === 'uncertain';
}
