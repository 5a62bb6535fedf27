/**
 * `npm run bench`: the terminal core's figures, in one process and one run, each part
 * bounded in count and in time, printed as a table and written to BENCHMARKS.md (between
 * its markers: the cashier-screen section is another benchmark's, and is kept).
 *
 *   1. Journal: 100,000 events appended with fsync (group commit), then reopened and verified.
 *   1b. Journal history: generated journals of 10k, 100k and 1M entries (1,000 a day: the
 *      last about three years of a busy store): cold start from the checkpoint, a past
 *      shift's report read on demand, full verify; each step in a process of its own.
 *   2. Sandbox: create_dynamic_pix over loopback HTTP, throughput and latency.
 *   3. Webhook received → journaled: signed charge.paid deliveries POSTed one at a time to a
 *      core's receiver; the time from sending the POST to its 2xx, which the receiver sends
 *      only once the payment is fsync'd in the journal.
 *   4. Sales per second one core sustains across 8 printed checkouts: charge, the payer
 *      pays, the core has the sale paid; 8 checkouts at once.
 *   5. One core, 64 paired tills over the browser shell (tills.ts), in a process of its own
 *      so that its RSS is its own; it writes its own block of BENCHMARKS.md.
 *
 * Measurements, not tests: nothing here asserts a duration. Wall-clock time is what is
 * measured; domain time is still the core's clock.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { systemClock } from '../shared/clock.ts';
import { formatCents } from '../shared/money.ts';
import { webhookHeaders } from '../shared/standard-webhooks.ts';
import { loadConfig } from '../core/config.ts';
import type { Core } from '../core/core.ts';
import { composeCore } from '../compose.ts';
import { benchJournal, type JournalBenchResult } from './journal-throughput.ts';
import { serviceControl } from '../core/terminal/fixtures/service.ts';
import { benchCreateDynamicPix, type BenchResult } from '../sandbox/bench.ts';
import { benchJournalHistory, medianStart, type HistorySizeResult } from './journal-history.ts';
import { FIXTURE_WEBHOOK_SECRET } from '../sandbox/fixture.ts';
import { markdownTable, percentileMs, renderBenchmarks, quietLogger, runToExit, machine, type Row } from './report.ts';

const JOURNAL_EVENTS = 100_000;
const HISTORY_SIZES = [10_000, 100_000, 1_000_000];
const CREATE_REQUESTS = 20_000;
const CREATE_SECONDS = 20;
const WEBHOOK_DELIVERIES = 400;
const WEBHOOK_SECONDS = 30;
const CHECKOUTS = 8;
const SALES = 480;
const SALES_SECONDS = 30;
const DAY_SALES = 400;

const BENCHMARKS_FILE = fileURLToPath(new URL('../../BENCHMARKS.md', import.meta.url));


async function startCore(dataDir: string): Promise<{ core: Core; log: ReturnType<typeof quietLogger> }> {
  const log = quietLogger('bench');
  const core = await composeCore(loadConfig({ POS_DATA_DIR: dataDir, POS_LANG: 'en' }, []), { log });
  await core.start();
  return { core, log };
}

function post(url: string, headers: Record<string, string>, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

export interface WebhookLatencyResult {
  deliveries: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  maxMs: number;
}

/**
 * One delivery at a time, each a charge.paid for a sale the core holds pending, signed with
 * the core's secret at its clock's time. Measured: POST sent → 2xx answered.
 */
