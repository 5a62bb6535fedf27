/**
 * `npm run bench:tills` (also run by `npm run bench`): one core for a large store (issue 9,
 * point 5). The payment service (the standalone sandbox) runs in a process of its own, as a
 * real one is never in the core's; in this process: one core, the browser shell on loopback,
 * and 64 WebSocket clients acting as 64 paired tills on 64 printed checkouts of store 1.
 *
 * Each till is paired the way a tablet is (a manager's pairing code, `pairing.pair` on an
 * unpaired connection, then a connection with its device credential), signs a cashier in,
 * and then loops: `sale.charge`, the payer pays the checkout's printed QR through the
 * sandbox's control API, and the till waits for its own `checkout.changed` push showing that
 * sale paid (the webhook received, journaled with its fsync, and pushed). Bounded: at most
 * MAX_SALES sales or MAX_SECONDS, whichever comes first; it stops by itself.
 *
 * Measured: sales per second end to end, each sale's latency (charge sent → paid push
 * received) for the first and the last thousand sales, and the process's RSS. A measurement,
 * not a test: nothing asserts a duration.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { arch, cpus, loadavg, platform, tmpdir, totalmem } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { composeCore } from '../compose.ts';
import { loadConfig } from '../core/config.ts';
import type { Core } from '../core/core.ts';
import type { Caller } from '../core/operators/operators.ts';
import { remoteCoreEnv } from '../core/terminal/fixtures/remote-core.ts';
import { serviceControl, type ServiceControl } from '../core/terminal/fixtures/service.ts';
import { startSandboxProcess } from '../soak/sandbox-process.ts';
import type { CheckoutView } from '../core/terminal/views.ts';
import { systemClock } from '../shared/clock.ts';
import { BRIDGE_PATH, BRIDGE_PROTOCOL, DEVICE_PROTOCOL_PREFIX, TOKEN_PROTOCOL_PREFIX, type ServerMessage } from '../shared/ws-protocol.ts';
import { startWebShell, type WebShell } from '../web/server.ts';
import { markdownTable, percentileMs, renderMarkedSection, TILLS_END, TILLS_START, quietLogger, type Row } from './report.ts';

export const TILLS = 64;
export const MAX_SALES = 10_000;
export const MAX_SECONDS = 90;
/** A sale not seen paid within this long means something is broken, not slow: the run stops. */
const SALE_TIMEOUT_MS = 60_000;
const STORE_ID = 1;
const MANAGER = { name: 'Bench manager', pin: '24681357' };
const CASHIER = { name: 'Bench cashier', pin: '13572468' };
/** Who asks the core for pairing codes in process: the bench stands for the manager at the Devices screen. */
const BENCH_MANAGER: Caller = { id: 'bench', name: 'Bench', role: 'manager' };

const BENCHMARKS_FILE = fileURLToPath(new URL('../../BENCHMARKS.md', import.meta.url));
const RENDERER_DIR = fileURLToPath(new URL('../../out/renderer', import.meta.url));


type Envelope = { ok: true; result: unknown } | { ok: false; error: { code: string; message: string; params?: unknown } };

/** One bridge connection, as the renderer's transport makes one (electron/shared/ws-protocol.ts). */
class BridgeConnection {
  readonly #ws: WebSocket;
  readonly #replies = new Map<number, (envelope: Envelope) => void>();
  #nextId = 1;
  /** The `device` message the server sends right after connecting. */
  readonly device: Promise<Extract<ServerMessage, { type: 'device' }>>;
  onEvent: (event: string, payload: unknown) => void = () => undefined;

  private constructor(ws: WebSocket) {
    this.#ws = ws;
    let gotDevice: (msg: Extract<ServerMessage, { type: 'device' }>) => void = () => undefined;
    this.device = new Promise((resolve) => (gotDevice = resolve));
    ws.on('message', (data) => {
      const msg = JSON.parse(String(data)) as ServerMessage;
      if (msg.type === 'reply') {
        const reply = this.#replies.get(msg.id);
        this.#replies.delete(msg.id);
        reply?.(msg.envelope as Envelope);
      } else if (msg.type === 'event') {
        this.onEvent(msg.event, msg.payload);
      } else if (msg.type === 'device') {
        gotDevice(msg);
      }
    });
  }

