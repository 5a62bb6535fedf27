/**
 * `npm run bench:postgres-start -- --database-url U [--entries N] [--no-write]`: how a
 * PostgreSQL-backed core starts over a long history. Generates N journal entries (1,000,000 by
 * default: about three years of a busy store, the same history the embedded journal's start-up
 * row uses), imports them into a database of their own through the adapter's import, then opens
 * the journal in three fresh processes, each as the core does at start (one pool, the schema
 * checked, the adapter opened: head, projections, counters) and asks the questions a starting
 * core asks (open shifts, sales pending at the service, sales needing a person) and a past
 * shift's report. Prints the median start, the RSS, and writes its section of BENCHMARKS.md.
 * Measures only: asserts nothing. The database is dropped at the end.
 *
 *   node postgres-start.ts start <url> <clockMs>   one cold start (a child process; prints a JSON line)
 */
import { readFile, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ManualClock } from '../shared/clock.ts';
import { canonicalJson, entryHash, GENESIS_PREV, type JsonObject } from '../core/journal/canonical.ts';
import type { JournalEntry } from '../core/journal/port.ts';
import { openPool } from '../postgres/connect.ts';
import { openPostgresJournal } from '../postgres/journal.ts';
import { migrate } from '../postgres/migrate.ts';
import { GENERATED_OPEN_STATUSES, generatedSaleReducer, generateHistory } from './generate-history.ts';
import { PER_DAY } from './journal-history.ts';
import { machine, markdownTable, renderMarkedSection, runJsonStep, runToExit, type Row, openBenchDatabase, DATABASE_BENCH_OPTIONS, benchServerUrl, countOption } from './report.ts';

const MB = 1024 * 1024;
const DAY_MS = 24 * 60 * 60 * 1000;
const ENTRIES = 1_000_000;
const STARTS = 3;
/** Entries a transaction of the import carries (the import CLI's own batch). */
const IMPORT_BATCH = 5_000;
const round1 = (v: number) => Math.round(v * 10) / 10;
const n = (v: number) => v.toLocaleString('en-US');

export const PG_START_START = '<!-- bench:postgres-start -->';
export const PG_START_END = '<!-- /bench:postgres-start -->';
const BENCHMARKS_FILE = join(fileURLToPath(new URL('../..', import.meta.url)), 'BENCHMARKS.md');
const SELF = fileURLToPath(import.meta.url);

interface StartResult {
  /** Pool opened and its first connection made. */
  connectMs: number;
  /** The schema checked (nothing to apply at a restart). */
  migrateMs: number;
  /** The adapter opened: head entry, projections, failure counter. */
  openMs: number;
  /** The three questions a starting core asks, answered. */
  firstAnswersMs: number;
  totalMs: number;
  rssMb: number;
  lastSeq: number;
  openShifts: number;
  pendingSales: number;
  needingPerson: number;
  shiftReportMs: number;
  shiftSales: number;
  shiftEvents: number;
}

/** One cold start in this process, as the core's composition does it. */
async function start(url: string, clockMs: number): Promise<StartResult> {
  const t0 = performance.now();
  const sql = await openPool({ url });
  const t1 = performance.now();
  await migrate(sql);
  const t2 = performance.now();
  const journal = await openPostgresJournal({ sql, clock: new ManualClock(clockMs), reduceSale: generatedSaleReducer, endPoolOnClose: true });
  const t3 = performance.now();
  const [open, pending, needing] = await Promise.all([
    journal.shifts.open(),
    Promise.all(GENERATED_OPEN_STATUSES.map((s) => journal.sales.byStatus(s))),
    journal.sales.needingPersonAnywhere(),
  ]);
  const t4 = performance.now();
  const rssMb = round1(process.memoryUsage().rss / MB);
  // A shift from the middle of history: never read since the import.
  const first = (await journal.shifts.openedBetween(0, Number.MAX_SAFE_INTEGER))[0];
  const mid = first === undefined ? 0 : first.opened_at + Math.floor((clockMs - first.opened_at) / 2 / DAY_MS) * DAY_MS;
  const shift = (await journal.shifts.openedBetween(mid, mid + DAY_MS))[0];
  if (shift?.closed_at === undefined) throw new Error('bench: no closed shift in the middle of history');
  const t5 = performance.now();
  const sales = await journal.sales.byShift(shift.id);
  const events = await journal.eventsBetween(shift.opened_at, shift.closed_at + 1);
  const shiftReportMs = round1(performance.now() - t5);
  const lastSeq = journal.status().lastSeq;
  await journal.close();
  return {
    connectMs: round1(t1 - t0),
    migrateMs: round1(t2 - t1),
    openMs: round1(t3 - t2),
    firstAnswersMs: round1(t4 - t3),
    totalMs: round1(t4 - t0),
    rssMb,
    lastSeq,
    openShifts: open.length,
    pendingSales: pending.flat().length,
    needingPerson: needing.length,
    shiftReportMs,
    shiftSales: sales.length,
    shiftEvents: events.length,
  };
}

function startInChild(url: string, clockMs: number): Promise<StartResult> {
  return runJsonStep<StartResult>('postgres-start', SELF, ['start', url, String(clockMs)]);
}

