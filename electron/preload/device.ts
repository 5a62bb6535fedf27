import { contextBridge, ipcRenderer } from 'electron';
import { DEVICE_CHANNELS, type PosDevice } from '../shared/device-bridge.ts';

/**
 * Connect mode's preload, for the page of the pinned store origin: window.posDevice keeps the
 * till's device credential in main (safeStorage), never in the page's own storage. No window.pos:
 * a connect-mode till has no core of its own and reaches the store's over its WebSocket.
 * Main checks the calling frame's origin and the argument again; this only shapes the calls.
 */
const api = {
  load: () => ipcRenderer.invoke(DEVICE_CHANNELS.load) as Promise<string | null>,
  save: (credential: string) => ipcRenderer.invoke(DEVICE_CHANNELS.save, credential) as Promise<void>,
  forget: () => ipcRenderer.invoke(DEVICE_CHANNELS.forget) as Promise<void>,
} satisfies PosDevice;

contextBridge.exposeInMainWorld('posDevice', api);
