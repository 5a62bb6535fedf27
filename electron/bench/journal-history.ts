/**
 * One step of the journal-history benchmark, in a process of its own so its memory is its
 * own (run.ts starts it; it prints one JSON line). Measures only: asserts nothing.
 * Wall-clock time here is measurement, not domain time.
 *
 *   node journal-history.ts rebuild <dir> <clockMs>  first open of a log with no checkpoint
 *   node journal-history.ts start <dir> <clockMs>    cold start from the checkpoint + a past shift's report
 *   node journal-history.ts verify <dir> <clockMs>   full verify, with the RSS sampled while it runs
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { ManualClock } from '../shared/clock.ts';
import { GENERATED_OPEN_STATUSES, generatedSaleReducer, generateHistory, writeHistory } from './generate-history.ts';
import { openJournal } from '../core/journal/journal.ts';
import { runJsonStep, runToExit } from './report.ts';
import type { OpenedFrom } from '../core/journal/port.ts';

const MB = 1024 * 1024;
const DAY_MS = 24 * 60 * 60 * 1000;
const round1 = (v: number) => Math.round(v * 10) / 10;

async function main(): Promise<void> {
  const [step, dir, clockArg] = process.argv.slice(2);
  if (!step || !dir || !clockArg) throw new Error('usage: journal-history.ts <rebuild|start|verify> <dir> <clockMs>');
  const options = { dir, clock: new ManualClock(Number(clockArg)), reduceSale: generatedSaleReducer, openStatuses: GENERATED_OPEN_STATUSES };
  const rssBefore = process.memoryUsage().rss;
  const t0 = performance.now();
  const journal = await openJournal(options);
  const openMs = performance.now() - t0;
  const rssOpen = process.memoryUsage().rss;
  const out: Record<string, unknown> = { step, openMs: Math.round(openMs), rssMb: round1(rssOpen / MB), opened: journal.status().opened, lastSeq: journal.status().lastSeq };
  if (step === 'start') {
    const stats = await journal.storeStats();
    out.workingSetSales = stats.workingSetSales;
    out.segments = stats.sealedSegments + 1;
    // A shift from the middle of history: long gone from the working set.
    const first = (await journal.shifts.openedBetween(0, Number.MAX_SAFE_INTEGER))[0];
    const mid = first === undefined ? 0 : first.opened_at + Math.floor((Number(clockArg) - first.opened_at) / 2 / DAY_MS) * DAY_MS;
    const shift = (await journal.shifts.openedBetween(mid, mid + DAY_MS))[0];
    if (shift?.closed_at === undefined) throw new Error('bench: no closed shift in the middle of history');
    const t1 = performance.now();
    const sales = await journal.sales.byShift(shift.id);
    const events = await journal.eventsBetween(shift.opened_at, shift.closed_at + 1);
    out.shiftReportMs = round1(performance.now() - t1);
    out.shiftSales = sales.length;
    out.shiftEvents = events.length;
    out.shiftId = shift.id;
  }
  if (step === 'verify') {
    let peak = process.memoryUsage().rss;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 20);
    const t1 = performance.now();
    const result = await journal.verify();
    const verifyMs = performance.now() - t1;
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);
    if (!result.ok) throw new Error(`bench: verify found a break: ${JSON.stringify(result.firstBroken)}`);
    out.verifyMs = Math.round(verifyMs);
    out.verifyPerSec = Math.round(result.entries / (verifyMs / 1000));
    out.verifyRssBeforeMb = round1(rssOpen / MB);
    out.verifyRssPeakMb = round1(peak / MB);
  }
  out.rssStartMb = round1(rssBefore / MB);
  await journal.close();
  process.stdout.write(JSON.stringify(out) + '\n');
}

/** What one child step printed. */
export interface StepResult {
  step: string;
  openMs: number;
  rssMb: number;
  opened: OpenedFrom;
  lastSeq: number;
  workingSetSales?: number;
  segments?: number;
  shiftReportMs?: number;
  shiftSales?: number;
  shiftEvents?: number;
  shiftId?: string;
  verifyMs?: number;
  verifyPerSec?: number;
  verifyRssBeforeMb?: number;
  verifyRssPeakMb?: number;
}

export interface HistorySizeResult {
  entries: number;
  generateMs: number;
  rebuild: StepResult;
  /** Cold starts from the checkpoint, one process each; the median is reported. */
  starts: StepResult[];
  verify: StepResult | null;
}

const SELF = fileURLToPath(import.meta.url);
/** About three years of a busy store: 1,000 entries a day. */
export const PER_DAY = 1_000;

function runStep(step: string, dir: string, clockMs: number): Promise<StepResult> {
  return runJsonStep<StepResult>(`journal-history ${step}`, SELF, [step, dir, String(clockMs)]);
}

/**
 * A generated history of `entries` entries (written straight into segments), then: the
 * first open (no checkpoint: reads everything, writes the indexes and the checkpoint),
 * `starts` cold starts from the checkpoint, and (if asked) a full verify. The data dir is
 * deleted afterwards.
 */
export async function benchJournalHistory(work: string, entries: number, options: { starts?: number; verify?: boolean } = {}): Promise<HistorySizeResult> {
  const dir = join(work, `history-${entries}`);
  const startMs = Date.UTC(2023, 0, 2);
  try {
    const t0 = performance.now();
    let lastAt = startMs;
    await writeHistory(dir, (function* () {
      for (const input of generateHistory({ entries, perDay: PER_DAY, startMs, seed: 2026 })) {
        lastAt = input.at;
        yield input;
      }
    })());
    const generateMs = Math.round(performance.now() - t0);
    const clockMs = lastAt + 60_000;
    const rebuild = await runStep('rebuild', dir, clockMs);
    const starts: StepResult[] = [];
    for (let i = 0; i < (options.starts ?? 3); i++) starts.push(await runStep('start', dir, clockMs));
    const verify = options.verify ? await runStep('verify', dir, clockMs) : null;
    return { entries, generateMs, rebuild, starts, verify };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The start whose open time is the median. */
export function medianStart(r: HistorySizeResult): StepResult {
  const sorted = [...r.starts].sort((a, b) => a.openMs - b.openMs);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

if (import.meta.main) runToExit(main);
