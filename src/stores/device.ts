import { create } from 'zustand';
import type { DeviceInfo } from '../../electron/core/contract.ts';
import { getBridge, type DeviceConnection } from '../lib/bridge.ts';
import type { UiError } from '../lib/errorText.ts';
import { busyStep } from './steps.ts';

/**
 * What this page's connection is, as the server said when it connected: the store computer's
 * own window, a paired till or customer display (which one), or a device not paired yet. The
 * page shows Pair this till, the customer display or the app from it; the core decides what
 * each may call whatever the page shows.
 */
interface DeviceState {
  /** null until the server has said. */
  connection: DeviceConnection['connection'] | null;
  device: DeviceInfo | null;
  /** Why a credential kept here stopped counting (revoked, or unknown to this store). */
  reason: DeviceConnection['reason'] | null;
  /** Whether the connection is open now. */
  online: boolean;
  pairing: boolean;
  pairError: UiError | null;
  /** Enters a pairing code; on success the page keeps the credential and connects as the device. */
  pair(code: string): Promise<boolean>;
}

export const useDevice = create<DeviceState>()((set, get) => ({
  connection: null,
  device: null,
  reason: null,
  online: false,
  pairing: false,
  pairError: null,
  async pair(code) {
    if (get().pairing) return false;
    return busyStep(set, ['pairing', 'pairError'], async () => {
      const { credential } = await getBridge().call('pairing.pair', { code: code.trim() });
      await getBridge().adoptCredential(credential);
      set({ reason: null });
    });
  },
}));

/** A connection that is a till: the store's own window or a paired till (not unpaired, not a display). */
export function isTill(s: Pick<DeviceState, 'connection' | 'device'>): boolean {
  return s.connection === 'store' || (s.connection === 'device' && s.device?.kind === 'till');
}

/** Follows what the server says this connection is; returns the unsubscribe function. */
export function connectDevice(): () => void {
  const bridge = getBridge();
  const offDevice = bridge.onDevice(({ connection, device, reason }) =>
    useDevice.setState((s) => ({ connection, device, reason: reason ?? (connection === 'unpaired' ? s.reason : null) })),
  );
  const offConnection = bridge.onConnection((state) => useDevice.setState({ online: state === 'open' }));
  return () => {
    offDevice();
    offConnection();
  };
}