  /** Opens a bridge connection offering `credential` (a `pos.device.`/`pos.token.` protocol) or none (unpaired). */
  static open(shell: WebShell, credential: string | null): Promise<BridgeConnection> {
    const url = `${shell.origin.replace(/^http/, 'ws')}${BRIDGE_PATH}`;
    const ws = new WebSocket(url, credential === null ? [BRIDGE_PROTOCOL] : [BRIDGE_PROTOCOL, credential], { origin: shell.origin, perMessageDeflate: false });
    const connection = new BridgeConnection(ws);
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(connection));
      ws.once('error', reject);
      ws.once('unexpected-response', (_req, res) => reject(new Error(`bench:tills: the bridge refused the connection (${res.statusCode})`)));
    });
  }

  /** Calls a bridge method; resolves with its result, throws its error's code and sentence. */
  call<T>(method: string, args?: unknown): Promise<T> {
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      this.#replies.set(id, (envelope) => {
        if (envelope.ok) resolve(envelope.result as T);
        else reject(new Error(`bench:tills: ${method} refused: ${envelope.error.code}: ${envelope.error.message} ${JSON.stringify(envelope.error.params ?? {})}`));
      });
      this.#ws.send(JSON.stringify({ id, method, args }));
    });
  }

  close(): Promise<void> {
    if (this.#ws.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise((resolve) => {
      this.#ws.once('close', () => resolve());
      this.#ws.close();
    });
  }
}

/** A paired till on one checkout, with its cashier signed in, as a tablet would have it. */
class Till {
  readonly checkoutId: number;
  readonly #bridge: BridgeConnection;
  /** Sales this till has seen paid in its pushes, and who waits for one. */
  readonly #paid = new Set<string>();
  #waiting: { saleId: string; resolve: () => void } | null = null;
  pushes = 0;
  /** Pushes of another checkout's view: the core must never send them (INTERFACE-9). */
  misrouted = 0;

  constructor(checkoutId: number, bridge: BridgeConnection) {
    this.checkoutId = checkoutId;
    this.#bridge = bridge;
    bridge.onEvent = (event, payload) => {
      if (event !== 'checkout.changed') return;
      const view = payload as CheckoutView;
      this.pushes++;
      if (view.checkout_id !== this.checkoutId || view.store_id !== STORE_ID) {
        this.misrouted++;
        return;
      }
      for (const sale of [view.newest, ...view.recent]) if (sale?.status === 'paid') this.#paid.add(sale.sale_id);
      if (this.#waiting && this.#paid.has(this.#waiting.saleId)) this.#waiting.resolve();
    };
  }

  /** Pairs a till on `checkoutId` through the interface and signs the cashier in on it. */
  static async pair(core: Core, shell: WebShell, checkoutId: number): Promise<Till> {
    const { code } = await core.devices.startPairing(BENCH_MANAGER, { kind: 'till', storeId: STORE_ID, checkoutId, name: `Till ${checkoutId}` });
    const unpaired = await BridgeConnection.open(shell, null);
    const { credential } = await unpaired.call<{ credential: string }>('pairing.pair', { code });
    await unpaired.close();
    const bridge = await BridgeConnection.open(shell, `${DEVICE_PROTOCOL_PREFIX}${credential}`);
    const hello = await bridge.device;
    if (hello.device?.checkoutId !== checkoutId) throw new Error(`bench:tills: till ${checkoutId} connected as ${JSON.stringify(hello)}`);
    await bridge.call('auth.signIn', CASHIER);
    return new Till(checkoutId, bridge);
  }

  /** `sale.charge` as the cashier's screen sends it; resolves with the new sale's id. */
  async charge(amountCents: number): Promise<string> {
    const typed = `${Math.floor(amountCents / 100)},${String(amountCents % 100).padStart(2, '0')}`;
    const view = await this.#bridge.call<CheckoutView>('sale.charge', { amount: typed });
    const saleId = view.newest?.sale_id;
    if (saleId === undefined || view.newest?.amount_cents !== amountCents) throw new Error(`bench:tills: till ${this.checkoutId}'s charge did not create its sale`);
    return saleId;
  }

  /** Resolves once a push has shown `saleId` paid (perhaps already). */
  paid(saleId: string): Promise<void> {
    if (this.#paid.has(saleId)) {
      this.#paid.clear();
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`bench:tills: till ${this.checkoutId} never saw sale ${saleId} paid`)), SALE_TIMEOUT_MS);
      this.#waiting = {
        saleId,
        resolve: () => {
          clearTimeout(timer);
          this.#waiting = null;
          this.#paid.clear();
          resolve();
        },
      };
    });
  }

  close(): Promise<void> {
    return this.#bridge.close();
  }
}

