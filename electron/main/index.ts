import { app, BrowserWindow, dialog, ipcMain, Menu, safeStorage, screen, session } from 'electron';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { translate, type TextKey } from '../../src/lib/i18n.ts';
import { composeCore } from '../compose.ts';
import { ConfigError, knownFlags, loadConfig, type CoreConfig, type Lang } from '../core/config.ts';
import { rememberSecrets, type Core } from '../core/core.ts';
import { STORE_CONNECTION, STORE_DISPLAY_CONNECTION } from '../core/devices/connection.ts';
import { FileSecretStore, type SecretStore } from '../core/secrets.ts';
import { sandboxHelp } from '../launch.ts';
import type { WebShell } from '../web/server.ts';
import { certificateLines, startStoreShell } from '../web/store-shell.ts';
import { DEVICE_FILE, registerDeviceBridge } from './device-credential.ts';
import { registerBridge } from './ipc.ts';
import { appMenuTemplate, type ModeSwitch } from './menu.ts';
import { decideBoot, readMode, relaunchArgs, writeMode } from './mode.ts';
import { certificateVerdict, readPeerFingerprint, storeLoadFailure, type Pin } from './pinning.ts';
import { safeStorageCodec } from './secrets.ts';
import { hardenApp, hardenSession, isPinnedSender, isTrustedSender, secureWebPreferences, trustedDevServerUrl } from './security.ts';
import { registerSetupBridge } from './setup.ts';

/**
 * The Electron shell: app lifecycle, the windows, IPC registration. Thin on purpose:
 * everything that decides anything lives in the core, shared with the browser shell, or in
 * a small module beside this one (mode.ts, pinning.ts, security.ts, menu.ts).
 *
 * Two modes (mode.ts): this computer runs the store (the core, its windows, the browser shell
 * for the other tills), or it is a till connected to the store at a pinned https origin (no
 * core, no journal, no service credentials). `npm start` passes --mode=store and never asks.
 */
const rendererDir = fileURLToPath(new URL('../renderer', import.meta.url));
const rendererDirUrl = pathToFileURL(rendererDir + '/').href;
const preloadPath = (name: 'index' | 'display' | 'device' | 'setup') => fileURLToPath(new URL(`../preload/${name}.cjs`, import.meta.url));
/** Defined true by electron.vite.config.ts in `electron-vite dev` only; absent (false) otherwise. */
declare const __POS_DEV_BUILD__: boolean | undefined;
const devServerUrl = trustedDevServerUrl({ devBuild: typeof __POS_DEV_BUILD__ !== 'undefined' && __POS_DEV_BUILD__ === true, isPackaged: app.isPackaged, env: process.env });

/** Connect mode's store, once the person has confirmed its certificate; null in store mode. */
let pinned: Pin | null = null;

app.enableSandbox();
hardenApp(app, rendererDirUrl, devServerUrl, () => pinned?.origin ?? null);

let core: Core | null = null;
let shell: WebShell | null = null;
const unregister: Array<() => void> = [];

function newWindow(preload: 'index' | 'device' | 'setup', title = 'Pix cashier'): BrowserWindow {
  const win = new BrowserWindow({
    width: 1280,
    height: 800,
    minWidth: 800,
    minHeight: 600,
    show: false,
    title,
    backgroundColor: '#f6f7f9',
    webPreferences: secureWebPreferences(preloadPath(preload)),
  });
  win.once('ready-to-show', () => win.show());
  return win;
}

function loadPage(win: BrowserWindow, page: 'index.html' | 'display.html' | 'setup.html', query?: Record<string, string>): void {
  if (devServerUrl) {
    const url = new URL(page === 'index.html' ? '' : page, devServerUrl);
    for (const [k, v] of Object.entries(query ?? {})) url.searchParams.set(k, v);
    void win.loadURL(url.href);
  } else void win.loadFile(join(rendererDir, page), query ? { query } : undefined);
}

function createMainWindow(): BrowserWindow {
  const win = newWindow('index');
  loadPage(win, 'index.html');
  return win;
}

/**
 * The customer display windows' web contents: their bridge connection is display-only, as a
 * paired display's is (issue 25), never the store's full bridge, whatever page they show.
 */
const displayContents = new Set<number>();

/**
 * The customer display: the amount, the QR and the paid state in large type, on the second
 * screen when there is one. Same renderer and security settings; its own preload (its screen
 * only) and a display-only connection.
 */
