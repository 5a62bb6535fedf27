import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Starts the real app (browser shell + core + embedded sandbox) as a child process on free
 * loopback ports, reads the one line it prints, and stops it by its pid afterwards. Under
 * e2e/playwright.postgres.config.ts (POS_E2E_JOURNAL=postgres) each app keeps its journal in
 * a PostgreSQL database of its own, dropped when it stops.
 */
export interface RunningApp {
  url: string;
  origin: string;
  token: string;
  dataDir: string;
  output: string[];
  stop(): Promise<void>;
}

const root = fileURLToPath(new URL('..', import.meta.url));

export async function startApp(env: Record<string, string> = {}): Promise<RunningApp> {
  const dataDir = await mkdtemp(join(tmpdir(), 'pos-e2e-'));
  const token = randomBytes(18).toString('base64url');
  const database = await journalDatabase();
  const child: ChildProcess = spawn(process.execPath, [join(root, 'electron/web/cli.ts')], {
    cwd: root,
    env: { ...process.env, POS_DATA_DIR: dataDir, POS_WEB_PORT: '0', POS_WEB_TOKEN: token, POS_LANG: 'en', ...database.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the app did not start in time:\n${output.join('\n')}`)), 30_000);
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      output.push(chunk);
      const match = /open (http:\/\/\S+)/.exec(chunk);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => output.push(chunk));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the app exited with ${code}:\n${output.join('\n')}`));
    });
  });
  if (database.env.POS_DATABASE_URL !== undefined) {
    // The line after the address says where the journal is: this run must be on PostgreSQL.
    const line = `The journal is in PostgreSQL at ${database.env.POS_DATABASE_URL}.`;
    for (let waited = 0; !output.join('').includes(line); waited += 50) {
      if (waited >= 5_000) throw new Error(`the app did not start on PostgreSQL:\n${output.join('')}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return {
    url,
    origin: new URL(url).origin,
    token,
    dataDir,
    output,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
      await database.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

async function journalDatabase(): Promise<{ env: Record<string, string>; drop: () => Promise<void> }> {
  if (process.env.POS_E2E_JOURNAL !== 'postgres') return { env: {}, drop: async () => {} };
  const { openTestDatabase } = await import('../electron/postgres/fixtures/test-database.ts');
  const db = await openTestDatabase();
  return { env: { POS_DATABASE_URL: db.url }, drop: () => db.drop() };
}

