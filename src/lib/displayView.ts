import type { DisplayView } from '../../electron/core/contract.ts';
import { CROSSING_MS, LIVE_RESYNC_MS, QR_RESYNC_MS } from './checkoutView.ts';

/**
 * Pure rules for the customer display's view (core `display.view` / `display.changed`): all a
 * customer display may read of its checkout. It carries no sale list, so ordering is by the
 * core's `now`, and the amount of a sale once paid is the one its QR showed.
 */

/** Whether an arriving view replaces the one held: a call's answer and a push can cross. */
export function acceptDisplayView(current: DisplayView | null, incoming: DisplayView, heldForMs = 0): boolean {
  if (current === null) return true;
  if (current.store_id !== incoming.store_id || current.checkout_id !== incoming.checkout_id) return true;
  // A core clock set back (or a core started afresh) must never freeze the screen.
  if (heldForMs > CROSSING_MS) return true;
  return incoming.now >= current.now;
}

/** The amount the screen last showed for each sale (its QR, or held back), newest kept. */
export function rememberAmount(amounts: Readonly<Record<string, number>>, view: DisplayView, keep = 20): Record<string, number> {
  const screen = view.screen;
  if (screen.kind !== 'qr' && screen.kind !== 'held') return amounts as Record<string, number>;
  if (amounts[screen.sale_id] === screen.amount_cents) return amounts as Record<string, number>;
  const next = Object.entries({ ...amounts, [screen.sale_id]: screen.amount_cents }).filter(([id]) => id !== screen.sale_id);
  return Object.fromEntries([...next.slice(-(keep - 1)), [screen.sale_id, screen.amount_cents]]);
}

/** The amount to show with the screen's sale, when the display saw it (a paid sale's, say). */
export function screenAmount(view: DisplayView | null, amounts: Readonly<Record<string, number>>): number | null {
  if (!view || view.screen.kind === 'idle') return null;
  if (view.screen.kind === 'qr' || view.screen.kind === 'held' || view.screen.kind === 'expiring') return view.screen.amount_cents;
  return amounts[view.screen.sale_id] ?? null;
}

/** How often to read the view again (its countdown is on the core's clock, which can jump). */
export function displayResyncMs(view: DisplayView | null): number | null {
  const kind = view?.screen.kind;
  if (kind === 'qr' || kind === 'held') return QR_RESYNC_MS;
  // Expiring: its last read ends it with a push; read again now and then all the same.
  if (kind === 'creating' || kind === 'uncertain' || kind === 'expiring') return LIVE_RESYNC_MS;
  return null;
}

/** What pressing Copy did: the screen says which, in words. */
export type CopyOutcome = 'copied' | 'failed';

/**
 * Puts the Pix copia e cola code on the clipboard. A page without a clipboard (an insecure
 * address, an old browser) or one that refuses (permission, no focus) is 'failed', never a
 * throw: the screen then asks the person to select the code, which stays shown.
 */
export async function copyPixCode(code: string, clipboard: Pick<Clipboard, 'writeText'> | null | undefined): Promise<CopyOutcome> {
  if (code === '' || typeof clipboard?.writeText !== 'function') return 'failed';
  try {
    await clipboard.writeText(code);
    return 'copied';
  } catch {
    return 'failed';
  }
}