function createDisplayWindow(): BrowserWindow {
  const displays = screen.getAllDisplays();
  const primary = screen.getPrimaryDisplay();
  const external = displays.find((d) => d.id !== primary.id);
  const win = new BrowserWindow({
    width: 800,
    height: 600,
    ...(external ? { x: external.bounds.x, y: external.bounds.y, fullscreen: true } : {}),
    show: false,
    title: 'Pix — customer display',
    backgroundColor: '#ffffff',
    webPreferences: secureWebPreferences(preloadPath('display')),
  });
  // Known before its page loads, so its first call is already a display's.
  displayContents.add(win.webContents.id);
  win.once('ready-to-show', () => win.showInactive());
  loadPage(win, 'display.html');
  return win;
}

/** Secrets at rest: encrypted by the OS keychain; where it has none, a file only this user reads. */
function secretStore(path: string): SecretStore {
  return new FileSecretStore(path, safeStorage.isEncryptionAvailable() ? safeStorageCodec(safeStorage) : undefined);
}

const text = (lang: Lang) => (key: TextKey) => translate(lang, key);

/** First start: one native question, the store being the default answer. */
async function askMode(config: CoreConfig): Promise<'store' | 'connect'> {
  const t = text(config.lang);
  const { response } = await dialog.showMessageBox({
    type: 'question',
    title: 'Pix cashier',
    message: t('shell.askMessage'),
    detail: t('shell.askDetail'),
    buttons: [t('shell.runStore'), t('shell.connect')],
    defaultId: 0,
    cancelId: 0,
    noLink: true,
  });
  const mode = response === 1 ? 'connect' : 'store';
  await writeMode(config.dataDir, mode === 'store' ? { mode: 'store' } : { mode: 'connect' });
  return mode;
}

/** A manager's change of mode: confirmed, saved, then a clean stop and a restart into it. */
async function switchMode(config: CoreConfig, lang: Lang, change: ModeSwitch): Promise<void> {
  const t = text(lang);
  const { response } = await dialog.showMessageBox({
    type: 'warning',
    title: 'Pix cashier',
    message: t(change.label).replace(/…$/, ''),
    detail: t(change.detail),
    buttons: [t('shell.restart'), t('shell.cancel')],
    defaultId: 1,
    cancelId: 1,
    noLink: true,
  });
  if (response !== 0) return;
  await writeMode(config.dataDir, change.next);
  // A device credential belongs to one pairing with one store: a new mode starts without it.
  await rm(join(config.dataDir, DEVICE_FILE), { force: true });
  await stopAll();
  app.relaunch({ args: relaunchArgs(process.argv) });
  app.exit(0);
}

function installMenu(running: 'store' | 'connect', config: CoreConfig, lang: Lang): void {
  const onSwitch = (change: ModeSwitch) => {
    switchMode(config, lang, change).catch((err: unknown) => console.error('Could not change the mode:', err));
  };
  Menu.setApplicationMenu(Menu.buildFromTemplate(appMenuTemplate(running, text(lang), onSwitch, process.platform)));
}

/** Store mode: the core, its windows and IPC as always, and the browser shell other tills pair with. */
async function runStore(config: CoreConfig, args: readonly string[]): Promise<void> {
  core = await composeCore(config, { secrets: secretStore(join(config.dataDir, 'secrets.json')) });
  // --remember-secrets: keep POS_SERVICE_TOKEN / POS_WEBHOOK_SECRET encrypted for the next start.
  if (args.includes('--remember-secrets')) await rememberSecrets(core);
  await core.start();
  const help = sandboxHelp(core.status().service, core.checkout);
  if (help !== null) console.log(help);
  const running = core;
  unregister.push(
    registerBridge(
      ipcMain,
      running,
      (event) => isTrustedSender(event.senderFrame, rendererDirUrl, devServerUrl),
      () => BrowserWindow.getAllWindows(),
      (id) => (displayContents.has(id) ? STORE_DISPLAY_CONNECTION : STORE_CONNECTION),
    ),
  );
  installMenu('store', config, running.status().lang);
  createMainWindow();
  // POS_CUSTOMER_DISPLAY=off for a till without a customer-facing screen.
  if (process.env.POS_CUSTOMER_DISPLAY !== 'off') createDisplayWindow();
  try {
    const started = await startStoreShell(running, config, rendererDir);
    shell = started.shell;
    console.log(`Other tills and customer displays connect at ${shell.origin} (pair them on the Devices screen).`);
    for (const line of certificateLines(shell, started.tls, config.dataDir)) console.log(line);
  } catch (err) {
    // This till works without it; only the other tills cannot reach the store.
    const inUse = (err as NodeJS.ErrnoException).code === 'EADDRINUSE';
    console.error(`The address for other tills did not start: ${inUse ? `port ${config.web.port} is already in use; set POS_WEB_PORT to another port` : (err as Error).message}.`);
  }
}