export async function benchWebhookLatency(dataDir: string, deliveries = WEBHOOK_DELIVERIES, maxSeconds = WEBHOOK_SECONDS): Promise<WebhookLatencyResult> {
  const { core } = await startCore(dataDir);
  try {
    const url = core.status().webhooks.url;
    if (url === null) throw new Error('bench: the core has no webhook receiver');
    const latencies: number[] = [];
    const deadline = performance.now() + maxSeconds * 1000;
    for (let i = 0; i < deliveries && performance.now() < deadline; i++) {
      const amountCents = 100 + (i % 900);
      const sale = (await core.terminal.charge({ storeId: 1, checkoutId: 1, amountCents, by: 'bench' })).newest;
      if (!sale?.pix_id) throw new Error('bench: a charge did not create its sale');
      const now = core.clock.now();
      const body = JSON.stringify({
        event: 'charge.paid', pix_id: sale.pix_id, service_id: sale.service_id, external_id: null, amount_brl: formatCents(amountCents),
        paid_at: new Date(now).toISOString(), e2e_id: `E${String(i).padStart(31, '0')}`, store_id: 1, checkout_id: 1,
      });
      const headers = webhookHeaders(FIXTURE_WEBHOOK_SECRET, `msg_bench_${randomUUID().replaceAll('-', '')}`, Math.floor(now / 1000), body);
      const t0 = performance.now();
      const status = await post(url, headers, body);
      latencies.push(performance.now() - t0);
      if (status !== 200) throw new Error(`bench: the receiver answered ${status}`);
    }
    const paid = (await core.journal.sales.byStatus('paid')).length;
    if (paid < latencies.length) throw new Error(`bench: ${latencies.length} deliveries but only ${paid} sales paid`);
    return { deliveries: latencies.length, p50Ms: percentileMs(latencies, 50), p95Ms: percentileMs(latencies, 95), p99Ms: percentileMs(latencies, 99), maxMs: percentileMs(latencies, 100) };
  } finally {
    await core.stop();
  }
}

export interface SalesRateResult {
  checkouts: number;
  sales: number;
  seconds: number;
  salesPerSec: number;
  /** One sale, charge sent → paid in the core's journal. */
  p50Ms: number;
  p95Ms: number;
  /** Whether a sale costs more as the day's sales accumulate: the first and the last hundred. */
  firstHundredP50Ms: number;
  lastHundredP50Ms: number;
  coreWarnings: number;
}

/**
 * One core, the embedded sandbox, `checkouts` printed checkouts worked at once: each
 * charges, has the payer pay through the sandbox, and waits until the core has the sale
 * paid (its webhook journaled), then rings up the next.
 */
