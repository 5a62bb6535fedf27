import { describe, expect, it, vi } from 'vitest';
import { IPC_EVENT_CHANNEL, IPC_INVOKE_PREFIX, METHODS } from '../core/contract.ts';

/** The preload exposes named functions only: never ipcRenderer, never another channel. */
const stub = await vi.hoisted(async () => (await import('./fixtures/electron-stub.ts')).electronStub());

vi.mock('electron', () => ({ contextBridge: stub.contextBridge, ipcRenderer: stub.ipcRenderer }));

await import('./index.ts');

describe('preload', () => {
  const api = stub.exposed.get('pos') ?? {};

  it('exposes exactly one function per contract method, plus listen', () => {
    expect([...stub.exposed.keys()]).toEqual(['pos']);
    expect(Object.keys(api).sort()).toEqual([...METHODS, 'listen'].sort());
    for (const value of Object.values(api)) expect(typeof value).toBe('function');
  });

  it('maps each function to its own invoke channel', async () => {
    const result = await (api['settings.setLang'] as (a: unknown) => Promise<unknown>)({ lang: 'en' });
    expect(stub.ipcRenderer.invoke).toHaveBeenCalledWith(IPC_INVOKE_PREFIX + 'settings.setLang', { lang: 'en' });
    expect(result).toEqual({ ok: true, result: { channel: IPC_INVOKE_PREFIX + 'settings.setLang', args: { lang: 'en' } } });
  });

  it('delivers only the subscribed event, without the IPC event object, and unsubscribes', () => {
    const listen = api.listen as (e: string, l: (p: unknown) => void) => () => void;
    const got: unknown[] = [];
    const off = listen('core.status', (p) => got.push(p));
    const emit = (...args: unknown[]) => stub.listeners.get(IPC_EVENT_CHANNEL)?.forEach((fn) => fn({ sender: 'ipc-internals' }, ...args));
    emit('core.status', { state: 'ready' });
    emit('something.else', { state: 'x' });
    expect(got).toEqual([{ state: 'ready' }]);
    off();
    emit('core.status', { state: 'stopped' });
    expect(got).toHaveLength(1);
  });

  it('refuses to listen to an event outside the contract', () => {
    const listen = api.listen as (e: string, l: (p: unknown) => void) => () => void;
    expect(() => listen('ipc:any-channel', () => undefined)).toThrow(/Unknown event/);
  });
});
