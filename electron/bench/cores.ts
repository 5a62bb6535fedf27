/**
 * `npm run bench:cores -- --database-url U [--tills N] [--sales N] [--seconds S] [--rounds N] [--no-write]`:
 * sales per second of 64 tills against two cores on one database, beside one core alone, in
 * the same run (issue 23, point 8).
 *
 * Two stores, each on a database of its own made on U's server and a payment service of its
 * own (the standalone sandbox, a process), each core an `electron/web/cli.ts --server` process
 * (core-servers.ts):
 * - one core: its 64 tills at its address;
 * - two cores: the active one and a standby; half the tills at the active core's address, half
 *   at the standby's, which relays them byte for byte to the active core.
 * Webhooks go to the active core's receiver in both, as a balancer that checks the health
 * address sends them. The tills are till-clients.ts's, one thread per store, paired with a
 * manager's codes, a cashier signed in. The rounds alternate between the stores (one core,
 * two cores, one core, …) so that the machine's drift falls on both; each bounded by sales or
 * seconds. Measures only: asserts nothing. Both databases are dropped at the end.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { serviceControl } from '../core/terminal/fixtures/service.ts';
import { FIXTURE_WEBHOOK_SECRET } from '../sandbox/fixture.ts';
import { startSandboxProcess, type SandboxProcess } from '../soak/sandbox-process.ts';
import { CASHIER, corePlace, pairingCodes, RUNNING, STANDING_BY, startCoreServer, type CorePlace, type CoreServer } from './core-servers.ts';
import { DATABASE_BENCH_OPTIONS, benchServerUrl, countOption, machine, markdownTable, openBenchDatabase, percentileMs, processCpuMs, renderMarkedSection, runToExit, type Row } from './report.ts';
import { startTillsThread, STORE_ID, type TillsInput, type TillsMessage } from './till-clients.ts';
import { MAX_SALES, MAX_SECONDS, ROUNDS, TILLS } from './tills.ts';

const BENCHMARKS_FILE = fileURLToPath(new URL('../../BENCHMARKS.md', import.meta.url));
export const CORES_START = '<!-- bench:cores -->';
export const CORES_END = '<!-- /bench:cores -->';

/** One round of one store. */
export interface CoresRound {
  sales: number;
  seconds: number;
  salesPerSec: number;
  stoppedBy: 'sales' | 'time';
  /** sale.charge's round trip, and charge sent → paid push, in ms. */
  charge: { p50: number; p95: number };
  /** The same, of the tills at the standby's address (relayed) and at the active core's; null with one core. */
  chargeBy: { relayed: { p50: number; p95: number }; direct: { p50: number; p95: number } } | null;
  sale: { p50: number; p95: number };
  /** CPU per sale in ms: each core process (active first), the sandbox, and this process (the tills' threads). */
  cpu: { cores: (number | null)[]; sandbox: number | null; tills: number };
}

/** A store of this bench: its cores, service, tills' thread and database. */
interface Store {
  label: string;
  cores: CoreServer[];
  sandbox: SandboxProcess;
  thread: ReturnType<typeof startTillsThread>;
  drop: () => Promise<void>;
}

const round1 = (v: number) => Math.round(v * 10) / 10;
const round2 = (v: number) => Math.round(v * 100) / 100;

