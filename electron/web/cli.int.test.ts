/**
 * `npm run start:web` (and `npm start` without Electron) as a person runs it: what it
 * prints, and that what it prints works. A process of its own, stopped by its pid.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FIXTURE_TOKENS, FIXTURE_WEBHOOK_SECRET } from '../sandbox/fixture.ts';
import { startSandbox, type Sandbox } from '../sandbox/server.ts';
import { startCliProcess } from './fixtures/cli-process.ts';
import { loadTlsIdentity } from './tls.ts';
import postgres from 'postgres';
import { openTestDatabase } from '../postgres/fixtures/test-database.ts';

const running: ChildProcess[] = [];
const dirs: string[] = [];
let standalone: Sandbox | null = null;

afterEach(async () => {
  for (const child of running.splice(0)) {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      const exited = new Promise((r) => child.once('exit', r));
      process.kill(child.pid, 'SIGTERM');
      await exited;
    }
  }
  await standalone?.close();
  standalone = null;
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** Starts the browser shell; resolves with what it printed once that matches `until`. */
async function startWeb(env: Record<string, string>, until: RegExp, args: string[] = []): Promise<{ out: () => string; child: ChildProcess }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'pos-cli-'));
  dirs.push(dataDir);
  const shell = startCliProcess({ name: 'the browser shell', args, env: { ...process.env, POS_DATA_DIR: dataDir, POS_WEB_PORT: '0', POS_LANG: 'en', ...env } });
  running.push(shell.child);
  await shell.until(until, 90_000);
  return { out: shell.out, child: shell.child };
}

