/**
 * The whole core on PostgreSQL, composed as `POS_DATABASE_URL=… npm run start:web` composes it:
 * a correction displaces a sale, the newest is paid through the embedded sandbox's signed
 * webhook, and a core started again on the same database (its data dir holding no journal
 * at all) answers every sale as the first one left it.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeCore } from '../compose.ts';
import { loadConfig } from '../core/config.ts';
import type { Core } from '../core/core.ts';
import { memoryLogger } from '../core/log.ts';
import { serviceControl, waitFor } from '../core/terminal/fixtures/service.ts';
import { systemClock } from '../shared/clock.ts';
import { openTestDatabase, type TestDatabase } from './fixtures/test-database.ts';
import postgres from 'postgres';

let db: TestDatabase;
let dir: string;
const cores: Core[] = [];

beforeAll(async () => {
  db = await openTestDatabase();
  dir = await mkdtemp(join(tmpdir(), 'pos-pg-core-'));
}, 120_000);
afterAll(async () => {
  for (const core of cores) await core.stop();
  await db?.drop();
  await rm(dir, { recursive: true, force: true });
});

async function startCore(): Promise<Core> {
  const core = await composeCore(loadConfig({ POS_DATA_DIR: dir, POS_LANG: 'en', POS_DATABASE_URL: db.url }, []), { log: memoryLogger(systemClock) });
  cores.push(core);
  await core.start();
  return core;
}

describe('the core on PostgreSQL', () => {
  it('rings up, corrects and is paid; a restarted core answers the same from the database alone', async () => {
    const checkout = { storeId: 1, checkoutId: 1 };
    let core = await startCore();
    expect(core.status().journal).toMatchObject({ state: 'healthy' });
    const first = await core.charge({ ...checkout, by: 'Ana', amountCents: 1000 });
    const firstId = first.newest?.sale_id ?? '';
    const corrected = await core.charge({ ...checkout, by: 'Ana', amountCents: 1250 });
    const newestId = corrected.newest?.sale_id ?? '';
    expect(corrected.screen).toMatchObject({ kind: 'qr', sale_id: newestId });
    expect((await core.journal.sales.get(firstId))?.sale.status).toBe('displaced');

    const svc = serviceControl(core.status().service.baseUrl ?? '');
    await svc('POST', '/_sandbox/pay', { store_id: 1, checkout_id: 1 });
    const paid = await waitFor(async () => {
      const sale = (await core.journal.sales.get(newestId))?.sale;
      // Paid, and its charge.done (the service's second webhook) in too: nothing more is coming.
      return sale?.status === 'paid' && sale.dones.length > 0 ? sale : undefined;
    }, 'the corrected sale to be paid and done', { between: () => core.terminal.tick() });
    expect(paid).toMatchObject({ amount_cents: 1250, status: 'paid' });

    const before = {
      first: await core.journal.sales.get(firstId),
      newest: await core.journal.sales.get(newestId),
      events: await core.journal.eventsBetween(0, Number.MAX_SAFE_INTEGER),
    };
    await core.stop();
    cores.splice(cores.indexOf(core), 1);
    // Nothing of the journal was written to the data dir: it is all in the database.
    expect(existsSync(join(dir, 'journal'))).toBe(false);

    core = await startCore();
    expect(await core.journal.sales.get(firstId)).toEqual(before.first);
    expect(await core.journal.sales.get(newestId)).toEqual(before.newest);
    expect(await core.journal.eventsBetween(0, Number.MAX_SAFE_INTEGER)).toEqual(before.events);
    expect(await core.journal.verify()).toEqual({ ok: true, entries: before.events.length });

    const sql = postgres(db.url, { max: 1, onnotice: () => {} });
    try {
      const [row] = await sql`select amount_cents, status from sales where sale_id = ${newestId}`;
      expect(row).toEqual({ amount_cents: '1250', status: 'paid' });
      expect((await sql`select count(*)::int as n from webhook_ids`)[0]!.n).toBeGreaterThan(0);
    } finally {
      await sql.end();
    }
  }, 90_000);
});
