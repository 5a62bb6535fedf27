/**
 * `npm run bench:takeover -- --database-url U [--kills N] [--no-write]`: how long the merchant
 * is without an active core when it dies. Two servers (`electron/web/cli.ts --server
 * --sandbox`, each with its health address) on a database of their own; N times: SIGKILL the
 * active one and time until the standby's health address answers 200, that is until it took
 * the lease, opened the journal and serves tills again; then start the killed one again, as a
 * supervisor would, to stand by. Prints p50 / p95 / max and writes its section of BENCHMARKS.md.
 * Measures only: asserts nothing. The database is dropped at the end.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DEFAULT_LEASE_MS } from '../postgres/lease.ts';
import { machine, markdownTable, percentileMs, renderMarkedSection, runToExit, type Row, openBenchDatabase } from './report.ts';

const KILLS = 10;
const CLI = fileURLToPath(new URL('../web/cli.ts', import.meta.url));
const BENCHMARKS_FILE = join(fileURLToPath(new URL('../..', import.meta.url)), 'BENCHMARKS.md');
export const TAKEOVER_START = '<!-- bench:takeover -->';
export const TAKEOVER_END = '<!-- /bench:takeover -->';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Server {
  child: ChildProcess;
  health: string;
  out: () => string;
}

/** Starts a server on `dataDir`; resolves once it printed its health address. */
async function startServer(dataDir: string, databaseUrl: string): Promise<Server> {
  const child = spawn(process.execPath, [CLI, '--server', '--sandbox'], {
    env: { ...process.env, POS_DATA_DIR: dataDir, POS_DATABASE_URL: databaseUrl, POS_WEB_PORT: '0', POS_HEALTH_PORT: '0', POS_LANG: 'en' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (out += c));
  const health = await new Promise<string>((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (c: string) => {
      out += c;
      const url = /Health address for a load balancer: (\S+) /.exec(out)?.[1];
      if (url) resolve(url);
    });
    child.once('exit', (code) => reject(new Error(`bench:takeover: a server exited with ${code}:\n${out}`)));
  });
  return { child, health, out: () => out };
}

async function status(url: string): Promise<number> {
  try {
    return (await fetch(url)).status;
  } catch {
    return 0;
  }
}

async function until(what: string, ok: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const end = performance.now() + timeoutMs;
  while (!(await ok())) {
    if (performance.now() > end) throw new Error(`bench:takeover: ${what} within ${timeoutMs} ms`);
    await sleep(20);
  }
}

async function stop(server: Server): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  const exited = new Promise((r) => server.child.once('exit', r));
  server.child.kill('SIGTERM');
  await exited;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { 'database-url': { type: 'string' }, kills: { type: 'string' }, 'no-write': { type: 'boolean', default: false } }, strict: true });
  const serverUrl = values['database-url'];
  if (serverUrl === undefined) throw new Error('bench:takeover needs --database-url postgres://user@host:port/db (a server where it may create and drop a database of its own)');
  const kills = values.kills === undefined ? KILLS : Number(values.kills);
  if (!Number.isSafeInteger(kills) || kills < 1) throw new Error('--kills must be a whole number of at least 1');
  const bench = await openBenchDatabase(serverUrl, 'pos_bench_takeover');
  const databaseUrl = bench.url;
  const work = await mkdtemp(join(tmpdir(), 'pos-bench-takeover-'));
  const dirs = [join(work, 'core-a'), join(work, 'core-b')];
  const servers: Server[] = [];
  const loadAtStart = loadavg()[0]!.toFixed(1);
  try {
    console.log(`bench:takeover: ${machine()}`);
    servers[0] = await startServer(dirs[0]!, databaseUrl);
    await until('the first core serves', async () => (await status(servers[0]!.health)) === 200, 60_000);
    servers[1] = await startServer(dirs[1]!, databaseUrl);
    await until('the second core stands by', async () => servers[1]!.out().includes('Standing by'), 60_000);
    const takeovers: number[] = [];
    let active = 0;
    for (let k = 0; k < kills; k++) {
      const standby = 1 - active;
      const t0 = performance.now();
      servers[active]!.child.kill('SIGKILL');
      await until('the standby took over', async () => (await status(servers[standby]!.health)) === 200, 60_000);
      takeovers.push(performance.now() - t0);
      console.log(`bench:takeover: kill ${k + 1} of ${kills}: serving again after ${Math.round(takeovers.at(-1)!)} ms`);
      // The killed one comes back, as a supervisor starts it again: a standby now.
      servers[active] = await startServer(dirs[active]!, databaseUrl);
      await until('the restarted core stands by', async () => servers[active]!.out().includes('Standing by'), 60_000);
      active = standby;
    }
    const rows: Row[] = [
      {
        what: 'Takeover: SIGKILL of the active core → the standby serves (health 200)',
        figure: `p50 ${Math.round(percentileMs(takeovers, 50))} ms, p95 ${Math.round(percentileMs(takeovers, 95))} ms`,
        detail: `${kills} kills, two servers on one database; max ${Math.round(Math.max(...takeovers))} ms. The lease lasts ${DEFAULT_LEASE_MS} ms and is renewed every third of it, so at the kill it had ${(DEFAULT_LEASE_MS * 2) / 3}–${DEFAULT_LEASE_MS} ms left; once it ran out the standby takes it at its next look (every 50 ms near the end), then opens the journal, its webhook receiver and browser shell; each: ${takeovers.map((t) => Math.round(t)).join(', ')} ms`,
      },
    ];
    const table = markdownTable(rows);
    console.log(table);
    if (values['no-write']) return;
    const section = `## Takeover when the active core dies (\`npm run bench:takeover -- --database-url U\`)\n\nOne run: ${machine()}, PostgreSQL on the same machine, load ${loadAtStart} → ${loadavg()[0]!.toFixed(1)}. Issue 23 asks for a takeover within 10 s; tills reconnect by themselves through a load balancer that follows the health address (README, *Run on a server*).\n\n${table}\n`;
    const existing = await readFile(BENCHMARKS_FILE, 'utf8').catch(() => null);
    await writeFile(BENCHMARKS_FILE, renderMarkedSection(existing, TAKEOVER_START, TAKEOVER_END, section));
    console.log('bench:takeover: BENCHMARKS.md updated');
  } finally {
    for (const s of servers) if (s) await stop(s);
    await bench.drop();
    await rm(work, { recursive: true, force: true });
  }
}

if (import.meta.main) runToExit(main);
