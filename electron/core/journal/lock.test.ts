import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireDirLock, bootIdFor, JournalLockedError, LOCK_FILE, type BootSources } from './lock.ts';

let dir: string;
const children: ChildProcess[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'journal-lock-'));
});
afterEach(async () => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

function currentBoot(): string | null {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return null;
  }
}

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  const pid = child.pid!;
  await new Promise((resolve) => child.once('exit', resolve));
  return pid;
}

async function livePid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
  children.push(child);
  await new Promise((resolve) => child.once('spawn', resolve));
  return child.pid!;
}

async function writeLock(content: string): Promise<void> {
  await writeFile(join(dir, LOCK_FILE), content, { mode: 0o600 });
}

describe('the single-writer lock', () => {
  it('writes our pid, refuses a second holder in this process, and is free again after release', async () => {
    const lock = await acquireDirLock(dir);
    const held = JSON.parse(await readFile(join(dir, LOCK_FILE), 'utf8')) as { pid: number };
    expect(held.pid).toBe(process.pid);
    if (process.platform !== 'win32') expect((await stat(join(dir, LOCK_FILE))).mode & 0o777).toBe(0o600);
    const second = acquireDirLock(dir);
    await expect(second).rejects.toBeInstanceOf(JournalLockedError);
    await expect(second).rejects.toMatchObject({ pid: process.pid });
    await lock.release();
    expect(await readdir(dir)).toEqual([]);
    const again = await acquireDirLock(dir);
    await again.release();
  });

  it('refuses a lock held by another live process', async () => {
    const pid = await livePid();
    await writeLock(JSON.stringify({ pid, boot: currentBoot(), nonce: 'theirs' }));
    await expect(acquireDirLock(dir)).rejects.toMatchObject({ name: 'JournalLockedError', pid });
    expect(JSON.parse(await readFile(join(dir, LOCK_FILE), 'utf8'))).toMatchObject({ pid, nonce: 'theirs' });
  });

  it('takes over a lock left by a process that died', async () => {
    const pid = await deadPid();
    await writeLock(JSON.stringify({ pid, boot: currentBoot(), nonce: 'dead' }));
    const lock = await acquireDirLock(dir);
    expect(JSON.parse(await readFile(join(dir, LOCK_FILE), 'utf8'))).toMatchObject({ pid: process.pid });
    // Nothing of the old lock or of the takeover is left lying around.
    expect(await readdir(dir)).toEqual([LOCK_FILE]);
    await lock.release();
  });

  it('takes over a lock whose pid is alive but was written in an earlier boot', async () => {
    if (currentBoot() === null) return;
    const pid = await livePid();
    await writeLock(JSON.stringify({ pid, boot: 'an-earlier-boot', nonce: 'old' }));
    const lock = await acquireDirLock(dir);
    expect(JSON.parse(await readFile(join(dir, LOCK_FILE), 'utf8'))).toMatchObject({ pid: process.pid });
    await lock.release();
  });

  it.each([
    ['empty (power cut before the pid reached the disk)', ''],
    ['garbage', '\u0000\u0000\u0000'],
    ['a pid that is not a number', '{"pid":"1","nonce":"x"}'],
  ])('takes over a lock that is %s', async (_name, content) => {
    await writeLock(content);
    const lock = await acquireDirLock(dir);
    expect(JSON.parse(await readFile(join(dir, LOCK_FILE), 'utf8'))).toMatchObject({ pid: process.pid });
    await lock.release();
  });

  it('sweeps what a writer killed while taking the lock left behind, but not a live contender’s files', async () => {
    const dead = await deadPid();
    const live = await livePid();
    const nonce = '0b1c2d3e-aaaa-4bbb-8ccc-123456789abc';
    const leftovers = [`${LOCK_FILE}.${dead}.${nonce}.tmp`, `${LOCK_FILE}.${dead}.${nonce}.stale0`];
    const theirs = [`${LOCK_FILE}.${live}.${nonce}.tmp`, `${LOCK_FILE}.${live}.${nonce}.stale3`];
    for (const name of [...leftovers, ...theirs]) await writeFile(join(dir, name), '{}');
    const lock = await acquireDirLock(dir);
    expect((await readdir(dir)).sort()).toEqual([LOCK_FILE, ...theirs].sort());
    await lock.release();
  });

  it('release leaves alone a lock file that is no longer ours', async () => {
    const lock = await acquireDirLock(dir);
    const theirs = JSON.stringify({ pid: process.pid, boot: null, nonce: 'someone-else' });
    await writeLock(theirs);
    await lock.release();
    expect(await readFile(join(dir, LOCK_FILE), 'utf8')).toBe(theirs);
  });

  it('lets exactly one of several concurrent contenders in this process win', async () => {
    const pid = await deadPid();
    await writeLock(JSON.stringify({ pid, boot: currentBoot(), nonce: 'dead' }));
    const results = await Promise.allSettled(Array.from({ length: 5 }, () => acquireDirLock(dir)));
    const won = results.filter((r) => r.status === 'fulfilled');
    expect(won).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(JournalLockedError);
    await (won[0] as PromiseFulfilledResult<{ release(): Promise<void> }>).value.release();
  });

  it('two processes taking over one stale lock together: exactly one wins', async () => {
    const contender = fileURLToPath(new URL('./fixtures/lock-contender.ts', import.meta.url));
    for (let round = 0; round < 3; round++) {
      await writeLock(JSON.stringify({ pid: await deadPid(), boot: currentBoot(), nonce: `dead-${round}` }));
      const procs = [0, 1].map(() => spawn(process.execPath, [contender, dir], { stdio: ['pipe', 'pipe', 'inherit'] }));
      children.push(...procs);
      const lines = procs.map((p) => {
        p.stdout.setEncoding('utf8');
        let out = '';
        return new Promise<string[]>((resolve) => {
          p.stdout.on('data', (c: string) => {
            out += c;
            const ls = out.split('\n').slice(0, -1);
            if (ls.length >= 2) resolve(ls);
          });
        });
      });
      // Both ready first, then both told to go at once.
      await Promise.all(procs.map((p) => new Promise<void>((resolve) => p.stdout.once('data', () => resolve()))));
      for (const p of procs) p.stdin.write('go\n');
      const results = (await Promise.all(lines)).map((ls) => ls[1]!);
      const winners = procs.filter((_, i) => results[i] === 'won');
      expect(winners, results.join(', ')).toHaveLength(1);
      const loser = results.find((r) => r !== 'won')!;
      expect(loser).toBe(`locked ${winners[0]!.pid}`);
      expect(JSON.parse(await readFile(join(dir, LOCK_FILE), 'utf8'))).toMatchObject({ pid: winners[0]!.pid });
      for (const p of procs) {
        p.stdin.end();
        await new Promise((resolve) => (p.exitCode === null ? p.once('exit', resolve) : resolve(null)));
      }
      expect(await readdir(dir)).toEqual([]);
    }
  });
});