export interface LatencyFigures {
  sales: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
}

/** A monitorEventLoopDelay figure (ns, the 10 ms sampling resolution included) in ms of delay. */
function loopMs(ns: number): number {
  return Math.max(0, Math.round((ns / 1e6 - 10) * 10) / 10);
}

export interface TillsResult {
  tills: number;
  sales: number;
  seconds: number;
  salesPerSec: number;
  /** Why the run stopped: the sales bound or the time bound. */
  stoppedBy: 'sales' | 'time';
  all: LatencyFigures;
  /** The two halves of a sale, medians: sale.charge's round trip; payment sent → paid push. */
  chargeP50Ms: number;
  paymentP50Ms: number;
  /**
   * How late this process's event loop ran a ready callback, over the measured run: every
   * step of a sale (a WebSocket message, an HTTP answer, a durable journal group) waits this
   * long before it runs, several times a sale.
   */
  loopDelay: { p50Ms: number; p99Ms: number; maxMs: number };
  firstThousand: LatencyFigures;
  lastThousand: LatencyFigures;
  /** The whole process (sandbox, core, shell and the 64 clients): at the end and the highest sampled. */
  rssEndMb: number;
  rssPeakMb: number;
  /** Pairing and signing in the 64 tills, before the measured run. */
  setupSeconds: number;
  pushesPerSale: number;
  /** The journal's group commit over the run: write+fsync per second, entries per commit and per sale. */
  journalCommitsPerSec: number;
  journalEntriesPerCommit: number;
  journalEntriesPerSale: number;
  coreWarnings: number;
  /**
   * CPU time per sale over the measured run (user + system): this process (core, shell and
   * clients) and the sandbox's; null where the sandbox's cannot be read (no /proc).
   */
  cpuMsPerSale: number;
  sandboxCpuMsPerSale: number | null;
}

function figures(latencies: readonly number[]): LatencyFigures {
  return { sales: latencies.length, p50Ms: percentileMs(latencies, 50), p95Ms: percentileMs(latencies, 95), p99Ms: percentileMs(latencies, 99) };
}

const mb = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;

/** Linux's clock ticks per second for /proc/<pid>/stat (USER_HZ, 100 on every Linux ABI Node runs on). */
const USER_HZ = 100;

/** Another process's CPU time so far (user + system), from /proc; null where there is none. */
async function processCpuMs(pid: number): Promise<number | null> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which may hold spaces: state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / USER_HZ;
  } catch {
    return null;
  }
}

const ownCpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/**
 * Sets up the store (64 printed checkouts, a manager and a cashier, 64 paired tills), then
 * rings up sales on every till at once until `maxSales` or `maxSeconds`.
 */
