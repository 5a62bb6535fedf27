import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { arch, cpus, platform, totalmem } from 'node:os';
import type { Logger } from '../core/log.ts';
/**
 * BENCHMARKS.md: `npm run bench` owns only what lies between its two markers. Everything
 * else in the file (the title, the cashier-screen section that the browser-shell benchmark
 * writes, anyone's notes) is kept as it is. Pure, so the keeping is tested.
 */
export const CORE_START = '<!-- bench:core:start -->';
export const CORE_END = '<!-- bench:core:end -->';
export const SCREEN_HEADING = '## Cashier screen (browser shell)';

const SCREEN_PLACEHOLDER = `${SCREEN_HEADING}

Not measured yet: Charge → QR visible and payment → Paid visible, through the browser shell.
`;

/** The new file: `existing` (null when there is none) with the core block put in or replaced. */
export function renderBenchmarks(existing: string | null, coreSection: string): string {
  const block = `${CORE_START}\n${coreSection.trim()}\n${CORE_END}`;
  if (existing === null || existing.trim() === '') return `# Benchmarks\n\n${block}\n\n${SCREEN_PLACEHOLDER}`;
  const start = existing.indexOf(CORE_START);
  const end = start < 0 ? -1 : existing.indexOf(CORE_END, start);
  let next: string;
  if (start >= 0 && end >= 0) {
    next = existing.slice(0, start) + block + existing.slice(end + CORE_END.length);
  } else {
    // A file written by hand: the block goes under its title, the rest stays below it.
    const title = /^# .*\n/m.exec(existing);
    const at = title ? title.index + title[0].length : 0;
    next = `${existing.slice(0, at)}${title ? '\n' : ''}${block}\n\n${existing.slice(at).replace(/^\n+/, '')}`;
  }
  if (!next.includes(SCREEN_HEADING)) next = `${next.trimEnd()}\n\n${SCREEN_PLACEHOLDER}`;
  return next;
}

export interface Row {
  what: string;
  figure: string;
  detail: string;
}

/** A GitHub table; pipes in cells are escaped. */
export function markdownTable(rows: readonly Row[]): string {
  const cell = (s: string) => s.replaceAll('|', '\\|');
  return ['| what | figure | detail |', '|---|---|---|', ...rows.map((r) => `| ${cell(r.what)} | ${cell(r.figure)} | ${cell(r.detail)} |`)].join('\n');
}

/** Nearest-rank percentile of milliseconds, rounded to 0.01 ms; 0 for no samples. */
export function percentileMs(samples: readonly number[], p: number): number {
  if (samples.length === 0) return 0;
  const sorted = [...samples].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return Math.round((sorted[index] as number) * 100) / 100;
}

/** The 64-till benchmark's block (electron/bench/tills.ts). */
export const TILLS_START = '<!-- bench:tills -->';
export const TILLS_END = '<!-- /bench:tills -->';

/**
 * The new file: `existing` (null when there is none) with the block between `start` and
 * `end` put in or replaced; a file without the block gets it at its end, and nothing else
 * in the file changes.
 */
export function renderMarkedSection(existing: string | null, start: string, end: string, section: string): string {
  const block = `${start}\n${section.trim()}\n${end}`;
  if (existing === null || existing.trim() === '') return `# Benchmarks\n\n${block}\n`;
  const at = existing.indexOf(start);
  const until = at < 0 ? -1 : existing.indexOf(end, at);
  if (at >= 0 && until >= 0) return existing.slice(0, at) + block + existing.slice(until + end.length);
  return `${existing.trimEnd()}\n\n${block}\n`;
}

/**
 * A benchmark core's logger: only what went wrong, to stderr (named by `prefix`), and a
 * count of warnings for the report; the benchmark's console stays readable.
 */
export function quietLogger(prefix: string): Logger & { warnings: number } {
  const logger = {
    warnings: 0,
    info: () => undefined,
    warn: () => {
      logger.warnings++;
    },
    error: (msg: string, fields?: Record<string, unknown>) => process.stderr.write(`${prefix}: core error: ${msg} ${JSON.stringify(fields ?? {})}\n`),
  };
  return logger;
}

/** Runs a bench entry point to its end: exit 0 when it is done, 1 with the error printed. */
export function runToExit(main: () => Promise<unknown>): void {
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}

/** The machine a figure was measured on, as every benchmark section names it. */
export function machine(): string {
  const cpu = cpus();
  return `${platform()} ${arch()}, ${cpu.length} cores (${cpu[0]?.model.trim() ?? 'unknown CPU'}), ${Math.round(totalmem() / 2 ** 30)} GiB RAM, Node ${process.version}`;
}

/**
 * Runs a bench step in a fresh process of its own (its memory and start are its own): node
 * `script` with `args`; resolves with the JSON of the last line it printed.
 */
export function runJsonStep<T>(label: string, script: string, args: readonly string[]): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) reject(new Error(`bench: ${label} exited ${code}: ${err}`));
      else resolve(JSON.parse(out.trim().split('\n').at(-1)!) as T);
    });
  });
}

/** A database of a bench's own on `serverUrl`'s server: its URL, an admin pool on the server, and drop(). */
export async function openBenchDatabase(serverUrl: string, prefix: string): Promise<{ url: string; name: string; admin: postgres.Sql; drop: () => Promise<void> }> {
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await admin`create database ${admin(name)}`;
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    admin,
    drop: async () => {
      await admin`drop database if exists ${admin(name)} with (force)`;
      await admin.end({ timeout: 5 });
    },
  };
}

/** The options every PostgreSQL bench takes: the server it may make its database on, and --no-write. */
export const DATABASE_BENCH_OPTIONS = {
  'database-url': { type: 'string' },
  'no-write': { type: 'boolean', default: false },
} as const;

/** The server URL a PostgreSQL bench was given; a sentence naming `bench` and what to give when there is none. */
export function benchServerUrl(value: string | undefined, bench: string): string {
  if (value === undefined || value === '') throw new Error(`${bench} needs --database-url postgres://user@host:port/db (a server where it may create and drop a database of its own)`);
  return value;
}

/** A whole-number option of at least `min`, or `fallback` when absent; a sentence naming the flag otherwise. */
export function countOption(value: string | undefined, flag: string, fallback: number, min = 1): number {
  if (value === undefined) return fallback;
  const count = Number(value);
  if (!Number.isSafeInteger(count) || count < min) throw new Error(`--${flag} must be a whole number of at least ${min.toLocaleString('en-US')}, not "${value}"`);
  return count;
}

/** Linux's clock ticks per second for /proc/<pid>/stat (USER_HZ, 100 on every Linux ABI Node runs on). */
const USER_HZ = 100;

/** Another process's CPU time so far (user + system), from /proc; null where there is none. */
export async function processCpuMs(pid: number): Promise<number | null> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which may hold spaces: state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / USER_HZ;
  } catch {
    return null;
  }
}