describe('npm run start:web', () => {
  it('prints the embedded sandbox address and a pay example that the sandbox accepts', async () => {
    const out = (await startWeb({}, /curl .*\n/)).out();
    const sandboxUrl = /embedded sandbox at (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
    expect(sandboxUrl, out).toBeDefined();
    const example = /curl -X POST (\S+) -H '([^:]+): ([^']+)' -d '([^']+)'/.exec(out);
    expect(example?.[1]).toBe(`${sandboxUrl}/_sandbox/pay`);
    const pay = await fetch(example?.[1] ?? '', { method: 'POST', headers: { [example?.[2] ?? '']: example?.[3] ?? '' }, body: example?.[4] });
    // No sale is pending yet: the sandbox says so (reference 3.1), it does not refuse the request itself.
    expect(pay.status).toBe(409);
  });

  it('with POS_SERVICE_URL talks to that service and prints no sandbox', async () => {
    standalone = await startSandbox({ port: 0 });
    const web = await startWeb({ POS_SERVICE_URL: standalone.url, POS_SERVICE_TOKEN: FIXTURE_TOKENS.manager, POS_WEBHOOK_SECRET: FIXTURE_WEBHOOK_SECRET }, /Pix cashier is running/);
    // Everything it will have said by the time it stops.
    const exited = new Promise((r) => web.child.once('exit', r));
    process.kill(web.child.pid as number, 'SIGTERM');
    await exited;
    expect(web.out()).not.toMatch(/sandbox/i);
  });

  it('with POS_SERVICE_URL and no token anywhere, says what to set, in one sentence', async () => {
    await expect(startWeb({ POS_SERVICE_URL: 'http://127.0.0.1:9' }, /running/)).rejects.toThrow(/Cannot start: POS_SERVICE_URL is set but no service token is: set POS_SERVICE_TOKEN/);
  });

  it('with POS_TLS_CERT and POS_TLS_KEY serves https and prints the certificate fingerprint beside the address', async () => {
    const merchant = await mkdtemp(join(tmpdir(), 'pos-cli-cert-'));
    dirs.push(merchant);
    const own = await loadTlsIdentity({ dataDir: merchant, hosts: ['127.0.0.2'] });
    const web = await startWeb(
      { POS_WEB_HOST: '127.0.0.2', POS_TLS_CERT: join(merchant, 'tls', 'cert.pem'), POS_TLS_KEY: join(merchant, 'tls', 'key.pem') },
      /Certificate SHA-256 fingerprint: .*\n/,
    );
    expect(web.out()).toMatch(/Pix cashier is running: open https:\/\/127\.0\.0\.2:\d+\/#token=/);
    expect(web.out()).toContain(`Certificate SHA-256 fingerprint: ${own.fingerprint}`);
  });

  it('with only one of POS_TLS_CERT and POS_TLS_KEY says to give both, in one sentence', async () => {
    await expect(startWeb({ POS_TLS_CERT: '/nowhere/cert.pem' }, /running/)).rejects.toThrow(/Cannot start: POS_TLS_CERT is set but POS_TLS_KEY is not/);
  });
});

describe('npm run server', () => {
  /** Runs the server to its end; resolves with its exit code and all it printed. */
  async function refused(env: Record<string, string>, args: string[] = []): Promise<{ code: number | null; out: string }> {
    const server = startCliProcess({ name: 'the server', args: ['--server', ...args], env: { ...process.env, POS_DATABASE_URL: '', POS_SERVICE_URL: '', POS_DATA_DIR: tmpdir(), POS_WEB_PORT: '0', ...env } });
    const code = await new Promise<number | null>((r) => server.child.once('exit', r));
    return { code, out: server.out() };
  }

  it('refuses to start without a database, then without a service, each with the sentence that says what to set', async () => {
    expect(await refused({})).toEqual({ code: 2, out: 'Cannot start: npm run server keeps the journal in PostgreSQL: set POS_DATABASE_URL (for example postgres://cashier@db.example:5432/pix, the password in PGPASSWORD).\n' });
    expect(await refused({ POS_DATABASE_URL: 'postgres://cashier@127.0.0.1:1/pix' })).toEqual({
      code: 2,
      out: 'Cannot start: npm run server talks to the merchant’s payment service: set POS_SERVICE_URL and POS_SERVICE_TOKEN, or add --sandbox to try it on the embedded sandbox.\n',
    });
    expect((await refused({ POS_DATABASE_URL: 'postgres://cashier:hunter2@127.0.0.1:1/pix' })).out).toBe('Cannot start: POS_DATABASE_URL must not contain a password: give it in PGPASSWORD.\n');
  });

  it('with a database it cannot reach: a sentence naming the server, never a password, and no start', async () => {
    const { code, out } = await refused({ POS_DATABASE_URL: 'postgres://cashier@127.0.0.1:1/pix', PGPASSWORD: 'hunter2' }, ['--sandbox']);
    expect(code).toBe(1);
    expect(out).toMatch(/(^|\n)Cannot start: Could not reach PostgreSQL at postgres:\/\/cashier@127\.0\.0\.1:1\/pix: .*Check POS_DATABASE_URL\.\n$/);
    expect(out).not.toContain('hunter2');
  });

  it('with a database and --sandbox: serves tills, its journal in PostgreSQL', async () => {
    const db = await openTestDatabase();
    try {
      const { out } = await startWeb({ POS_DATABASE_URL: db.url }, /The journal is in PostgreSQL at .*\.\n/, ['--server', '--sandbox']);
      expect(out()).toMatch(/Pix cashier is running: open https?:\/\/127\.0\.0\.1:\d+\//);
      expect(out()).toContain(`The journal is in PostgreSQL at ${db.url}.\n`);
      const sql = postgres(db.url, { max: 1, onnotice: () => {} });
      try {
        expect((await sql`select max(version)::int as v from schema_migrations`)[0]!.v).toBeGreaterThanOrEqual(1);
        // The sandbox's checkout printed at the first start: its entry is in the database.
        expect((await sql`select type from entries order by seq`).map((r) => r.type)).toContain('office.printed_qr');
      } finally {
        await sql.end();
      }
    } finally {
      for (const child of running.splice(0)) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      await db.drop();
    }
  }, 60_000);

  it('a second server on the same database stands by, says so, and takes over by itself when the first dies', async () => {
    const db = await openTestDatabase();
    try {
      const env = { POS_DATABASE_URL: db.url, POS_HEALTH_PORT: '0' };
      const first = await startWeb(env, /The journal is in PostgreSQL at .*\.\n/, ['--server', '--sandbox']);
      const healthOf = (out: string) => /Health address for a load balancer: (http:\/\/127\.0\.0\.1:\d+\/health) /.exec(out)?.[1] ?? '';
      const ask = async (url: string) => {
        const res = await fetch(url);
        return { status: res.status, body: (await res.json()) as Record<string, unknown> };
      };
      expect(await ask(healthOf(first.out()))).toMatchObject({ status: 200, body: { role: 'active', term: 1, database: 'reachable', inbox_depth: 0 } });
      const before = running.length;
      const second = startWeb(env, /The journal is in PostgreSQL at .*\.\n/, ['--server', '--sandbox']);
      while (running.length === before) await new Promise((r) => setTimeout(r, 10));
      const standing = running.at(-1)!;
      let said = '';
      await new Promise<void>((resolve) => {
        standing.stdout!.on('data', (chunk: string) => {
          said += chunk;
          if (said.includes('Standing by')) resolve();
        });
      });
      expect(said).toMatch(/Standing by: the core at [^\n]+ is active on this database\. This one takes over by itself when that one stops\.\n$/);
      expect(said).not.toContain('Pix cashier is running');
      // A load balancer sends nothing to the standby: its health address says 503, and who is active.
      const standbyHealth = healthOf(said);
      expect(await ask(standbyHealth)).toMatchObject({ status: 503, body: { role: 'standby', term: null, active_core: expect.stringContaining(':'), inbox_depth: 0 } });
      first.child.kill('SIGKILL');
      const killed = Date.now();
      expect((await second).out()).toMatch(/Pix cashier is running: open https?:\/\/127\.0\.0\.1:\d+\//);
      // The lease lasts 6 s: the standby is serving within it (and a poll) of the kill.
      expect(Date.now() - killed).toBeLessThan(15_000);
      expect(await ask(standbyHealth)).toMatchObject({ status: 200, body: { role: 'active', term: 2, database: 'reachable' } });
      // A standby stops at once when asked (its start waits for a lease it may never get).
      const third = await startWeb(env, /Standing by: /, ['--server', '--sandbox']);
      const stoppedAt = Date.now();
      third.child.kill('SIGTERM');
      const code = await new Promise<number | null>((r) => third.child.once('exit', r));
      expect(code).toBe(0);
      expect(third.out()).toContain('Stopped while standing by.\n');
      expect(Date.now() - stoppedAt).toBeLessThan(5_000);
    } finally {
      for (const child of running.splice(0)) {
        if (child.exitCode !== null || child.signalCode !== null) continue;
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      await db.drop();
    }
  }, 90_000);
});
