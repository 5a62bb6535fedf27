import { create } from 'zustand';
import type { AttentionMessage, CheckoutView, SaleSummary } from '../../electron/core/contract.ts';
import { getBridge, toUiError } from '../lib/bridge.ts';
import { LIVE_RESYNC_MS, QR_RESYNC_MS, acceptView, resyncEveryMs, type CheckoutKey } from '../lib/checkoutView.ts';
import type { UiError } from '../lib/errorText.ts';
import { outcomeChanges, screenOutcome, type Outcome } from '../lib/messages.ts';
import { playOutcome } from '../lib/sound.ts';
import { useAuth } from './auth.ts';
import { useStatus } from './status.ts';

/**
 * This terminal's checkout as the core sees it. The store holds the core's latest view and
 * the moment it arrived (for the countdown on the core's clock); it never decides a state.
 */
export type ChargeError = UiError;

/** What the cashier charged, as typed: the form clears a field only if it still holds it. */
export interface ChargedInput {
  amount: string;
  reference: string;
}

interface CheckoutState {
  key: CheckoutKey | null;
  view: CheckoutView | null;
  /** performance.now() when `view` arrived. */
  receivedAt: number;
  charging: boolean;
  chargeError: ChargeError | null;
  /**
   * A charge whose answer was lost with the connection, and the newest sale's seq before it
   * was sent: a view with a newer sale means it went through after all.
   */
  lostCharge: (ChargedInput & { newestSeqBefore: number }) | null;
  /** The last charge known to have gone through (a new object each time). */
  landed: ChargedInput | null;
  /** Sale ids whose acknowledgement is being sent. */
  acknowledging: Record<string, true>;
  ackError: { saleId: string; error: UiError } | null;
  /** The sale whose withdrawal is being sent, and why the last one was refused. */
  withdrawing: string | null;
  withdrawError: UiError | null;
  setKey(key: CheckoutKey | null): void;
  receive(view: CheckoutView): void;
  load(): Promise<void>;
  /** Sends the amount and reference as typed (trimmed here); true once the sale is made. */
  charge(input: { amount: string; reference?: string }): Promise<boolean>;
  /** In the name of the operator signed in on this window (the core knows who). */
  acknowledge(sale: SaleSummary, item: AttentionMessage): Promise<boolean>;
  /** Withdraws a pending sale, in the name of the operator signed in on this window. */
  withdraw(saleId: string): Promise<boolean>;
  clearError(): void;
}

const monotonicNow = () => (typeof performance === 'undefined' ? Date.now() : performance.now());

const newestSeq = (view: CheckoutView | null): number => view?.newest?.seq ?? 0;

export const useCheckout = create<CheckoutState>()((set, get) => ({
  key: null,
  view: null,
  receivedAt: 0,
  charging: false,
  chargeError: null,
  lostCharge: null,
  landed: null,
  acknowledging: {},
  ackError: null,
  withdrawing: null,
  withdrawError: null,
  setKey(key) {
    const current = get().key;
    if (current && key && current.storeId === key.storeId && current.checkoutId === key.checkoutId) return;
    set({ key, view: null, chargeError: null, lostCharge: null });
    void get().load();
  },
  receive(view) {
    if (!acceptView(get().view, view, get().key, monotonicNow() - get().receivedAt)) return;
    const lost = get().lostCharge;
    if (lost && newestSeq(view) > lost.newestSeqBefore) {
      // The charge whose answer was lost made its sale: it is on screen now, nothing to redo.
      set({ view, receivedAt: monotonicNow(), lostCharge: null, chargeError: null, landed: { amount: lost.amount, reference: lost.reference } });
      return;
    }
    set({ view, receivedAt: monotonicNow() });
  },
  async load() {
    const key = get().key;
    // The checkout's sales are a signed-in till's (the core refuses the rest): after sign-in, see connectCheckout.
    if (!key || !useAuth.getState().auth?.operator) return;
    try {
      get().receive(await getBridge().call('checkout.view', key));
    } catch {
      // Not ready or disconnected: the connection listener loads again when it is back.
    }
  },
  async charge({ amount, reference = '' }) {
    const key = get().key;
    if (!key || get().charging) return false;
    const charged: ChargedInput = { amount, reference };
    const newestSeqBefore = newestSeq(get().view);
    set({ charging: true, chargeError: null, lostCharge: null });
    try {
      const view = await getBridge().call('sale.charge', {
        amount: amount.trim(),
        ...(reference.trim() ? { reference: reference.trim() } : {}),
        ...key,
      });
      get().receive(view);
      set({ landed: charged });
      return true;
    } catch (err) {
      const error = toUiError(err);
      if (error.code === 'disconnected' && newestSeq(get().view) > newestSeqBefore) {
        // The core pushed the new sale before the connection dropped: it went through.
        set({ landed: charged });
        return true;
      }
      set({ chargeError: error, lostCharge: error.code === 'disconnected' ? { ...charged, newestSeqBefore } : null });
      // A refusal is journaled before it is reported: show the sale as the core now has it.
      void get().load();
      return false;
    } finally {
      set({ charging: false });
    }
  },
  async acknowledge(sale, item) {
    const reason = item.reason;
    // A refund not confirmed is answered with its own actions (RefundAnswer), never acknowledged.
    if (reason === 'refund_not_confirmed') return false;
    set((s) => ({ acknowledging: { ...s.acknowledging, [sale.sale_id]: true }, ackError: null }));
    try {
      await getBridge().call('sale.acknowledge', { saleId: sale.sale_id, reason, subject: item.subject });
      await get().load();
      return true;
    } catch (err) {
      set({ ackError: { saleId: sale.sale_id, error: toUiError(err) } });
      return false;
    } finally {
      set((s) => {
        const { [sale.sale_id]: _done, ...rest } = s.acknowledging;
        return { acknowledging: rest };
      });
    }
  },
  async withdraw(saleId) {
    if (get().withdrawing) return false;
    set({ withdrawing: saleId, withdrawError: null });
    try {
      get().receive(await getBridge().call('sale.withdraw', { saleId }));
      return true;
    } catch (err) {
      set({ withdrawError: toUiError(err) });
      void get().load();
      return false;
    } finally {
      set({ withdrawing: null });
    }
  },
  clearError() {
    set({ chargeError: null });
  },
}));

