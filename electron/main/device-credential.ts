import type { IpcMain, IpcMainInvokeEvent } from 'electron';
import type { SecretStore } from '../core/secrets.ts';
import { DEVICE_CHANNELS, isDeviceCredential } from '../shared/device-bridge.ts';

/** The till's own secret store in its data dir, and the name of its device credential there. */
export const DEVICE_FILE = 'device.json';
export const DEVICE_CREDENTIAL = 'device.credential';

/**
 * window.posDevice's handlers (connect mode): load, save and forget the credential the store
 * gave this till at pairing, kept encrypted by the OS (safeStorage) in main, never in the
 * remote page's storage. Only the pinned store's own page may call them (isAllowed), and only
 * a credential of the pairing's shape is saved. A refusal rejects the call.
 */
export function registerDeviceBridge(ipcMain: IpcMain, store: SecretStore, isAllowed: (event: IpcMainInvokeEvent) => boolean): () => void {
  const guard = (event: IpcMainInvokeEvent, channel: string) => {
    if (isAllowed(event)) return;
    console.warn(`refused ${channel} from a page that is not the pinned store's: ${event.senderFrame?.url ?? 'no frame'}`);
    throw new Error('This page may not use the till’s device credential.');
  };
  ipcMain.handle(DEVICE_CHANNELS.load, async (event): Promise<string | null> => {
    guard(event, DEVICE_CHANNELS.load);
    const stored = await store.get(DEVICE_CREDENTIAL);
    return isDeviceCredential(stored) ? stored : null;
  });
  ipcMain.handle(DEVICE_CHANNELS.save, async (event, credential: unknown): Promise<void> => {
    guard(event, DEVICE_CHANNELS.save);
    if (!isDeviceCredential(credential)) throw new Error('Not a device credential: 43 characters of base64url.');
    await store.set(DEVICE_CREDENTIAL, credential);
  });
  ipcMain.handle(DEVICE_CHANNELS.forget, async (event): Promise<void> => {
    guard(event, DEVICE_CHANNELS.forget);
    await store.delete(DEVICE_CREDENTIAL);
  });
  return () => {
    for (const channel of Object.values(DEVICE_CHANNELS)) ipcMain.removeHandler(channel);
  };
}
