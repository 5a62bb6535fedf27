import { readFileSync } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createServer, type Server } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { IPC_INVOKE_PREFIX } from '../core/contract.ts';
import { DEVICE_CHANNELS } from '../shared/device-bridge.ts';
import { SETUP_CHANNELS } from '../shared/setup-bridge.ts';
import { stub, until } from './fixtures/electron-stub.ts';
import { freshDataDir } from './fixtures/first-run.ts';
import { MODE_FILE } from './mode.ts';
import { CERTIFICATE_ACCEPTED, CERTIFICATE_REFUSED, pemFingerprint } from './pinning.ts';

/**
 * Contract test of the Electron shell as a till connecting to the store (stubbed `electron`,
 * real main entry): the first start's "Connect to the store" starts no core and shows the
 * setup page; main reads the certificate of a real TLS server on loopback (standing in for the
 * store's browser shell), the person confirms it, and from then on only that certificate on
 * that host is trusted, the window is the store's page, and window.posDevice answers that
 * page alone.
 */
vi.mock('electron', async () => (await import('./fixtures/electron-stub.ts')).electron);

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
const STORE_CERT = fixture('store.cert.pem');
const OTHER_CERT = fixture('other.cert.pem');
const CREDENTIAL = 'q3Zx0Yw9bJc8T1mLr5sVn2uHd7kFe4gAo6iPy0tWz_-';

let dataDir = '';
let store: Server;
let origin = '';
let setupUrl = '';

beforeAll(async () => {
  dataDir = await freshDataDir('connect-', 'en');
  store = createServer({ cert: STORE_CERT, key: fixture('store.key.pem') }, (socket) => socket.end());
  await new Promise<void>((r) => store.listen(0, '127.0.0.1', r));
  origin = `https://127.0.0.1:${(store.address() as AddressInfo).port}`;
  vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  stub.answers.push(1);
  await import('./index.ts');
  stub.resolveReady();
  await until(() => stub.windows[0]?.loaded[0], 'the setup page');
  setupUrl = pathToFileURL(stub.windows[0]?.loaded[0] ?? '').href;
});

afterAll(async () => {
  await new Promise((r) => store.close(r));
  await rm(dataDir, { recursive: true, force: true });
});

const verify = (hostname: string, data: string) => {
  let verdict: unknown;
  stub.sessionCalls.verify?.({ hostname, certificate: { data }, verificationResult: 'net::ERR_CERT_AUTHORITY_INVALID', errorCode: -202 }, (v: unknown) => (verdict = v));
  return verdict;
};