/** The core's clock now, read from the latest view (the sandbox's clock can be ahead of this machine's). */
export function coreNow(): number {
  const { view, receivedAt } = useCheckout.getState();
  return view ? view.now + Math.max(0, monotonicNow() - receivedAt) : Date.now();
}

// Selectors.
export const selectScreen = (s: CheckoutState) => s.view?.screen ?? null;
export const selectRecent = (s: CheckoutState) => s.view?.recent;
export const selectAttention = (s: CheckoutState) => s.view?.attention;

/**
 * Wires the store to the core: follows this terminal's checkout (from the status), the
 * `checkout.changed` pushes, and reconnections. Returns the unsubscribe function.
 */
export function connectCheckout(): () => void {
  const bridge = getBridge();
  const offChanged = bridge.listen('checkout.changed', (view) => useCheckout.getState().receive(view));
  const follow = () => {
    const { status, connection } = useStatus.getState();
    if (connection === 'open' && status?.state === 'ready') useCheckout.getState().setKey({ ...status.terminal });
  };
  follow();
  let lastConnection = useStatus.getState().connection;
  const offStatus = useStatus.subscribe((s) => {
    follow();
    if (s.connection === 'open' && lastConnection !== 'open') void useCheckout.getState().load();
    lastConnection = s.connection;
  });
  // Someone signs in: the till shows its checkout as it is now (nothing was read while signed out).
  let signedIn = useAuth.getState().auth?.operator != null;
  const offAuth = useAuth.subscribe((a) => {
    const now = a.auth?.operator != null;
    if (now && !signedIn) void useCheckout.getState().load();
    signedIn = now;
  });
  // While the view is live, ask again now and then: its `now` is the core's clock, which can jump.
  const resync = (every: number) => () => {
    if (resyncEveryMs(useCheckout.getState().view) === every) void useCheckout.getState().load();
  };
  const timers = [setInterval(resync(QR_RESYNC_MS), QR_RESYNC_MS), setInterval(resync(LIVE_RESYNC_MS), LIVE_RESYNC_MS)];
  return () => {
    offChanged();
    offStatus();
    offAuth();
    timers.forEach(clearInterval);
  };
}

/** When several outcomes arrive at once, the one that needs the cashier most is heard. */
const SOUND_PRIORITY: readonly Outcome[] = ['paid_late', 'amount_mismatch', 'expired', 'paid'];

/** Sales whose tunes are remembered, so an outcome heard once is not heard again. */
const HEARD_LIMIT = 200;

/**
 * Plays the outcome's tune when a sale of this checkout reaches one, or when the screen
 * shows one before the sale's status says so (the core's clock passes a sale's expiry a
 * minute before it journals the expiry). Once per sale and outcome; never on the first view
 * after a load or a reload. Returns the unsubscribe function.
 */
export function connectOutcomeSounds(play: (outcome: Outcome) => void = playOutcome): () => void {
  let previous = useCheckout.getState().view;
  const heard = new Set<string>();
  return useCheckout.subscribe((s) => {
    const next = s.view;
    if (next === previous) return;
    const onScreen = next ? screenOutcome(next.screen) : null;
    if (next && !previous && onScreen) {
      // Already on screen when the page loaded: the sale's status catching up is not news.
      heard.add(`${onScreen.sale_id}:${onScreen.outcome}`);
    }
    if (next && previous) {
      const changes = outcomeChanges(previous, next);
      const before = screenOutcome(previous.screen);
      if (onScreen && (before?.sale_id !== onScreen.sale_id || before.outcome !== onScreen.outcome)) changes.push(onScreen);
      const fresh = changes.filter((c) => !heard.has(`${c.sale_id}:${c.outcome}`));
      for (const c of fresh) heard.add(`${c.sale_id}:${c.outcome}`);
      while (heard.size > HEARD_LIMIT) heard.delete(heard.values().next().value as string);
      const loudest = SOUND_PRIORITY.find((o) => fresh.some((c) => c.outcome === o));
      if (loudest) play(loudest);
    }
    previous = next;
  });
}
