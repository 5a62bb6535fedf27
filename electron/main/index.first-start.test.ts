import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { IPC_INVOKE_PREFIX, METHODS } from '../core/contract.ts';
import { stub, until } from './fixtures/electron-stub.ts';
import { MODE_FILE, STORE_FLAG } from './mode.ts';

/**
 * Contract test of the Electron shell's first start (stubbed `electron`, real main entry, real
 * core on the embedded sandbox): without mode.json and without --mode=store the app asks how
 * this computer works; "This computer runs the store" is saved and runs the store. A manager
 * then turns it into a till from the menu: confirmed, saved, stopped, relaunched.
 */
vi.mock('electron', async () => (await import('./fixtures/electron-stub.ts')).electron);

let dataDir = '';

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'pos-electron-first-'));
  process.env.POS_DATA_DIR = dataDir;
  process.env.POS_LANG = 'en';
  process.env.POS_WEB_PORT = '0';
  process.env.POS_CUSTOMER_DISPLAY = 'off';
  vi.spyOn(console, 'log').mockImplementation(() => undefined);
  stub.answers.push(0);
  await import('./index.ts');
  stub.resolveReady();
  await until(() => stub.windows[0], 'the cashier window');
});

afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe('Electron shell, first start', () => {
  it('asks how this computer works, the store being the default answer', () => {
    expect(process.argv).not.toContain(STORE_FLAG);
    expect(stub.asked).toHaveLength(1);
    expect(stub.asked[0]).toMatchObject({
      message: 'How does this computer work in the store?',
      buttons: ['This computer runs the store', 'Connect to the store'],
      defaultId: 0,
    });
  });

  it('saves the answer and runs the store: the core behind the contract methods', async () => {
    expect(JSON.parse(await readFile(join(dataDir, MODE_FILE), 'utf8'))).toEqual({ mode: 'store' });
    expect([...stub.handlers.keys()].sort()).toEqual(METHODS.map((m) => IPC_INVOKE_PREFIX + m).sort());
    expect(stub.windows[0]?.loaded[0]).toMatch(/renderer[\\/]index\.html$/);
    expect(await stub.invoke(IPC_INVOKE_PREFIX + 'core.status', pathToFileURL(stub.windows[0]?.loaded[0] ?? '').href)).toMatchObject({ ok: true, result: { state: 'ready' } });
  });

  it('asks the manager to confirm a change of mode, Cancel being the default', async () => {
    stub.answers.push(1);
    stub.menuItem('to-connect')?.click?.();
    await until(() => (stub.asked.length === 2 ? true : undefined), 'the confirmation');
    expect(stub.asked[1]).toMatchObject({ message: 'Connect this computer to another store', buttons: ['Restart now', 'Cancel'], cancelId: 1, defaultId: 1 });
  });

  it('turns into a till of another store once confirmed (the cancelled change did nothing): saved, core stopped, relaunched without --mode=store', async () => {
    stub.answers.push(0);
    stub.menuItem('to-connect')?.click?.();
    await until(() => (stub.exits.length > 0 ? true : undefined), 'the relaunch');
    expect(JSON.parse(await readFile(join(dataDir, MODE_FILE), 'utf8'))).toEqual({ mode: 'connect' });
    expect(stub.relaunches).toEqual([{ args: process.argv.slice(1).filter((a) => a !== STORE_FLAG) }]);
    expect(stub.exits).toEqual([0]);
    // Stopped before the exit: its IPC is gone with it.
    expect(stub.handlers.size).toBe(0);
  });
});
