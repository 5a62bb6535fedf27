/**
 * `node --expose-gc electron/bench/working-set.ts`: what the terminal journal's working set
 * keeps per sale, and a start with a busy store's two days in it (issue 28, point 3).
 * A measurement, never a test: nothing asserts a duration or a size.
 *
 *   --per-sale N        appends N sales (intent, create's outcome, payment, charge.done, as the
 *                       terminal journals them) to a fresh journal; prints the heap the
 *                       process holds after a full gc, before and after, per sale
 *   --working-set N     writes a journal of N such sales spread over the last two days, opens it
 *                       once (no checkpoint: reads all, writes one), then starts from it in a
 *                       fresh process: prints the time to start, RSS and heap per sale
 *   --stall N           writes such a journal of N sales, then, in one fresh process each way
 *                       (every packed row unpacked at once, as before, and in slices), runs
 *                       the queries that return many rows (a day's and a week's createdBetween,
 *                       the shift report's day list and a day's report, the paid sales) while a till's work
 *                       waits: prints each query's time, the longest the event loop was held
 *                       (monitorEventLoopDelay) and how long an append started with it took
 *
 * Sales are synthesized with the terminal's own fact writers (saleFact, paymentFact) and folded
 * by its own reducer: the records are the app's, only the service's answers are made up
 * (ids, EMV text of the sandbox's length).
 */
import { spawn } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { getHeapStatistics } from 'node:v8';
import { openJournal } from '../core/journal/journal.ts';
import type { EntryInput, JournalPort } from '../core/journal/port.ts';
import { SALE_LIFETIME_MS, type SaleEvent } from '../core/sales/lifecycle.ts';
import { paymentFact, saleFact, type SaleRow } from '../core/terminal/entries.ts';
import { localDayOf } from '../core/terminal/local-day.ts';
import { Shifts } from '../core/terminal/shifts.ts';
import { TERMINAL_JOURNAL } from '../core/terminal/terminal.ts';
import { ManualClock } from '../shared/clock.ts';
import { mulberry32 } from '../shared/prng.ts';
import { writeHistory, type GeneratedInput } from './generate-history.ts';
import { runToExit } from './report.ts';

const MB = 1024 * 1024;
const DAY_MS = 86_400_000;
const CHECKOUTS = 64;
const round1 = (v: number) => Math.round(v * 10) / 10;

function gc(): void {
  const run = (globalThis as { gc?: () => void }).gc;
  if (!run) throw new Error('run with node --expose-gc: heap figures need a full collection');
  run();
  run();
}

function heapUsed(): number {
  gc();
  return getHeapStatistics().used_heap_size;
}

/** A uuid-shaped id (36 characters, as randomUUID's), deterministic for the bench. */
function idOf(rnd: () => number): string {
  const hex = (n: number) => Array.from({ length: n }, () => Math.floor(rnd() * 16).toString(16)).join('');
  return `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`;
}

