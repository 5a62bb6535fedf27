import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The browser used for app mode and for Playwright: POS_BROWSER (or CHROMIUM_PATH) wins,
 * then Playwright's own Chromium when installed, then a system Chromium or Chrome.
 */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string | null {
  for (const explicit of [env.POS_BROWSER, env.CHROMIUM_PATH]) {
    if (explicit) return existsSync(explicit) ? explicit : null;
  }
  const playwright = playwrightChromium();
  if (playwright) return playwright;
  for (const name of ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable']) {
    const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).stdout.trim();
    if (found) return found;
  }
  return null;
}

function playwrightChromium(): string | null {
  try {
    // Resolved lazily: Playwright is a test tool, absent from a packaged app.
    const result = spawnSync(process.execPath, ['-e', "process.stdout.write(require('playwright-core').chromium.executablePath())"], { encoding: 'utf8' });
    const path = result.stdout.trim();
    return path && existsSync(path) ? path : null;
  } catch {
    return null;
  }
}

/**
 * Flags for a kiosk Chromium: no background network (this app needs none), and no
 * sandbox only where Chromium refuses to start without that, as root.
 */
export const CHROMIUM_FLAGS = [
  ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
];

/**
 * The app window's command line. Over HTTPS with the store's own certificate (issue 9), the
 * window trusts exactly that certificate's public key (`spkiPin`, tls.ts) and nothing more:
 * no warning page, and no blanket --ignore-certificate-errors. Chromium honours the pin only
 * with a profile of its own, which this window always has.
 */
export function appWindowArgs(url: string, dataDir: string, spkiPin: string | null = null): string[] {
  return [
    ...CHROMIUM_FLAGS,
    `--user-data-dir=${join(dataDir, 'browser-profile')}`,
    ...(spkiPin === null ? [] : [`--ignore-certificate-errors-spki-list=${spkiPin}`]),
    `--app=${url}`,
  ];
}

/**
 * Opens the app in a Chromium app window; returns a sentence saying what happened. The
 * address given is a one-time launch address: any local user can read a command line, so
 * it must not carry the bridge token itself.
 */
export function openAppWindow(url: string, dataDir: string, spkiPin: string | null = null): string {
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
    return 'No display here, so no browser window was opened: open the address above in a browser.';
  }
  const browser = findChromium();
  if (!browser) return 'No Chromium was found: open the address above in a browser.';
  const child = spawn(browser, appWindowArgs(url, dataDir, spkiPin), {
    detached: true,
    stdio: 'ignore',
  });
  child.on('error', () => undefined);
  child.unref();
  return `Opened the cashier in ${browser}.`;
}
