import { create } from 'zustand';
import type { DisplayView } from '../../electron/core/contract.ts';
import { getBridge, type ConnectionState } from '../lib/bridge.ts';
import { LIVE_RESYNC_MS, QR_RESYNC_MS } from '../lib/checkoutView.ts';
import { acceptDisplayView, displayResyncMs, rememberAmount } from '../lib/displayView.ts';
import { onLangSaved, spokenLang } from '../lib/langPreference.ts';
import { useDevice } from './device.ts';
import { useStatus } from './status.ts';

/**
 * The customer display's state: `display.view` and the `display.changed` push, nothing else
 * (a paired display may call nothing else; the store computer's own /display page reads the
 * same). The page speaks this device's own language (lib/langPreference.ts: on the store
 * computer, the one its till window chose), else the store's default, which the view carries.
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
    const lang = spokenLang(useStatus.getState().own, view.lang);
    if (useStatus.getState().lang !== lang) useStatus.setState({ lang });
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
  // The till window of this device chose another language: the customer display follows it.
  const offSaved = onLangSaved((lang) => useStatus.setState({ own: lang, lang }));
  return () => {
    offSaved();
    offChanged();
    offConnection();
    timers.forEach(clearInterval);
  };
}