describe('which boot a lock was written in, on every platform', () => {
  /** What each platform's source answers, and every read or command the lock made. */
  function sources(answers: { file?: string; output?: string; fails?: boolean }) {
    const calls: string[] = [];
    const s: BootSources = {
      readFile: (path) => {
        calls.push(`read ${path}`);
        if (answers.fails || answers.file === undefined) throw new Error('ENOENT');
        return answers.file;
      },
      run: (command, args) => {
        calls.push(`${command} ${args.join(' ')}`);
        if (answers.fails || answers.output === undefined) throw new Error('ENOENT');
        return answers.output;
      },
    };
    return { s, calls };
  }

  it.each([
    ['linux', { file: '5e1c3f0a-1b2c-4d5e-8f90-123456789abc\n' }, 'read /proc/sys/kernel/random/boot_id', '5e1c3f0a-1b2c-4d5e-8f90-123456789abc'],
    ['darwin', { output: '9A7E2B3C-0D1E-4F25-A6B7-C8D9E0F1A2B3\n' }, 'sysctl -n kern.bootsessionuuid', 'darwin:9A7E2B3C-0D1E-4F25-A6B7-C8D9E0F1A2B3'],
    [
      'win32',
      { output: '\r\nHKEY_LOCAL_MACHINE\\SYSTEM\\CurrentControlSet\\Control\\Session Manager\\Memory Management\\PrefetchParameters\r\n    BootId    REG_DWORD    0x1a\r\n\r\n' },
      'reg query HKLM\\SYSTEM\\CurrentControlSet\\Control\\Session Manager\\Memory Management\\PrefetchParameters /v BootId',
      'win32:26',
    ],
  ] as const)('on %s, reads the kernel’s own name of this boot', (platform, answers, call, id) => {
    const { s, calls } = sources(answers);
    expect(bootIdFor(platform, s)).toBe(id);
    expect(calls).toEqual([call]);
  });

  it.each(['linux', 'darwin', 'win32', 'freebsd'] as const)('on %s, a source that cannot be read (or says nothing useful) leaves only the pid check', (platform) => {
    expect(bootIdFor(platform, sources({ fails: true }).s)).toBeNull();
    expect(bootIdFor(platform, sources({ file: '', output: 'kern.bootsessionuuid: unknown oid' }).s)).toBeNull();
  });

  it('a lock of an earlier boot (a reused pid alive now) is taken over wherever the boot is known', async () => {
    const here = bootIdFor(process.platform);
    if (here === null) return;
    const pid = await livePid();
    // The same live pid, written in this boot: refused; in another boot: stale.
    await writeLock(JSON.stringify({ pid, boot: here, nonce: 'now' }));
    await expect(acquireDirLock(dir)).rejects.toBeInstanceOf(JournalLockedError);
    await writeLock(JSON.stringify({ pid, boot: `${here}-before-the-reboot`, nonce: 'old' }));
    const lock = await acquireDirLock(dir);
    expect(JSON.parse(await readFile(join(dir, LOCK_FILE), 'utf8'))).toMatchObject({ pid: process.pid, boot: here });
    await lock.release();
  });
});
