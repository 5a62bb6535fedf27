import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { IPC_EVENT_CHANNEL, IPC_INVOKE_PREFIX, METHODS } from '../core/contract.ts';
import { stub, until } from './fixtures/electron-stub.ts';
import { captureLog, freshDataDir } from './fixtures/first-run.ts';
import { MODE_FILE, STORE_FLAG } from './mode.ts';

/**
 * Contract test of the Electron shell with a stubbed `electron` (its binary cannot be had
 * here): loads the real main entry as `npm start` runs it (--mode=store), lets it boot the
 * real core on the embedded sandbox, and asserts the window's security settings, the guards,
 * the IPC registration and the browser shell other tills connect to. The other modes:
 * index.first-start.test.ts, index.connect.test.ts, index.pinned.test.ts.
 */
vi.mock('electron', async () => (await import('./fixtures/electron-stub.ts')).electron);

const rendererDirUrl = pathToFileURL(fileURLToPath(new URL('../renderer/', import.meta.url))).href;
let dataDir = '';
const logged: string[] = [];

beforeAll(async () => {
  dataDir = await freshDataDir('', 'en');
  process.env.POS_WEB_PORT = '0';
  process.env.POS_WEBHOOK_SECRET = 'whsec_bGl2ZS13ZWJob29rLXNlY3JldC0xMjM0';
  // Whoever starts `npm start` (or a packaged app) may have this set: it must not count.
  process.env.ELECTRON_RENDERER_URL = 'http://localhost:5173/';
  captureLog(logged);
  // What electron/start.ts (npm start) passes.
  process.argv.push('--remember-secrets', STORE_FLAG);
  await import('./index.ts');
  stub.resolveReady();
  await until(() => stub.windows[1], 'the cashier and customer display windows');
});

afterAll(async () => {
  for (const fn of stub.appListeners.get('before-quit') ?? []) fn({ preventDefault: () => undefined });
  await until(() => (stub.counts.quit > 0 ? true : undefined), 'the core to stop and the app to quit');
  await rm(dataDir, { recursive: true, force: true });
});

const trustedEvent = (url = rendererDirUrl + 'index.html', parent: unknown = null, senderId = 1) => ({ senderFrame: { url, parent }, sender: { id: senderId, once: () => undefined } });

