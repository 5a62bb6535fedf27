import { describe, expect, it, vi } from 'vitest';
import { DEVICE_CHANNELS } from '../shared/device-bridge.ts';

/** Connect mode's preload exposes window.posDevice only: three functions, three channels, no window.pos. */

// The stub's invoke answers with what it was given: the channel and the arguments.
const stub = await vi.hoisted(async () => (await import('./fixtures/electron-stub.ts')).electronStub((...args) => args));

vi.mock('electron', () => ({ contextBridge: stub.contextBridge, ipcRenderer: stub.ipcRenderer }));

await import('./device.ts');

describe('device preload', () => {
  const api = stub.exposed.get('posDevice') ?? {};

  it('exposes posDevice with load, save and forget, and nothing else', () => {
    expect([...stub.exposed.keys()]).toEqual(['posDevice']);
    expect(Object.keys(api).sort()).toEqual(['forget', 'load', 'save']);
  });

  it('maps each function to its own channel', async () => {
    expect(await (api.load as () => Promise<unknown>)()).toEqual([DEVICE_CHANNELS.load]);
    expect(await (api.save as (c: string) => Promise<unknown>)('c'.repeat(43))).toEqual([DEVICE_CHANNELS.save, 'c'.repeat(43)]);
    expect(await (api.forget as () => Promise<unknown>)()).toEqual([DEVICE_CHANNELS.forget]);
  });
});