export async function benchTills(options: { dataDir: string; tills?: number; maxSales?: number; maxSeconds?: number }): Promise<TillsResult> {
  const tills = options.tills ?? TILLS;
  const maxSales = options.maxSales ?? MAX_SALES;
  const maxSeconds = options.maxSeconds ?? MAX_SECONDS;
  const log = quietLogger('bench:tills');
  // The payment service runs in a process of its own, as a real one is never in the core's:
  // the figures are the core's (and its clients'), not the sandbox's bookkeeping.
  const children = new Set<ChildProcess>();
  // One delivery under way per till: contract 4 promises no order, and a real service does
  // not hold a merchant's webhooks to a handful at once.
  const sandbox = await startSandboxProcess(children, { webhookConcurrency: tills });
  const svc: ServiceControl = serviceControl(sandbox.url);
  const config = loadConfig(await remoteCoreEnv(sandbox.url, options.dataDir, { checkouts: tills }), []);
  const core = await composeCore(config, { log });
  let shell: WebShell | null = null;
  const open: Till[] = [];
  let rssPeak = process.memoryUsage.rss();
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage.rss())), 500);
  try {
    await core.start();
    const setupStart = performance.now();
    shell = await startWebShell({ core, rendererDir: RENDERER_DIR, host: '127.0.0.1', port: 0, token: null });

    // The store computer's own window creates the first manager, who adds the cashier.
    const store = await BridgeConnection.open(shell, `${TOKEN_PROTOCOL_PREFIX}${shell.token}`);
    await store.call('auth.createFirstManager', MANAGER);
    await store.call('operators.add', { ...CASHIER, role: 'cashier' });
    await store.close();
    for (let c = 1; c <= tills; c++) open.push(await Till.pair(core, shell, c));
    const setupSeconds = (performance.now() - setupStart) / 1000;

    // latencies[n]: sale number n (in the order sales were started), charge sent → paid push;
    // and its two halves: the charge's round trip, and payment sent → paid push.
    const latencies: number[] = [];
    const charges: number[] = [];
    const payments: number[] = [];
    let started = 0;
    const commitsBefore = core.journal.status().commits;
    const cpuBefore = ownCpuMs();
    const sandboxCpuBefore = await processCpuMs(sandbox.pid);
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const t0 = performance.now();
    const deadline = t0 + maxSeconds * 1000;
    let stoppedBy: TillsResult['stoppedBy'] = 'sales';
    await Promise.all(
      open.map(async (till) => {
        for (;;) {
          if (started >= maxSales) return;
          if (performance.now() >= deadline) {
            stoppedBy = 'time';
            return;
          }
          const n = started++;
          const s0 = performance.now();
          const saleId = await till.charge(100 + ((n * 37) % 9_900));
          const s1 = performance.now();
          const paid = till.paid(saleId);
          // The payer scans the checkout's printed QR: it pays the checkout's newest sale.
          const pay = await svc('POST', '/_sandbox/pay', { store_id: STORE_ID, checkout_id: till.checkoutId });
          if (pay.status !== 200) throw new Error(`bench:tills: paying checkout ${till.checkoutId} answered ${pay.status}: ${JSON.stringify(pay.body)}`);
          await paid;
          const s2 = performance.now();
          latencies[n] = s2 - s0;
          charges[n] = s1 - s0;
          payments[n] = s2 - s1;
        }
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    loop.disable();
    const cpuMs = ownCpuMs() - cpuBefore;
    const sandboxCpuAfter = await processCpuMs(sandbox.pid);
    const commitsAfter = core.journal.status().commits;
    const commits = commitsAfter.commits - commitsBefore.commits;
    const committed = commitsAfter.committedEntries - commitsBefore.committedEntries;
    const done = latencies.filter((l) => l !== undefined);
    const rssEnd = process.memoryUsage.rss();
    rssPeak = Math.max(rssPeak, rssEnd);
    const pushes = open.reduce((sum, t) => sum + t.pushes, 0);
    const misrouted = open.reduce((sum, t) => sum + t.misrouted, 0);
    if (misrouted > 0) throw new Error(`bench:tills: ${misrouted} pushes reached a till of another checkout`);
    return {
      tills,
      sales: done.length,
      seconds: Math.round(seconds * 100) / 100,
      salesPerSec: Math.round((done.length / seconds) * 10) / 10,
      stoppedBy,
      all: figures(done),
      chargeP50Ms: percentileMs(charges.filter((l) => l !== undefined), 50),
      paymentP50Ms: percentileMs(payments.filter((l) => l !== undefined), 50),
      // The histogram is in nanoseconds and includes the sampling resolution (10 ms).
      loopDelay: { p50Ms: loopMs(loop.percentile(50)), p99Ms: loopMs(loop.percentile(99)), maxMs: loopMs(loop.max) },
      firstThousand: figures(done.slice(0, 1000)),
      lastThousand: figures(done.slice(-1000)),
      rssEndMb: mb(rssEnd),
      rssPeakMb: mb(rssPeak),
      setupSeconds: Math.round(setupSeconds * 10) / 10,
      journalCommitsPerSec: Math.round(commits / seconds),
      journalEntriesPerCommit: Math.round((committed / Math.max(1, commits)) * 10) / 10,
      journalEntriesPerSale: Math.round((committed / Math.max(1, done.length)) * 10) / 10,
      pushesPerSale: Math.round((pushes / Math.max(1, done.length)) * 10) / 10,
      coreWarnings: log.warnings,
      cpuMsPerSale: Math.round((cpuMs / Math.max(1, done.length)) * 100) / 100,
      sandboxCpuMsPerSale: sandboxCpuBefore === null || sandboxCpuAfter === null ? null : Math.round(((sandboxCpuAfter - sandboxCpuBefore) / Math.max(1, done.length)) * 100) / 100,
    };
  } finally {
    clearInterval(sampler);
    await Promise.all(open.map((t) => t.close().catch(() => undefined)));
    // The service first: no delivery then reaches a core that is closing its journal.
    await sandbox.stop();
    await shell?.close();
    await core.stop();
  }
}

function machine(): string {
  const cpu = cpus();
  return `${platform()} ${arch()}, ${cpu.length} cores (${cpu[0]?.model.trim() ?? 'unknown CPU'}), ${Math.round(totalmem() / 2 ** 30)} GiB RAM, Node ${process.version}`;
}

const n = (v: number) => v.toLocaleString('en-US');
const latency = (f: LatencyFigures) => `p50 ${f.p50Ms} ms, p95 ${f.p95Ms} ms, p99 ${f.p99Ms} ms`;

/** Sales a second two fully busy cores would allow at the measured CPU per sale. */
function ceiling(r: TillsResult): number {
  return Math.round(2000 / (r.cpuMsPerSale + (r.sandboxCpuMsPerSale ?? 0)));
}

export function tillsRows(r: TillsResult): Row[] {
  return [
    {
      what: `Sales per second, one core, ${r.tills} paired tills`,
      figure: `${r.salesPerSec} sales/s`,
      detail: `${n(r.sales)} sales in ${r.seconds} s (stopped by the ${r.stoppedBy === 'sales' ? 'sales' : 'time'} bound), each sale.charge over a till's WebSocket → the payer pays the printed QR → the till's own checkout.changed push shows it paid; ${r.pushesPerSale} pushes per sale on each till`,
    },
    { what: 'Per sale, first 1,000', figure: latency(r.firstThousand), detail: `charge sent → paid push received, ${n(r.firstThousand.sales)} sales` },
    { what: 'Per sale, last 1,000', figure: latency(r.lastThousand), detail: `charge sent → paid push received, ${n(r.lastThousand.sales)} sales` },
    { what: 'Per sale, all', figure: latency(r.all), detail: `${n(r.all.sales)} sales; of which, medians: sale.charge round trip ${r.chargeP50Ms} ms, payment sent → paid push ${r.paymentP50Ms} ms` },
    {
      what: 'Journal group commit',
      figure: `${n(r.journalCommitsPerSec)} write+fsync/s`,
      detail: `${r.journalEntriesPerCommit} entries per commit, ${r.journalEntriesPerSale} entries per sale`,
    },
    {
      what: 'Event loop delay',
      figure: `p50 ${r.loopDelay.p50Ms} ms, p99 ${r.loopDelay.p99Ms} ms`,
      detail: `max ${r.loopDelay.maxMs} ms; how late a ready callback ran in this process (sampled every 10 ms, that resolution taken off): each step of a sale waits about this long, several times a sale`,
    },
    {
      what: 'CPU per sale',
      figure: `${r.cpuMsPerSale} ms in this process${r.sandboxCpuMsPerSale === null ? '' : `, ${r.sandboxCpuMsPerSale} ms in the sandbox's`}`,
      detail: `user + system over the measured run, divided by the sales; this process is the core, the browser shell and the ${r.tills} clients. Two cores busy all the time would give at most ${ceiling(r)} sales/s at this cost`,
    },
    {
      what: 'Process RSS',
      figure: `${r.rssEndMb} MB at the end`,
      detail: `highest sampled ${r.rssPeakMb} MB; this process holds the core, the browser shell and the ${r.tills} WebSocket clients (the sandbox runs in its own); setup (pairing ${r.tills} tills and signing a cashier in on each) ${r.setupSeconds} s; ${r.coreWarnings} core warnings`,
    },
  ];
}

export function tillsSection(r: TillsResult, loadAtStart: string, loadAtEnd: string): string {
  const date = new Date(systemClock.now()).toISOString().slice(0, 10);
  return `## One core, ${r.tills} tills (\`npm run bench:tills\`)

Run on ${date}: ${machine()}; 1-minute load average ${loadAtStart} at the start, ${loadAtEnd} at the end.

Two processes: the payment service (the standalone sandbox, its ${r.tills} checkouts' QRs printed
beforehand) in one; in the other one core with its journal (fsync'd, group commit) and webhook
receiver, the browser shell on 127.0.0.1, and ${r.tills} WebSocket clients, each a till paired with a
pairing code on its own printed checkout of store 1 with a cashier signed in. Each till rings
up a sale, the payer pays the checkout's printed QR (sandbox control API), the sandbox sends
the signed webhooks (concurrently, bounded), and the till waits for its own push showing the
sale paid before ringing up the next. Bounded at ${n(MAX_SALES)} sales or ${MAX_SECONDS} s. On a shared
2-core machine the clients, the sandbox and the core share the cores; one run, so expect tens
of percent between runs. No test asserts a duration.

${markdownTable(tillsRows(r))}

Issue 9 asks for 500 sales/s; one core gives ${r.salesPerSec} here, and the CPU row says
why it is not a matter of tuning: at ${r.cpuMsPerSale} ms + ${r.sandboxCpuMsPerSale ?? '?'} ms of CPU a sale, two cores kept fully
busy would allow about ${ceiling(r)} sales/s; 500 would need a sale to cost at most ${Math.round(ceiling(r) / 5)} % of what it costs now.
Where a sale's CPU goes (\`node --cpu-prof\` on this machine, 2026-11-24), in this order: the
working set's engine (fake-indexeddb, the IndexedDB under idb in Node: index upkeep on every put,
and a thrown DataError for every row an index leaves out), the WebSocket pushes (four a sale,
each the checkout's view, serialized per till), the 64 clients' own parsing, and the HTTP to
the service with the webhooks' HMAC. Not the journal's disk: a write+fsync takes about 2 ms.

What holds a sale back is not CPU alone: the event loop delay row shows the core's loop
answering at once, yet a sale takes half a second. Timed inside the core (2026-11-24, 20 s
runs): an append is durable after about 2.5 ms, then waits about 70 ms (median) until the
working set has applied it, and a sale makes four appends one after the other. An apply's
write transaction waits about 21 ms to start, behind the read transactions queued before it
on the sales store (the engine starts transactions one at a time, and runs each request of a
transaction in a turn of the event loop of its own), then does its dozen puts in about 3 ms.
Tried and not kept, each measured with no gain beyond the runs' noise: resolving an append
before the working set's write committed (appends took 2.5 ms, but the sales per second fell:
smaller, more numerous writes held the reads), storing only the keys in IndexedDB and skipping
puts that move no key, one view build at a time per checkout (a sale's changes rarely overlap),
and one index query fewer per view. Going further means far fewer reads of the sales store a
sale (most are the four index queries of each of a sale's four checkout views), which is the
next step for this issue.

Fixed on 2026-11-24, each with a test (electron/core/journal/recent.test.ts, log.test.ts):
reads asked in the same turn share one read transaction (38 transactions a sale, now 13: the
engine starts one a turn, and each read waited behind all the others); the log hands the view
every group commit that became durable while it applied the last one in one call (an append
waited about 300 ms behind earlier groups' applies); index queries take the keys from IndexedDB
and the rows from memory (the engine's copies of every row it returned were a quarter of the
core's CPU); 16 connections to the service instead of 4; the sandbox delivers one webhook per
till at once. Together, in 30 s runs side by side: 51 → about 100 sales/s, 19 → 10 ms of this
process's CPU a sale. Earlier (2026-11-23): a checkout's newest sales read only the newest rows
of the working set, and status pushes reach the tills at most every 250 ms.
On 2026-11-24 (later): a checkout view carries its 10 newest sales, not 30 (the screen lists
8; the views and their sending were about a seventh of the core's CPU), a sale record's canonical
text is computed once, and the sandbox keeps its settlements in flight apart, with the moment the
next one is due (each legacy \`charge.done\` walked every settlement several times, and a legacy
transfer stays in flight two minutes, so each sale cost the sandbox more than the one before and
the last thousand sales were the slowest): about 100 → 120 sales/s, 10.6 → 9 ms a sale in the
core and 4.7 → 2.8 ms in the sandbox. The checkpoint (every 5,000 entries: the whole working
set) is now serialized a few hundred rows a turn and written in parts, and each row's record is
checked once: it held the core's loop for up to 0.7 s at a time (the event loop row's max); and
the working set no longer writes the webhook-ids to IndexedDB, where nothing read them.`;
}

async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { sales: { type: 'string' }, seconds: { type: 'string' }, tills: { type: 'string' }, 'no-write': { type: 'boolean', default: false } }, strict: true });
  const work = await mkdtemp(join(tmpdir(), 'pos-bench-tills-'));
  const loadAtStart = loadavg()[0]!.toFixed(1);
  try {
    const tills = values.tills === undefined ? TILLS : Number(values.tills);
    const maxSales = values.sales === undefined ? MAX_SALES : Number(values.sales);
    const maxSeconds = values.seconds === undefined ? MAX_SECONDS : Number(values.seconds);
    console.log(`bench:tills: ${machine()}`);
    console.log(`bench:tills: ${tills} tills, up to ${n(maxSales)} sales or ${maxSeconds} s…`);
    const result = await benchTills({ dataDir: work, tills, maxSales, maxSeconds });
    console.table(tillsRows(result).map((r) => ({ what: r.what, figure: r.figure })));
    console.log(`bench:tills: medians: sale.charge round trip ${result.chargeP50Ms} ms, payment sent → paid push ${result.paymentP50Ms} ms; ${result.pushesPerSale} pushes per sale; journal ${result.journalCommitsPerSec} commits/s, ${result.journalEntriesPerCommit} entries per commit, ${result.journalEntriesPerSale} per sale; event loop delay at most ${result.loopDelay.maxMs} ms`);
    // Only the full run is written down: a shortened one is for trying things out.
    if (values['no-write'] || tills !== TILLS || maxSales !== MAX_SALES || maxSeconds !== MAX_SECONDS) return;
    let existing: string | null = null;
    try {
      existing = await readFile(BENCHMARKS_FILE, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    await writeFile(BENCHMARKS_FILE, renderMarkedSection(existing, TILLS_START, TILLS_END, tillsSection(result, loadAtStart, loadavg()[0]!.toFixed(1))));
    console.log(`bench:tills: written to ${BENCHMARKS_FILE}`);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  main(process.argv.slice(2)).then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
