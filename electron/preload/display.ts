import { contextBridge, ipcRenderer } from 'electron';
import type { ArgsOf, DisplayPreloadApi, PushEvent, PushEvents } from '../core/contract.ts';

/**
 * The store computer's customer-display window's preload (issue 25): its checkout's screen
 * (`display.view`) and its push (`display.changed`), nothing else, as a paired display may.
 * Main gives this window a display-only connection too, so the core refuses anything else
 * whatever a page asks; this only keeps the rest of the bridge out of the window's reach.
 */
/**
 * contract.ts's IPC_INVOKE_PREFIX and IPC_EVENT_CHANNEL, written here: a value imported from a
 * module the till's preload imports too would be bundled as a shared chunk, which a sandboxed
 * preload cannot require. display.test.ts checks them against the contract's.
 */
const IPC_INVOKE_PREFIX = 'pos:invoke:';
const IPC_EVENT_CHANNEL = 'pos:event';
const DISPLAY_EVENTS: readonly PushEvent[] = ['display.changed'];

function listen<E extends PushEvent>(event: E, listener: (payload: PushEvents[E]) => void): () => void {
  if (!DISPLAY_EVENTS.includes(event)) throw new Error(`A customer display does not hear ${String(event)}`);
  const handler = (_e: unknown, name: unknown, payload: PushEvents[E]) => {
    if (name === event) listener(payload);
  };
  ipcRenderer.on(IPC_EVENT_CHANNEL, handler);
  return () => {
    ipcRenderer.removeListener(IPC_EVENT_CHANNEL, handler);
  };
}

const api = {
  'display.view': (args: ArgsOf<'display.view'>) => ipcRenderer.invoke(IPC_INVOKE_PREFIX + 'display.view', args),
  listen,
} satisfies DisplayPreloadApi;

contextBridge.exposeInMainWorld('pos', api);
