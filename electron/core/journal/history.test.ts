import { spawn } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { CHECKPOINT_FILE } from './checkpoint.ts';
import { entriesOf, GENERATED_OPEN_STATUSES, generatedSaleReducer, generateHistory, writeHistory } from '../../bench/generate-history.ts';
import type { GeneratedSale, HistoryShape } from '../../bench/generate-history.ts';
import { CHAIN_STARTED, type JournalEntry, type JournalPort, type Projection } from './port.ts';
import { openJournal } from './journal.ts';
import type { OpenJournalOptions } from './journal.ts';
import { nodeJournalFs } from './log.ts';
import type { JournalFile, JournalFs } from './log.ts';
import { handTimers } from './fixtures/hand-timers.ts';

/**
 * Years of journal, instant start: the working set is restored from a checkpoint and
 * history is read on demand. Every answer must stay the one a full replay gives.
 */

const DAY = 24 * 60 * 60 * 1000;
const START = Date.UTC(2026, 8, 1);
const SHAPE: HistoryShape = { entries: 2_000, perDay: 200, startMs: START, seed: 11 };
const CRASHER = fileURLToPath(new URL('./fixtures/checkpoint-crash.ts', import.meta.url));

let dir: string;
let lastAt: number;
const opened: JournalPort<GeneratedSale>[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'journal-history-'));
  const inputs = [...generateHistory(SHAPE)];
  lastAt = inputs.at(-1)!.at;
  await writeHistory(join(dir, 'j'), inputs);
});
afterEach(async () => {
  for (const j of opened.splice(0)) await j.close();
  await rm(dir, { recursive: true, force: true });
});

async function openAt(sub: string, extra: Partial<OpenJournalOptions<GeneratedSale>> = {}, clockMs = lastAt + 60_000): Promise<JournalPort<GeneratedSale>> {
  const j = await openJournal<GeneratedSale>({
    dir: join(dir, sub), clock: new ManualClock(clockMs), reduceSale: generatedSaleReducer, openStatuses: GENERATED_OPEN_STATUSES,
    // A small working set: most of the generated history is only reachable on demand.
    workingSetMs: DAY, webhookIdsMs: DAY, ...extra,
  });
  opened.push(j);
  return j;
}
async function close(j: JournalPort<GeneratedSale>): Promise<void> {
  opened.splice(opened.indexOf(j), 1);
  await j.close();
}

/** A copy of the journal opened with no checkpoint, no indexes and everything in the working set: what a full replay answers. */
async function reference(from: string, to: string): Promise<JournalPort<GeneratedSale>> {
  await cp(join(dir, from), join(dir, to), { recursive: true });
  for (const name of await readdir(join(dir, to))) if (!name.endsWith('.jsonl')) await unlink(join(dir, to, name));
  return openAt(to, { workingSetMs: Number.MAX_SAFE_INTEGER, webhookIdsMs: Number.MAX_SAFE_INTEGER });
}

async function segmentsOf(sub: string): Promise<string[]> {
  return (await readdir(join(dir, sub))).filter((n) => n.endsWith('.jsonl')).sort();
}
async function linesIn(sub: string, segment: string): Promise<number> {
  return (await readFile(join(dir, sub, segment), 'utf8')).split('\n').length - 1;
}

