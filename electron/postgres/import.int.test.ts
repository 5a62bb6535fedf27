/**
 * `npm run journal:import` on a real store history: a core on the file journal rings up
 * 30 days of sales (corrections, payments, late payments on displaced sales, shifts,
 * weekly settlements), its journal is imported into PostgreSQL, and a core started on the
 * database answers every shift, day, total, sale, settlement result, claim, operator and
 * device as the file-backed core did, with the methods the bridge calls. A damaged journal
 * is refused and a second import changes nothing.
 */
import { appendFile, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeCore } from '../compose.ts';
import { loadConfig } from '../core/config.ts';
import type { Core } from '../core/core.ts';
import { memoryLogger } from '../core/log.ts';
import { serviceControl, waitFor, type ServiceControl } from '../core/terminal/fixtures/service.ts';
import { localDayOf } from '../core/terminal/local-day.ts';
import { managerSession } from '../core/operators/fixtures/sign-in.ts';
import type { Caller } from '../core/operators/operators.ts';
import { systemClock } from '../shared/clock.ts';
import { openTestDatabase, type TestDatabase } from './fixtures/test-database.ts';
import { ImportRefused, importJournal } from './import.ts';
import postgres from 'postgres';

const DAYS = 30;
const DAY_S = 86_400;

let server: TestDatabase;
let dir: string;
const cores: Core[] = [];

beforeAll(async () => {
  server = await openTestDatabase();
  dir = await mkdtemp(join(tmpdir(), 'pos-import-'));
}, 120_000);
afterAll(async () => {
  for (const core of cores) await core.stop();
  await server?.drop();
  await rm(dir, { recursive: true, force: true });
});

async function startCore(env: Record<string, string> = {}, dataDir: string = dir): Promise<Core> {
  const core = await composeCore(loadConfig({ POS_DATA_DIR: dataDir, POS_LANG: 'en', ...env }, []), { log: memoryLogger(systemClock) });
  cores.push(core);
  await core.start();
  return core;
}
async function stopCore(core: Core): Promise<void> {
  await core.stop();
  cores.splice(cores.indexOf(core), 1);
}

/** Thirty days at checkout 1: each day a sale corrected before it is paid; every other day the displaced one paid late too. */
async function ringUpThirtyDays(core: Core, svc: ServiceControl): Promise<void> {
  const checkout = { storeId: 1, checkoutId: 1 };
  const statusOf = (saleId: string, status: string) =>
    waitFor(async () => ((await core.journal.sales.get(saleId))?.sale.status === status ? true : undefined), `sale ${saleId} to be ${status}`, { between: () => core.terminal.tick() });
  const manager = core.operators.caller(await managerSession(core)) as Caller;
  await core.operators.add(manager, { name: 'Ana', role: 'supervisor', pin: '4826' });
  for (let day = 0; day < DAYS; day++) {
    await core.openShift('Ana', `day ${day + 1}`);
    const first = await core.charge({ ...checkout, by: 'Ana', amountCents: 1000 + day });
    const corrected = await core.charge({ ...checkout, by: 'Ana', amountCents: 1250 + day });
    const firstId = first.newest?.sale_id ?? '';
    const newestId = corrected.newest?.sale_id ?? '';
    await svc('POST', '/_sandbox/pay', { store_id: 1, checkout_id: 1 });
    await statusOf(newestId, 'paid');
    if (day % 2 === 1) {
      const pixId = (await core.journal.sales.get(firstId))?.sale.pix_id ?? '';
      expect((await svc('POST', '/_sandbox/pay', { late_for: pixId })).status).toBe(200);
      await statusOf(firstId, 'paid_late');
    }
    await core.closeShift('Ana', undefined, true);
    if (day % 7 === 6) expect((await svc('POST', '/_sandbox/settlements/run', {})).status).toBe(200);
    await svc('POST', '/_sandbox/clock/advance', { seconds: DAY_S });
  }
  await quiet(core);
}

/**
 * Until the journal stops growing: the follow-up and the settlements' reconciliation run in
 * the background, and a snapshot must not race them.
 */
async function quiet(core: Core): Promise<void> {
  let last = -1;
  let still = 0;
  while (still < 3) {
    await core.terminal.tick();
    await new Promise((r) => setTimeout(r, 150));
    const now = core.journal.status().lastSeq;
    still = now === last ? still + 1 : 0;
    last = now;
  }
}

/**
 * Everything a supervisor and a manager can read, through the methods the bridge calls. A
 * settlement's detail reconciles it when read (journaling the result), so everything is read
 * once, the journal left to settle, and read again.
 */
async function everything(core: Core) {
  await readAll(core);
  await quiet(core);
  return readAll(core);
}

