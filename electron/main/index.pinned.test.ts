import { readFileSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEVICE_CHANNELS } from '../shared/device-bridge.ts';
import { stub, until } from './fixtures/electron-stub.ts';
import { freshDataDir } from './fixtures/first-run.ts';
import { MODE_FILE, writeMode } from './mode.ts';
import { CERTIFICATE_ACCEPTED, CERTIFICATE_REFUSED, pemFingerprint } from './pinning.ts';

/**
 * Contract test of a paired till's later starts (stubbed `electron`, real main entry): with a
 * pinned store in mode.json the app asks nothing, starts no core, opens the store's page at
 * once and trusts that store's certificate alone.
 */
vi.mock('electron', async () => (await import('./fixtures/electron-stub.ts')).electron);

const cert = (name: string) => readFileSync(new URL(`./fixtures/${name}.cert.pem`, import.meta.url), 'utf8');
const ORIGIN = 'https://192.168.0.10:5180';
let dataDir = '';

beforeAll(async () => {
  dataDir = await freshDataDir('pinned-', 'es');
  await writeMode(dataDir, { mode: 'connect', origin: ORIGIN, fingerprint: pemFingerprint(cert('store')) ?? '' });
  // The store presents another certificate at the first attempt (Chromium refused it through the pin).
  stub.failingLoads.push(Object.assign(new Error('net::ERR_CERT_AUTHORITY_INVALID'), { errno: -202, code: 'ERR_CERT_AUTHORITY_INVALID' }));
  stub.answers.push(0);
  await import('./index.ts');
  stub.resolveReady();
  await until(() => stub.windows[0]?.loaded[0], 'the store’s page');
});

afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe('Electron shell, a paired till starting again', () => {
  it('asks nothing about the mode and opens the pinned store’s page with the device preload', async () => {
    expect(stub.asked.every((q) => q.type === 'error')).toBe(true);
    expect(stub.windows).toHaveLength(1);
    await until(() => (stub.windows[0]?.loaded.length === 2 ? true : undefined), 'the second attempt');
    expect(stub.windows[0]?.loaded).toEqual([`${ORIGIN}/`, `${ORIGIN}/`]);
    expect(stub.windows[0]?.options.webPreferences).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, preload: expect.stringMatching(/preload[\\/]device\.cjs$/) });
  });

  it('starts no core: only the device credential’s channels, nothing written beside mode.json', async () => {
    expect([...stub.handlers.keys()].sort()).toEqual(Object.values(DEVICE_CHANNELS).sort());
    expect(await readdir(dataDir)).toEqual([MODE_FILE]);
  });

  it('trusts the pinned certificate on the pinned host, and nothing else', () => {
    const verify = (hostname: string, data: string) => {
      let verdict: unknown;
      stub.sessionCalls.verify?.({ hostname, certificate: { data } }, (v: unknown) => (verdict = v));
      return verdict;
    };
    expect(verify('192.168.0.10', cert('store'))).toBe(CERTIFICATE_ACCEPTED);
    expect(verify('192.168.0.10', cert('other'))).toBe(CERTIFICATE_REFUSED);
    expect(verify('192.168.0.11', cert('store'))).toBe(CERTIFICATE_REFUSED);
  });

  it('says when the store no longer presents the pinned certificate, and tries again when asked', () => {
    expect(stub.asked).toHaveLength(1);
    expect(stub.asked[0]).toMatchObject({
      type: 'error',
      message: `La tienda en ${ORIGIN} ya no presenta el certificado en el que confía esta caja.`,
      buttons: ['Intentar de nuevo', 'Cancelar'],
    });
  });

  it('labels the menu in the configured language', () => {
    expect(stub.menuItem('to-store')).toMatchObject({ label: 'Ejecutar la tienda en esta computadora…' });
  });
});