/** Sets up a store on `cores` cores (1 or 2) and pairs its tills, half of them at the standby when there is one. */
async function openStore(label: string, coreCount: number, o: { serverUrl: string; work: string; tills: number; maxSales: number; maxSeconds: number; rounds: number; children: Set<ChildProcess> }): Promise<Store> {
  const bench = await openBenchDatabase(o.serverUrl, 'pos_bench_cores');
  const cores: CoreServer[] = [];
  let sandbox: SandboxProcess | null = null;
  try {
    // One delivery under way per till, as bench:tills has it.
    sandbox = await startSandboxProcess(o.children, { webhookConcurrency: o.tills });
    const svc = serviceControl(sandbox.url);
    for (let c = 1; c <= o.tills; c++) await svc.printCheckout(STORE_ID, c);
    const places: CorePlace[] = [];
    for (let i = 0; i < coreCount; i++) places.push(await corePlace(`${label} ${i + 1}`, join(o.work, `${label}-${i + 1}`.replaceAll(' ', '-'))));
    await svc('PUT', '/_sandbox/webhook', { url: `http://127.0.0.1:${places[0]!.webhookPort}/webhooks`, secret: FIXTURE_WEBHOOK_SECRET });
    const shared = { databaseUrl: bench.url, sandboxUrl: sandbox.url, names: places.map((p) => `127.0.0.1:${p.webPort}`) };
    cores.push(await startCoreServer(places[0]!, shared));
    await cores[0]!.until(RUNNING);
    for (const place of places.slice(1)) {
      const standby = await startCoreServer(place, shared);
      cores.push(standby);
      await standby.until(STANDING_BY);
    }
    const checkoutIds = Array.from({ length: o.tills }, (_, i) => i + 1);
    const t0 = performance.now();
    const codes = await pairingCodes(places[0]!.origin, checkoutIds);
    const t1 = performance.now();
    // Every other till at the standby's address: half the tills are relayed.
    // Paired newest code first, as a manager pairs each tablet with the code just made (a typed
    // code costs one slow hash whatever the number of live codes: core/devices/code-hash.ts).
    const tills: TillsInput['tills'] = [...checkoutIds].reverse().map((checkoutId) => ({ checkoutId, code: codes.get(checkoutId)!, origin: places[checkoutId % 2 === 0 && places.length > 1 ? 1 : 0]!.origin }));
    const thread = startTillsThread({ origin: places[0]!.origin, sandboxUrl: sandbox.url, tills, cashier: CASHIER, maxSales: o.maxSales, maxSeconds: o.maxSeconds, rounds: o.rounds });
    const ready = await thread.next();
    if (ready.type !== 'ready') {
      await thread.end();
      throw failed(label, ready);
    }
    console.log(`bench:cores: ${label}: ${o.tills} pairing codes made in ${Math.round(t1 - t0)} ms, the tills paired and signed in in ${Math.round(performance.now() - t1)} ms`);
    return { label, cores, sandbox, thread, drop: bench.drop };
  } catch (err) {
    for (const core of cores) await core.stop();
    await sandbox?.stop();
    await bench.drop();
    throw err;
  }
}

function failed(label: string, msg: TillsMessage): Error {
  return new Error(`bench:cores: the tills of ${label} failed: ${msg.type === 'failed' ? msg.message : msg.type}`);
}

const ownCpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

async function runRound(store: Store): Promise<CoresRound> {
  const pids = [...store.cores.map((c) => c.child.pid ?? -1), store.sandbox.pid];
  const before = await Promise.all(pids.map(processCpuMs));
  const ownBefore = ownCpuMs();
  const finished = store.thread.next();
  store.thread.go();
  const done = await finished;
  const own = ownCpuMs() - ownBefore;
  const after = await Promise.all(pids.map(processCpuMs));
  if (done.type !== 'done') throw failed(store.label, done);
  const out = done.output;
  if (out.misrouted > 0) throw new Error(`bench:cores: ${out.misrouted} pushes reached a till of another checkout (${store.label})`);
  // Sale n is at index n; a sale cut short by the time bound has none.
  const present = (xs: readonly number[]) => xs.filter((x) => x !== undefined && x !== null);
  const sales = present(out.latencies);
  const charges = present(out.charges);
  const spread = (xs: readonly number[]) => ({ p50: percentileMs(xs, 50), p95: percentileMs(xs, 95) });
  // The even checkouts' tills are at the standby's address (openStore).
  const chargesOf = (relayed: boolean) => out.charges.filter((c, n) => c !== undefined && c !== null && (out.checkouts[n]! % 2 === 0) === relayed);
  const perSale = (i: number) => {
    const b = before[i];
    const a = after[i];
    return b === null || a === null || b === undefined || a === undefined ? null : round2((a - b) / Math.max(1, sales.length));
  };
  return {
    sales: sales.length,
    seconds: round2(out.seconds),
    salesPerSec: round1(sales.length / out.seconds),
    stoppedBy: out.stoppedBy,
    charge: spread(charges),
    chargeBy: store.cores.length > 1 ? { relayed: spread(chargesOf(true)), direct: spread(chargesOf(false)) } : null,
    sale: spread(sales),
    cpu: { cores: store.cores.map((_, i) => perSale(i)), sandbox: perSale(store.cores.length), tills: round2(own / Math.max(1, sales.length)) },
  };
}