async function readAll(core: Core) {
  const shifts = (await core.shifts.list({ limit: 50 })).shifts;
  const reports = await Promise.all(shifts.map((s) => core.shifts.report({ shiftId: s.shift_id })));
  const days = await core.shifts.days({ timeZone: 'UTC', count: 31 });
  const dayReports = await Promise.all(days.days.map((d) => core.shifts.dayReport({ day: d.day, timeZone: 'UTC' })));
  const now = core.clock.now();
  const settlements = await core.terminal.reconciler.list(now - 365 * DAY_S * 1000, now + DAY_S * 1000);
  const settlementDetails = await Promise.all(settlements.map((s) => core.terminal.reconciler.detail(s.settlement.settlement_id)));
  return {
    shifts,
    reports,
    days,
    dayReports,
    today: await core.shifts.dayReport({ day: localDayOf(core.clock.now(), 'UTC'), timeZone: 'UTC' }),
    sales: await core.journal.sales.createdBetween(0, Number.MAX_SAFE_INTEGER),
    settlements,
    settlementDetails,
    pending: await core.terminal.reconciler.pending(),
    claims: await core.claims.claims(),
    operators: core.operators.list(),
    devices: core.devices.list(),
    verify: await core.journal.verify(),
  };
}

describe('npm run journal:import', () => {
  it('moves a 30-day journal into PostgreSQL; the database-backed core answers every read the same', async () => {
    const fileCore = await startCore();
    const svc = serviceControl(fileCore.status().service.baseUrl ?? '');
    await ringUpThirtyDays(fileCore, svc);
    const before = await everything(fileCore);
    expect(before.shifts).toHaveLength(DAYS);
    expect(before.settlements.length).toBeGreaterThanOrEqual(4);
    expect(before.sales.filter((s) => s.sale.status === 'paid_late')).toHaveLength(DAYS / 2);
    await stopCore(fileCore);

    const url = await server.another();
    const progress: Array<[number, number]> = [];
    const result = await importJournal({ dataDir: dir, databaseUrl: url, batch: 100, progress: (done, total) => progress.push([done, total]) });
    expect(result).toMatchObject({ outcome: 'imported', entries: before.verify.ok ? before.verify.entries : -1, resumedAfter: 0 });
    expect(progress.at(-1)).toEqual([result.entries, result.entries]);
    expect(progress.length).toBe(Math.ceil(result.entries / 100));

    // Run twice: the second finds it there and changes nothing.
    expect(await importJournal({ dataDir: dir, databaseUrl: url })).toEqual({ outcome: 'already_there', entries: result.entries });

    const dbCore = await startCore({ POS_DATABASE_URL: url });
    const after = await everything(dbCore);
    expect(after).toEqual(before);
    await stopCore(dbCore);

    // Into a database that holds another journal: refused, nothing written.
    const other = await server.another();
    const busy = await startCore({ POS_DATABASE_URL: other });
    await busy.charge({ storeId: 1, checkoutId: 1, by: 'Bruno', amountCents: 500 });
    await stopCore(busy);
    await expect(importJournal({ dataDir: dir, databaseUrl: other })).rejects.toThrow(/already holds another journal \(\d+ entries\): import into an empty database\./);
  }, 240_000);

  it('refuses a damaged journal and a data dir without one, with a sentence, writing nothing', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'pos-import-empty-'));
    try {
      await expect(importJournal({ dataDir: empty, databaseUrl: await server.another() })).rejects.toThrow(new ImportRefused(`There is no journal in ${join(empty, 'journal')}: give the data dir of the store computer's app (--data-dir).`));
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
    const damaged = await mkdtemp(join(tmpdir(), 'pos-import-damaged-'));
    try {
      const core = await startCore({}, damaged);
      await core.charge({ storeId: 1, checkoutId: 1, by: 'Ana', amountCents: 700 });
      await stopCore(core);
      const segments = (await readdir(join(damaged, 'journal'))).filter((f) => f.endsWith('.jsonl')).sort();
      await appendFile(join(damaged, 'journal', segments.at(-1)!), '{"seq":1,"prev":"not a chain"}\n');
      const url = await server.another();
      await expect(importJournal({ dataDir: damaged, databaseUrl: url })).rejects.toThrow(/is damaged at .* line \d+ \(.*\): nothing was imported\. Repair it in the app's journal screen first\./);
      const sql = postgres(url, { max: 1, onnotice: () => {} });
      try {
        expect(await sql`select to_regclass('entries') as t`).toEqual([{ t: null }]);
      } finally {
        await sql.end();
      }
    } finally {
      await rm(damaged, { recursive: true, force: true });
    }
  }, 60_000);
});