/** Every query of the Journal interface over the generated history, as plain data to compare. */
async function everyAnswer(j: JournalPort<GeneratedSale>, entries: readonly JournalEntry[]) {
  const saleIds = [...new Set(entries.flatMap((e) => (typeof e.data.sale_id === 'string' ? [e.data.sale_id] : [])))].sort();
  const webhookIds = entries.flatMap((e) => (typeof e.data.webhook_id === 'string' ? [e.data.webhook_id] : []));
  const types = [...new Set(entries.map((e) => e.type))].sort();
  const shifts = await j.shifts.openedBetween(0, Number.MAX_SAFE_INTEGER);
  const out: Record<string, unknown> = { shifts, open: await j.shifts.open() };
  for (const id of saleIds) {
    const sale = await j.sales.get(id);
    out[`get ${id}`] = sale;
    out[`pix ${id}`] = await j.sales.byPixId(`pix_${id}`);
    out[`svc ${id}`] = await j.sales.byServiceId(`svc_${id}`);
  }
  for (const id of saleIds.filter((_, i) => i % 7 === 0)) {
    out[`external ${id}`] = await j.sales.byExternalId(`order-${id}`);
    out[`events ${id}`] = await j.eventsForSale(id);
  }
  for (let c = 1; c <= 8; c++) {
    out[`checkout ${c}`] = await j.sales.byCheckout(1, c);
    out[`checkout ${c} day 3-5`] = await j.sales.byCheckout(1, c, { fromMs: START + 3 * DAY, toMs: START + 5 * DAY });
    out[`checkout ${c} from day 6`] = await j.sales.byCheckout(1, c, { fromMs: START + 6 * DAY });
    out[`recent ${c}`] = await j.sales.recentOnCheckout(1, c, 12);
    out[`recent ${c} since day 2`] = await j.sales.recentOnCheckout(1, c, 500, START + 2 * DAY);
    out[`latest ${c}`] = await j.sales.latestOnCheckout(1, c);
    out[`needing ${c}`] = await j.sales.needingPerson(1, c);
    out[`displaceable ${c}`] = await j.sales.displaceable(1, c);
  }
  for (const status of ['created', 'pending', 'paid', 'done', 'displaced', 'expired', 'mismatch', 'paid_late', 'nothing']) out[`status ${status}`] = await j.sales.byStatus(status);
  for (const s of shifts) {
    out[`shift ${s.id}`] = await j.sales.byShift(s.id);
    out[`shift get ${s.id}`] = await j.shifts.get(s.id);
  }
  for (let d = 0; d < 12; d++) {
    out[`created day ${d}`] = await j.sales.createdBetween(START + d * DAY, START + (d + 1) * DAY);
    out[`events day ${d}`] = await j.eventsBetween(START + d * DAY + 10 * 3_600_000, START + (d + 1) * DAY);
  }
  for (const t of [...types, 'no.such.type']) out[`type ${t}`] = await j.eventsOfType(t);
  for (const id of [...webhookIds.filter((_, i) => i % 5 === 0), 'msg_never']) out[`webhook ${id}`] = await j.webhookSeq(id);
  return out;
}

