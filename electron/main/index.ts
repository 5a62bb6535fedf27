import { app, BrowserWindow, ipcMain, session } from 'electron';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ConfigError, loadConfig } from '../core/config.ts';
import { Core } from '../core/core.ts';
import { registerBridge } from './ipc.ts';
import { hardenApp, hardenSession, isTrustedSender, secureWebPreferences } from './security.ts';

/**
 * The Electron shell: app lifecycle, the window, IPC registration. Thin on purpose:
 * everything that decides anything lives in the core, shared with the browser shell.
 */
const rendererDir = fileURLToPath(new URL('../renderer/', import.meta.url));
const rendererDirUrl = pathToFileURL(rendererDir).href;
const preloadPath = fileURLToPath(new URL('../preload/index.cjs', import.meta.url));
// electron-vite sets this while developing; a packaged app never trusts a dev server.
const devServerUrl = app.isPackaged ? undefined : process.env.ELECTRON_RENDERER_URL;

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

async function boot(): Promise<void> {
  hardenSession(session.defaultSession);
  const config = loadConfig(process.env, process.argv.slice(app.isPackaged ? 1 : 2).filter((a) => a.startsWith('--') && !a.startsWith('--inspect')));
  core = new Core(config);
  await core.start();
  unregister = registerBridge(
    ipcMain,
    core,
    (event) => isTrustedSender(event.senderFrame, rendererDirUrl, devServerUrl),
    () => BrowserWindow.getAllWindows(),
  );
  createMainWindow();
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
