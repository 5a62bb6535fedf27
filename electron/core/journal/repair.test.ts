/**
 * Issue 13 point 11: a damaged journal must not close the shop. A real journal in a temp dir;
 * the disk's failures come through the log's file seam (JournalFs), its probe timers are
 * fired by hand, and a broken chain is made by editing a segment the way damage would.
 */
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { CoreError } from '../errors.ts';
import { sha256Hex } from './canonical.ts';
import { openJournal } from './journal.ts';
import { CHAIN_STARTED, JournalUnavailableError, type JournalEntry, type JournalPort, type SaleRecord, type SaleReducer } from './port.ts';
import { nodeJournalFs, openLog, PROBE_FIRST_MS } from './log.ts';
import type { JournalFile, JournalFs, JournalLog, ProbeTimers } from './log.ts';
import { handTimers } from './fixtures/hand-timers.ts';

let dir: string;
const opened: { close(): Promise<void> }[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'journal-repair-'));
});
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close();
  await rm(dir, { recursive: true, force: true });
});

type Fault = { code: 'ENOSPC' | 'EIO'; on: 'write' | 'datasync'; partial?: boolean };

/**
 * The real node:fs/promises, with a switch that makes writes or fsyncs fail as a sick disk
 * does. `dsyncAppends`: whether the log's segments are opened O_DSYNC (as on Linux)
 * or written then fdatasync'd (as everywhere else).
 */
function sickDisk(dsyncAppends = nodeJournalFs.dsyncAppends) {
  const disk = { fault: null as Fault | null };
  const errnoError = (code: string) => Object.assign(new Error(`${code}: simulated disk failure`), { code });
  const wrap = (file: JournalFile, dsync: boolean): JournalFile => ({
    read: (b, o, l, p) => file.read(b, o, l, p),
    async write(buffer, offset, length) {
      const f = disk.fault;
      if (f?.on === 'write') {
        // A write that gets part of its bytes out before the disk fills: a torn line.
        if (f.partial && length > 1) await file.write(buffer, offset, Math.floor(length / 2));
        throw errnoError(f.code);
      }
      if (f?.on === 'datasync' && dsync) {
        // An O_DSYNC write whose sync fails: the bytes are in the file, the write reports the error.
        await file.write(buffer, offset, length);
        throw errnoError(f.code);
      }
      return file.write(buffer, offset, length);
    },
    async datasync() {
      if (disk.fault?.on === 'datasync') throw errnoError(disk.fault.code);
      return file.datasync();
    },
    sync: () => file.sync(),
    stat: () => file.stat(),
    truncate: (n) => file.truncate(n),
    close: () => file.close(),
  });
  const fs: JournalFs = { ...nodeJournalFs, dsyncAppends, open: async (path, flags, mode) => wrap(await nodeJournalFs.open(path, flags, mode), flags === 'a-dsync') };
  return { disk, fs };
}

/** The smallest sale the view can index: enough to see which sales reached it. */
const recordSale: SaleReducer<SaleRecord> = (current, entry, saleId) =>
  current ?? { sale_id: saleId, amount_cents: 0, store_id: 1, checkout_id: 1, status: 'created', created_at: entry.at };

const sale = (n: number) => ({ type: 'sale.created', data: { sale_id: `s${n}`, amount_cents: 100 * n } });
const segment = 'journal-2026-11-21.jsonl';

async function lines(name: string): Promise<string[]> {
  const text = await readFile(join(dir, name), 'utf8');
  return text.split('\n').slice(0, -1);
}

async function openAt(options: { fs?: JournalFs; timers?: ProbeTimers; replayed?: JournalEntry[]; onHealthChange?: () => void } = {}): Promise<JournalLog> {
  const { replayed } = options;
  const log = await openLog({
    dir,
    clock: new ManualClock(),
    replay: replayed ? (es) => void replayed.push(...es) : undefined,
    ...(options.fs ? { fs: options.fs } : {}),
    ...(options.timers ? { timers: options.timers } : {}),
    ...(options.onHealthChange ? { onHealthChange: options.onHealthChange } : {}),
  });
  opened.push(log);
  return log;
}

