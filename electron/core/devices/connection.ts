import { CoreError } from '../errors.ts';
import type { DeviceInfo } from './registry.ts';

/**
 * Where a bridge connection comes from, fixed when it opens: the store computer's own till
 * window (Electron IPC, or the browser shell with the store's token), the store computer's own
 * customer-display window (Electron: display-only, as a paired display is), a paired device
 * (its credential), or a device not paired yet, which may only pair.
 */
export type Connection = { kind: 'store' } | { kind: 'store-display' } | { kind: 'device'; device: DeviceInfo } | { kind: 'unpaired'; from: string };

export const STORE_CONNECTION: Connection = { kind: 'store' };
/** Issue 25: the Electron customer-display window gets what a paired display gets, nothing more. */
export const STORE_DISPLAY_CONNECTION: Connection = { kind: 'store-display' };

/**
 * Which connections a bridge method serves (issue 25: a connection calls only what its kind
 * needs): `till` a till (the store's own till windows and paired tills); `display` also every
 * customer display; `pairing` a device not paired yet, only; `store` the store computer's own
 * till window only (its first manager is made there, before any till can be paired).
 */
export type Reach = 'till' | 'display' | 'pairing' | 'store';
export const REACHES: readonly Reach[] = ['till', 'display', 'pairing', 'store'];

export function connectionMay(connection: Connection, reach: Reach): boolean {
  if (reach === 'pairing') return connection.kind === 'unpaired';
  if (connection.kind === 'unpaired') return false;
  if (reach === 'display') return true;
  if (reach === 'store') return connection.kind === 'store';
  return connection.kind === 'store' || (connection.kind === 'device' && connection.device.kind === 'till');
}

/** Why a connection may not call a method of that reach, in a sentence a person can act on. */
export function connectionRefusal(connection: Connection, reach: Reach): CoreError {
  if (connection.kind === 'unpaired') return new CoreError('not_paired', 'This device is not paired with the store: ask a manager for a pairing code.');
  if (connection.kind === 'store-display' || (connection.kind === 'device' && connection.device.kind === 'display')) {
    return new CoreError('forbidden', 'A customer display can only show its checkout’s screen.', { reason: 'display_only' });
  }
  if (reach === 'pairing') return new CoreError('conflict', 'This connection is already a till of this store.', { reason: 'already_paired' });
  return new CoreError('forbidden', 'Only the store computer’s own window can do that: a paired till cannot.', { reason: 'store_only' });
}
