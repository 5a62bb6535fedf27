import { describe, expect, it, vi } from 'vitest';
import { IPC_EVENT_CHANNEL, IPC_INVOKE_PREFIX } from '../core/contract.ts';

/**
 * Issue 25: the store computer's customer-display window is given its screen only, as a
 * paired display is: `display.view` and the `display.changed` push; never ipcRenderer, never
 * another method or event.
 */
const stub = vi.hoisted(() => {
  const exposed = new Map<string, Record<string, unknown>>();
  const listeners = new Map<string, Set<(...args: unknown[]) => void>>();
  return {
    exposed,
    listeners,
    contextBridge: { exposeInMainWorld: (key: string, api: Record<string, unknown>) => exposed.set(key, api) },
    ipcRenderer: {
      invoke: vi.fn(async (channel: string, args: unknown) => ({ ok: true, result: { channel, args } })),
      on: (channel: string, fn: (...args: unknown[]) => void) => {
        if (!listeners.has(channel)) listeners.set(channel, new Set());
        listeners.get(channel)?.add(fn);
      },
      removeListener: (channel: string, fn: (...args: unknown[]) => void) => listeners.get(channel)?.delete(fn),
    },
  };
});

vi.mock('electron', () => ({ contextBridge: stub.contextBridge, ipcRenderer: stub.ipcRenderer }));

await import('./display.ts');

describe('the customer display’s preload', () => {
  const api = stub.exposed.get('pos') ?? {};
  const listen = api.listen as (e: string, l: (p: unknown) => void) => () => void;

  it('exposes its screen and listen, nothing else', async () => {
    expect([...stub.exposed.keys()]).toEqual(['pos']);
    expect(Object.keys(api).sort()).toEqual(['display.view', 'listen']);
    expect(await (api['display.view'] as (a: unknown) => Promise<unknown>)(undefined)).toEqual({ ok: true, result: { channel: IPC_INVOKE_PREFIX + 'display.view', args: undefined } });
  });

  it('hears its screen’s push only', () => {
    const got: unknown[] = [];
    const off = listen('display.changed', (p) => got.push(p));
    const emit = (...args: unknown[]) => stub.listeners.get(IPC_EVENT_CHANNEL)?.forEach((fn) => fn({ sender: 'ipc-internals' }, ...args));
    emit('display.changed', { checkout_id: 1 });
    emit('core.status', { state: 'ready' });
    expect(got).toEqual([{ checkout_id: 1 }]);
    off();
    for (const event of ['core.status', 'checkout.changed', 'attention.changed', 'ipc:any-channel']) {
      expect(() => listen(event, () => undefined), event).toThrow(/does not hear/);
    }
  });
});
