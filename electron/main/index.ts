import { app, BrowserWindow, ipcMain, safeStorage, screen, session } from 'electron';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { composeCore } from '../compose.ts';
import { ConfigError, knownFlags, loadConfig } from '../core/config.ts';
import { rememberSecrets, type Core } from '../core/core.ts';
import { FileSecretStore } from '../core/secrets.ts';
import { sandboxHelp } from '../launch.ts';
import { safeStorageCodec } from './secrets.ts';
import { registerBridge } from './ipc.ts';
import { hardenApp, hardenSession, isTrustedSender, secureWebPreferences, trustedDevServerUrl } from './security.ts';

/**
 * The Electron shell: app lifecycle, the window, IPC registration. Thin on purpose:
 * everything that decides anything lives in the core, shared with the browser shell.
 */
const rendererDir = fileURLToPath(new URL('../renderer/', import.meta.url));
const rendererDirUrl = pathToFileURL(rendererDir).href;
const preloadPath = fileURLToPath(new URL('../preload/index.cjs', import.meta.url));
/** Defined true by electron.vite.config.ts in `electron-vite dev` only; absent (false) otherwise. */
declare const __POS_DEV_BUILD__: boolean | undefined;
const devServerUrl = trustedDevServerUrl({ devBuild: typeof __POS_DEV_BUILD__ !== 'undefined' && __POS_DEV_BUILD__ === true, isPackaged: app.isPackaged, env: process.env });

app.enableSandbox();
hardenApp(app, rendererDirUrl, devServerUrl);

let core: Core | null = null;
let unregister: (() => void) | null = null;

function createMainWindow(): BrowserWindow {
  const win = new BrowserWindow({
    width: 1280,
    height: 800,
    minWidth: 800,
    minHeight: 600,
    show: false,
    title: 'Pix cashier',
    backgroundColor: '#f6f7f9',
    webPreferences: secureWebPreferences(preloadPath),
  });
  win.once('ready-to-show', () => win.show());
  if (devServerUrl) void win.loadURL(devServerUrl);
  else void win.loadFile(fileURLToPath(new URL('index.html', rendererDirUrl)));
  return win;
}

/**
 * The customer display: the amount, the QR and the paid state in large type, on the second
 * screen when there is one. Same renderer, same preload, same security settings.
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
    webPreferences: secureWebPreferences(preloadPath),
  });
  win.once('ready-to-show', () => win.showInactive());
  if (devServerUrl) void win.loadURL(new URL('display.html', devServerUrl).href);
  else void win.loadFile(fileURLToPath(new URL('display.html', rendererDirUrl)));
  return win;
}

async function boot(): Promise<void> {
  hardenSession(session.defaultSession);
  const args = process.argv.slice(app.isPackaged ? 1 : 2);
  const config = loadConfig(process.env, knownFlags(args));
  // Secrets at rest: encrypted by the OS keychain; where it has none, a file only this user reads.
  const secrets = new FileSecretStore(join(config.dataDir, 'secrets.json'), safeStorage.isEncryptionAvailable() ? safeStorageCodec(safeStorage) : undefined);
  core = await composeCore(config, { secrets });
  // --remember-secrets: keep POS_SERVICE_TOKEN / POS_WEBHOOK_SECRET encrypted for the next start.
  if (args.includes('--remember-secrets')) await rememberSecrets(core);
  await core.start();
  const help = sandboxHelp(core.status().service, core.checkout);
  if (help !== null) console.log(help);
  unregister = registerBridge(
    ipcMain,
    core,
    (event) => isTrustedSender(event.senderFrame, rendererDirUrl, devServerUrl),
    () => BrowserWindow.getAllWindows(),
  );
  createMainWindow();
  // POS_CUSTOMER_DISPLAY=off for a till without a customer-facing screen.
  if (process.env.POS_CUSTOMER_DISPLAY !== 'off') createDisplayWindow();
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
  if (quitting || !core) return;
  // Stop the core (webhook receiver, journal) before the process goes away.
  event.preventDefault();
  quitting = true;
  unregister?.();
  void core.stop().finally(() => app.quit());
});
