import { readFileSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { get as httpsGet } from 'node:https';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { IPC_INVOKE_PREFIX, METHODS } from '../core/contract.ts';
import { stub, until } from './fixtures/electron-stub.ts';
import { captureLog, freshDataDir } from './fixtures/first-run.ts';
import { MODE_FILE, STORE_FLAG } from './mode.ts';
import { pemFingerprint, readPeerFingerprint } from './pinning.ts';

/**
 * Contract test of the Electron shell's first start (stubbed `electron`, real main entry, real
 * core on the embedded sandbox): without mode.json and without --mode=store the app asks how
 * this computer works; "This computer runs the store" is saved and runs the store. A manager
 * then turns it into a till from the menu: confirmed, saved, stopped, relaunched.
 */
vi.mock('electron', async () => (await import('./fixtures/electron-stub.ts')).electron);

let dataDir = '';
const logged: string[] = [];

beforeAll(async () => {
  dataDir = await freshDataDir('first-', 'en');
  process.env.POS_WEB_PORT = '0';
  process.env.POS_CUSTOMER_DISPLAY = 'off';
  // The merchant's own certificate for the browser shell: the store serves HTTPS with it.
  process.env.POS_TLS_CERT = fileURLToPath(new URL('./fixtures/store.cert.pem', import.meta.url));
  process.env.POS_TLS_KEY = fileURLToPath(new URL('./fixtures/store.key.pem', import.meta.url));
  captureLog(logged);
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

  it('serves the browser shell over HTTPS with the store’s certificate, the one a connecting till reads and pins', async () => {
    const fingerprint = pemFingerprint(readFileSync(process.env.POS_TLS_CERT ?? '', 'utf8'));
    const line = await until(() => logged.find((l) => l.startsWith('Other tills and customer displays connect at ')), 'the browser shell’s address');
    const origin = /connect at (https:\/\/127\.0\.0\.1:\d+) /.exec(line)?.[1] ?? '';
    expect(origin).not.toBe('');
    expect(logged).toContain(`Certificate SHA-256 fingerprint: ${fingerprint} (an Electron till shows it when connecting; a browser in its certificate viewer)`);
    expect(await readPeerFingerprint(origin)).toEqual({ ok: true, fingerprint });
    const health = await new Promise<string>((resolve, reject) => {
      const req = httpsGet(`${origin}/healthz`, { ca: readFileSync(process.env.POS_TLS_CERT ?? '', 'utf8') }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve(body));
      });
      req.on('error', reject);
    });
    expect(JSON.parse(health)).toEqual({ state: 'ready' });
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