/**
 * The pinned store's page, with window.posDevice. When it does not load, say why (the store
 * is off, or its certificate is not the pinned one) and offer to try again.
 */
function openStore(pin: Pin, lang: Lang): void {
  const win = newWindow('device');
  const t = text(lang);
  const load = (): void => {
    win.loadURL(pin.origin + '/').catch(async (err: unknown) => {
      const failure = storeLoadFailure(err);
      if (failure === 'aborted' || win.isDestroyed()) return;
      const certificate = failure === 'certificate';
      const { response } = await dialog.showMessageBox(win, {
        type: 'error',
        title: 'Pix cashier',
        message: translate(lang, certificate ? 'shell.storeCertificate' : 'shell.storeUnreachable', { origin: pin.origin }),
        detail: t(certificate ? 'shell.storeCertificateDetail' : 'shell.storeUnreachableDetail'),
        buttons: [t('shell.tryAgain'), t('shell.cancel')],
        defaultId: 0,
        cancelId: 1,
        noLink: true,
      });
      if (response === 0 && !win.isDestroyed()) load();
    });
  };
  load();
}

/**
 * Connect mode: no core, no journal, no service credentials. Every certificate is judged by
 * the pin (pinning.ts); the window shows the setup page until a store is pinned, then the
 * store's own page with window.posDevice, whose credential main keeps with safeStorage.
 */
function runConnect(config: CoreConfig, pin: Pin | null): void {
  pinned = pin;
  session.defaultSession.setCertificateVerifyProc((request, callback) => callback(certificateVerdict(request, pinned)));
  unregister.push(
    registerDeviceBridge(ipcMain, secretStore(join(config.dataDir, DEVICE_FILE)), (event) => isPinnedSender(event.senderFrame, pinned?.origin ?? null)),
  );
  installMenu('connect', config, config.lang);
  if (pin !== null) {
    openStore(pin, config.lang);
    return;
  }
  const setup = newWindow('setup');
  const unregisterSetup = registerSetupBridge(ipcMain, {
    isAllowed: (event) => isTrustedSender(event.senderFrame, rendererDirUrl, devServerUrl),
    readFingerprint: readPeerFingerprint,
    connect: async (chosen) => {
      await writeMode(config.dataDir, { mode: 'connect', ...chosen });
      pinned = chosen;
      unregisterSetup();
      openStore(chosen, config.lang);
      setup.close();
    },
  });
  unregister.push(unregisterSetup);
  loadPage(setup, 'setup.html', { lang: config.lang });
}

async function boot(): Promise<void> {
  hardenSession(session.defaultSession);
  const args = process.argv.slice(app.isPackaged ? 1 : 2);
  const config = loadConfig(process.env, knownFlags(args));
  const plan = decideBoot(args, await readMode(config.dataDir));
  if (plan.run === 'ask' && plan.reason !== null) console.warn(`Asking again how this computer runs: ${plan.reason}.`);
  const run = plan.run === 'ask' ? await askMode(config) : plan.run;
  if (run === 'store') await runStore(config, args);
  else runConnect(config, plan.run === 'connect' ? plan.pin : null);
}

/** Stops what runs (the browser shell, then the core: webhook receiver, journal) before the process goes away. */
async function stopAll(): Promise<void> {
  unregister.splice(0).forEach((off) => off());
  await shell?.close();
  shell = null;
  await core?.stop();
  core = null;
}

app.whenReady().then(boot).catch((err: unknown) => {
  console.error(err instanceof ConfigError ? `Cannot start: ${err.message}` : err);
  app.exit(1);
});

app.on('activate', () => {
  if (core && BrowserWindow.getAllWindows().length === 0) createMainWindow();
});

app.on('window-all-closed', () => app.quit());

let quitting = false;
app.on('before-quit', (event) => {
  if (quitting || (!core && !shell)) return;
  event.preventDefault();
  quitting = true;
  void stopAll().finally(() => app.quit());
});