/** The round with the median rate (of an even count, the slower of the middle two). */
export function medianOf(rounds: readonly CoresRound[]): CoresRound {
  const sorted = [...rounds].sort((a, b) => a.salesPerSec - b.salesPerSec);
  const median = sorted[Math.floor((sorted.length - 1) / 2)];
  if (median === undefined) throw new Error('bench:cores: no round was run');
  return median;
}

const ms = (v: number | null) => (v === null ? 'n/a' : `${v} ms`);

/** One row per figure, each "one core → two cores", from each store's median round. */
export function coresRows(one: readonly CoresRound[], two: readonly CoresRound[], tills: number): Row[] {
  const a = medianOf(one);
  const b = medianOf(two);
  const side = (f: (r: CoresRound) => string) => `${f(a)} → ${f(b)}`;
  return [
    {
      what: `Sales per second, ${tills} tills: one core → two cores`,
      figure: side((r) => `${r.salesPerSec}`),
      detail: `median rounds (${a.sales.toLocaleString('en-US')} and ${b.sales.toLocaleString('en-US')} sales); every round, in the order run: one core ${one.map((r) => r.salesPerSec).join(', ')}; two cores ${two.map((r) => r.salesPerSec).join(', ')} sales/s`,
    },
    {
      what: 'sale.charge round trip',
      figure: side((r) => `p50 ${r.charge.p50} ms, p95 ${r.charge.p95} ms`),
      detail: `what the cashier waits for between Charge and the QR; with two cores, the tills relayed by the standby p50 ${b.chargeBy?.relayed.p50 ?? 'n/a'} ms, p95 ${b.chargeBy?.relayed.p95 ?? 'n/a'} ms, those at the active core p50 ${b.chargeBy?.direct.p50 ?? 'n/a'} ms, p95 ${b.chargeBy?.direct.p95 ?? 'n/a'} ms`,
    },
    { what: 'Per sale', figure: side((r) => `p50 ${r.sale.p50} ms, p95 ${r.sale.p95} ms`), detail: 'charge sent → the till’s own push shows it paid' },
    {
      what: 'CPU per sale, each process',
      figure: side((r) => `${r.cpu.cores.map(ms).join(' + ')}`),
      detail: `the active core${b.cpu.cores.length > 1 ? ' + the standby (its relay)' : ''}; besides: the sandbox ${side((r) => ms(r.cpu.sandbox))}, the bench's process (the tills' threads) ${side((r) => ms(r.cpu.tills))}`,
    },
  ];
}

