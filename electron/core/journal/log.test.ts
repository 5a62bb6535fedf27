import { constants as fsConstants } from 'node:fs';
import { appendFile, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { canonicalJson, entryHash, entryLine, GENESIS_PREV } from './canonical.ts';
import { JournalUnavailableError, type JournalEntry } from './port.ts';
import { checkLine, journalFsFor, lineIsIntact, nodeJournalFs, openLog } from './log.ts';
import type { JournalFs, JournalLog } from './log.ts';

let dir: string;
const open: JournalLog[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'journal-log-'));
});
afterEach(async () => {
  for (const l of open.splice(0)) await l.close();
  await rm(dir, { recursive: true, force: true });
});

async function openAt(clock: ManualClock, replayed?: JournalEntry[]): Promise<JournalLog> {
  const log = await openLog({ dir, clock, replay: replayed ? (es) => void replayed.push(...es) : undefined, replayBatchSize: 3 });
  open.push(log);
  return log;
}

/**
 * Turns of the event loop until `done`. Bounded by time, not by a count of turns: a group
 * commit waits for the disk's fsync, which on a busy machine outlasts any fixed count.
 */
async function until(done: () => boolean): Promise<void> {
  const deadline = performance.now() + 10_000;
  while (!done()) {
    if (performance.now() > deadline) throw new Error('waited too long');
    await new Promise((r) => setImmediate(r));
  }
}

async function closeAll(): Promise<void> {
  for (const l of open.splice(0)) await l.close();
}

const sale = (n: number) => ({ type: 'sale.created', data: { sale_id: `s${n}`, amount_cents: 100 * n } });

async function segmentLines(name: string): Promise<string[]> {
  const text = await readFile(join(dir, name), 'utf8');
  return text.split('\n').slice(0, -1);
}