async function closeAll(): Promise<void> {
  for (const o of opened.splice(0)) await o.close();
}

describe('a failed write stops the journal and it resumes by itself', () => {
  it('a full disk: refused with a sentence, a torn line cut away, the probe writes again, the chain goes on', async () => {
    const { disk, fs } = sickDisk();
    const hand = handTimers();
    let healthChanges = 0;
    const log = await openAt({ fs, timers: hand.timers, onHealthChange: () => healthChanges++ });
    const good = await log.append([sale(1), sale(2)]);

    disk.fault = { code: 'ENOSPC', on: 'write', partial: true };
    // Three appends in one tick share one group commit: all fail together, none acknowledged.
    const results = await Promise.allSettled([log.append([sale(3)]), log.append([sale(4)]), log.append([sale(5)])]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    const refusal = (results[0] as PromiseRejectedResult).reason as JournalUnavailableError;
    expect(refusal).toBeInstanceOf(JournalUnavailableError);
    expect(refusal).toBeInstanceOf(CoreError);
    expect(refusal.toWire()).toMatchObject({ code: 'journal_unavailable', params: { problem: 'journal_disk_full' } });
    expect(refusal.message).toMatch(/cannot be written .*resumes by itself once a write succeeds/);
    expect(log.failure).toMatchObject({ code: 'ENOSPC' });
    expect(log.lastSeq).toBe(2);
    expect(healthChanges).toBe(1);

    // While the disk stays full, an append is refused again (it probes first), and the
    // timer's probe fails too and backs off.
    await expect(log.append([sale(6)])).rejects.toMatchObject({ code: 'journal_unavailable', params: { problem: 'journal_disk_full' } });
    // The half line the full disk let through was cut before that probe (truncating needs no space).
    expect(await lines(segment)).toHaveLength(2);
    expect((await readFile(join(dir, segment), 'utf8')).endsWith('\n')).toBe(true);
    expect(hand.count).toBe(1);
    await hand.fire();
    expect(log.failure).not.toBeNull();
    expect(hand.delays).toEqual([PROBE_FIRST_MS, PROBE_FIRST_MS * 2]);

    // Space comes back: the next probe finds writing works, with no append and no restart.
    disk.fault = null;
    await hand.fire();
    expect(log.failure).toBeNull();
    expect(healthChanges).toBe(2);
    expect(hand.count).toBe(0);
    const [next] = await log.append([sale(7)]);
    // The refused entries never happened: the chain goes on from the last acknowledged one.
    expect(next).toMatchObject({ seq: 3, prev: good[1]!.hash });
    expect(await log.verify()).toEqual({ ok: true, entries: 3 });
    expect((await lines(segment)).map((l) => (JSON.parse(l) as { data: { sale_id: string } }).data.sale_id)).toEqual(['s1', 's2', 's7']);

    await closeAll();
    const replayed: JournalEntry[] = [];
    const again = await openAt({ replayed });
    expect(again.tornTail).toBeNull();
    expect(again.corruption).toBeNull();
    expect(replayed.map((e) => e.seq)).toEqual([1, 2, 3]);
  });

  it.each([...(nodeJournalFs.dsyncAppends ? [['opened O_DSYNC', true] as const] : []), ['written, then fdatasync', false] as const])('an fsync that fails after the whole line was written (%s): the line is taken back, the next append resumes', async (_how, dsync) => {
    const { disk, fs } = sickDisk(dsync);
    const hand = handTimers();
    const log = await openAt({ fs, timers: hand.timers });
    await log.append([sale(1)]);
    disk.fault = { code: 'EIO', on: 'datasync' };
    await expect(log.append([sale(2)])).rejects.toMatchObject({ code: 'journal_unavailable', params: { problem: 'journal_io_error' } });
    disk.fault = null;
    // No timer fired: the next append itself cuts back, probes and writes.
    const [entry] = await log.append([sale(3)]);
    expect(entry!.seq).toBe(2);
    expect((await lines(segment)).map((l) => (JSON.parse(l) as { data: { sale_id: string } }).data.sale_id)).toEqual(['s1', 's3']);
    expect(await log.verify()).toEqual({ ok: true, entries: 2 });
    expect(hand.count).toBe(0);
  });

  it('through the journal: the failed sale is not in the view, status says failed and then healthy', async () => {
    const { disk, fs } = sickDisk();
    const hand = handTimers();
    const j: JournalPort = await openJournal({
      dir,
      clock: new ManualClock(),
      reduceSale: recordSale,
      fs,
      timers: hand.timers,
    });
    opened.push(j);
    await j.append([{ type: 'sale.created', data: { sale_id: 'a' } }]);
    disk.fault = { code: 'ENOSPC', on: 'write' };
    await expect(j.append([{ type: 'sale.created', data: { sale_id: 'b' } }])).rejects.toBeInstanceOf(JournalUnavailableError);
    expect(j.status()).toMatchObject({ state: 'failed', lastSeq: 1, failureProblem: 'journal_disk_full' });
    expect(await j.sales.get('b')).toBeUndefined();
    disk.fault = null;
    await hand.fire();
    expect(j.status()).toMatchObject({ state: 'healthy', failure: null, failureProblem: null });
    await j.append([{ type: 'sale.created', data: { sale_id: 'c' } }]);
    expect(await j.sales.get('c')).toBeDefined();
    expect(await j.verify()).toEqual({ ok: true, entries: 2 });
  });
});

describe('a broken chain: a manager starts a new one', () => {
  async function writeFive(): Promise<JournalEntry[]> {
    const log = await openAt();
    const entries = await log.append([sale(1), sale(2), sale(3), sale(4), sale(5)]);
    await closeAll();
    return entries;
  }
  async function damage(name: string, line: number, from: string, to: string): Promise<void> {
    const all = await lines(name);
    all[line - 1] = all[line - 1]!.replace(from, to);
    await writeFile(join(dir, name), all.map((l) => l + '\n').join(''));
  }

  it('records the break, keeps the old segment untouched, sells again, and verify shows the break for ever', async () => {
    const written = await writeFive();
    await damage(segment, 3, '"amount_cents":300', '"amount_cents":3');
    const oldBytes = await readFile(join(dir, segment));
    const brokenLine = (await lines(segment))[2]!;

    const log = await openAt();
    const broken = { segment, line: 3, seq: 3, reason: 'hash does not match the content' };
    expect(log.corruption).toEqual(broken);
    await expect(log.append([sale(9)])).rejects.toMatchObject({ code: 'journal_unavailable', params: { problem: 'journal_broken' } });

    const start = await log.startNewChain({ by: 'Marta (manager)' });
    expect(start.type).toBe(CHAIN_STARTED);
    // Seqs 3..5 are shown by the old tail: the new chain does not hand them out again.
    expect(start.seq).toBe(6);
    expect(start.prev).toBe(written[1]!.hash);
    expect(start.data).toEqual({
      by: 'Marta (manager)',
      broken: { seq: 3, segment, line: 3, reason: 'hash does not match the content', hash: written[2]!.hash, line_sha256: sha256Hex(brokenLine) },
      good_head: { seq: 2, hash: written[1]!.hash },
    });
    expect(log.corruption).toBeNull();
    const [after] = await log.append([sale(10)]);
    expect(after).toMatchObject({ seq: 7, prev: start.hash });

    expect(await readFile(join(dir, segment))).toEqual(oldBytes);
    expect((await readdir(dir)).filter((n) => n.endsWith('.jsonl')).sort()).toEqual([segment, 'journal-c0002-2026-11-21.jsonl']);

    const acknowledged = {
      broken,
      brokenHash: written[2]!.hash,
      brokenLineSha256: sha256Hex(brokenLine),
      goodHead: { seq: 2, hash: written[1]!.hash },
      restart: { seq: 6, hash: start.hash, segment: 'journal-c0002-2026-11-21.jsonl', at: start.at, by: 'Marta (manager)' },
      untrusted: { segments: [segment], lines: 3 },
    };
    expect(log.acknowledgedBreaks).toEqual([acknowledged]);
    expect(await log.verify()).toEqual({ ok: true, entries: 4, acknowledgedBreaks: [acknowledged] });

    // After a restart: the break is still acknowledged, the old tail is not replayed.
    await closeAll();
    const replayed: JournalEntry[] = [];
    const again = await openAt({ replayed });
    expect(again.corruption).toBeNull();
    expect(replayed.map((e) => e.seq)).toEqual([1, 2, 6, 7]);
    expect(again.acknowledgedBreaks).toEqual([acknowledged]);
    expect(await again.verify()).toEqual({ ok: true, entries: 4, acknowledgedBreaks: [acknowledged] });
    const [more] = await again.append([sale(11)]);
    expect(more!.seq).toBe(8);
    expect(await readFile(join(dir, segment))).toEqual(oldBytes);
  });

  it('a new break in the new chain is detected, the acknowledged one still listed', async () => {
    await writeFive();
    await damage(segment, 4, '"amount_cents":400', '"amount_cents":4');
    const log = await openAt();
    await log.startNewChain({ by: 'Marta' });
    await log.append([sale(20), sale(21)]);
    await closeAll();
    await damage('journal-c0002-2026-11-21.jsonl', 2, '"s20"', '"s99"');

    const again = await openAt();
    expect(again.corruption).toEqual({ segment: 'journal-c0002-2026-11-21.jsonl', line: 2, seq: 7, reason: 'hash does not match the content' });
    expect(again.acknowledgedBreaks.map((b) => b.broken.seq)).toEqual([4]);
    const verified = await again.verify();
    expect(verified).toMatchObject({ ok: false, firstBroken: { seq: 7 }, acknowledgedBreaks: [{ broken: { seq: 4 } }] });
    await expect(again.append([sale(30)])).rejects.toBeInstanceOf(JournalUnavailableError);

    // A second way out, in a third chain, over the second break.
    const second = await again.startNewChain({ by: 'Rui' });
    expect(second.data).toMatchObject({ broken: { seq: 7, segment: 'journal-c0002-2026-11-21.jsonl', line: 2 }, good_head: { seq: 6 } });
    expect((await again.verify()).ok).toBe(true);
    expect(again.acknowledgedBreaks.map((b) => [b.broken.seq, b.restart.by])).toEqual([
      [4, 'Marta'],
      [7, 'Rui'],
    ]);
  });

  it('damage before the acknowledged break is a new, unexplained break', async () => {
    await writeFive();
    await damage(segment, 4, '"amount_cents":400', '"amount_cents":4');
    const log = await openAt();
    await log.startNewChain({ by: 'Marta' });
    await closeAll();
    await damage(segment, 2, '"amount_cents":200', '"amount_cents":2');

    const again = await openAt();
    expect(again.corruption).toEqual({ segment, line: 2, seq: 2, reason: 'hash does not match the content' });
    expect(again.acknowledgedBreaks).toEqual([]);
    expect(await again.verify()).toMatchObject({ ok: false, firstBroken: { seq: 2, line: 2 } });
  });

  it('a break at the very first entry: the new chain starts from the genesis head', async () => {
    await writeFive();
    await damage(segment, 1, '"s1"', '"s0"');
    const log = await openAt();
    expect(log.corruption).toMatchObject({ seq: 1, line: 1 });
    const start = await log.startNewChain({ by: 'Marta' });
    expect(start.data).toMatchObject({ good_head: { seq: 0 } });
    expect(start.seq).toBe(6);
    await closeAll();
    const replayed: JournalEntry[] = [];
    const again = await openAt({ replayed });
    expect(again.corruption).toBeNull();
    expect(replayed.map((e) => e.type)).toEqual([CHAIN_STARTED]);
    expect(await again.verify()).toMatchObject({ ok: true, entries: 1, acknowledgedBreaks: [{ broken: { seq: 1 }, untrusted: { lines: 5 } }] });
  });

  it('a new chain where nothing was broken is itself a break, and a healthy journal refuses to restart', async () => {
    const log = await openAt();
    await log.append([sale(1)]);
    await expect(log.startNewChain({ by: 'Marta' })).rejects.toMatchObject({ code: 'conflict', params: { reason: 'journal_not_broken' } });
    await closeAll();
    // Someone copies the first chain's line into a file that claims to be a second chain.
    await writeFile(join(dir, 'journal-c0002-2026-11-22.jsonl'), (await lines(segment))[0]! + '\n');
    const again = await openAt();
    expect(again.corruption).toMatchObject({ segment: 'journal-c0002-2026-11-22.jsonl', line: 1, reason: 'a new chain starts here, but the chain before it is not broken' });
  });

  it('a chain start that could not be written leaves the journal broken and can be tried again', async () => {
    await writeFive();
    await damage(segment, 3, '"amount_cents":300', '"amount_cents":3');
    const { disk, fs } = sickDisk();
    const hand = handTimers();
    const log = await openAt({ fs, timers: hand.timers });
    disk.fault = { code: 'ENOSPC', on: 'write', partial: true };
    await expect(log.startNewChain({ by: 'Marta' })).rejects.toBeInstanceOf(JournalUnavailableError);
    expect(log.corruption).toMatchObject({ seq: 3 });
    await expect(log.append([sale(9)])).rejects.toMatchObject({ params: { problem: 'journal_broken' } });
    disk.fault = null;
    const start = await log.startNewChain({ by: 'Marta' });
    expect(start.seq).toBe(6);
    await log.append([sale(10)]);
    const live = log.acknowledgedBreaks;
    await closeAll();
    const again = await openAt();
    expect(again.corruption).toBeNull();
    // The attempt that failed left an empty file of its own chain; the break reads the same.
    expect(again.acknowledgedBreaks).toEqual(live);
    expect(live[0]!.untrusted).toEqual({ segments: [segment], lines: 3 });
    expect((await again.verify()).ok).toBe(true);
  });
});

describe('the journal keeps who started the chain and refuses to forge one', () => {
  it('startNewChain needs a name; append refuses the chain-start type', async () => {
    const log = await openAt();
    await log.append([sale(1), sale(2)]);
    await closeAll();
    const all = await lines(segment);
    await writeFile(join(dir, segment), [all[0]!, all[1]!.replace('"s2"', '"s3"')].map((l) => l + '\n').join(''));
    const j = await openJournal({ dir, clock: new ManualClock(), reduceSale: recordSale });
    opened.push(j);
    expect(j.status()).toMatchObject({ state: 'corrupt', corruption: { seq: 2 } });
    await expect(j.append([{ type: CHAIN_STARTED, data: { by: 'X' } }])).rejects.toThrow(TypeError);
    await expect(j.startNewChain('  ')).rejects.toThrow(/must name/);
    const entry = await j.startNewChain('Marta');
    expect(entry.data.by).toBe('Marta');
    expect(j.status()).toMatchObject({ state: 'healthy', acknowledgedBreaks: [{ broken: { seq: 2 }, restart: { by: 'Marta' } }] });
    expect((await j.eventsOfType(CHAIN_STARTED)).map((e) => e.seq)).toEqual([entry.seq]);
  });
});