export function coresSection(one: readonly CoresRound[], two: readonly CoresRound[], o: { tills: number; maxSales: number; maxSeconds: number; load: string }): string {
  const a = medianOf(one);
  const b = medianOf(two);
  const relayCpu = b.cpu.cores[1] ?? null;
  const change = Math.round((b.salesPerSec / a.salesPerSec - 1) * 100);
  const spreadOf = (rs: readonly CoresRound[]) => `${Math.min(...rs.map((r) => r.salesPerSec))}–${Math.max(...rs.map((r) => r.salesPerSec))}`;
  const verdict =
    change <= -10
      ? `Two cores sold ${-change} % fewer sales a second than one here`
      : change >= 10
        ? `Two cores sold ${change} % more sales a second than one here; that is this machine's drift between rounds (one core's rounds ${spreadOf(one)}, two cores' ${spreadOf(two)}), not the second core's work`
        : `Two cores sold ${change < 0 ? `${-change} % fewer` : change > 0 ? `${change} % more` : 'as many'} sales a second than one here, inside this machine's spread from round to round (one core's rounds ${spreadOf(one)}, two cores' ${spreadOf(two)} sales/s)`;
  const hop = b.chargeBy === null ? '' : ` (here the relayed tills' sale.charge p50 ${b.chargeBy.relayed.p50} ms against ${b.chargeBy.direct.p50} ms at the active core)`;
  return `## ${o.tills} tills on two cores beside one core (\`npm run bench:cores -- --database-url U\`)

One run on ${new Date().toISOString().slice(0, 10)}: ${machine()}, PostgreSQL on the same machine, 1-minute load ${o.load} (other engineers' tests share the machine).

Two stores side by side, each on a database and a payment service (the standalone sandbox) of its own, its cores \`npm run server\` processes: **one core** with its ${o.tills} tills at its address; **two cores** on one database, the active one and a standby, the odd tills at the active core's address and the even ones at the standby's, which relays them byte for byte to the active core. Webhooks go to the active core's receiver in both, as a balancer that checks the health address sends them. The tills are bench:tills's (one worker thread per store, each till paired with a manager's code, a cashier signed in, ringing up, the payer paying the printed QR, waiting for its own paid push). ${one.length} rounds each, alternated (one core, two cores, …) so the machine's drift falls on both, each bounded at ${o.maxSales.toLocaleString('en-US')} sales or ${o.maxSeconds} s; the table is each store's median round. Everything (both stores' cores, sandboxes and tills, and PostgreSQL) shares this machine's two cores.

${markdownTable(coresRows(one, two, o.tills))}

${verdict}, and no more is to be expected: a second core adds availability, not throughput. Only the active core writes the merchant's journal (the lease fences every append), so every sale is still one core's work and one database's commits. The standby adds a hop for half the tills: till → standby → active core, each WebSocket frame read and written once more, a few ms on their round trips${hop}, and ${relayCpu === null ? 'its CPU' : `${relayCpu} ms of CPU per sale of the whole store`} in the standby's process, which on this machine comes from the same two cores the active core, PostgreSQL, the sandbox and the tills use. On machines of their own the standby's relay would cost the active core nothing; a balancer that checks the health address (README, *Run on a server*) sends every till straight to the active core and has no relay hop at all.
`;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { ...DATABASE_BENCH_OPTIONS, tills: { type: 'string' }, sales: { type: 'string' }, seconds: { type: 'string' }, rounds: { type: 'string' } }, strict: true });
  const serverUrl = benchServerUrl(values['database-url'], 'bench:cores');
  const tills = countOption(values.tills, 'tills', TILLS, 2);
  const maxSales = countOption(values.sales, 'sales', MAX_SALES);
  const maxSeconds = countOption(values.seconds, 'seconds', MAX_SECONDS);
  const rounds = countOption(values.rounds, 'rounds', ROUNDS);
  const work = await mkdtemp(join(tmpdir(), 'pos-bench-cores-'));
  const children = new Set<ChildProcess>();
  const stores: Store[] = [];
  const loadAtStart = loadavg()[0]!.toFixed(1);
  try {
    console.log(`bench:cores: ${machine()}`);
    console.log(`bench:cores: ${tills} tills, ${rounds} round(s) of at most ${maxSales.toLocaleString('en-US')} sales or ${maxSeconds} s on one core and on two, alternated…`);
    const options = { serverUrl, work, tills, maxSales, maxSeconds, rounds, children };
    stores.push(await openStore('one core', 1, options));
    stores.push(await openStore('two cores', 2, options));
    const results: CoresRound[][] = [[], []];
    for (let round = 0; round < rounds; round++) {
      for (const [i, store] of stores.entries()) {
        const r = await runRound(store);
        results[i]!.push(r);
        console.log(`bench:cores: round ${round + 1}, ${store.label}: ${r.salesPerSec} sales/s (${r.sales} sales in ${r.seconds} s, by the ${r.stoppedBy} bound), sale.charge p50 ${r.charge.p50} ms p95 ${r.charge.p95} ms${r.chargeBy === null ? '' : ` (relayed p50 ${r.chargeBy.relayed.p50} ms, direct ${r.chargeBy.direct.p50} ms)`}, CPU a sale ${r.cpu.cores.map(ms).join(' + ')} (cores), ${ms(r.cpu.sandbox)} (sandbox)`);
      }
    }
    const [one, two] = results as [CoresRound[], CoresRound[]];
    console.log(markdownTable(coresRows(one, two, tills)));
    if (values['no-write'] || tills !== TILLS || maxSales !== MAX_SALES || maxSeconds !== MAX_SECONDS || rounds !== ROUNDS) return;
    const section = coresSection(one, two, { tills, maxSales, maxSeconds, load: `${loadAtStart} → ${loadavg()[0]!.toFixed(1)}` });
    const existing = await readFile(BENCHMARKS_FILE, 'utf8').catch(() => null);
    await writeFile(BENCHMARKS_FILE, renderMarkedSection(existing, CORES_START, CORES_END, section));
    console.log('bench:cores: BENCHMARKS.md updated');
  } finally {
    for (const store of stores) {
      await store.thread.end();
      for (const core of store.cores) await core.stop();
      await store.sandbox.stop();
      await store.drop();
    }
    await rm(work, { recursive: true, force: true });
  }
}

if (import.meta.main) runToExit(main);
