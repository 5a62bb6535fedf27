import { contextBridge, ipcRenderer } from 'electron';
import { IPC_EVENT_CHANNEL, IPC_INVOKE_PREFIX, METHODS, PUSH_EVENTS, type PreloadApi, type PushEvent } from '../core/contract.ts';

/**
 * Exposes one named function per contract method, and `listen` for push events. Never
 * ipcRenderer itself: the renderer cannot reach any other channel.
 */
const api: Record<string, unknown> = {};
for (const method of METHODS) {
  api[method] = (args: unknown) => ipcRenderer.invoke(IPC_INVOKE_PREFIX + method, args);
}
api.listen = (event: PushEvent, listener: (payload: unknown) => void) => {
  if (!(PUSH_EVENTS as readonly string[]).includes(event)) throw new Error(`Unknown event ${String(event)}`);
  const handler = (_e: unknown, name: unknown, payload: unknown) => {
    if (name === event) listener(payload);
  };
  ipcRenderer.on(IPC_EVENT_CHANNEL, handler);
  return () => {
    ipcRenderer.removeListener(IPC_EVENT_CHANNEL, handler);
  };
};

contextBridge.exposeInMainWorld('pos', api as PreloadApi);