describe('a verified checkpoint', () => {
  it('is written, and the next open reads only its segment and what follows it', async () => {
    const total = SHAPE.entries;
    let j = await openAt('j');
    // No checkpoint yet: the whole log is read once, and a checkpoint is left behind.
    expect(j.status().opened).toMatchObject({ checkpointSeq: null, checkpointIgnored: null, entriesRead: total, entriesApplied: total });
    await close(j);
    const segments = await segmentsOf('j');
    const lastSegment = await linesIn('j', segments.at(-1)!);
    expect(segments.length).toBeGreaterThan(8);

    j = await openAt('j');
    expect(j.status().opened).toEqual({ checkpointSeq: total, checkpointIgnored: null, entriesRead: lastSegment, entriesApplied: 0 });
    // Entries after the checkpoint are folded in: keep this checkpoint, write more, put it back.
    const kept = await readFile(join(dir, 'j', CHECKPOINT_FILE));
    await j.append([{ type: 'note', data: { n: 1 } }, { type: 'note', data: { n: 2 } }]);
    await j.recordWebhook('hook-new', { type: 'note', data: { n: 3 } });
    await close(j);
    await writeFile(join(dir, 'j', CHECKPOINT_FILE), kept);
    j = await openAt('j');
    expect(j.status().opened).toEqual({ checkpointSeq: total, checkpointIgnored: null, entriesRead: lastSegment + 3, entriesApplied: 3 });
    expect(await j.webhookSeq('hook-new')).toBe(total + 3);
    // The working set is a small part of the history's sales.
    const stats = await j.storeStats();
    expect(stats.sealedSegments).toBe(segments.length - 1);
    expect(stats.workingSetSales).toBeLessThan((await j.sales.createdBetween(0, Number.MAX_SAFE_INTEGER)).length / 3);
  });

  const disagreements: [string, (sub: string) => Promise<void>, RegExp][] = [
    [
      'another hash at its seq',
      async (sub) => {
        const file = JSON.parse(await readFile(join(dir, sub, CHECKPOINT_FILE), 'utf8')) as { hash: string };
        file.hash = file.hash.replace(/^./, (c) => (c === 'a' ? 'b' : 'a'));
        await writeFile(join(dir, sub, CHECKPOINT_FILE), JSON.stringify(file));
      },
      /not the one the checkpoint was taken at/,
    ],
    [
      'a log cut short before it',
      async (sub) => {
        const last = (await segmentsOf(sub)).at(-1)!;
        const lines = (await readFile(join(dir, sub, last), 'utf8')).split('\n').slice(0, -1);
        await writeFile(join(dir, sub, last), lines.slice(0, -5).map((l) => l + '\n').join(''));
      },
      /ends before the checkpoint/,
    ],
    [
      'a sealed segment of another size',
      async (sub) => {
        const second = (await segmentsOf(sub))[1]!;
        const text = await readFile(join(dir, sub, second), 'utf8');
        await writeFile(join(dir, sub, second), text.slice(0, text.lastIndexOf('\n', text.length - 2) + 1));
      },
      /is \d+ bytes, it sealed \d+/,
    ],
    [
      'a bad format',
      async (sub) => writeFile(join(dir, sub, CHECKPOINT_FILE), '{"version":1,"seq":'),
      /not valid JSON/,
    ],
    [
      // Its rows go into the working set as they are read: the open starts again without it.
      'a sale row damaged after its members were taken',
      async (sub) => {
        const lines = (await readFile(join(dir, sub, CHECKPOINT_FILE), 'utf8')).split('\n');
        lines[3] = '{"sale_id":';
        await writeFile(join(dir, sub, CHECKPOINT_FILE), lines.join('\n'));
      },
      /not valid JSON \(line 4\)/,
    ],
    [
      'a sale row that is not one',
      async (sub) => {
        const lines = (await readFile(join(dir, sub, CHECKPOINT_FILE), 'utf8')).split('\n');
        lines[2] = '[1,2],';
        await writeFile(join(dir, sub, CHECKPOINT_FILE), lines.join('\n'));
      },
      /holds a sale row that is not one/,
    ],
    [
      'another version',
      async (sub) => {
        const file = JSON.parse(await readFile(join(dir, sub, CHECKPOINT_FILE), 'utf8')) as { version: number };
        file.version = 99;
        await writeFile(join(dir, sub, CHECKPOINT_FILE), JSON.stringify(file));
      },
      /version 99/,
    ],
  ];
  for (const [what, damage, reason] of disagreements) {
    it(`is ignored and the journal rebuilt from the log when it disagrees with it: ${what}`, async () => {
      await close(await openAt('j'));
      await damage('j');
      const j = await openAt('j');
      expect(j.status().opened.checkpointSeq).toBeNull();
      expect(j.status().opened.checkpointIgnored).toMatch(reason);
      const lastSeq = j.status().lastSeq;
      expect(j.status().opened.entriesRead).toBe(lastSeq);
      const ref = await reference('j', 'ref');
      const entries = (await j.eventsBetween(0, Number.MAX_SAFE_INTEGER)).sort((a, b) => a.seq - b.seq);
      expect(entries).toHaveLength(lastSeq);
      expect(await everyAnswer(j, entries)).toEqual(await everyAnswer(ref, entries));
    });
  }

  it('is ignored when a segment it sealed is gone, and the gap is reported, not papered over', async () => {
    await close(await openAt('j'));
    await unlink(join(dir, 'j', (await segmentsOf('j'))[2]!));
    const j = await openAt('j');
    expect(j.status().opened.checkpointIgnored).toMatch(/missing|not the one it sealed|vouches for/);
    expect(j.status().state).toBe('corrupt');
    expect(j.status().corruption).toMatchObject({ reason: expect.stringMatching(/expected seq/) });
  });

  it('a crash in the middle of writing one leaves a journal that opens with everything acknowledged', async () => {
    await close(await openAt('j'));
    const acked = await new Promise<{ lines: string[]; signal: NodeJS.Signals | null }>((resolve, reject) => {
      const child = spawn(process.execPath, [CRASHER, join(dir, 'j'), String(lastAt + 120_000)], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', (b: Buffer) => (out += b.toString()));
      child.stderr.on('data', (b: Buffer) => (err += b.toString()));
      child.on('error', reject);
      child.on('exit', (_code, signal) => (signal === 'SIGKILL' ? resolve({ lines: out.split('\n'), signal }) : reject(new Error(`the child was not killed: ${out} ${err}`))));
    });
    expect(acked.signal).toBe('SIGKILL');
    // The new checkpoint's temp file was fsync'd, never renamed: the old one is still whole.
    expect((await stat(join(dir, 'j', `${CHECKPOINT_FILE}.tmp`))).size).toBeGreaterThan(0);
    const j = await openAt('j', {}, lastAt + 180_000);
    expect(j.status()).toMatchObject({ state: 'healthy', lastSeq: SHAPE.entries + 1 });
    expect(j.status().opened).toMatchObject({ checkpointSeq: SHAPE.entries, checkpointIgnored: null, entriesApplied: 1 });
    expect(await j.eventsOfType('note')).toHaveLength(1);
    expect(await j.verify()).toEqual({ ok: true, entries: SHAPE.entries + 1 });
  });
});

describe('a record JSON would change', () => {
  it('is never checkpointed: the checkpoint is not written and the next open rebuilds from the log', async () => {
    const generated = entriesOf(generateHistory(SHAPE));
    const lastSale = String(generated.findLast((e) => e.type === 'sale.created')!.data.sale_id);
    const reduceSale: typeof generatedSaleReducer = (current, entry, saleId) => {
      const next = generatedSaleReducer(current, entry, saleId);
      return next && saleId === lastSale ? { ...next, ratio: Infinity } : next;
    };
    let j = await openAt('j', { reduceSale });
    expect(await j.storeStats()).toMatchObject({ checkpointsWritten: 0, checkpointFailures: 1 });
    await close(j);
    await expect(stat(join(dir, 'j', CHECKPOINT_FILE))).rejects.toThrow(/ENOENT/);
    j = await openAt('j', { reduceSale });
    expect(j.status().opened.checkpointSeq).toBeNull();
    expect(await j.sales.get(lastSale)).toMatchObject({ ratio: Infinity });
  });
});

describe('history outside the working set, read on demand', () => {
  it('answers every query as a full replay does, also for late events on old sales', async () => {
    const generated = entriesOf(generateHistory(SHAPE));
    let j = await openAt('j');
    await close(j);
    j = await openAt('j');
    // A late payment for a sale long gone from the working set must still find its sale,
    // and a webhook-id journaled days ago must still be a duplicate.
    const old = generated.find((e) => e.type === 'charge.paid' && e.at < START + 2 * DAY)!;
    const oldSaleId = String(old.data.sale_id);
    expect(await j.storeStats()).toMatchObject({ indexLoads: 0 });
    const found = await j.sales.byPixId(`pix_${oldSaleId}`);
    expect(found?.sale_id).toBe(oldSaleId);
    expect((await j.storeStats()).indexLoads).toBeGreaterThan(0);
    expect(await j.recordWebhook(String(old.data.webhook_id), { type: 'charge.paid', data: { sale_id: oldSaleId } })).toBe('duplicate');
    expect(await j.recordWebhook('hook-late', { type: 'payment.received', data: { sale_id: oldSaleId, amount_cents: 1 } })).toBe('recorded');
    expect(await j.sales.get(oldSaleId)).toMatchObject({ status: 'paid_late', needs_person: 'yes' });
    await j.append([{ type: 'sale.acknowledged', data: { sale_id: String(generated.find((e) => e.type === 'sale.expired')!.data.sale_id), by: 'ana' } }]);

    const ref = await reference('j', 'ref');
    const all = [...generated, ...(await j.eventsBetween(lastAt, Number.MAX_SAFE_INTEGER)).filter((e) => e.seq > SHAPE.entries)];
    const answers = await everyAnswer(j, all);
    expect(answers).toEqual(await everyAnswer(ref, all));
    // And the entries themselves against the generated ones, independently of any index.
    expect(await j.eventsBetween(0, Number.MAX_SAFE_INTEGER)).toEqual([...all].sort((a, b) => a.at - b.at || a.seq - b.seq));
    for (const t of ['shift.opened', 'payment.received', 'sale.expired']) expect(await j.eventsOfType(t)).toEqual(all.filter((e) => e.type === t));

    // After a restart, from the checkpoint, the answers are the same again.
    await close(j);
    j = await openAt('j');
    expect(j.status().opened.checkpointSeq).toBe(all.length);
    expect(await everyAnswer(j, all)).toEqual(answers);
  });

  it('rebuilds a segment index that is missing or stale, with the same answers', async () => {
    await close(await openAt('j'));
    const indexes = (await readdir(join(dir, 'j'))).filter((n) => n.endsWith('.index.json')).sort();
    await unlink(join(dir, 'j', indexes[1]!));
    const stale = JSON.parse(await readFile(join(dir, 'j', indexes[3]!), 'utf8')) as { summary: { lastSeq: number } };
    stale.summary.lastSeq += 1;
    await writeFile(join(dir, 'j', indexes[3]!), JSON.stringify(stale));
    const j = await openAt('j');
    const entries = entriesOf(generateHistory(SHAPE));
    const ref = await reference('j', 'ref');
    expect(await everyAnswer(j, entries)).toEqual(await everyAnswer(ref, entries));
    expect((await j.storeStats()).indexRebuilds).toBe(2);
  });
});

describe('checkpointed projections', () => {
  const paidCents: Projection<{ count: number; cents: number }> = {
    initial: { count: 0, cents: 0 },
    reduce: (s, e) => (e.type === 'charge.paid' || e.type === 'payment.received' ? { count: s.count + 1, cents: s.cents + Number(e.data.amount_cents) } : s),
  };
  const expected = (entries: readonly JournalEntry[]) => entries.reduce(paidCents.reduce, paidCents.initial);

  it('fold every entry, are kept in the checkpoint, and go on from it at the next open', async () => {
    const generated = entriesOf(generateHistory(SHAPE));
    let j = await openAt('j', { projections: { paid: paidCents } });
    expect(j.projection('paid')).toEqual(expected(generated));
    await close(j);
    j = await openAt('j', { projections: { paid: paidCents } });
    expect(j.status().opened.entriesApplied).toBe(0);
    expect(j.projection('paid')).toEqual(expected(generated));
    await j.recordWebhook('hook-proj', { type: 'charge.paid', data: { amount_cents: 250 } });
    const { count, cents } = expected(generated);
    expect(j.projection('paid')).toEqual({ count: count + 1, cents: cents + 250 });
    expect(() => j.projection('nothing')).toThrow(/no projection/);
  });

  it('a projection the checkpoint does not keep makes the open rebuild it from the whole log', async () => {
    const generated = entriesOf(generateHistory(SHAPE));
    await close(await openAt('j'));
    const j = await openAt('j', { projections: { paid: paidCents } });
    expect(j.status().opened.checkpointIgnored).toMatch(/projections/);
    expect(j.projection('paid')).toEqual(expected(generated));
  });
});

describe('verify', () => {
  it('streams one segment at a time and can be stopped: it never holds the history', async () => {
    const j = await openAt('j');
    const segments = await segmentsOf('j');
    const counts: number[] = [];
    for (const s of segments) counts.push((counts.at(-1) ?? 0) + (await linesIn('j', s)));
    const stream = j.verifySegments();
    expect(typeof stream[Symbol.asyncIterator]).toBe('function');
    const seen: unknown[] = [];
    for await (const p of stream) seen.push(p);
    expect(seen).toEqual([...segments.map((segment, i) => ({ done: false, segment, entries: counts[i] })), { done: true, result: { ok: true, entries: SHAPE.entries } }]);
    // Stopped after the first segment: the scan stops with it, and a later verify still works.
    for await (const p of j.verifySegments()) {
      expect(p).toEqual({ done: false, segment: segments[0], entries: counts[0] });
      break;
    }
    expect(await j.verify()).toEqual({ ok: true, entries: SHAPE.entries });
  });
});

/**
 * Points 8 and 11 together: a checkpoint across a manager's new chain, and a failing disk
 * under a checkpoint's write. The file operations go through the log's seam (JournalFs).
 */
describe('checkpoints and a damaged journal', () => {
  /** Rewrites one line of a segment: damage as a disk or a hand would leave it. */
  async function damage(sub: string, segment: string, line: number, edit: (text: string) => string): Promise<void> {
    const all = (await readFile(join(dir, sub, segment), 'utf8')).split('\n').slice(0, -1);
    all[line - 1] = edit(all[line - 1]!);
    await writeFile(join(dir, sub, segment), all.map((l) => l + '\n').join(''));
  }
  const note = (n: number) => ({ type: 'note', data: { n } });

  it('after Start a new chain, a reopen starts from the checkpoint, the break stays acknowledged, and history answers over both chains', async () => {
    const generated = entriesOf(generateHistory(SHAPE));
    // A checkpoint exists (taken at the end of the log) before the damage.
    await close(await openAt('j'));
    const segments = await segmentsOf('j');
    const brokenSegment = segments[5]!;
    await damage('j', brokenSegment, 50, (t) => t.replace('"data":{', '"data":{"forged":1,'));

    let j = await openAt('j');
    expect(j.status().state).toBe('corrupt');
    // The checkpoint's sealed segment changed: it is void, the open read the log itself.
    expect(j.status().opened).toMatchObject({ checkpointSeq: null, checkpointIgnored: expect.stringMatching(/bytes, it sealed/) });
    const start = await j.startNewChain('Marta (manager)');
    const chainTwo = await j.append([note(1), note(2)]);
    await j.recordWebhook('hook-chain-2', note(3));
    const status = j.status();
    expect(status.state).toBe('healthy');
    expect(status.acknowledgedBreaks).toHaveLength(1);
    await close(j);

    // Closed after the new chain: the checkpoint was written, and it names the break.
    const file = JSON.parse(await readFile(join(dir, 'j', CHECKPOINT_FILE), 'utf8')) as { seq: number; segment: string; acknowledgedBreaks: { restart: { seq: number } }[]; tails: { name: string }[] };
    expect(file.seq).toBe(start.seq + 3);
    expect(file.segment).toBe(start.at && `journal-c0002-${new Date(start.at).toISOString().slice(0, 10)}.jsonl`);
    expect(file.acknowledgedBreaks.map((b) => b.restart.seq)).toEqual([start.seq]);
    expect(file.tails.map((t) => t.name)).toEqual(segments.slice(5));

    // Its own segment starts the chain: only that segment is read, and its first entry is
    // checked again against the break; nothing is rebuilt.
    j = await openAt('j');
    expect(j.status().opened).toEqual({ checkpointSeq: start.seq + 3, checkpointIgnored: null, entriesRead: 4, entriesApplied: 0 });
    expect(j.status().state).toBe('healthy');
    expect(j.status().acknowledgedBreaks).toEqual(status.acknowledgedBreaks);

    // A later day in the new chain: the chain-2 segment that starts the chain is sealed
    // (its index named after it) and the next open starts after it.
    await close(j);
    j = await openAt('j', {}, lastAt + 2 * DAY);
    const later = await j.append([note(4)]);
    await close(j);
    const names = await readdir(join(dir, 'j'));
    expect(names).toContain(file.segment.replace(/\.jsonl$/, '.index.json'));
    j = await openAt('j', {}, lastAt + 2 * DAY);
    expect(j.status().opened).toEqual({ checkpointSeq: later.lastSeq, checkpointIgnored: null, entriesRead: 1, entriesApplied: 0 });
    expect(j.status().acknowledgedBreaks).toEqual(status.acknowledgedBreaks);
    expect(await j.verify()).toEqual({ ok: true, entries: expect.any(Number), acknowledgedBreaks: status.acknowledgedBreaks });

    // Every query answers as a full replay does: history before the break, the new chain after it.
    const all = [...generated, start, ...chainTwo.entries, ...later.entries];
    const ref = await reference('j', 'ref');
    expect(ref.status().opened.checkpointSeq).toBeNull();
    const answers = await everyAnswer(j, all);
    expect(answers).toEqual(await everyAnswer(ref, all));
    expect(answers['type note']).toHaveLength(4);
    expect(await j.webhookSeq('hook-chain-2')).toBe(start.seq + 3);
    expect(await ref.webhookSeq('hook-chain-2')).toBe(start.seq + 3);
    // Entries of the old tail (after the break) are in no answer.
    expect(answers[`type ${CHAIN_STARTED}`]).toEqual([start]);
  });

  it('a checkpoint that names a chain start no longer on disk as it was is void', async () => {
    await close(await openAt('j'));
    const segments = await segmentsOf('j');
    await damage('j', segments.at(-1)!, 10, (t) => t.replace('"data":{', '"data":{"forged":1,'));
    let j = await openAt('j');
    await j.startNewChain('Marta (manager)');
    await close(j);
    j = await openAt('j', {}, lastAt + 2 * DAY);
    await j.append([note(1)]);
    await close(j);
    // The chain start is rewritten (same break named, another signer of the same length):
    // the file keeps its size, only reading that first entry again finds it.
    const chainStart = (await segmentsOf('j')).find((n) => n.startsWith('journal-c0002-'))!;
    await damage('j', chainStart, 1, (t) => t.replace('Marta (manager)', 'Malle (forger!)'));
    j = await openAt('j', {}, lastAt + 2 * DAY);
    expect(j.status().opened.checkpointIgnored).toMatch(/does not start with the entry that acknowledges the break/);
    expect(j.status().state).toBe('corrupt');
  });

  it('damage before the checkpoint head in its own segment, of the same size, voids it', async () => {
    const total = SHAPE.entries;
    await close(await openAt('j'));
    const last = (await segmentsOf('j')).at(-1)!;
    const lines = await linesIn('j', last);
    // One digit for another: the segment keeps its size, the head line stays as it was.
    await damage('j', last, 2, (t) => t.replace(/"at":(\d+)/, (_, at: string) => `"at":${at.slice(0, -1)}${at.endsWith('1') ? '2' : '1'}`));
    const j = await openAt('j');
    expect(j.status().opened.checkpointSeq).toBeNull();
    expect(j.status().opened.checkpointIgnored).toMatch(/ends before the checkpoint/);
    expect(j.status().state).toBe('corrupt');
    expect(j.status().corruption).toMatchObject({ segment: last, line: 2, seq: total - lines + 2 });
    const ref = await reference('j', 'ref');
    const generated = entriesOf(generateHistory(SHAPE));
    expect(await everyAnswer(j, generated)).toEqual(await everyAnswer(ref, generated));
  });

  it('a disk that fails under a checkpoint: nothing written while it fails, the old checkpoint stays whole, and it heals', async () => {
    const { disk, fs } = failingDisk();
    const hand = handTimers();
    await close(await openAt('j'));
    const before = await readFile(join(dir, 'j', CHECKPOINT_FILE));
    let j = await openAt('j', { fs, timers: hand.timers, checkpointEvery: 1 });
    const first = await j.append([note(1)]);
    // checkpointEvery 1: a checkpoint follows the append (written when the store's queue runs).
    await j.storeStats();
    const afterFirst = (await j.storeStats()).checkpointsWritten;

    // The whole disk fails: the append is refused, no checkpoint is written while it fails.
    disk.fault = { code: 'ENOSPC' };
    await expect(j.append([note(2)])).rejects.toMatchObject({ code: 'journal_unavailable', params: { problem: 'journal_disk_full' } });
    expect(j.status().state).toBe('failed');

    // The log's files work again but the checkpoint's temp file does not: the log heals,
    // appends work, and the checkpoint write fails without harm.
    disk.fault = { code: 'EIO', only: /checkpoint\.json\.tmp$/ };
    await hand.fire();
    expect(j.status().state).toBe('healthy');
    const third = await j.append([note(3)]);
    await j.append([note(4)]);
    const stats = await j.storeStats();
    expect(stats.checkpointFailures).toBeGreaterThan(0);
    expect(stats.checkpointsWritten).toBe(afterFirst);
    const kept = JSON.parse(await readFile(join(dir, 'j', CHECKPOINT_FILE), 'utf8')) as { seq: number };
    expect(kept.seq).toBeLessThanOrEqual(first.lastSeq);
    expect(kept.seq).toBeGreaterThanOrEqual(JSON.parse(before.toString('utf8')).seq as number);

    // Healed: close writes the checkpoint, and the next open starts from it.
    disk.fault = null;
    await close(j);
    j = await openAt('j');
    expect(j.status().opened).toMatchObject({ checkpointSeq: third.lastSeq + 1, checkpointIgnored: null, entriesApplied: 0 });
    expect(j.status().state).toBe('healthy');
    expect((await j.eventsOfType('note')).map((e) => e.data.n)).toEqual([1, 3, 4]);
    expect(await j.verify()).toMatchObject({ ok: true });
  });
});

type DiskFault = { code: 'ENOSPC' | 'EIO'; only?: RegExp };

/** node:fs/promises through the journal's seam, with writes and fsyncs that fail on demand. */
function failingDisk() {
  const disk = { fault: null as DiskFault | null };
  const fails = (path: string) => disk.fault !== null && (disk.fault.only === undefined || disk.fault.only.test(path));
  const errnoError = (code: string) => Object.assign(new Error(`${code}: simulated disk failure`), { code });
  const wrap = (path: string, file: JournalFile): JournalFile => ({
    read: (b, o, l, p) => file.read(b, o, l, p),
    write: (buffer, offset, length) => (fails(path) ? Promise.reject(errnoError(disk.fault!.code)) : file.write(buffer, offset, length)),
    datasync: () => (fails(path) ? Promise.reject(errnoError(disk.fault!.code)) : file.datasync()),
    sync: () => (fails(path) ? Promise.reject(errnoError(disk.fault!.code)) : file.sync()),
    stat: () => file.stat(),
    truncate: (n) => file.truncate(n),
    close: () => file.close(),
  });
  const fs: JournalFs = {
    ...nodeJournalFs,
    open: async (path, flags, mode) => wrap(path, await nodeJournalFs.open(path, flags, mode)),
    rename: (from, to) => (fails(from) ? Promise.reject(errnoError(disk.fault!.code)) : nodeJournalFs.rename(from, to)),
  };
  return { disk, fs };
}

