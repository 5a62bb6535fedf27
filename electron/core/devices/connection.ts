import { CoreError } from '../errors.ts';
import type { DeviceInfo } from './registry.ts';

/**
 * Where a bridge connection comes from, fixed when it opens: the store computer's own
 * window (Electron IPC, or the browser shell with the store's token), a paired device
 * (its credential), or a device not paired yet, which may only pair.
 */
export type Connection = { kind: 'store' } | { kind: 'device'; device: DeviceInfo } | { kind: 'unpaired'; from: string };

export const STORE_CONNECTION: Connection = { kind: 'store' };

/**
 * Which connections a bridge method serves: `till` a till (the store's own windows and
 * paired tills), `display` also a paired customer display, `pairing` any connection.
 */
export type Reach = 'till' | 'display' | 'pairing';

export function connectionMay(connection: Connection, reach: Reach): boolean {
  if (reach === 'pairing') return true;
  if (connection.kind === 'unpaired') return false;
  if (reach === 'display') return true;
  return connection.kind === 'store' || connection.device.kind === 'till';
}

export function connectionRefusal(connection: Connection): CoreError {
  if (connection.kind === 'unpaired') return new CoreError('not_paired', 'This device is not paired with the store: ask a manager for a pairing code.');
  return new CoreError('forbidden', 'A customer display can only show its checkout’s screen.', { reason: 'display_only' });
}