describe('the durable log', () => {
  it('chains entries from the genesis hash and reads them back in order after a reopen', async () => {
    const clock = new ManualClock();
    const log = await openAt(clock);
    const first = await log.append([sale(1), sale(2)]);
    clock.advance(1000);
    const second = await log.append([sale(3)]);
    expect(first.map((e) => e.seq)).toEqual([1, 2]);
    expect(first[0]!.prev).toBe(GENESIS_PREV);
    expect(first[1]!.prev).toBe(first[0]!.hash);
    expect(second[0]!.prev).toBe(first[1]!.hash);
    expect(second[0]!.at).toBe(clock.now());
    for (const e of [...first, ...second]) {
      expect(e.hash).toBe(entryHash(e.seq, e.prev, e.at, e.type, canonicalJson(e.data)));
    }
    await closeAll();

    const replayed: JournalEntry[] = [];
    const again = await openAt(clock, replayed);
    expect(replayed).toEqual([...first, ...second]);
    expect(again.lastSeq).toBe(3);
    expect(again.lastHash).toBe(second[0]!.hash);
    const next = await again.append([sale(4)]);
    expect(next[0]).toMatchObject({ seq: 4, prev: second[0]!.hash });
    expect(await again.verify()).toEqual({ ok: true, entries: 4 });
  });

  it('writes canonical JSON lines with the documented fields, files 0600 in a 0700 dir', async () => {
    const log = await openAt(new ManualClock(Date.UTC(2026, 10, 21, 12)));
    await log.append([{ type: 'note', data: { z: 1, a: { y: [1, 'two'], b: null } } }]);
    const [line] = await segmentLines('journal-2026-11-21.jsonl');
    const parsed = JSON.parse(line!) as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual(['seq', 'prev', 'hash', 'at', 'type', 'data']);
    expect(line).toContain('"data":{"a":{"b":null,"y":[1,"two"]},"z":1}');
    if (process.platform !== 'win32') {
      expect((await stat(join(dir, 'journal-2026-11-21.jsonl'))).mode & 0o777).toBe(0o600);
      expect((await stat(dir)).mode & 0o777).toBe(0o700);
    }
  });

  it('tightens an existing data dir that others could read', async () => {
    if (process.platform === 'win32') return;
    const { chmod } = await import('node:fs/promises');
    await chmod(dir, 0o755);
    await openAt(new ManualClock());
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
  });

  it('shares one write+fsync among appends queued together (group commit)', async () => {
    const log = await openAt(new ManualClock());
    const results = await Promise.all(Array.from({ length: 100 }, (_, i) => log.append([sale(i)])));
    expect(results.map((r) => r[0]!.seq).sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(log.stats.committedEntries).toBe(100);
    expect(log.stats.commits).toBeLessThanOrEqual(2);
    expect(await log.verify()).toEqual({ ok: true, entries: 100 });
  });

  // Which call makes a group commit durable, per platform: the drive's cache must be flushed
  // too, and on macOS only F_FULLFSYNC (libuv's fdatasync there) does that, not O_DSYNC.
  const plain = ['open a', 'write', 'datasync', 'write', 'datasync'];
  it.each([
    // Linux's row opens O_DSYNC for real, which only a host that has it can do.
    ...(typeof fsConstants.O_DSYNC === 'number' ? [['linux', ['open a-dsync', 'write', 'write']] as const] : []),
    ['darwin', plain] as const,
    ['win32', plain] as const,
    ['freebsd', plain] as const,
  ])('on %s, makes every group commit durable before it resolves, with that platform\'s call', async (platform, expected) => {
    const calls: string[] = [];
    const platformFs = journalFsFor(platform);
    const fs: JournalFs = {
      ...platformFs,
      open: async (path, flags, mode) => {
        const file = await platformFs.open(path, flags, mode);
        if (!path.endsWith('.jsonl') || flags === 'r') return file;
        calls.push(`open ${flags}`);
        return {
          ...file,
          read: (b, o, l, p) => file.read(b, o, l, p),
          write: async (b, o, l) => {
            const written = await file.write(b, o, l);
            calls.push('write');
            return written;
          },
          datasync: async () => {
            await file.datasync();
            calls.push('datasync');
          },
          sync: () => file.sync(),
          stat: () => file.stat(),
          truncate: (n) => file.truncate(n),
          close: () => file.close(),
        };
      },
    };
    const log = await openLog({ dir, clock: new ManualClock(), fs });
    open.push(log);
    await log.append([sale(1)]);
    await log.append([sale(2), sale(3)]);
    expect(calls).toEqual(expected);
    expect(log.stats.commits).toBe(2);
  });

  it('opens segments O_DSYNC only on Linux, and the app\'s file layer is the one of the platform it runs on', () => {
    expect(journalFsFor('linux').dsyncAppends).toBe(typeof fsConstants.O_DSYNC === 'number');
    for (const platform of ['darwin', 'win32', 'freebsd', 'openbsd', 'sunos', 'aix', 'android'] as const) {
      expect(journalFsFor(platform).dsyncAppends, platform).toBe(false);
    }
    expect(nodeJournalFs.dsyncAppends).toBe(journalFsFor(process.platform).dsyncAppends);
  });

  it('hands the view every group that became durable while it was busy in one call', async () => {
    const calls: number[][] = [];
    let release!: () => void;
    const busy = new Promise<void>((resolve) => (release = resolve));
    const log = await openLog({
      dir,
      clock: new ManualClock(),
      onDurable: async (entries) => {
        calls.push(entries.map((e) => e.seq));
        if (calls.length === 1) await busy;
      },
    });
    open.push(log);
    // Whatever fails below, the view is let go, so closing the log does not wait for ever.
    onTestFinished(() => release());
    const first = log.append([sale(1)]);
    await until(() => calls.length === 1);
    // Two more group commits while the first is still being applied.
    const second = log.append([sale(2)]);
    await until(() => log.stats.commits === 2);
    const third = log.append([sale(3)]);
    await until(() => log.stats.commits === 3);
    let acknowledged = false;
    void second.then(() => (acknowledged = true));
    await new Promise((r) => setTimeout(r, 20));
    // Durable, but not acknowledged before the view has it.
    expect(acknowledged).toBe(false);
    release();
    expect((await Promise.all([first, second, third])).map((es) => es[0]!.seq)).toEqual([1, 2, 3]);
    // One call per group commit made each append wait behind every earlier group's (issue 9).
    expect(calls).toEqual([[1], [2, 3]]);
  });

  it('refuses the appends whose call to the view failed, and takes the next ones', async () => {
    let fail = true;
    const log = await openLog({
      dir,
      clock: new ManualClock(),
      onDurable: () => {
        if (fail) throw new Error('the view refused');
      },
    });
    open.push(log);
    await expect(log.append([sale(1)])).rejects.toThrow('the view refused');
    fail = false;
    expect((await log.append([sale(2)]))[0]!.seq).toBe(2);
  });

  it('refuses data it cannot round-trip without handing out a seq', async () => {
    const log = await openAt(new ManualClock());
    await expect(log.append([sale(1), { type: 'bad', data: { amount: Number.NaN } }])).rejects.toThrow(/NaN/);
    await expect(log.append([{ type: '', data: {} }])).rejects.toThrow(TypeError);
    await expect(log.append([{ type: 'x', data: [] as unknown as Record<string, unknown> }])).rejects.toThrow(/object/);
    const ok = await log.append([sale(2)]);
    expect(ok[0]!.seq).toBe(1);
  });

  it('hands the view exactly what replay will read: undefined members dropped', async () => {
    const clock = new ManualClock();
    const log = await openAt(clock);
    const [entry] = await log.append([{ type: 'x', data: { keep: 1, drop: undefined, nested: { drop: undefined } } }]);
    expect(entry!.data).toEqual({ keep: 1, nested: {} });
    expect(Object.keys(entry!.data)).toEqual(['keep', 'nested']);
    await closeAll();
    const replayed: JournalEntry[] = [];
    await openAt(clock, replayed);
    expect(replayed).toEqual([entry]);
  });
});

describe('segments: one file per UTC day, one chain', () => {
  it('starts a new segment at midnight UTC and continues the chain across it', async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 21, 23, 59, 59, 900));
    const log = await openAt(clock);
    const before = await log.append([sale(1)]);
    clock.advance(200);
    const after = await log.append([sale(2)]);
    expect(await readdir(dir)).toEqual(expect.arrayContaining(['journal-2026-11-21.jsonl', 'journal-2026-11-22.jsonl']));
    expect(log.segments).toEqual(['journal-2026-11-21.jsonl', 'journal-2026-11-22.jsonl']);
    expect(after[0]!.prev).toBe(before[0]!.hash);
    const [firstOfDay2] = await segmentLines('journal-2026-11-22.jsonl');
    expect(JSON.parse(firstOfDay2!)).toMatchObject({ seq: 2, prev: before[0]!.hash });
    await closeAll();
    const again = await openAt(clock);
    expect(await again.verify()).toEqual({ ok: true, entries: 2 });
    expect(again.segments).toHaveLength(2);
  });

  it('splits one group commit that straddles midnight into both segments', async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 21, 23, 59, 59, 999));
    const log = await openAt(clock);
    const a = log.append([sale(1)]);
    clock.advance(1);
    const b = log.append([sale(2)]);
    await Promise.all([a, b]);
    expect(log.stats.commits).toBe(1);
    expect(await segmentLines('journal-2026-11-21.jsonl')).toHaveLength(1);
    expect(await segmentLines('journal-2026-11-22.jsonl')).toHaveLength(1);
    expect(await log.verify()).toEqual({ ok: true, entries: 2 });
  });

  it('never writes back into an earlier day when the clock goes backwards', async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 22, 0, 0, 5));
    const log = await openAt(clock);
    await log.append([sale(1)]);
    clock.set(Date.UTC(2026, 10, 21, 23, 59, 0));
    const [late] = await log.append([sale(2)]);
    expect(late!.at).toBe(Date.UTC(2026, 10, 21, 23, 59, 0));
    expect(await readdir(dir)).not.toContain('journal-2026-11-21.jsonl');
    expect(await segmentLines('journal-2026-11-22.jsonl')).toHaveLength(2);
    await closeAll();
    expect(await (await openAt(clock)).verify()).toEqual({ ok: true, entries: 2 });
  });
});

