import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { electronUnavailable } from './launch.ts';
import { npmStartElectronArgs } from './main/mode.ts';

/**
 * `npm start`: the Electron app when Electron's binary is here (or can be fetched);
 * otherwise one clear line and the browser shell, opened in a local Chromium when found.
 * Either way this computer runs the store: Electron gets --mode=store (electron/main/mode.ts,
 * STORE_FLAG), so it never asks the first-start question a packaged app asks.
 */
const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);
const args = process.argv.slice(2);

function electronBinary(): string | null {
  const pkgDir = dirname(require.resolve('electron/package.json'));
  const pathFile = join(pkgDir, 'path.txt');
  const readPath = () => (existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : null);
  const resolveBinary = () => {
    const rel = readPath();
    if (!rel) return null;
    const full = process.env.ELECTRON_OVERRIDE_DIST_PATH ? join(process.env.ELECTRON_OVERRIDE_DIST_PATH, rel) : join(pkgDir, 'dist', rel);
    return existsSync(full) ? full : null;
  };
  const found = resolveBinary();
  if (found || process.env.POS_SHELL === 'web') return found;
  // npm installs Electron's typings only; the binary is fetched on first use.
  const install = spawnSync(process.execPath, [join(pkgDir, 'install.js')], { stdio: 'pipe', timeout: 180_000, encoding: 'utf8' });
  if (install.status !== 0) {
    console.log(electronUnavailable(`${install.stdout ?? ''}\n${install.stderr ?? ''}`));
    return null;
  }
  return resolveBinary();
}

const binary = process.env.POS_SHELL === 'web' ? null : electronBinary();
const child = binary
  ? spawn(binary, npmStartElectronArgs(root, args), { stdio: 'inherit' })
  : spawn(process.execPath, [join(root, 'electron/web/cli.ts'), '--open', ...args], { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
