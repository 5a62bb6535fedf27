import type { App, Session, WebContents, WebFrameMain, WebPreferences } from 'electron';

/**
 * The Electron shell's security posture, kept apart from lifecycle code so the contract
 * test can assert it: isolated, sandboxed renderer without Node, no navigation away from
 * the app, no new windows, no permissions.
 */
export function secureWebPreferences(preloadPath: string): WebPreferences {
  return {
    preload: preloadPath,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    webviewTag: false,
    spellcheck: false,
    navigateOnDragDrop: false,
  };
}

/**
 * The electron-vite dev server to load the renderer from, if any. electron-vite dev sets
 * ELECTRON_RENDERER_URL; trusting it anywhere else would let whoever sets an environment
 * variable (a launcher, a shortcut) serve the app's pages, bridge included. So only a
 * development build (electron.vite.config.ts defines __POS_DEV_BUILD__ in `electron-vite
 * dev`), never `npm start`'s production build nor a packaged app, reads it.
 */
export function trustedDevServerUrl(options: { devBuild: boolean; isPackaged: boolean; env: Readonly<Record<string, string | undefined>> }): string | undefined {
  if (!options.devBuild || options.isPackaged) return undefined;
  const raw = options.env.ELECTRON_RENDERER_URL;
  if (raw === undefined) return undefined;
  try {
    const url = new URL(raw);
    // electron-vite's dev server is on this machine, over http.
    return url.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname) ? raw : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether a URL is one of the app's own pages: the built renderer's files, or the
 * electron-vite dev server while developing. Parsed, never prefix-matched on raw text
 * (`file:///app/out/renderer-evil/` and `http://localhost.evil.example` must not pass).
 */
export function isAppUrl(raw: unknown, rendererDirUrl: string, devServerUrl: string | undefined): boolean {
  if (typeof raw !== 'string') return false;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  if (url.protocol === 'file:') {
    const base = new URL(rendererDirUrl.endsWith('/') ? rendererDirUrl : rendererDirUrl + '/');
    return url.pathname.startsWith(base.pathname) && !url.pathname.slice(base.pathname.length).split('/').includes('..');
  }
  if (devServerUrl) {
    try {
      return url.origin === new URL(devServerUrl).origin;
    } catch {
      return false;
    }
  }
  return false;
}

/**
 * Whether a URL is on the store origin a connect-mode till is pinned to: the same scheme,
 * host and port, compared parsed (`https://10.0.0.2:5180.evil.example` is not it).
 */
export function isPinnedUrl(raw: unknown, pinnedOrigin: string | null): boolean {
  if (typeof raw !== 'string' || pinnedOrigin === null) return false;
  try {
    const url = new URL(raw);
    return url.protocol === 'https:' && url.origin === new URL(pinnedOrigin).origin;
  } catch {
    return false;
  }
}

/** Only the pinned store's own top-level page may use the till's device credential. */
export function isPinnedSender(frame: WebFrameMain | null | undefined, pinnedOrigin: string | null): boolean {
  if (!frame || frame.parent !== null) return false;
  return isPinnedUrl(frame.url, pinnedOrigin);
}

/** Only the app's own top-level frames may call the core. */
export function isTrustedSender(frame: WebFrameMain | null | undefined, rendererDirUrl: string, devServerUrl: string | undefined): boolean {
  if (!frame || frame.parent !== null) return false;
  return isAppUrl(frame.url, rendererDirUrl, devServerUrl);
}

function guardContents(contents: WebContents, rendererDirUrl: string, devServerUrl: string | undefined, pinnedOrigin: () => string | null): void {
  // The app's pages, and in connect mode the pinned store's: nowhere else.
  const allowed = (url: string) => isAppUrl(url, rendererDirUrl, devServerUrl) || isPinnedUrl(url, pinnedOrigin());
  contents.on('will-navigate', (event, url) => {
    if (!allowed(url)) event.preventDefault();
  });
  contents.on('will-redirect', (event, url) => {
    if (!allowed(url)) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
}

export function hardenSession(session: Session): void {
  session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
  session.setDevicePermissionHandler(() => false);
}

/** `pinnedOrigin`: the store origin of connect mode once known, null in store mode. */
export function hardenApp(app: App, rendererDirUrl: string, devServerUrl: string | undefined, pinnedOrigin: () => string | null = () => null): void {
  app.on('web-contents-created', (_event, contents) => guardContents(contents, rendererDirUrl, devServerUrl, pinnedOrigin));
}