describe('a torn last line', () => {
  it('is cut away at open and reported; every complete entry stays and the chain goes on', async () => {
    const clock = new ManualClock();
    const log = await openAt(clock);
    const written = await log.append([sale(1), sale(2), sale(3)]);
    await closeAll();
    const segment = 'journal-2026-11-21.jsonl';
    const whole = await readFile(join(dir, segment), 'utf8');
    const partial = `{"seq":4,"prev":"${written[2]!.hash}","hash":"00`;
    await appendFile(join(dir, segment), partial);

    const replayed: JournalEntry[] = [];
    const again = await openAt(clock, replayed);
    expect(again.tornTail).toEqual({ segment, line: 4, bytes: partial.length });
    expect(again.corruption).toBeNull();
    expect(replayed).toEqual(written);
    expect(await readFile(join(dir, segment), 'utf8')).toBe(whole);
    const [fourth] = await again.append([sale(4)]);
    expect(fourth).toMatchObject({ seq: 4, prev: written[2]!.hash });
    expect(await again.verify()).toEqual({ ok: true, entries: 4 });
  });

  it('is found in the last segment that has bytes, even if an empty newer segment follows', async () => {
    const clock = new ManualClock();
    const log = await openAt(clock);
    await log.append([sale(1)]);
    await closeAll();
    await appendFile(join(dir, 'journal-2026-11-21.jsonl'), '{"seq":2,');
    await writeFile(join(dir, 'journal-2026-11-22.jsonl'), '', { mode: 0o600 });
    const again = await openAt(clock);
    expect(again.tornTail).toMatchObject({ segment: 'journal-2026-11-21.jsonl', line: 2 });
    expect(again.corruption).toBeNull();
  });
});