/** One sale's four entries, at `at` on `checkout`, as the terminal writes them. */
function saleEntries(rnd: () => number, no: number, at: number, checkout: number, shiftId: string): GeneratedInput[] {
  const sale_id = idOf(rnd);
  const amount_cents = 100 + Math.floor(rnd() * 20_000);
  const amount_brl = (amount_cents / 100).toFixed(2);
  const pix_id = `pix_${idOf(rnd).replaceAll('-', '')}`;
  const service_id = `${1_000_000 + no}`;
  const emv = `00020101021226870014br.gov.bcb.pix2565pix.example.com/qr/v2/cobv/${idOf(rnd).replaceAll('-', '')}5204000053039865802BR5913LOJA EXEMPLO6009SAO PAULO62070503***6304${idOf(rnd).slice(0, 4).toUpperCase()}`;
  const requested: SaleEvent = { type: 'sale.requested', sale_id, idempotency_key: idOf(rnd), store_id: 1, checkout_id: checkout, seq: no + 1, amount_cents, external_id: `order-${no}`, requested_by: 'cashier-1', at };
  const created: SaleEvent = { type: 'sale.created', sale_id, pix_id, service_id, qr_type: 'printed_dynamic', emv, pqr_emv: null, amount_brl, store_id: 1, checkout_id: checkout, created_at: at + 40, expires_at: at + 40 + SALE_LIFETIME_MS, at: at + 40 };
  const paidAt = at + 20_000;
  const e2e = `E${idOf(rnd).replaceAll('-', '').slice(0, 31)}`;
  const entries: [number, EntryInput][] = [
    [at, saleFact([requested], { shift_id: shiftId })],
    [at + 40, saleFact([created])],
    [paidAt + 50, paymentFact({ type: 'payment.received', source: 'webhook', webhook_id: `msg_${idOf(rnd)}`, pix_id, service_id, amount_brl, paid_at: paidAt, e2e_id: e2e, at: paidAt + 50 }, sale_id)],
    [paidAt + 80, paymentFact({ type: 'charge.done', webhook_id: `msg_${idOf(rnd)}`, pix_id, service_id, amount_brl, at: paidAt + 80 }, sale_id)],
  ];
  return entries.map(([t, e]) => ({ at: t, type: e.type, data: e.data as GeneratedInput['data'] }));
}

/** `sales` sales spread evenly over [fromMs, toMs), a shift a day opened at its first sale. */
export function* sales(count: number, fromMs: number, toMs: number, seed: number): Generator<GeneratedInput> {
  const rnd = mulberry32(seed);
  const step = (toMs - fromMs) / count;
  let day = '';
  // Entries of a sale run 20 s past its start: held back and merged in time order.
  let pending: GeneratedInput[] = [];
  for (let no = 0; no < count; no++) {
    const at = Math.floor(fromMs + no * step);
    const today = new Date(at).toISOString().slice(0, 10);
    const ready = pending.filter((e) => e.at <= at).sort((a, b) => a.at - b.at);
    pending = pending.filter((e) => e.at > at);
    yield* ready;
    if (today !== day) {
      day = today;
      yield { at, type: 'shift.opened', data: { shift_id: `shift-${today}`, by: 'manager' } };
    }
    pending.push(...saleEntries(rnd, no, at, 1 + (no % CHECKOUTS), `shift-${day}`));
  }
  yield* pending.sort((a, b) => a.at - b.at);
}

function open(dir: string, nowMs: number, unpackSlice?: number): Promise<JournalPort<SaleRow>> {
  return openJournal<SaleRow>({ ...TERMINAL_JOURNAL, dir, clock: new ManualClock(nowMs), ...(unpackSlice === undefined ? {} : { unpackSlice }) });
}

