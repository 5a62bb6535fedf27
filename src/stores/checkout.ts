import { create } from 'zustand';
import type { AttentionMessage, CheckoutView, SaleView, WireError } from '../../electron/core/contract.ts';
import { BridgeError, getBridge } from '../lib/bridge.ts';
import { acceptView, isLive, type CheckoutKey } from '../lib/checkoutView.ts';
import { outcomeChanges, type Outcome } from '../lib/messages.ts';
import { playOutcome } from '../lib/sound.ts';
import { useStatus } from './status.ts';

/**
 * This terminal's checkout as the core sees it. The store holds the core's latest view and
 * the moment it arrived (for the countdown on the core's clock); it never decides a state.
 */
export type ChargeError = Pick<WireError, 'code' | 'message' | 'params'> | { code: 'disconnected' | 'unauthorized'; message: string; params?: WireError['params'] };

interface CheckoutState {
  key: CheckoutKey | null;
  view: CheckoutView | null;
  /** performance.now() when `view` arrived. */
  receivedAt: number;
  charging: boolean;
  chargeError: ChargeError | null;
  /** Sale ids whose acknowledgement is being sent. */
  acknowledging: Record<string, true>;
  ackError: { saleId: string; message: string } | null;
  setKey(key: CheckoutKey | null): void;
  receive(view: CheckoutView): void;
  load(): Promise<void>;
  charge(input: { amount: string; reference?: string; by?: string }): Promise<boolean>;
  acknowledge(sale: SaleView, item: AttentionMessage, by: string): Promise<boolean>;
  clearError(): void;
}

const monotonicNow = () => (typeof performance === 'undefined' ? Date.now() : performance.now());

function toChargeError(err: unknown): ChargeError {
  if (err instanceof BridgeError) return { code: err.code, message: err.message, ...(err.params ? { params: err.params } : {}) };
  return { code: 'internal', message: String(err) };
}

export const useCheckout = create<CheckoutState>()((set, get) => ({
  key: null,
  view: null,
  receivedAt: 0,
  charging: false,
  chargeError: null,
  acknowledging: {},
  ackError: null,
  setKey(key) {
    const current = get().key;
    if (current && key && current.storeId === key.storeId && current.checkoutId === key.checkoutId) return;
    set({ key, view: null, chargeError: null });
    void get().load();
  },
  receive(view) {
    if (!acceptView(get().view, view, get().key, monotonicNow() - get().receivedAt)) return;
    set({ view, receivedAt: monotonicNow() });
  },
  async load() {
    const key = get().key;
    if (!key) return;
    try {
      get().receive(await getBridge().call('checkout.view', key));
    } catch {
      // Not ready or disconnected: the connection listener loads again when it is back.
    }
  },
  async charge({ amount, reference, by }) {
    const key = get().key;
    if (!key || get().charging) return false;
    set({ charging: true, chargeError: null });
    try {
      const view = await getBridge().call('sale.charge', {
        amount,
        ...(reference ? { reference } : {}),
        ...(by ? { by } : {}),
        ...key,
      });
      get().receive(view);
      return true;
    } catch (err) {
      set({ chargeError: toChargeError(err) });
      // A refusal is journaled before it is reported: show the sale as the core now has it.
      void get().load();
      return false;
    } finally {
      set({ charging: false });
    }
  },
  async acknowledge(sale, item, by) {
    set((s) => ({ acknowledging: { ...s.acknowledging, [sale.sale_id]: true }, ackError: null }));
    try {
      await getBridge().call('sale.acknowledge', { saleId: sale.sale_id, reason: item.reason, subject: item.subject, by });
      await get().load();
      return true;
    } catch (err) {
      set({ ackError: { saleId: sale.sale_id, message: err instanceof BridgeError ? err.message : String(err) } });
      return false;
    } finally {
      set((s) => {
        const { [sale.sale_id]: _done, ...rest } = s.acknowledging;
        return { acknowledging: rest };
      });
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

/** While the view is live, ask again now and then: its `now` is the core's clock, which can jump. */
const RESYNC_MS = 10_000;

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
  const timer = setInterval(() => {
    if (isLive(useCheckout.getState().view)) void useCheckout.getState().load();
  }, RESYNC_MS);
  return () => {
    offChanged();
    offStatus();
    clearInterval(timer);
  };
}

/** When several outcomes arrive at once, the one that needs the cashier most is heard. */
const SOUND_PRIORITY: readonly Outcome[] = ['paid_late', 'amount_mismatch', 'expired', 'paid'];

/**
 * Plays the outcome's tune when a sale of this checkout reaches one (never on the first view
 * after a load or a reload). Returns the unsubscribe function.
 */
export function connectOutcomeSounds(play: (outcome: Outcome) => void = playOutcome): () => void {
  let previous = useCheckout.getState().view;
  return useCheckout.subscribe((s) => {
    const next = s.view;
    if (next === previous) return;
    if (next && previous) {
      const changes = outcomeChanges(previous, next).map((c) => c.outcome);
      const loudest = SOUND_PRIORITY.find((o) => changes.includes(o));
      if (loudest) play(loudest);
    }
    previous = next;
  });
}