describe('corruption', () => {
  async function writeThree(): Promise<JournalEntry[]> {
    const log = await openAt(new ManualClock());
    const entries = await log.append([sale(1), sale(2), sale(3)]);
    await closeAll();
    return entries;
  }
  const segment = 'journal-2026-11-21.jsonl';
  async function rewrite(edit: (lines: string[]) => string[]): Promise<void> {
    const lines = await segmentLines(segment);
    await writeFile(join(dir, segment), edit(lines).map((l) => l + '\n').join(''));
  }

  it('an edited middle entry: open comes up read-only naming it, verify names it too', async () => {
    await writeThree();
    await rewrite((lines) => lines.map((l, i) => (i === 1 ? l.replace('"amount_cents":200', '"amount_cents":1') : l)));
    const replayed: JournalEntry[] = [];
    const log = await openAt(new ManualClock(), replayed);
    const broken = { segment, line: 2, seq: 2, reason: 'hash does not match the content' };
    expect(log.corruption).toEqual(broken);
    expect(replayed.map((e) => e.seq)).toEqual([1]);
    await expect(log.append([sale(9)])).rejects.toBeInstanceOf(JournalUnavailableError);
    expect(await log.verify()).toEqual({ ok: false, firstBroken: broken });
    // Nothing was cut or rewritten: the evidence stays as it was found.
    expect(await segmentLines(segment)).toHaveLength(3);
  });

  it('a missing middle entry is a gap at the line where it should be', async () => {
    await writeThree();
    await rewrite((lines) => [lines[0]!, lines[2]!]);
    const log = await openAt(new ManualClock());
    expect(log.corruption).toEqual({ segment, line: 2, seq: 2, reason: 'expected seq 2, found 3' });
  });

  it('garbage in the middle, and an unterminated line before the last segment', async () => {
    await writeThree();
    await rewrite((lines) => [lines[0]!, '{"seq":2,"pr', lines[2]!]);
    let log = await openAt(new ManualClock());
    expect(log.corruption).toEqual({ segment, line: 2, seq: 2, reason: 'not valid JSON' });
    await closeAll();

    await rm(join(dir, segment));
    await writeThree();
    await appendFile(join(dir, segment), '{"seq":4');
    await writeFile(join(dir, 'journal-2026-11-22.jsonl'), 'x\n');
    log = await openAt(new ManualClock());
    expect(log.corruption).toMatchObject({ segment, line: 4, seq: 4, reason: 'unterminated line before the end of the journal' });
    expect(log.tornTail).toBeNull();
  });

  it('verify on an open journal finds a line changed on disk behind its back', async () => {
    const log = await openAt(new ManualClock());
    await log.append([sale(1), sale(2), sale(3), sale(4)]);
    expect(await log.verify()).toEqual({ ok: true, entries: 4 });
    const lines = await segmentLines(segment);
    // Same length, different content: only the hash can tell.
    lines[2] = lines[2]!.replace('"s3"', '"s9"');
    await writeFile(join(dir, segment), lines.map((l) => l + '\n').join(''));
    expect(await log.verify()).toEqual({ ok: false, firstBroken: { segment, line: 3, seq: 3, reason: 'hash does not match the content' } });
  });

  it('verify reports entries lost from the end of the file', async () => {
    const log = await openAt(new ManualClock());
    await log.append([sale(1), sale(2), sale(3)]);
    const lines = await segmentLines(segment);
    await writeFile(join(dir, segment), lines.slice(0, 2).map((l) => l + '\n').join(''));
    const result = await log.verify();
    expect(result.ok).toBe(false);
    expect(!result.ok && result.firstBroken).toMatchObject({ segment, line: 3, seq: 3 });
  });

  it('verify while appends run reads only what is committed', async () => {
    const log = await openAt(new ManualClock());
    await log.append([sale(0)]);
    const writes = Array.from({ length: 50 }, (_, i) => log.append([sale(i + 1)]));
    const checks = [log.verify(), log.verify()];
    await Promise.all(writes);
    for (const c of await Promise.all(checks)) expect(c.ok).toBe(true);
    expect(await log.verify()).toEqual({ ok: true, entries: 51 });
  });
});

