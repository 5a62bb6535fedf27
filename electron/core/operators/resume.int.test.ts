/**
 * Issue 23, point 3: a till's sign-in and a manager's pairing code outlive the core that made
 * them. A real core on its sandbox (startCoreOnSandbox) serves a paired till over the browser
 * shell's WebSocket; the core goes away and another answers on the same journal: on the data
 * dir's files, the same dir opened again (a restart); on PostgreSQL
 * (.config/vitest.postgres.config.ts), a second core on the same database that stood by while
 * the first held the lease and takes over when it stops. The till's bridge reconnects with its
 * credential and its page's resume secret and is still signed in, as the same cashier; a code
 * the manager made before pairs after, once. On PostgreSQL a second test runs two servers
 * (`npm run start:web`) on one database and SIGKILLs the active one mid-sign-in.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { composeCore } from '../../compose.ts';
import { systemClock } from '../../shared/clock.ts';
import type { ServerMessage } from '../../shared/ws-protocol.ts';
import { BridgeClient } from '../../web/fixtures/bridge-client.ts';
import { startWebShell, type WebShell } from '../../web/server.ts';
import { loadConfig } from '../config.ts';
import type { Core } from '../core.ts';
import type { DeviceInfo } from '../devices/registry.ts';
import { memoryLogger } from '../log.ts';
import { startCoreOnSandbox, type CoreOnSandbox } from '../terminal/fixtures/core.ts';
import { journalDatabase } from '../terminal/fixtures/journal-database.ts';
import { managerSession, TEST_PIN } from './fixtures/sign-in.ts';
import type { Caller } from './operators.ts';

const log = memoryLogger(systemClock);
const TOKEN = 'store-token-resume-0123456789';
const open: BridgeClient[] = [];
const shells: WebShell[] = [];
const cleanups: Array<() => Promise<void>> = [];

afterAll(async () => {
  for (const c of open) c.close();
  for (const s of shells) await s.close();
  for (const c of cleanups.reverse()) await c();
});

async function shellOf(core: Core, dir: string): Promise<WebShell> {
  const rendererDir = join(dir, 'renderer');
  await mkdir(rendererDir, { recursive: true });
  await writeFile(join(rendererDir, 'index.html'), '<!doctype html><title>cashier</title>');
  const shell = await startWebShell({ core, rendererDir, host: '127.0.0.1', port: 0, token: TOKEN });
  shells.push(shell);
  return shell;
}

async function connect(shell: WebShell, as: Parameters<typeof BridgeClient.open>[1]): Promise<BridgeClient> {
  const client = await BridgeClient.open(shell.origin, as);
  open.push(client);
  await client.until(() => client.messages.find((m): m is Extract<ServerMessage, { type: 'device' }> => m.type === 'device'), 'the device message');
  return client;
}

async function pairAt(shell: WebShell, code: string): Promise<{ credential: string; device: DeviceInfo }> {
  const unpaired = await connect(shell, 'unpaired');
  return unpaired.ok<{ credential: string; device: DeviceInfo }>('pairing.pair', { code });
}

describe('issue 23: a sign-in and a pairing code outlive their core', () => {
  it('the till’s bridge reconnects to the core that answers next with its resume secret and is still signed in; a code made before pairs after, once', async () => {
    const first: CoreOnSandbox = await startCoreOnSandbox('resume', log);
    cleanups.push(() => first.stop());
    const onPostgres = first.configEnv.POS_DATABASE_URL !== undefined;
    const shellA = await shellOf(first.core, first.dir);
    const manager = first.core.operators.caller(await managerSession(first.core)) as Caller;
    await first.core.operators.add(manager, { name: 'Caio', role: 'cashier', pin: TEST_PIN });

    // A till paired and signed in at the first core; its page keeps the secret it was given.
    const { code: pairedBefore } = await first.core.devices.startPairing(manager, { kind: 'till', storeId: 1, checkoutId: 2, name: 'Till 2' });
    const { credential, device } = await pairAt(shellA, pairedBefore);
    const till = await connect(shellA, { credential });
    expect(till.resumeKey()).toBe('');
    await till.ok('auth.signIn', { name: 'Caio', pin: TEST_PIN });
    const secret = till.resumeKey() ?? '';
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // A second till signs in and out: its secret is ended everywhere.
    const { credential: credential3 } = await pairAt(shellA, (await first.core.devices.startPairing(manager, { kind: 'till', storeId: 1, checkoutId: 1, name: 'Till 3' })).code);
    const till3 = await connect(shellA, { credential: credential3 });
    await till3.ok('auth.signIn', { name: 'Caio', pin: TEST_PIN });
    const ended = till3.resumeKey() ?? '';
    await till3.ok('auth.signOut', {});
    // A code the manager makes now, entered only once the first core is gone.
    const { code: pairedAfter } = await first.core.devices.startPairing(manager, { kind: 'display', storeId: 1, checkoutId: 2, name: 'Display 2' });

    // The next core: on PostgreSQL a standby on the same database, waiting for the lease.
    const dirB = onPostgres ? await mkdtemp(join(tmpdir(), 'pos-resume-b-')) : first.dir;
    const next = await composeCore(loadConfig({ ...first.configEnv, POS_DATA_DIR: dirB }, []), { log });
    cleanups.push(async () => {
      await next.stop();
      if (onPostgres) await rm(dirB, { recursive: true, force: true });
    });
    const nextStarted = onPostgres ? next.start() : null;
    if (onPostgres) {
      // It stands by while the first holds the lease.
      await new Promise((r) => setTimeout(r, 300));
      expect(next.state).not.toBe('running');
    }
    await shellA.close();
    await till.until(() => till.closed ?? undefined, 'the till’s connection to drop');
    await first.core.stop();
    await (nextStarted ?? next.start());
    if (onPostgres) {
      // The standby took the lease over, under the next term.
      const sql = postgres(first.configEnv.POS_DATABASE_URL as string, { max: 1, onnotice: () => {} });
      try {
        const [lease] = await sql<{ holder: string; term: number }[]>`select holder, term::int as term from core_lease where id = 1`;
        expect(lease?.holder.endsWith(dirB)).toBe(true);
        expect(lease?.term).toBe(2);
      } finally {
        await sql.end();
      }
    }
    const shellB = await shellOf(next, dirB);

    // The till comes back with its credential and its page's secret: signed in, as Caio, a cashier.
    const back = await connect(shellB, { credential, resume: secret });
    expect(back.resumeKey()).toBe(secret);
    expect(await back.ok('auth.status')).toMatchObject({ operator: { name: 'Caio', role: 'cashier' } });
    // Roles are the core's, from the resumed operator.
    expect(await back.call('operators.list')).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    await next.operators.journaled();
    const resumed = (await next.journal.eventsOfType('operator.sign_in_resumed')).map((e) => e.data);
    expect(resumed).toEqual([expect.objectContaining({ by: 'Caio', device_id: device.id, place: `device:${device.id}`, by_this_core: false })]);

    // An ended secret, or one from another device, signs in nothing and journals nothing.
    const before = (await next.journal.verify()) as { entries: number };
    const signedOut = await connect(shellB, { credential: credential3, resume: ended });
    expect(signedOut.resumeKey()).toBe('');
    expect(await signedOut.ok('auth.status')).toMatchObject({ operator: null });
    const borrowed = await connect(shellB, { credential: credential3, resume: secret });
    expect(await borrowed.ok('auth.status')).toMatchObject({ operator: null });
    await next.operators.journaled();
    expect(await next.journal.verify()).toEqual(before);

    // The code made at the first core pairs at this one, once; the one used there is used here too.
    const display = await pairAt(shellB, pairedAfter);
    expect(display.device).toMatchObject({ kind: 'display', checkoutId: 2, name: 'Display 2' });
    const again = await connect(shellB, 'unpaired');
    expect(await again.call('pairing.pair', { code: pairedAfter })).toMatchObject({ ok: false, error: { code: 'pairing_refused', params: { reason: 'used' } } });
    expect(await again.call('pairing.pair', { code: pairedBefore })).toMatchObject({ ok: false, error: { code: 'pairing_refused', params: { reason: 'used' } } });

    // The secret was never journaled in clear.
    const journaled = JSON.stringify(await next.journal.eventsBetween(0, Number.MAX_SAFE_INTEGER));
    expect(journaled).not.toContain(secret);
    expect(journaled).not.toContain(pairedAfter);
  }, 60_000);
});

/** `npm run start:web` as a process of its own, on the journal's database: resolves once it serves (or, with `until`, once it says that). */
function startServer(env: Record<string, string>, until = /Pix cashier is running: open (http:\/\/\S+)\n/): Promise<{ child: ChildProcess; out: () => string; served: Promise<string> }> {
  const cli = fileURLToPath(new URL('../../web/cli.ts', import.meta.url));
  const child = spawn(process.execPath, [cli], { env: { ...process.env, POS_WEB_PORT: '0', POS_LANG: 'en', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  cleanups.push(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  });
  let out = '';
  let serve: (url: string) => void = () => undefined;
  const served = new Promise<string>((resolve) => (serve = resolve));
  return new Promise((resolve, reject) => {
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const url = /Pix cashier is running: open (http:\/\/\S+)\n/.exec(out)?.[1];
      if (url !== undefined) serve(new URL(url).origin);
      if (until.test(out)) resolve({ child, out: () => out, served });
    });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.once('exit', (code, signal) => reject(new Error(`the server exited (${signal ?? code}):\n${out}`)));
  });
}

