import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { StoreAddressProblem } from '../shared/setup-bridge.ts';

/**
 * How this Electron app runs, saved in `<dataDir>/mode.json`: as the store (the core, its
 * journal and webhook receiver, the browser shell other tills pair with) or as a till that
 * connects to the store at a pinned https origin. `{ mode: 'connect' }` alone is a till whose
 * store is not chosen yet (it shows the setup page). `npm start` passes STORE_FLAG and never asks.
 */
export type AppMode = { mode: 'store' } | { mode: 'connect'; origin: string; fingerprint: string } | { mode: 'connect' };

export const MODE_FILE = 'mode.json';
/** Passed by electron/start.ts (`npm start`): this launch runs the store, whatever mode.json says, and asks nothing. */
export const STORE_FLAG = '--mode=store';

/** A certificate's SHA-256 as node's X509Certificate.fingerprint256 and the store's Devices screen write it. */
const FINGERPRINT = /^[0-9A-F]{2}(?::[0-9A-F]{2}){31}$/;

export function isFingerprint(raw: unknown): raw is string {
  return typeof raw === 'string' && FINGERPRINT.test(raw);
}

/**
 * The store's address as a person types it ("192.168.0.10:5180" or "https://store.lan:5180")
 * to its origin. https only: the till pins the certificate, so plain http has nothing to pin.
 * The port must be written (the store's Devices screen shows it), and nothing but an origin
 * is accepted: a path, a query or a user name would be silently dropped or sent somewhere.
 */
export function parseStoreAddress(raw: unknown): { ok: true; origin: string } | { ok: false; problem: StoreAddressProblem } {
  if (typeof raw !== 'string' || raw.trim() === '' || raw.length > 300) return { ok: false, problem: 'not_an_address' };
  const text = raw.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    return { ok: false, problem: 'not_an_address' };
  }
  if (url.protocol !== 'https:') return { ok: false, problem: 'not_https' };
  if (url.hostname === '') return { ok: false, problem: 'not_an_address' };
  if (url.username !== '' || url.password !== '') return { ok: false, problem: 'has_credentials' };
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '' || /[?#]/.test(withScheme)) return { ok: false, problem: 'has_path' };
  // URL drops a written :443; the authority as typed says whether a port was given at all.
  const authority = withScheme.slice(withScheme.indexOf('//') + 2).split('/')[0] ?? '';
  if (!/:\d{1,5}$/.test(authority)) return { ok: false, problem: 'no_port' };
  return { ok: true, origin: url.origin };
}

/** An origin as parseStoreAddress gives it: https, a host, nothing else. */
export function isStoreOrigin(raw: unknown): raw is string {
  if (typeof raw !== 'string') return false;
  try {
    const url = new URL(raw);
    return url.protocol === 'https:' && url.hostname !== '' && url.origin === raw;
  } catch {
    return false;
  }
}

/** The saved mode, checked field by field: anything else is not a mode. */
export function parseMode(raw: unknown): AppMode | null {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return null;
  const value = raw as Record<string, unknown>;
  if (value.mode === 'store' && Object.keys(value).length === 1) return { mode: 'store' };
  if (value.mode === 'connect' && Object.keys(value).length === 1) return { mode: 'connect' };
  if (value.mode === 'connect' && Object.keys(value).length === 3 && isStoreOrigin(value.origin) && isFingerprint(value.fingerprint)) {
    return { mode: 'connect', origin: value.origin, fingerprint: value.fingerprint };
  }
  return null;
}

export type SavedMode = { state: 'missing' } | { state: 'invalid'; reason: string } | { state: 'saved'; mode: AppMode };

export async function readMode(dataDir: string): Promise<SavedMode> {
  const path = join(dataDir, MODE_FILE);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'missing' };
    return { state: 'invalid', reason: `${path} cannot be read: ${(err as Error).message}` };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { state: 'invalid', reason: `${path} is not JSON` };
  }
  const mode = parseMode(value);
  return mode === null ? { state: 'invalid', reason: `${path} is neither the store mode nor a connection (with an https origin and a SHA-256 fingerprint, or neither)` } : { state: 'saved', mode };
}

/** Replaces mode.json whole (written aside, then renamed), readable by this user only. */
export async function writeMode(dataDir: string, mode: AppMode): Promise<void> {
  if (parseMode(mode) === null) throw new Error('refusing to save an invalid mode');
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const path = join(dataDir, MODE_FILE);
  const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(temp, `${JSON.stringify(mode)}\n`, { mode: 0o600, flag: 'wx' });
    await rename(temp, path);
  } catch (err) {
    await unlink(temp).catch(() => undefined);
    throw err;
  }
  await chmod(path, 0o600);
}

/** What main does at boot: run the store, connect to the pinned store, or ask the person. */
export type BootPlan = { run: 'store' } | { run: 'connect'; pin: { origin: string; fingerprint: string } | null } | { run: 'ask'; reason: string | null };

/**
 * `npm start` (STORE_FLAG) always runs the store and asks nothing; otherwise the saved mode,
 * and without one (first start, or a file that is not a mode) the question.
 */
export function decideBoot(args: readonly string[], saved: SavedMode): BootPlan {
  const flags = args.filter((a) => a === '--mode' || a.startsWith('--mode='));
  if (flags.some((a) => a !== STORE_FLAG)) throw new Error(`${flags.find((a) => a !== STORE_FLAG)} is not an option: only ${STORE_FLAG} (what npm start passes) is.`);
  if (flags.length > 0) return { run: 'store' };
  if (saved.state === 'missing') return { run: 'ask', reason: null };
  if (saved.state === 'invalid') return { run: 'ask', reason: saved.reason };
  const mode = saved.mode;
  if (mode.mode === 'store') return { run: 'store' };
  return { run: 'connect', pin: 'origin' in mode ? { origin: mode.origin, fingerprint: mode.fingerprint } : null };
}

/** How `npm start` (electron/start.ts) launches Electron: the app, then STORE_FLAG, then what the person typed. */
export function npmStartElectronArgs(appDir: string, typed: readonly string[]): string[] {
  return [appDir, STORE_FLAG, ...typed];
}

/** The arguments of a relaunch: the same, without STORE_FLAG, so the mode just saved is the one that runs. */
export function relaunchArgs(argv: readonly string[]): string[] {
  return argv.slice(1).filter((a) => a !== STORE_FLAG);
}