export async function benchSalesRate(dataDir: string, checkouts = CHECKOUTS, total = SALES, maxSeconds = SALES_SECONDS): Promise<SalesRateResult> {
  const { core, log } = await startCore(dataDir);
  try {
    const svc = serviceControl(core.status().service.baseUrl ?? '');
    for (let c = 2; c <= checkouts; c++) await svc.printCheckout(1, c);
    // Woken by the core's own push of a checkout's new view (what the renderer gets).
    const wake = new Map<number, () => void>();
    const off = core.events.on('checkout.changed', (view) => wake.get(view.checkout_id)?.());
    const paidWithin = async (checkoutId: number, saleId: string, deadline: number): Promise<void> => {
      while ((await core.journal.sales.get(saleId))?.sale.status !== 'paid') {
        if (performance.now() > deadline) throw new Error(`bench: sale ${saleId} was not paid in time`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 50);
          wake.set(checkoutId, () => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
    };
    const latencies: number[] = [];
    let started = 0;
    const t0 = performance.now();
    const deadline = t0 + maxSeconds * 1000;
    await Promise.all(
      Array.from({ length: checkouts }, async (_, k) => {
        const checkoutId = k + 1;
        while (started < total && performance.now() < deadline) {
          const n = started++;
          const s0 = performance.now();
          const view = await core.terminal.charge({ storeId: 1, checkoutId, amountCents: 500 + (n % 5000), by: 'bench' });
          const saleId = view.newest?.sale_id ?? '';
          const paid = await svc('POST', '/_sandbox/pay', { store_id: 1, checkout_id: checkoutId });
          if (paid.status !== 200) throw new Error(`bench: paying checkout ${checkoutId} answered ${paid.status}`);
          await paidWithin(checkoutId, saleId, deadline + 30_000);
          latencies.push(performance.now() - s0);
        }
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    off();
    return {
      checkouts,
      sales: latencies.length,
      seconds: Math.round(seconds * 100) / 100,
      salesPerSec: Math.round((latencies.length / seconds) * 10) / 10,
      p50Ms: percentileMs(latencies, 50),
      p95Ms: percentileMs(latencies, 95),
      firstHundredP50Ms: percentileMs(latencies.slice(0, 100), 50),
      lastHundredP50Ms: percentileMs(latencies.slice(-100), 50),
      coreWarnings: log.warnings,
    };
  } finally {
    await core.stop();
  }
}

const n = (v: number) => v.toLocaleString('en-US');

/** The 64-till benchmark, in a child process (its own RSS, its own heap); it writes its own block. */
function runTills(): Promise<void> {
  const script = fileURLToPath(new URL('./tills.ts', import.meta.url));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script], { stdio: 'inherit' });
    child.once('error', reject);
    child.once('exit', (code, signal) => (code === 0 ? resolve() : reject(new Error(`bench: the 64-till run ended with ${signal ?? `code ${code}`}`))));
  });
}

function historyRows(history: HistorySizeResult[]): Row[] {
  const big = history.at(-1)!;
  const start = medianStart(big);
  const verify = big.verify;
  const curve = history.map((h) => `${n(h.entries)}: ${n(medianStart(h).openMs)} ms`).join(' · ');
  const curveDetail = history
    .map((h) => {
      const s = medianStart(h);
      return `${n(h.entries)} entries (${n(s.segments ?? 0)} segments): start ${n(s.openMs)} ms (${h.starts.map((x) => n(x.openMs)).join(' / ')}), RSS ${s.rssMb} MB, ${n(s.opened.entriesRead)} entries read, working set ${n(s.workingSetSales ?? 0)} sales; first open without a checkpoint ${n(h.rebuild.openMs)} ms`;
    })
    .join('; ');
  return [
    {
      what: `Journal cold start, ${n(big.entries)} entries (about 3 years)`,
      figure: `${n(start.openMs)} ms, RSS ${start.rssMb} MB`,
      detail: `openJournal to ready in a fresh process, from the checkpoint: reads the checkpoint's segment only (${n(start.opened.entriesRead)} entries), working set ${n(start.workingSetSales ?? 0)} sales; median of ${big.starts.length}; history generated in ${n(big.generateMs)} ms, first open with no checkpoint (reads all, writes the indexes) ${n(big.rebuild.openMs)} ms`,
    },
    { what: 'Journal start-up by history size', figure: curve, detail: curveDetail },
    {
      what: `A past shift's report, ${n(big.entries)}-entry journal`,
      figure: `${start.shiftReportMs} ms`,
      detail: `sales.byShift (${n(start.shiftSales ?? 0)} sales) + eventsBetween over the shift (${n(start.shiftEvents ?? 0)} entries) for ${start.shiftId ?? '?'}, mid-history: read on demand through the segment indexes`,
    },
    verify
      ? {
          what: `Full verify, ${n(big.entries)} entries`,
          figure: `${n(verify.verifyPerSec ?? 0)} entries/s`,
          detail: `${n(verify.verifyMs ?? 0)} ms, one segment at a time; RSS ${verify.verifyRssBeforeMb} MB before, peak ${verify.verifyRssPeakMb} MB while it ran`,
        }
      : { what: 'Full verify', figure: 'not run', detail: '' },
  ];
}

function rows(journal: JournalBenchResult, history: HistorySizeResult[], create: BenchResult, hooks: WebhookLatencyResult, sales: SalesRateResult, day: SalesRateResult): Row[] {
  return [
    { what: 'Journal append, fsync per commit', figure: `${n(journal.appendEventsPerSec)} events/s`, detail: `${n(journal.events)} events, ${journal.concurrency} appends in flight, mean ${journal.meanGroupSize} entries per write+fsync (group commit)` },
    { what: `Journal reopen after ${n(journal.events)} events in one day`, figure: `${n(journal.replayMs)} ms`, detail: `open from the checkpoint: all ${n(journal.events)} entries are in its (one) segment, read and hash-checked again, none folded; heap held +${journal.replayHeapMb} MB, process RSS ${journal.rssMb} MB; full verify ${n(journal.verifyMs)} ms` },
    ...historyRows(history),
    { what: 'create_dynamic_pix on loopback (sandbox)', figure: `${n(create.rps)} req/s`, detail: `${n(create.requests)} requests, 16 in flight, printed checkouts: p50 ${create.p50Ms} ms, p95 ${create.p95Ms} ms, p99 ${create.p99Ms} ms; first 1,000 p50 ${create.firstThousandP50Ms} ms vs last 1,000 p50 ${create.lastThousandP50Ms} ms` },
    { what: 'Webhook received → journaled', figure: `p50 ${hooks.p50Ms} ms, p95 ${hooks.p95Ms} ms`, detail: `${n(hooks.deliveries)} signed charge.paid deliveries, one at a time, POST sent → 2xx (sent only after the fsync); p99 ${hooks.p99Ms} ms, max ${hooks.maxMs} ms` },
    { what: `Sales per second, one core, ${sales.checkouts} checkouts`, figure: `${sales.salesPerSec} sales/s`, detail: `${n(sales.sales)} sales in ${sales.seconds} s, each charge → pay → paid in the journal (by webhook); per sale p50 ${sales.p50Ms} ms, p95 ${sales.p95Ms} ms; first 100 p50 ${sales.firstHundredP50Ms} ms vs last 100 p50 ${sales.lastHundredP50Ms} ms` },
    { what: `A busy day on one checkout`, figure: `first 100 p50 ${day.firstHundredP50Ms} ms, last 100 p50 ${day.lastHundredP50Ms} ms`, detail: `${n(day.sales)} sales one after another on one checkout (${day.salesPerSec} sales/s): how a sale's cost grows with the day's sales on its checkout` },
  ];
}

async function main(): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'pos-bench-'));
  // Other work on the machine moves every figure: say how busy it was.
  const loadAtStart = loadavg()[0]!.toFixed(1);
  try {
    console.log(`bench: ${machine()}`);
    // The journal first, while the heap is at its quietest: it reports memory.
    console.log(`bench: journal, ${n(JOURNAL_EVENTS)} events…`);
    const journal = await benchJournal({ dir: join(work, 'journal'), events: JOURNAL_EVENTS });
    const history: HistorySizeResult[] = [];
    for (const size of HISTORY_SIZES) {
      console.log(`bench: journal history, ${n(size)} entries generated, first open, cold starts${size === HISTORY_SIZES.at(-1) ? ', verify' : ''}…`);
      history.push(await benchJournalHistory(work, size, { starts: 3, verify: size === HISTORY_SIZES.at(-1) }));
    }
    console.log(`bench: create_dynamic_pix, up to ${n(CREATE_REQUESTS)} requests or ${CREATE_SECONDS} s…`);
    const create = await benchCreateDynamicPix({ requests: CREATE_REQUESTS, maxSeconds: CREATE_SECONDS, concurrency: 16 });
    console.log(`bench: webhook received → journaled, up to ${WEBHOOK_DELIVERIES} deliveries or ${WEBHOOK_SECONDS} s…`);
    const hooks = await benchWebhookLatency(join(work, 'webhooks'));
    console.log(`bench: sales per second over ${CHECKOUTS} checkouts, up to ${SALES} sales or ${SALES_SECONDS} s…`);
    const sales = await benchSalesRate(join(work, 'sales'));
    console.log(`bench: a busy day on one checkout, up to ${DAY_SALES} sales or ${SALES_SECONDS} s…`);
    const day = await benchSalesRate(join(work, 'day'), 1, DAY_SALES);

    const table = rows(journal, history, create, hooks, sales, day);
    console.table(table.map((r) => ({ what: r.what, figure: r.figure })));
    const date = new Date(systemClock.now()).toISOString().slice(0, 10);
    const section = `## Terminal core (\`npm run bench\`)

Run on ${date}: ${machine()}; 1-minute load average ${loadAtStart} at the start, ${loadavg()[0]!.toFixed(1)} at the end.

How to read it: medians and ratios from ONE run on a small, shared, noisy 2-core machine, where
client and server share the cores; expect tens of percent between runs and compare orders of
magnitude and ratios (first vs last thousand, p95 vs p50). No test asserts a duration.

${markdownTable(table)}

The sandbox sends up to 8 webhooks at once (contract 4 promises no order), each answered only after
the journal's fsync; the 64-till run below shows where one core's time goes.`;
    let existing: string | null = null;
    try {
      existing = await readFile(BENCHMARKS_FILE, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    await writeFile(BENCHMARKS_FILE, renderBenchmarks(existing, section));
    console.log(`bench: written to ${BENCHMARKS_FILE}`);
    await runTills();
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

if (import.meta.main) runToExit(main);
