import { describe, expect, it, vi } from 'vitest';
import { IPC_EVENT_CHANNEL, IPC_INVOKE_PREFIX } from '../core/contract.ts';

/**
 * Issue 25: the store computer's customer-display window is given its screen only, as a
 * paired display is: `display.view` and the `display.changed` push; never ipcRenderer, never
 * another method or event.
 */
const stub = await vi.hoisted(async () => (await import('./fixtures/electron-stub.ts')).electronStub());

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
