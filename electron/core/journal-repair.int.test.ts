/**
 * Issue 13 point 11 through the core and its bridge, on the embedded sandbox: a full disk
 * stops charging with a sentence and charging resumes by itself; a broken journal is left
 * by a manager's new chain, and the break stays in the status and in verify after a restart.
 */
import { composeCore } from '../compose.ts';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../shared/clock.ts';
import { loadConfig } from './config.ts';
import type { CoreStatus } from './core.ts';
import { nodeJournalFs, type JournalFile, type JournalFs, type ProbeTimers } from './journal/log.ts';
import { memoryLogger } from './log.ts';
import { dispatcherAs } from './operators/fixtures/sign-in.ts';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function dataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'pos-journal-repair-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function startCore(dir: string, deps: { journalFs?: JournalFs; journalTimers?: ProbeTimers } = {}) {
  const core = await composeCore(loadConfig({ POS_DATA_DIR: dir, POS_LANG: 'en' }, []), { log: memoryLogger(systemClock), ...deps });
  await core.start();
  const stop = () => core.stop();
  cleanup.push(stop);
  const dispatch = await dispatcherAs(core);
  const pushed: CoreStatus[] = [];
  core.events.on('core.status', (s) => pushed.push(s));
  return {
    core,
    dispatch,
    pushed,
    async stop() {
      cleanup.splice(cleanup.indexOf(stop), 1);
      await core.stop();
    },
  };
}

/** node:fs/promises with a switch: writes fail with ENOSPC while the disk is "full". */
function fullableDisk() {
  const disk = { full: false };
  const wrap = (file: JournalFile): JournalFile => ({
    read: (b, o, l, p) => file.read(b, o, l, p),
    write: (b, o, l) => (disk.full ? Promise.reject(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })) : file.write(b, o, l)),
    datasync: () => file.datasync(),
    sync: () => file.sync(),
    stat: () => file.stat(),
    truncate: (n) => file.truncate(n),
    close: () => file.close(),
  });
  return { disk, fs: { ...nodeJournalFs, open: async (p, f, m) => wrap(await nodeJournalFs.open(p, f, m)) } satisfies JournalFs };
}

function handTimers() {
  const pending = new Map<number, () => Promise<void>>();
  let next = 1;
  const timers: ProbeTimers = {
    set: (fn) => (pending.set(next, fn), next++),
    clear: (h) => void pending.delete(h as number),
  };
  return {
    timers,
    async fire() {
      const due = [...pending.values()];
      pending.clear();
      await Promise.all(due.map((fn) => fn()));
    },
  };
}

describe('the journal through the core', () => {
  it('a full disk stops charging with a sentence, and charging resumes by itself once a write succeeds', async () => {
    const { disk, fs } = fullableDisk();
    const hand = handTimers();
    const { core, dispatch, pushed } = await startCore(await dataDir(), { journalFs: fs, journalTimers: hand.timers });
    expect(await dispatch('sale.charge', { amount: '12,50' })).toMatchObject({ ok: true });

    disk.full = true;
    const refused = await dispatch('sale.charge', { amount: '13,00' });
    expect(refused).toMatchObject({ ok: false, error: { code: 'journal_unavailable', params: { problem: 'journal_disk_full' } } });
    expect(refused.ok ? '' : refused.error.message).toMatch(/resumes by itself/);
    expect(core.status().journal).toMatchObject({ state: 'failed', failureProblem: 'journal_disk_full' });
    // The status bar learns it at once, not at the next periodic check.
    expect(pushed.at(-1)?.journal.state).toBe('failed');

    disk.full = false;
    await hand.fire();
    expect(core.status().journal).toMatchObject({ state: 'healthy', failureProblem: null });
    expect(pushed.at(-1)?.journal.state).toBe('healthy');
    expect(await dispatch('sale.charge', { amount: '13,00' })).toMatchObject({ ok: true });
    expect(await dispatch('journal.verify', undefined)).toMatchObject({ ok: true, result: { ok: true } });
  });

  it('a broken journal: charging refused, a manager starts a new chain, charging works, the break stays after a restart', async () => {
    const dir = await dataDir();
    let app = await startCore(dir);
    expect(await app.dispatch('sale.charge', { amount: '10,00' })).toMatchObject({ ok: true });
    // The last entry, the one to be damaged, is the shift's opening: the sale before it stays whole.
    expect(await app.dispatch('shift.open', {})).toMatchObject({ ok: true });
    await app.stop();

    const journalDir = join(dir, 'journal');
    const [segment] = (await readdir(journalDir)).filter((n) => n.endsWith('.jsonl'));
    const lines = (await readFile(join(journalDir, segment!), 'utf8')).split('\n').slice(0, -1);
    expect(lines.length).toBeGreaterThan(1);
    // The last entry's content is changed on disk: its hash no longer matches.
    expect(lines.at(-1)).toContain('"type":"shift.opened"');
    lines[lines.length - 1] = lines.at(-1)!.replace('"by":"Marta"', '"by":"Mallory"');
    await writeFile(join(journalDir, segment!), lines.map((l) => l + '\n').join(''));
    const damaged = await readFile(join(journalDir, segment!));

    app = await startCore(dir);
    const broken = { segment, line: lines.length, seq: lines.length };
    expect(app.core.status().journal).toMatchObject({ state: 'corrupt', broken });
    expect(await app.dispatch('sale.charge', { amount: '11,00' })).toMatchObject({ ok: false, error: { code: 'journal_unavailable', params: { problem: 'journal_broken' } } });
    // The new chain is signed by the manager signed in, never by a name the call gives.
    expect(await app.dispatch('journal.startNewChain', { by: 'Mallory' })).toMatchObject({ ok: false, error: { code: 'invalid_argument' } });

    const started = await app.dispatch('journal.startNewChain', undefined);
    expect(started).toMatchObject({ ok: true, result: { journal: { state: 'healthy', acknowledgedBreaks: [{ broken, restart: { by: 'Marta' } }] } } });
    expect(await app.dispatch('sale.charge', { amount: '11,00' })).toMatchObject({ ok: true });
    expect(await app.dispatch('journal.startNewChain', undefined)).toMatchObject({ ok: false, error: { code: 'conflict', params: { reason: 'journal_not_broken' } } });
    const verified = await app.dispatch('journal.verify', undefined);
    expect(verified).toMatchObject({ ok: true, result: { ok: true, acknowledgedBreaks: [{ broken }] } });
    await app.stop();

    // For ever after: a restart shows the acknowledged break, the old segment is as it was.
    app = await startCore(dir);
    expect(app.core.status().journal).toMatchObject({ state: 'healthy', acknowledgedBreaks: [{ broken, restart: { by: 'Marta' } }] });
    expect(await app.dispatch('journal.verify', undefined)).toMatchObject({ ok: true, result: { ok: true, acknowledgedBreaks: [{ broken }] } });
    expect(await readFile(join(journalDir, segment!))).toEqual(damaged);
    const report = await app.dispatch('journal.shiftReport', {});
    expect(report.ok).toBe(true);
  });
});
