import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { IPC_EVENT_CHANNEL, IPC_INVOKE_PREFIX, METHODS } from '../core/contract.ts';

/**
 * Contract test of the Electron shell with a stubbed `electron` (its binary cannot be had
 * here): loads the real main entry, lets it boot the real core on the embedded sandbox,
 * and asserts the window's security settings, the guards and the IPC registration.
 */
type Listener = (...args: unknown[]) => unknown;

const stub = vi.hoisted(() => {
  const appListeners = new Map<string, Listener[]>();
  const handlers = new Map<string, Listener>();
  const windows: Array<{ options: Record<string, unknown>; loaded: string[]; sent: unknown[][] }> = [];
  let resolveReady: () => void = () => undefined;
  const ready = new Promise<void>((r) => (resolveReady = r));
  const sessionCalls: Record<string, Listener> = {};
  const counts = { enableSandbox: 0, quit: 0 };
  const app = {
    isPackaged: false,
    enableSandbox: () => void counts.enableSandbox++,
    whenReady: () => ready,
    on: (event: string, fn: Listener) => appListeners.set(event, [...(appListeners.get(event) ?? []), fn]),
    quit: () => void counts.quit++,
    exit: () => undefined,
  };
  class BrowserWindow {
    readonly record: { options: Record<string, unknown>; loaded: string[]; sent: unknown[][] };
    readonly webContents: { send: (...args: unknown[]) => void };
    constructor(options: Record<string, unknown>) {
      this.record = { options, loaded: [], sent: [] };
      windows.push(this.record);
      BrowserWindow.instances.push(this);
      this.webContents = { send: (...args: unknown[]) => this.record.sent.push(args) };
    }
    once() {}
    isDestroyed() {
      return false;
    }
    async loadFile(path: string) {
      this.record.loaded.push(path);
    }
    async loadURL(url: string) {
      this.record.loaded.push(url);
    }
    static instances: BrowserWindow[] = [];
    static getAllWindows() {
      return BrowserWindow.instances;
    }
  }
  const ipcMain = {
    handle: (channel: string, fn: Listener) => handlers.set(channel, fn),
    removeHandler: (channel: string) => handlers.delete(channel),
  };
  const session = {
    defaultSession: {
      setPermissionRequestHandler: (fn: Listener) => (sessionCalls.request = fn),
      setPermissionCheckHandler: (fn: Listener) => (sessionCalls.check = fn),
      setDevicePermissionHandler: (fn: Listener) => (sessionCalls.device = fn),
    },
  };
  const safeStorage = {
    isEncryptionAvailable: () => true,
    encryptString: (v: string) => Buffer.from(`enc(${Buffer.from(v).toString('hex')})`),
    decryptString: (b: Buffer) => Buffer.from(/^enc\((.*)\)$/.exec(b.toString())?.[1] ?? '', 'hex').toString(),
  };
  const screen = {
    getAllDisplays: () => [{ id: 1, bounds: { x: 0, y: 0 } }, { id: 2, bounds: { x: 1920, y: 0 } }],
    getPrimaryDisplay: () => ({ id: 1, bounds: { x: 0, y: 0 } }),
  };
  return { counts, app, BrowserWindow, ipcMain, session, screen, safeStorage, appListeners, handlers, windows, sessionCalls, resolveReady };
});

vi.mock('electron', () => ({
  app: stub.app,
  BrowserWindow: stub.BrowserWindow,
  ipcMain: stub.ipcMain,
  session: stub.session,
  screen: stub.screen,
  safeStorage: stub.safeStorage,
}));

const rendererDirUrl = pathToFileURL(fileURLToPath(new URL('../renderer/', import.meta.url))).href;
let dataDir = '';

async function until<T>(probe: () => T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const value = probe();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'pos-electron-'));
  process.env.POS_DATA_DIR = dataDir;
  process.env.POS_LANG = 'en';
  process.env.POS_WEBHOOK_SECRET = 'whsec_bGl2ZS13ZWJob29rLXNlY3JldC0xMjM0';
  // Whoever starts `npm start` (or a packaged app) may have this set: it must not count.
  process.env.ELECTRON_RENDERER_URL = 'http://localhost:5173/';
  process.argv.push('--remember-secrets');
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
    expect(String(prefs.preload)).toMatch(/preload[\\/]index\.cjs$/);
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
    const setLang = stub.handlers.get(IPC_INVOKE_PREFIX + 'settings.setLang');
    expect(await setLang?.(trustedEvent(), { lang: 'fr' })).toMatchObject({ ok: false, error: { code: 'invalid_argument' } });
  });

  it('keeps one sign-in per window: the customer display is not signed in by the till’s', async () => {
    const status = stub.handlers.get(IPC_INVOKE_PREFIX + 'auth.status');
    const create = stub.handlers.get(IPC_INVOKE_PREFIX + 'auth.createFirstManager');
    const till = trustedEvent(rendererDirUrl + 'index.html', null, 1);
    const display = trustedEvent(rendererDirUrl + 'display.html', null, 2);
    expect(await create?.(till, { name: 'Marta', pin: '2468' })).toMatchObject({ ok: true, result: { operator: { name: 'Marta' } } });
    expect(await status?.(till, undefined)).toMatchObject({ ok: true, result: { operator: { name: 'Marta' } } });
    expect(await status?.(display, undefined)).toMatchObject({ ok: true, result: { setup: false, operator: null } });
    expect(await stub.handlers.get(IPC_INVOKE_PREFIX + 'operators.list')?.(display, undefined)).toMatchObject({ ok: false, error: { code: 'signed_out' } });
  });

  it('forwards push events to the windows', async () => {
    const setLang = stub.handlers.get(IPC_INVOKE_PREFIX + 'settings.setLang');
    await setLang?.(trustedEvent(), { lang: 'es' });
    const sent = stub.windows[0]?.sent ?? [];
    expect(sent).toContainEqual([IPC_EVENT_CHANNEL, 'core.status', expect.objectContaining({ lang: 'es' })]);
  });

  it('guards navigation, new windows and webviews of every web contents', () => {
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