/** Appends `count` sales through the journal (fsync'd as the terminal's are), 16 in flight. */
async function perSale(count: number): Promise<Record<string, unknown>> {
  const dir = await mkdtemp(join(tmpdir(), 'pos-working-set-'));
  const now = Date.UTC(2026, 10, 27, 9);
  const clock = new ManualClock(now);
  try {
    const journal = await openJournal<SaleRow>({ ...TERMINAL_JOURNAL, dir, clock });
    // Made as they are appended: the inputs held at once would count as the journal's.
    const inputs = sales(count + 100, now, now + 12 * 3_600_000, 7);
    const feed = async (salesWanted: number) => {
      const chunk: EntryInput[] = [];
      const flush = async () => {
        if (chunk.length > 0) await journal.append(chunk.splice(0));
      };
      let seen = 0;
      for (;;) {
        const next = inputs.next();
        if (next.done) break;
        const { type, data } = next.value;
        // Shifts open through their own call, which checks them.
        if (type === 'shift.opened') {
          await flush();
          await journal.openShift(String(data.shift_id), 'manager');
        } else if (chunk.push({ type, data }) === 64) await flush();
        if (type === 'sale.requested' && ++seen === salesWanted) break;
      }
      await flush();
    };
    // A few sales first, so the figure is the growth, not the first sale's setup.
    await feed(100);
    const before = heapUsed();
    const rssBefore = process.memoryUsage().rss;
    const t0 = performance.now();
    await feed(Number.POSITIVE_INFINITY);
    const appendMs = performance.now() - t0;
    const after = heapUsed();
    // Before the close, whose checkpoint writes the whole working set once more.
    const memory = Object.fromEntries(Object.entries(process.memoryUsage()).map(([k, v]) => [k, round1(v / MB)]));
    const stats = await journal.storeStats();
    await journal.close();
    return {
      mode: 'per-sale',
      sales: count,
      workingSetSales: stats.workingSetSales,
      heapBeforeMb: round1(before / MB),
      heapAfterMb: round1(after / MB),
      heapPerSaleBytes: Math.round((after - before) / count),
      rssGrowthMb: round1((memory.rss! * MB - rssBefore) / MB),
      memory,
      appendMs: Math.round(appendMs),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** In a fresh process: start from the checkpoint, report its time, RSS and heap. */
async function startStep(dir: string, nowMs: number): Promise<Record<string, unknown>> {
  const heap0 = heapUsed();
  const t0 = performance.now();
  const journal = await open(dir, nowMs);
  const openMs = performance.now() - t0;
  const rssMb = round1(process.memoryUsage().rss / MB);
  const heap1 = heapUsed();
  const stats = await journal.storeStats();
  const status = journal.status();
  await journal.close();
  return { openMs: Math.round(openMs), rssMb, heapMb: round1(heap1 / MB), heapPerSaleBytes: Math.round((heap1 - heap0) / Math.max(1, stats.workingSetSales)), workingSetSales: stats.workingSetSales, entriesRead: status.opened.entriesRead, checkpointSeq: status.opened.checkpointSeq };
}

/**
 * In a fresh process: each query run five times (the first dropped: it warms the code), with
 * the event loop's delay sampled every millisecond and, started in the same turn as the query,
 * one append of a sale's intent (fsync'd, as a till's charge is): the longest stall and the
 * append's time are what a till would have waited.
 */
async function stallStep(dir: string, nowMs: number, unpackSlice: number | undefined): Promise<Record<string, unknown>> {
  const journal = await open(dir, nowMs, unpackSlice);
  const shifts = new Shifts(journal, new ManualClock(nowMs));
  const queries: [string, () => Promise<unknown>][] = [
    ['createdBetween, a day', () => journal.sales.createdBetween(nowMs - DAY_MS, nowMs + 1)],
    ['createdBetween, a week (unsettled list)', () => journal.sales.createdBetween(nowMs - 7 * DAY_MS, nowMs + 1)],
    ['shift report, days list (2 days)', () => shifts.days({ timeZone: 'UTC', count: 2 })],
    ['shift report, a day (20 h, about 42,000 sales)', () => shifts.dayReport({ day: localDayOf(nowMs, 'UTC'), timeZone: 'UTC' })],
    ["byStatus 'paid'", () => journal.sales.byStatus('paid')],
  ];
  const rnd = mulberry32(5);
  let no = 0;
  const results: Record<string, unknown>[] = [];
  try {
    for (const [name, run] of queries) {
      const runs: { queryMs: number; stallMs: number; appendMs: number }[] = [];
      for (let i = 0; i < 5; i++) {
        const h = monitorEventLoopDelay({ resolution: 1 });
        h.enable();
        // Let the sampler take a few samples before the query starts.
        await new Promise((r) => setTimeout(r, 20));
        const [intent] = saleEntries(rnd, 900_000 + no++, nowMs, 1 + (no % CHECKOUTS), 'bench-stall');
        const t0 = performance.now();
        let appendMs = 0;
        const append = journal.append([{ type: intent!.type, data: intent!.data }]).then(() => (appendMs = performance.now() - t0));
        await run();
        const queryMs = performance.now() - t0;
        await append;
        await new Promise((r) => setTimeout(r, 5));
        h.disable();
        // The histogram's values are the delay past the resolution, in ns.
        if (i > 0) runs.push({ queryMs, stallMs: h.max / 1e6, appendMs });
      }
      const median = (k: 'queryMs' | 'stallMs' | 'appendMs') => round1(runs.map((r) => r[k]).sort((a, b) => a - b)[runs.length >> 1]!);
      const max = (k: 'stallMs' | 'appendMs') => round1(Math.max(...runs.map((r) => r[k])));
      results.push({ query: name, queryMs: median('queryMs'), stallMs: median('stallMs'), stallMaxMs: max('stallMs'), appendMs: median('appendMs'), appendMaxMs: max('appendMs') });
    }
  } finally {
    await journal.close();
  }
  return { unpackSlice: unpackSlice ?? 'default', results };
}

function child(args: string[]): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.on('error', reject);
    p.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`working-set ${args[0]} exited with ${code}`));
      resolve(JSON.parse(out.trim().split('\n').at(-1)!) as Record<string, unknown>);
    });
  });
}

