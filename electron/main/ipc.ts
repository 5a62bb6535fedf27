import type { BrowserWindow, IpcMain, IpcMainInvokeEvent } from 'electron';
import { createDispatcher } from '../core/bridge/handler.ts';
import { IPC_EVENT_CHANNEL, IPC_INVOKE_PREFIX, METHODS, PUSH_EVENTS } from '../core/contract.ts';
import type { Core } from '../core/core.ts';
import type { Envelope } from '../core/errors.ts';
import { createHandlers } from '../core/handlers.ts';

/**
 * Registers exactly the contract's methods on ipcMain, each behind the sender-frame check,
 * and forwards the core's push events to the app's windows. Returns the unregister function.
 */
export function registerBridge(
  ipcMain: IpcMain,
  core: Core,
  isTrusted: (event: IpcMainInvokeEvent) => boolean,
  windows: () => BrowserWindow[],
): () => void {
  const dispatch = createDispatcher(createHandlers(core), (method, err) => core.log.error('bridge handler failed', { method, error: err }));
  for (const method of METHODS) {
    ipcMain.handle(IPC_INVOKE_PREFIX + method, async (event, args: unknown): Promise<Envelope<unknown>> => {
      if (!isTrusted(event)) {
        core.log.warn('refused a bridge call from an untrusted frame', { method, url: event.senderFrame?.url ?? null });
        return { ok: false, error: { code: 'not_found', message: 'This page may not use the cashier app.' } };
      }
      return dispatch(method, args);
    });
  }
  const unsubscribe = PUSH_EVENTS.map((name) =>
    core.events.on(name, (payload) => {
      for (const win of windows()) if (!win.isDestroyed()) win.webContents.send(IPC_EVENT_CHANNEL, name, payload);
    }),
  );
  return () => {
    for (const method of METHODS) ipcMain.removeHandler(IPC_INVOKE_PREFIX + method);
    unsubscribe.forEach((off) => off());
  };
}