describe('Electron shell, connect mode', () => {
  it('asked at the first start, it saves "connect" and shows the setup page in the chosen language, with its own preload', async () => {
    expect(stub.asked).toHaveLength(1);
    expect(JSON.parse(await readFile(join(dataDir, MODE_FILE), 'utf8'))).toEqual({ mode: 'connect' });
    expect(stub.windows).toHaveLength(1);
    expect(stub.windows[0]?.loaded[0]).toMatch(/renderer[\\/]setup\.html$/);
    expect(stub.windows[0]?.query).toEqual({ lang: 'en' });
    expect(stub.windows[0]?.options.webPreferences).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, preload: expect.stringMatching(/preload[\\/]setup\.cjs$/) });
  });

  it('starts no core: no core IPC, no journal, no service credentials', async () => {
    expect([...stub.handlers.keys()].filter((k) => k.startsWith(IPC_INVOKE_PREFIX))).toEqual([]);
    expect([...stub.handlers.keys()].sort()).toEqual([...Object.values(DEVICE_CHANNELS), ...Object.values(SETUP_CHANNELS)].sort());
    expect(await readdir(dataDir)).toEqual([MODE_FILE]);
  });

  it('trusts no certificate before a store is pinned', () => {
    expect(verify('127.0.0.1', STORE_CERT)).toBe(CERTIFICATE_REFUSED);
  });

  it('refuses the setup calls from any page but its own', async () => {
    await expect(stub.invoke(SETUP_CHANNELS.probe, `${origin}/`, origin)).rejects.toThrow(/setup page/);
    await expect(stub.invoke(SETUP_CHANNELS.confirm, 'https://evil.example/', { origin, fingerprint: pemFingerprint(STORE_CERT) })).rejects.toThrow(/setup page/);
  });

  it('says why an address is refused, and reads the certificate at a good one', async () => {
    expect(await stub.invoke(SETUP_CHANNELS.probe, setupUrl, origin.replace('https:', 'http:'))).toEqual({ ok: false, problem: 'not_https' });
    expect(await stub.invoke(SETUP_CHANNELS.probe, setupUrl, origin.replace(/:\d+$/, ''))).toEqual({ ok: false, problem: 'no_port' });
    expect(await stub.invoke(SETUP_CHANNELS.probe, setupUrl, origin.replace('https://', ''))).toEqual({ ok: true, origin, fingerprint: pemFingerprint(STORE_CERT) });
  });

  it('pins only what main read: another fingerprint is not confirmed', async () => {
    expect(await stub.invoke(SETUP_CHANNELS.confirm, setupUrl, { origin, fingerprint: pemFingerprint(OTHER_CERT) })).toBe(false);
    expect(JSON.parse(await readFile(join(dataDir, MODE_FILE), 'utf8'))).toEqual({ mode: 'connect' });
    expect(await stub.invoke(SETUP_CHANNELS.probe, setupUrl, origin)).toMatchObject({ ok: true });
  });

  it('on confirmation saves the pin and opens the store page with the device preload', async () => {
    expect(await stub.invoke(SETUP_CHANNELS.confirm, setupUrl, { origin, fingerprint: pemFingerprint(STORE_CERT) })).toBe(true);
    expect(JSON.parse(await readFile(join(dataDir, MODE_FILE), 'utf8'))).toEqual({ mode: 'connect', origin, fingerprint: pemFingerprint(STORE_CERT) });
    expect(stub.windows[0]?.closed).toBe(true);
    expect(stub.windows[1]?.loaded).toEqual([`${origin}/`]);
    expect(stub.windows[1]?.options.webPreferences).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      preload: expect.stringMatching(/preload[\\/]device\.cjs$/),
    });
    // The setup page is done with: its channels are gone.
    expect([...stub.handlers.keys()].sort()).toEqual(Object.values(DEVICE_CHANNELS).sort());
  });

  it('trusts the pinned certificate on the pinned host only, and never through certificate-error', () => {
    expect(verify('127.0.0.1', STORE_CERT)).toBe(CERTIFICATE_ACCEPTED);
    expect(verify('127.0.0.1', OTHER_CERT)).toBe(CERTIFICATE_REFUSED);
    expect(verify('127.0.0.2', STORE_CERT)).toBe(CERTIFICATE_REFUSED);
    expect(verify('evil.example', OTHER_CERT)).toBe(CERTIFICATE_REFUSED);
    expect(stub.appListeners.get('certificate-error')).toBeUndefined();
  });

  it('lets the store page navigate within the pinned origin only', () => {
    type Listener = (...args: unknown[]) => unknown;
    const on = new Map<string, Listener>();
    stub.appListeners.get('web-contents-created')?.[0]?.({}, { on: (e: string, fn: Listener) => on.set(e, fn), setWindowOpenHandler: () => undefined });
    const blocked = (url: string) => {
      const event = { preventDefault: vi.fn() };
      on.get('will-navigate')?.(event, url);
      return event.preventDefault.mock.calls.length > 0;
    };
    expect(blocked(`${origin}/display`)).toBe(false);
    expect(blocked(`${origin.replace('https:', 'http:')}/`)).toBe(true);
    expect(blocked('https://127.0.0.1:1/')).toBe(true);
    expect(blocked('https://evil.example/')).toBe(true);
  });

  it('keeps the device credential for the pinned page, encrypted with safeStorage', async () => {
    expect(await stub.invoke(DEVICE_CHANNELS.load, `${origin}/`)).toBeNull();
    await stub.invoke(DEVICE_CHANNELS.save, `${origin}/`, CREDENTIAL);
    expect(await stub.invoke(DEVICE_CHANNELS.load, `${origin}/#pair`)).toBe(CREDENTIAL);
    const stored = await readFile(join(dataDir, 'device.json'), 'utf8');
    expect(stored).not.toContain(CREDENTIAL);
    expect(JSON.parse(stored)).toHaveProperty(['device.credential']);
  });

  it('refuses the device credential to a frame of another origin, a sub-frame and the setup page', async () => {
    for (const url of ['https://evil.example/', `${origin.replace('https:', 'http:')}/`, 'https://127.0.0.1:1/', setupUrl]) {
      await expect(stub.invoke(DEVICE_CHANNELS.load, url)).rejects.toThrow(/may not use/);
      await expect(stub.invoke(DEVICE_CHANNELS.forget, url)).rejects.toThrow(/may not use/);
    }
    const subFrame = { senderFrame: { url: `${origin}/`, parent: {} }, sender: { id: 1 } };
    await expect(Promise.resolve().then(() => stub.handlers.get(DEVICE_CHANNELS.load)?.(subFrame))).rejects.toThrow(/may not use/);
    expect(await stub.invoke(DEVICE_CHANNELS.load, `${origin}/`)).toBe(CREDENTIAL);
  });

  it.each([['short'], ['q3Zx0Yw9bJc8T1mLr5sVn2uHd7kFe4gAo6iPy0tWz_-x'], ['q3Zx0Yw9bJc8T1mLr5sVn2uHd7kFe4gAo6iPy0tWz+/'], [42], [null]])('refuses to save a malformed credential: %j', async (bad) => {
    await expect(stub.invoke(DEVICE_CHANNELS.save, `${origin}/`, bad)).rejects.toThrow(/Not a device credential/);
    expect(await stub.invoke(DEVICE_CHANNELS.load, `${origin}/`)).toBe(CREDENTIAL);
  });

  it('forgets the credential when the store page asks', async () => {
    await stub.invoke(DEVICE_CHANNELS.forget, `${origin}/`);
    expect(await stub.invoke(DEVICE_CHANNELS.load, `${origin}/`)).toBeNull();
  });

  it('offers a manager to run the store here, or to connect to another store', () => {
    expect(stub.menuItem('to-store')).toMatchObject({ label: 'Run the store on this computer…' });
    expect(stub.menuItem('to-connect')).toMatchObject({ label: 'Connect this computer to another store…' });
  });

  it('runs the store after the manager confirms: saved, relaunched', async () => {
    stub.answers.push(0);
    stub.menuItem('to-store')?.click?.();
    await until(() => (stub.exits.length > 0 ? true : undefined), 'the relaunch');
    expect(JSON.parse(await readFile(join(dataDir, MODE_FILE), 'utf8'))).toEqual({ mode: 'store' });
    expect(stub.relaunches).toHaveLength(1);
    expect(stub.exits).toEqual([0]);
  });
});
