import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { link, readdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export const LOCK_FILE = 'journal.lock';

/** Another live process (or another journal in this process) writes this data dir. */
export class JournalLockedError extends Error {
  override name = 'JournalLockedError';
  readonly dir: string;
  readonly pid: number;
  constructor(dir: string, pid: number) {
    super(`The journal in ${dir} is already open in process ${pid}; only one writer may hold it.`);
    this.dir = dir;
    this.pid = pid;
  }
}

interface Holder {
  pid: number;
  boot: string | null;
  nonce: string;
}

export interface DirLock {
  readonly path: string;
  release(): Promise<void>;
}

/** Locks held by this process: a pid check cannot tell two journals of one process apart. */
const heldHere = new Map<string, string>();
/**
 * Nonces of this process's holders and of its acquisitions in progress: a contender's lock
 * may be in place a moment before its `link` call returns, and must already count as live.
 */
const liveHere = new Set<string>();

/** How a platform's boot identity is read: a file, or a command's output. */
export interface BootSources {
  readFile(path: string): string;
  run(command: string, args: readonly string[]): string;
}

const systemSources: BootSources = {
  readFile: (path) => readFileSync(path, 'utf8'),
  run: (command, args) => execFileSync(command, args, { encoding: 'utf8', timeout: 5_000, stdio: ['ignore', 'pipe', 'ignore'], windowsHide: true }),
};

/**
 * Pids are reused after a reboot, and a POS terminal reboots often: a lock written in an
 * earlier boot is stale whatever its pid now names. Each platform's kernel names its boot
 * exactly, never from the wall clock (a clock set after the lock was written must not make a
 * live lock look old): Linux's boot_id; macOS's boot session UUID (`kern.bootsessionuuid`,
 * 10.13 and later); Windows's BootId, a counter the kernel raises at every boot. Elsewhere, or
 * when the source cannot be read, null: only the pid is checked, as before.
 */
export function bootIdFor(platform: NodeJS.Platform, sources: BootSources = systemSources): string | null {
  try {
    switch (platform) {
      case 'linux':
        return sources.readFile('/proc/sys/kernel/random/boot_id').trim() || null;
      case 'darwin': {
        const uuid = sources.run('sysctl', ['-n', 'kern.bootsessionuuid']).trim();
        return /^[0-9A-Fa-f-]{36}$/.test(uuid) ? `darwin:${uuid.toUpperCase()}` : null;
      }
      case 'win32': {
        const out = sources.run('reg', ['query', 'HKLM\\SYSTEM\\CurrentControlSet\\Control\\Session Manager\\Memory Management\\PrefetchParameters', '/v', 'BootId']);
        const m = /BootId\s+REG_DWORD\s+0x([0-9a-f]+)/i.exec(out);
        return m ? `win32:${parseInt(m[1] as string, 16)}` : null;
      }
      default:
        return null;
    }
  } catch {
    return null;
  }
}

/** This boot's identity, read once: it does not change while the process lives. */
let thisBoot: string | null | undefined;
function bootId(): string | null {
  if (thisBoot === undefined) thisBoot = bootIdFor(process.platform);
  return thisBoot;
}

function parseHolder(text: string): Holder | null {
  try {
    const v = JSON.parse(text) as Partial<Holder>;
    if (typeof v.pid === 'number' && Number.isInteger(v.pid) && v.pid > 0 && typeof v.nonce === 'string') {
      return { pid: v.pid, boot: typeof v.boot === 'string' ? v.boot : null, nonce: v.nonce };
    }
  } catch {
    // garbage is handled by the caller as "no valid holder"
  }
  return null;
}

async function readHolder(path: string): Promise<Holder | null | 'absent'> {
  try {
    return parseHolder(await readFile(path, 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'absent';
    throw err;
  }
}

function isLive(holder: Holder, boot: string | null): boolean {
  if (holder.pid === process.pid) return liveHere.has(holder.nonce);
  if (boot !== null && holder.boot !== null && holder.boot !== boot) return false;
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (err) {
    // EPERM: the pid exists but belongs to another user; treat it as alive, never steal.
    return (err as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** Acquisitions in this process, one at a time per lock file (see acquireDirLock). */
const turns = new Map<string, Promise<unknown>>();

/**
 * Takes the single-writer lock of a journal dir. The lock file is made complete in a
 * temporary file and then hard-linked into place, so a reader never sees a half-written
 * pid and creation is atomic (link fails if the name exists). A lock left by a dead
 * process is moved aside by rename and checked: a contender that moved a live lock puts
 * it back. That is safe between two processes; three taking over one stale lock in the
 * same instant could still both win (Electron's single-instance lock stands before this).
 * Within this process acquisitions take turns, so the window never opens here.
 */
export function acquireDirLock(dir: string): Promise<DirLock> {
  const lockPath = join(dir, LOCK_FILE);
  const turn = (turns.get(lockPath) ?? Promise.resolve()).then(() => acquire(dir, lockPath));
  turns.set(lockPath, turn.then(() => undefined, () => undefined));
  return turn;
}

async function acquire(dir: string, lockPath: string): Promise<DirLock> {
  const boot = bootId();
  const nonce = randomUUID();
  const mine: Holder = { pid: process.pid, boot, nonce };
  const tmp = join(dir, `${LOCK_FILE}.${process.pid}.${nonce}.tmp`);
  liveHere.add(nonce);
  let acquired = false;
  try {
    await writeFile(tmp, JSON.stringify(mine), { mode: 0o600, flag: 'wx' });
    for (let attempt = 0; attempt < 8; attempt++) {
      try {
        await link(tmp, lockPath);
        heldHere.set(lockPath, nonce);
        acquired = true;
        await sweepLeftovers(dir, boot);
        return { path: lockPath, release: () => releaseLock(lockPath, nonce) };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const holder = await readHolder(lockPath);
      if (holder === 'absent') continue;
      if (holder !== null && isLive(holder, boot)) throw new JournalLockedError(dir, holder.pid);
      // Stale (dead pid, earlier boot, or unreadable after a power cut): move it aside.
      const aside = join(dir, `${LOCK_FILE}.${process.pid}.${nonce}.stale${attempt}`);
      try {
        await rename(lockPath, aside);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw err;
      }
      const moved = await readHolder(aside);
      if (moved !== 'absent' && moved !== null && moved.nonce !== holder?.nonce && isLive(moved, boot)) {
        // A contender took the stale lock over between our read and our rename: give it back.
        await link(aside, lockPath).catch(() => undefined);
        await unlink(aside).catch(() => undefined);
        throw new JournalLockedError(dir, moved.pid);
      }
      await unlink(aside).catch(() => undefined);
    }
    throw new Error(`Could not take the journal lock in ${dir}: it kept changing hands.`);
  } finally {
    if (!acquired) liveHere.delete(nonce);
    await unlink(tmp).catch(() => undefined);
  }
}

/**
 * A process killed in the middle of taking the lock leaves its temporary file, or a stale
 * lock it had moved aside; both names carry its pid. Once that process is dead, whoever
 * holds the lock sweeps them. A live contender's files are left alone: it may still need them.
 */
async function sweepLeftovers(dir: string, boot: string | null): Promise<void> {
  const leftover = /^journal\.lock\.(\d+)\.[0-9a-f-]+\.(tmp|stale\d+)$/;
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const pid = Number(leftover.exec(name)?.[1] ?? 0);
    if (pid > 0 && pid !== process.pid && !isLive({ pid, boot: null, nonce: '' }, boot)) {
      await unlink(join(dir, name)).catch(() => undefined);
    }
  }
}

async function releaseLock(lockPath: string, nonce: string): Promise<void> {
  if (heldHere.get(lockPath) !== nonce) return;
  heldHere.delete(lockPath);
  liveHere.delete(nonce);
  const holder = await readHolder(lockPath);
  // Only remove the file if it is still ours: never delete a lock someone else holds.
  if (holder !== 'absent' && holder !== null && holder.nonce === nonce) await unlink(lockPath).catch(() => undefined);
}