async function workingSet(count: number): Promise<Record<string, unknown>> {
  const dir = await mkdtemp(join(tmpdir(), 'pos-working-set-'));
  // Now is the end of the second day: every sale is of the last two days, so all stay.
  const now = Date.UTC(2026, 10, 27, 20);
  try {
    const t0 = performance.now();
    const written = await writeHistory(dir, sales(count, now - 2 * DAY_MS + 60_000, now - 60_000, 11));
    const writeMs = performance.now() - t0;
    const first = await child(['--step', 'start', '--dir', dir, '--now', String(now)]);
    const starts = [];
    for (let i = 0; i < 3; i++) starts.push(await child(['--step', 'start', '--dir', dir, '--now', String(now)]));
    starts.sort((a, b) => (a.openMs as number) - (b.openMs as number));
    return { mode: 'working-set', sales: count, entries: written.entries, segments: written.segments, writeMs: Math.round(writeMs), firstOpen: first, start: starts[1], starts: starts.map((s) => s.openMs) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The same journal, queried by a core unpacking all at once (as before) and by one unpacking in slices. */
async function stall(count: number): Promise<Record<string, unknown>> {
  const dir = await mkdtemp(join(tmpdir(), 'pos-working-set-'));
  const now = Date.UTC(2026, 10, 27, 20);
  try {
    await writeHistory(dir, sales(count, now - 2 * DAY_MS + 60_000, now - 60_000, 11));
    // The first open writes the checkpoint every later start reads.
    await child(['--step', 'start', '--dir', dir, '--now', String(now)]);
    // Each on its own copy: the appends of one do not reach the other.
    await cp(dir, `${dir}-sliced`, { recursive: true });
    const allAtOnce = await child(['--step', 'stall', '--dir', dir, '--now', String(now), '--slice', 'Infinity']);
    const sliced = await child(['--step', 'stall', '--dir', `${dir}-sliced`, '--now', String(now)]);
    return { mode: 'stall', sales: count, allAtOnce, sliced };
  } finally {
    await rm(dir, { recursive: true, force: true });
    await rm(`${dir}-sliced`, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { 'per-sale': { type: 'string' }, 'working-set': { type: 'string' }, stall: { type: 'string' }, step: { type: 'string' }, dir: { type: 'string' }, now: { type: 'string' }, slice: { type: 'string' } } });
  let out: Record<string, unknown>;
  if (values.step === 'start') out = await startStep(values.dir!, Number(values.now));
  else if (values.step === 'stall') out = await stallStep(values.dir!, Number(values.now), values.slice === undefined ? undefined : Number(values.slice));
  else if (values.stall !== undefined) out = await stall(Number(values.stall));
  else if (values['working-set'] !== undefined) out = await workingSet(Number(values['working-set']));
  else out = await perSale(Number(values['per-sale'] ?? 10_000));
  process.stdout.write(JSON.stringify(out) + '\n');
}

if (import.meta.main) runToExit(main);