describe('issue 23 on PostgreSQL: the active core is SIGKILLed', () => {
  it.runIf(process.env.POS_TEST_JOURNAL === 'postgres')(
    'the standby takes over; the till reconnects to it still signed in, and a code made at the dead core pairs there once',
    async () => {
      const database = await journalDatabase();
      cleanups.push(() => database.drop());
      const dirs = [await mkdtemp(join(tmpdir(), 'pos-takeover-a-')), await mkdtemp(join(tmpdir(), 'pos-takeover-b-'))];
      cleanups.push(async () => {
        for (const d of dirs) await rm(d, { recursive: true, force: true });
      });
      const env = (dir: string) => ({ ...database.env, POS_DATA_DIR: dir, POS_WEB_TOKEN: TOKEN });
      const active = await startServer(env(dirs[0] as string));
      const originA = await active.served;
      const standby = await startServer(env(dirs[1] as string), /Standing by: /);

      // At the active core: the first manager, a cashier, a paired till signed in, and a code for later.
      const store = await BridgeClient.open(originA, { token: TOKEN });
      open.push(store);
      await store.ok('auth.createFirstManager', { name: 'Marta', pin: TEST_PIN });
      await store.ok('operators.add', { name: 'Caio', role: 'cashier', pin: TEST_PIN });
      const pairing = (name: string) => store.ok<{ code: string }>('devices.startPairing', { kind: 'till', storeId: 1, checkoutId: 1, name });
      const unpaired = await BridgeClient.open(originA, 'unpaired');
      open.push(unpaired);
      const { credential, device } = await unpaired.ok<{ credential: string; device: DeviceInfo }>('pairing.pair', { code: (await pairing('Till 1')).code });
      const later = (await pairing('Till 9')).code;
      const till = await BridgeClient.open(originA, { credential });
      open.push(till);
      await till.ok('auth.signIn', { name: 'Caio', pin: TEST_PIN });
      const secret = till.resumeKey() ?? '';
      expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);

      active.child.kill('SIGKILL');
      await till.until(() => till.closed ?? undefined, 'the till’s connection to drop');
      // The lease runs out (6 s) and the standby serves, at an address of its own (a balancer's, in a store).
      const originB = await standby.served;
      const back = await BridgeClient.open(originB, { credential, resume: secret });
      open.push(back);
      await back.until(() => back.messages.find((m) => m.type === 'device'), 'the device message');
      expect(back.resumeKey()).toBe(secret);
      expect(await back.ok('auth.status')).toMatchObject({ operator: { name: 'Caio', role: 'cashier' } });
      expect(await back.call('devices.list')).toMatchObject({ ok: false, error: { code: 'forbidden' } });

      const fresh = await BridgeClient.open(originB, 'unpaired');
      open.push(fresh);
      expect(await fresh.ok('pairing.pair', { code: later })).toMatchObject({ device: { name: 'Till 9' } });
      expect(await fresh.call('pairing.pair', { code: later })).toMatchObject({ ok: false, error: { params: { reason: 'used' } } });

      // The database says so: the takeover's core journaled the resume, with the device and the sign-in.
      const sql = postgres(database.env.POS_DATABASE_URL as string, { max: 1, onnotice: () => {} });
      try {
        const rows = await sql<{ data: string }[]>`select data from entries where type = 'operator.sign_in_resumed'`;
        expect(rows.map((r) => JSON.parse(r.data) as Record<string, unknown>)).toEqual([expect.objectContaining({ by: 'Caio', device_id: device.id, by_this_core: false })]);
        expect((await sql<{ term: number }[]>`select term::int as term from core_lease`)[0]?.term).toBe(2);
      } finally {
        await sql.end();
      }
    },
    60_000,
  );
});
