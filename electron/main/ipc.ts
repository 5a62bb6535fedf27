import type { BrowserWindow, IpcMain, IpcMainInvokeEvent } from 'electron';
import { IPC_EVENT_CHANNEL, IPC_INVOKE_PREFIX, METHODS, PUSH_EVENTS } from '../core/contract.ts';
import type { Core } from '../core/core.ts';
import type { Envelope } from '../core/errors.ts';
import { createCoreDispatcher } from '../core/handlers.ts';
import type { Connection } from '../core/devices/connection.ts';
import { newSession, type Session } from '../core/operators/operators.ts';
import { routedPush } from '../core/routing.ts';

/**
 * Registers exactly the contract's methods on ipcMain, each behind the sender-frame check,
 * and forwards the core's push events to the app's windows. `connectionOf` says what a
 * window's connection is, by its web contents: the store's own till window, or its customer
 * display, which gets the display-only connection a paired display has (issue 25), whatever
 * page it loads. Returns the unregister function.
 */
export function registerBridge(
  ipcMain: IpcMain,
  core: Core,
  isTrusted: (event: IpcMainInvokeEvent) => boolean,
  windows: () => BrowserWindow[],
  connectionOf: (webContentsId: number) => Connection,
): () => void {
  const dispatch = createCoreDispatcher(core);
  // Each window signs in on its own (the customer display never does); a reload keeps its sign-in.
  const sessions = new Map<number, Session>();
  const sessionOf = (event: IpcMainInvokeEvent): Session => {
    const id = event.sender.id;
    let session = sessions.get(id);
    if (!session) {
      sessions.set(id, (session = newSession(connectionOf(id))));
      event.sender.once('destroyed', () => {
        sessions.delete(id);
        // The window is gone: its sign-in is no one's any more (issue 25).
        core.operators.forget(session as Session);
      });
    }
    return session;
  };
  for (const method of METHODS) {
    ipcMain.handle(IPC_INVOKE_PREFIX + method, async (event, args: unknown): Promise<Envelope<unknown>> => {
      if (!isTrusted(event)) {
        core.log.warn('refused a bridge call from an untrusted frame', { method, url: event.senderFrame?.url ?? null });
        return { ok: false, error: { code: 'not_found', message: 'This page may not use the cashier app.' } };
      }
      return dispatch(method, args, sessionOf(event));
    });
  }
  // Each window hears what its session may (routing.ts): a window not signed in as a
  // supervisor never receives the merchant's attention list, the customer display only its screen.
  const unsubscribe = PUSH_EVENTS.map((name) =>
    core.events.on(name, (payload) => {
      for (const win of windows()) {
        if (win.isDestroyed()) continue;
        const routed = routedPush(core, sessions.get(win.webContents.id) ?? newSession(connectionOf(win.webContents.id)), name, payload as never);
        if (routed !== undefined) win.webContents.send(IPC_EVENT_CHANNEL, name, routed);
      }
    }),
  );
  return () => {
    for (const method of METHODS) ipcMain.removeHandler(IPC_INVOKE_PREFIX + method);
    unsubscribe.forEach((off) => off());
  };
}