describe('Electron shell', () => {
  it(`runs the store with ${STORE_FLAG} (npm start) and never asks, nor saves a mode`, async () => {
    expect(stub.asked).toEqual([]);
    expect(await readdir(dataDir)).not.toContain(MODE_FILE);
    expect(stub.sessionCalls.verify).toBeUndefined();
  });

  it('starts the browser shell other tills connect to, and says where', async () => {
    const line = await until(() => logged.find((l) => l.startsWith('Other tills and customer displays connect at ')), 'the browser shell’s address');
    const origin = /connect at (http:\/\/127\.0\.0\.1:\d+) /.exec(line)?.[1];
    expect(origin).toBeDefined();
    const res = await fetch(`${origin}/healthz`);
    expect(await res.json()).toEqual({ state: 'ready' });
  });

  it('offers a manager to connect this computer to another store, from the menu', () => {
    expect(stub.menuItem('to-connect')).toMatchObject({ label: 'Connect this computer to another store…' });
    expect(stub.menuItem('to-store')).toBeUndefined();
  });

  it('enables the sandbox for every renderer', () => {
    expect(stub.counts.enableSandbox).toBe(1);
  });

  it('opens the customer display on the second screen, from the same renderer', () => {
    expect(stub.windows).toHaveLength(2);
    expect(stub.windows[1]?.loaded[0]).toMatch(/renderer[\\/]display\.html$/);
    expect(stub.windows[1]?.options).toMatchObject({ x: 1920, y: 0, fullscreen: true });
  });

  it.each([0, 1])('creates window %i isolated, sandboxed and without Node', (index) => {
    const prefs = stub.windows[index]?.options.webPreferences as Record<string, unknown>;
    expect(prefs).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
    });
    // The customer display's preload exposes its screen only (preload/display.ts).
    expect(String(prefs.preload)).toMatch(index === 0 ? /preload[\\/]index\.cjs$/ : /preload[\\/]display\.cjs$/);
    expect(stub.windows[0]?.loaded[0]).toMatch(/renderer[\\/]index\.html$/);
  });

  it('ignores ELECTRON_RENDERER_URL outside a development build: pages come from the built files, dev-server frames are refused', async () => {
    expect(stub.windows.map((w) => w.loaded[0])).toEqual([expect.stringMatching(/renderer[\\/]index\.html$/), expect.stringMatching(/renderer[\\/]display\.html$/)]);
    const call = stub.handlers.get(IPC_INVOKE_PREFIX + 'core.status');
    expect(await call?.(trustedEvent('http://localhost:5173/'), undefined)).toMatchObject({ ok: false });
  });

  it('registers exactly the contract methods on ipcMain', () => {
    expect([...stub.handlers.keys()].sort()).toEqual(METHODS.map((m) => IPC_INVOKE_PREFIX + m).sort());
  });

  it('serves a call from the app page and refuses other frames', async () => {
    const call = stub.handlers.get(IPC_INVOKE_PREFIX + 'core.status');
    expect(call).toBeDefined();
    const ok = (await call?.(trustedEvent(), undefined)) as { ok: boolean; result: { state: string; lang: string } };
    expect(ok).toMatchObject({ ok: true, result: { state: 'ready', lang: 'en' } });
    for (const event of [trustedEvent('https://evil.example/'), trustedEvent(rendererDirUrl + 'index.html', {}), { senderFrame: null }]) {
      expect(await call?.(event, undefined)).toMatchObject({ ok: false });
    }
  });

  it('validates arguments before a handler runs', async () => {
    const signIn = stub.handlers.get(IPC_INVOKE_PREFIX + 'auth.signIn');
    expect(await signIn?.(trustedEvent(), { name: 'Marta', pin: 'abcd' })).toMatchObject({ ok: false, error: { code: 'invalid_argument' } });
  });

  it('keeps one sign-in per window: the customer display is not signed in by the till’s', async () => {
    const status = stub.handlers.get(IPC_INVOKE_PREFIX + 'auth.status');
    const create = stub.handlers.get(IPC_INVOKE_PREFIX + 'auth.createFirstManager');
    const till = trustedEvent(rendererDirUrl + 'index.html', null, 1);
    const display = trustedEvent(rendererDirUrl + 'display.html', null, 2);
    expect(await create?.(display, { name: 'Mallory', pin: '1357' })).toMatchObject({ ok: false, error: { code: 'forbidden', params: { reason: 'display_only' } } });
    expect(await create?.(till, { name: 'Marta', pin: '2468' })).toMatchObject({ ok: true, result: { operator: { name: 'Marta' } } });
    expect(await status?.(till, undefined)).toMatchObject({ ok: true, result: { operator: { name: 'Marta' } } });
    expect(await stub.handlers.get(IPC_INVOKE_PREFIX + 'operators.list')?.(display, undefined)).toMatchObject({ ok: false, error: { code: 'forbidden', params: { reason: 'display_only' } } });
  });

  it('gives the customer display window the display-only connection a paired display has, never the store’s full bridge', async () => {
    // Window 2's web contents is the customer display's, whatever page it shows (even the till's).
    for (const page of ['display.html', 'index.html']) {
      const display = trustedEvent(rendererDirUrl + page, null, 2);
      const served: string[] = [];
      for (const method of METHODS) {
        // An argument no method accepts: a call let through stops at validation, having done nothing.
        const envelope = (await stub.handlers.get(IPC_INVOKE_PREFIX + method)?.(display, { probe: 1 })) as { ok: boolean; error?: { code: string; params?: { reason?: string } } };
        if (envelope.error?.code === 'invalid_argument') served.push(method);
        else expect(envelope.error, method).toMatchObject({ code: 'forbidden', params: { reason: 'display_only' } });
      }
      expect(served, page).toEqual(['display.view']);
      expect(await stub.handlers.get(IPC_INVOKE_PREFIX + 'display.view')?.(display, undefined)).toMatchObject({ ok: true, result: { store_id: 1, checkout_id: 1, hold: false } });
    }
  });

  it('forwards push events to the windows: the customer display hears its screen only', async () => {
    const setLang = stub.handlers.get(IPC_INVOKE_PREFIX + 'settings.setLang');
    // The store's default language, a manager's setting (Marta is signed in on the till window).
    expect(await setLang?.(trustedEvent(), { lang: 'es' })).toMatchObject({ ok: true });
    expect(stub.windows[0]?.sent ?? []).toContainEqual([IPC_EVENT_CHANNEL, 'core.status', expect.objectContaining({ lang: 'es' })]);
    const shown = await until(() => stub.windows[1]?.sent.find(([, event]) => event === 'display.changed'), 'the display’s new language');
    expect(shown).toEqual([IPC_EVENT_CHANNEL, 'display.changed', expect.objectContaining({ lang: 'es', checkout_id: 1 })]);
    expect(new Set(stub.windows[1]?.sent.map(([, event]) => event))).toEqual(new Set(['display.changed']));
  });

  it('guards navigation, new windows and webviews of every web contents', () => {
    type Listener = (...args: unknown[]) => unknown;
    const created = stub.appListeners.get('web-contents-created')?.[0];
    const on = new Map<string, Listener>();
    let openHandler: Listener = () => undefined;
    created?.({}, { on: (e: string, fn: Listener) => on.set(e, fn), setWindowOpenHandler: (fn: Listener) => (openHandler = fn) });
    const navigate = (url: string) => {
      const event = { preventDefault: vi.fn() };
      on.get('will-navigate')?.(event, url);
      return event.preventDefault.mock.calls.length > 0;
    };
    expect(navigate('https://evil.example/')).toBe(true);
    expect(navigate('file:///etc/passwd')).toBe(true);
    expect(navigate(rendererDirUrl + 'index.html')).toBe(false);
    const redirect = { preventDefault: vi.fn() };
    on.get('will-redirect')?.(redirect, 'https://evil.example/');
    expect(redirect.preventDefault).toHaveBeenCalled();
    const webview = { preventDefault: vi.fn() };
    on.get('will-attach-webview')?.(webview);
    expect(webview.preventDefault).toHaveBeenCalled();
    expect(openHandler({ url: 'https://evil.example/' })).toEqual({ action: 'deny' });
  });

  it('keeps --remember-secrets encrypted with safeStorage, never in plain text, and not reachable over the bridge', async () => {
    const { readFile } = await import('node:fs/promises');
    const text = await readFile(join(dataDir, 'secrets.json'), 'utf8');
    expect(JSON.parse(text)).toHaveProperty(['webhook.secret']);
    expect(text).not.toContain('bGl2ZS13ZWJob29rLXNlY3JldC0xMjM0');
    expect(text).toContain(Buffer.from('enc(').toString('base64').slice(0, 4));
    expect([...stub.handlers.keys()].some((k) => k.includes('Secret'))).toBe(false);
  });

  it('denies every permission request', () => {
    const callback = vi.fn();
    stub.sessionCalls.request?.({}, 'media', callback);
    expect(callback).toHaveBeenCalledWith(false);
    expect(stub.sessionCalls.check?.({}, 'notifications')).toBe(false);
    expect(stub.sessionCalls.device?.({})).toBe(false);
  });
});
