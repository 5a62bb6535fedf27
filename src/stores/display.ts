import { create } from 'zustand';
import type { DisplayView } from '../../electron/core/contract.ts';
import { getBridge, type ConnectionState } from '../lib/bridge.ts';
import { LIVE_RESYNC_MS, QR_RESYNC_MS } from '../lib/checkoutView.ts';
import { acceptDisplayView, displayResyncMs, rememberAmount } from '../lib/displayView.ts';
import { useDevice } from './device.ts';
import { useStatus } from './status.ts';

/**
 * The customer display's state: `display.view` and the `display.changed` push, nothing else
 * (a paired display may call nothing else; the store computer's own /display page reads the
 * same). The page speaks the language of the store's customers, which the view carries
 * (issue 26 point 6): never the till's, whatever the operator chose for their own screen.
 */
interface DisplayState {
  view: DisplayView | null;
  /** performance.now() when `view` arrived. */
  receivedAt: number;
  amounts: Record<string, number>;
  connection: ConnectionState;
  receive(view: DisplayView): void;
  load(): Promise<void>;
}

const monotonicNow = () => (typeof performance === 'undefined' ? Date.now() : performance.now());

export const useDisplay = create<DisplayState>()((set, get) => ({
  view: null,
  receivedAt: 0,
  amounts: {},
  connection: 'connecting',
  receive(view) {
    if (!acceptDisplayView(get().view, view, monotonicNow() - get().receivedAt)) return;
    set((s) => ({ view, receivedAt: monotonicNow(), amounts: rememberAmount(s.amounts, view) }));
    if (useStatus.getState().lang !== view.lang) useStatus.setState({ lang: view.lang });
  },
  async load() {
    try {
      get().receive(await getBridge().call('display.view'));
    } catch {
      // Not ready or disconnected: the connection listener loads again when it is back.
    }
  },
}));

/** Wires the display to the core; returns the unsubscribe function. */
export function connectDisplay(): () => void {
  const bridge = getBridge();
  const offChanged = bridge.listen('display.changed', (view) => useDisplay.getState().receive(view));
  const offConnection = bridge.onConnection((connection) => {
    useDisplay.setState({ connection });
    // An unpaired page may only pair: it reads the display once it is a display (or the store's own).
    if (connection === 'open' && useDevice.getState().connection !== 'unpaired') void useDisplay.getState().load();
  });
  const resync = (every: number) => () => {
    if (displayResyncMs(useDisplay.getState().view) === every) void useDisplay.getState().load();
  };
  const timers = [setInterval(resync(QR_RESYNC_MS), QR_RESYNC_MS), setInterval(resync(LIVE_RESYNC_MS), LIVE_RESYNC_MS)];
  return () => {
    offChanged();
    offConnection();
    timers.forEach(clearInterval);
  };
}