describe('checkLine with hostile lines', () => {
  const at = Date.UTC(2026, 10, 21);
  const data = canonicalJson({ sale_id: 's1' });
  const hash = entryHash(1, GENESIS_PREV, at, 'sale.created', data);
  const good = entryLine(1, GENESIS_PREV, hash, at, 'sale.created', data);
  const obj = () => JSON.parse(good) as Record<string, unknown>;
  const cases: [string, string, string][] = [
    ['the good line', good, 'ok'],
    ['the same entry with keys reordered and spaces', JSON.stringify({ data: { sale_id: 's1' }, type: 'sale.created', at, hash, prev: GENESIS_PREV, seq: 1 }, null, 1).replace(/\n/g, ' '), 'ok'],
    ['empty line', '', 'not valid JSON'],
    ['truncated', good.slice(0, 40), 'not valid JSON'],
    ['an array', '[1,2]', 'not a JSON object'],
    ['null', 'null', 'not a JSON object'],
    ['seq as a string', JSON.stringify({ ...obj(), seq: '1' }), 'seq is not an integer'],
    ['fractional seq', JSON.stringify({ ...obj(), seq: 1.5 }), 'seq is not an integer'],
    ['seq out of order', JSON.stringify({ ...obj(), seq: 2 }), 'expected seq 1, found 2'],
    ['uppercase hex prev', JSON.stringify({ ...obj(), prev: GENESIS_PREV.toUpperCase().replace(/0/g, 'A') }), 'prev is not a sha256 hex digest'],
    ['short hash', JSON.stringify({ ...obj(), hash: 'abc' }), 'hash is not a sha256 hex digest'],
    ['at as ISO text', JSON.stringify({ ...obj(), at: '2026-11-21T00:00:00Z' }), 'at is not a number'],
    ['empty type', JSON.stringify({ ...obj(), type: '' }), 'type is not a non-empty string'],
    ['data null', JSON.stringify({ ...obj(), data: null }), 'data is not an object'],
    ['data an array', JSON.stringify({ ...obj(), data: [] }), 'data is not an object'],
    ['an extra field smuggled in', JSON.stringify({ ...obj(), by: 'mallory' }), 'unexpected fields'],
    ['prev of another chain', JSON.stringify({ ...obj(), prev: 'f'.repeat(64) }), 'prev does not match the hash of the entry before it'],
    ['data changed', good.replace('"s1"', '"s2"'), 'hash does not match the content'],
    ['type changed', good.replace('sale.created', 'sale.deleted'), 'hash does not match the content'],
    ['at changed by 1 ms', good.replace(String(at), String(at + 1)), 'hash does not match the content'],
    ['a number that overflows to Infinity', good.replace('{"sale_id":"s1"}', '{"n":1e999}'), 'data cannot be hashed: journal data cannot hold Infinity'],
  ];
  it.each(cases)('%s', (_name, line, expected) => {
    const result = checkLine(line, 1, GENESIS_PREV);
    expect(result.ok ? 'ok' : result.reason).toBe(expected);
  });
  // Verify's fast path may only pass what the writer writes: every other line goes to checkLine.
  it.each(cases)('verify’s fast path: %s', (_name, line) => {
    expect(lineIsIntact(line, 1, GENESIS_PREV)).toBe(line === good);
  });
});
