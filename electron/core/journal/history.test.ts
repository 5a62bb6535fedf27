import { spawn } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { CHECKPOINT_FILE } from './checkpoint.ts';
import { entriesOf, GENERATED_OPEN_STATUSES, generatedSaleReducer, generateHistory, writeHistory } from './generate.ts';
import type { GeneratedSale, HistoryShape } from './generate.ts';
import { openJournal } from './journal.ts';
import type { Journal, JournalEntry, OpenJournalOptions, Projection } from './journal.ts';

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
const opened: Journal<GeneratedSale>[] = [];

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

async function openAt(sub: string, extra: Partial<OpenJournalOptions<GeneratedSale>> = {}, clockMs = lastAt + 60_000): Promise<Journal<GeneratedSale>> {
  const j = await openJournal<GeneratedSale>({
    dir: join(dir, sub), clock: new ManualClock(clockMs), reduceSale: generatedSaleReducer, openStatuses: GENERATED_OPEN_STATUSES,
    // A small working set: most of the generated history is only reachable on demand.
    workingSetMs: DAY, webhookIdsMs: DAY, ...extra,
  });
  opened.push(j);
  return j;
}
async function close(j: Journal<GeneratedSale>): Promise<void> {
  opened.splice(opened.indexOf(j), 1);
  await j.close();
}

/** A copy of the journal opened with no checkpoint, no indexes and everything in the working set: what a full replay answers. */
async function reference(from: string, to: string): Promise<Journal<GeneratedSale>> {
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
async function everyAnswer(j: Journal<GeneratedSale>, entries: readonly JournalEntry[]) {
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