/** The generated history as journal entries, hash-chained, in batches. */
function* batches(entries: number, startMs: number): Generator<JournalEntry[]> {
  let seq = 0;
  let prev = GENESIS_PREV;
  let batch: JournalEntry[] = [];
  for (const input of generateHistory({ entries, perDay: PER_DAY, startMs, seed: 2026 })) {
    seq++;
    const text = canonicalJson(input.data);
    const hash = entryHash(seq, prev, input.at, input.type, text);
    batch.push({ seq, prev, hash, at: input.at, type: input.type, data: JSON.parse(text) as JsonObject });
    prev = hash;
    if (batch.length === IMPORT_BATCH) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function main(): Promise<void> {
  const [step, stepUrl, clockArg] = process.argv.slice(2);
  if (step === 'start') {
    process.stdout.write(JSON.stringify(await start(stepUrl!, Number(clockArg))) + '\n');
    return;
  }
  const { values } = parseArgs({ options: { ...DATABASE_BENCH_OPTIONS, entries: { type: 'string' } }, strict: true });
  const serverUrl = benchServerUrl(values['database-url'], 'bench:postgres-start');
  const entries = countOption(values.entries, 'entries', ENTRIES, 10_000);
  const bench = await openBenchDatabase(serverUrl, 'pos_bench_start');
  const { admin, name } = bench;
  const url = new URL(bench.url);
  const loadAtStart = loadavg()[0]!.toFixed(1);
  try {
    console.log(`bench:postgres-start: ${machine()}`);
    const startMs = Date.UTC(2023, 0, 2);
    const sql = await openPool({ url: url.toString() });
    await migrate(sql);
    let clockMs = startMs;
    const t0 = performance.now();
    const journal = await openPostgresJournal({ sql, clock: new ManualClock(startMs), reduceSale: generatedSaleReducer, endPoolOnClose: true });
    let done = 0;
    for (const batch of batches(entries, startMs)) {
      await journal.importEntries(batch);
      done += batch.length;
      clockMs = batch.at(-1)!.at;
      if (done % 100_000 === 0) process.stdout.write(`bench:postgres-start: imported ${n(done)} of ${n(entries)} entries (${n(Math.round(done / ((performance.now() - t0) / 1000)))}/s)\n`);
    }
    const importMs = Math.round(performance.now() - t0);
    await journal.close();
    const [size] = await admin<{ bytes: string }[]>`select pg_database_size(${name})::text as bytes`;
    const starts: StartResult[] = [];
    for (let i = 0; i < STARTS; i++) starts.push(await startInChild(url.toString(), clockMs + DAY_MS));
    const m = (pick: (r: StartResult) => number) => median(starts.map(pick));
    const row = starts.find((r) => r.totalMs === m((r) => r.totalMs))!;
    const rows: Row[] = [
      {
        what: `PostgreSQL-backed journal, cold start over ${n(row.lastSeq)} entries`,
        figure: `${m((r) => r.totalMs)} ms, RSS ${m((r) => r.rssMb)} MB`,
        detail: `median of ${STARTS} fresh processes (${starts.map((r) => r.totalMs).join(' / ')} ms): pool and first connection ${m((r) => r.connectMs)} ms, schema checked ${m((r) => r.migrateMs)} ms, adapter open (head entry, projections, counters) ${m((r) => r.openMs)} ms, a starting core's questions (open shifts ${row.openShifts}, sales open at the service ${n(row.pendingSales)}, needing a person ${n(row.needingPerson)}) ${m((r) => r.firstAnswersMs)} ms; nothing of the history is read`,
      },
      {
        what: `A past shift's report, ${n(row.lastSeq)}-entry database`,
        figure: `${m((r) => r.shiftReportMs)} ms`,
        detail: `sales.byShift (${n(row.shiftSales)} sales) + eventsBetween over the shift (${n(row.shiftEvents)} entries), mid-history, the first question after a start`,
      },
      {
        what: `Import of the ${n(entries)}-entry history`,
        figure: `${n(Math.round(entries / (importMs / 1000)))} entries/s`,
        detail: `${n(importMs)} ms in transactions of ${n(IMPORT_BATCH)} entries with their sale rows; database ${round1(Number(size!.bytes) / MB)} MB on disk`,
      },
    ];
    const table = markdownTable(rows);
    console.log(table);
    if (values['no-write']) return;
    const section = `## A PostgreSQL-backed core's start over a long history (\`npm run bench:postgres-start -- --database-url U\`)\n\nOne run: ${machine()}, PostgreSQL on the same machine, load ${loadAtStart} → ${loadavg()[0]!.toFixed(1)}. The history is the one the embedded journal's start-up row above uses (about 1,000 entries a day), imported through the adapter. Issue target: under 2 s with RSS under 250 MB.\n\n${table}\n`;
    const existing = await readFile(BENCHMARKS_FILE, 'utf8').catch(() => null);
    await writeFile(BENCHMARKS_FILE, renderMarkedSection(existing, PG_START_START, PG_START_END, section));
    console.log('bench:postgres-start: BENCHMARKS.md updated');
  } finally {
    await bench.drop();
  }
}

if (import.meta.main) runToExit(main);
