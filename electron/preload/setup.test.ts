import { describe, expect, it, vi } from 'vitest';
import { SETUP_CHANNELS } from '../shared/setup-bridge.ts';

/** The setup page's preload exposes window.posSetup only: probe and confirm, on their own channels. */

// The stub's invoke answers with what it was given: the channel and the arguments.
const stub = await vi.hoisted(async () => (await import('./fixtures/electron-stub.ts')).electronStub((...args) => args));

vi.mock('electron', () => ({ contextBridge: stub.contextBridge, ipcRenderer: stub.ipcRenderer }));

await import('./setup.ts');

describe('setup preload', () => {
  const api = stub.exposed.get('posSetup') ?? {};

  it('exposes posSetup with probe and confirm, and nothing else', () => {
    expect([...stub.exposed.keys()]).toEqual(['posSetup']);
    expect(Object.keys(api).sort()).toEqual(['confirm', 'probe']);
  });

  it('maps each function to its own channel', async () => {
    expect(await (api.probe as (a: string) => Promise<unknown>)('10.0.0.2:5180')).toEqual([SETUP_CHANNELS.probe, '10.0.0.2:5180']);
    expect(await (api.confirm as (o: string, f: string) => Promise<unknown>)('https://10.0.0.2:5180', 'AB')).toEqual([SETUP_CHANNELS.confirm, { origin: 'https://10.0.0.2:5180', fingerprint: 'AB' }]);
  });
});
