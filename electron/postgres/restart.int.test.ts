/**
 * The PostgreSQL server restarts while a till's appends are in flight (a throwaway cluster of
 * this test's own, restarted with a fast shutdown as an operator would). Every append either
 * resolves, and is then in the database exactly once with the hash it was given, or is
 * refused, and is then not there at all; the pool reconnects by itself and the next appends
 * work with no restart of the core; the chain verifies. The core writes under the merchant's
 * lease, which runs out during the restart: no other core took it, so it is still this core's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { created, reduce, type TestSale } from '../core/journal/fixtures/port-suite.ts';
import type { AppendResult, JournalPort } from '../core/journal/port.ts';
import { systemClock } from '../shared/clock.ts';
import { openPool, type Sql } from './connect.ts';
import { openTestDatabase, type TestDatabase } from './fixtures/test-database.ts';
import { openPostgresJournal } from './journal.ts';
import { CoreLease } from './lease.ts';
import { migrate } from './migrate.ts';

let db: TestDatabase;
let sql: Sql;
let journal: JournalPort<TestSale>;
let lease: CoreLease;
let lost: string | null = null;

beforeAll(async () => {
  // A cluster of its own: the machine's shared server is never restarted by a test.
  db = await openTestDatabase({ env: { ...process.env, POS_TEST_DATABASE_URL: '', POS_TEST_PG_THROWAWAY: '1' } });
  sql = await openPool({ url: db.url, max: 4 });
  await migrate(sql);
  // Shorter than the restart: the lease runs out while the server is away.
  lease = new CoreLease({ sql, holder: 'core-a', leaseMs: 50 });
  const term = await lease.acquire();
  journal = await openPostgresJournal<TestSale>({ sql, clock: systemClock, reduceSale: reduce, reconnectWaitMs: 30_000, fence: { term, holder: lease.holder } });
  lease.keep((why) => (lost = why));
}, 120_000);
afterAll(async () => {
  await lease?.release();
  await journal?.close();
  // The test is over and nothing of it still runs: close the pool at once. After the
  // restart a graceful end({ timeout: 5 }) waits its whole 5 s here: one of the pool's
  // connections never reports its end.
  await sql?.end({ timeout: 0 });
  await db?.drop();
});

describe('a PostgreSQL restart in the middle of appends', () => {
  it('loses no acknowledged entry, doubles none, and the journal goes on by itself', async () => {
    const SALES = 160;
    const outcomes: Array<{ sale: string; result?: AppendResult; error?: unknown }> = [];
    let restarted: Promise<void> | null = null;
    // Four tills appending at once, one sale each at a time; the server restarts at the 40th.
    const till = async (n: number) => {
      for (let i = n; i < SALES; i += 4) {
        const sale = `s${i}`;
        if (i === 40) restarted = db.restart();
        try {
          outcomes.push({ sale, result: await journal.append([created(sale, 1 + n, 100 + i)]) });
        } catch (error) {
          outcomes.push({ sale, error });
        }
      }
    };
    await Promise.all([0, 1, 2, 3].map(till));
    await restarted;

    const acknowledged = outcomes.filter((o) => o.result !== undefined);
    const refused = outcomes.filter((o) => o.error !== undefined);
    expect(acknowledged.length + refused.length).toBe(SALES);
    // Most went through, the pause included: the adapter waited for the server and asked.
    expect(acknowledged.length).toBeGreaterThan(SALES / 2);

    const rows = await sql<{ seq: string; hash: string; sale: string }[]>`select seq, hash, data::json->>'sale_id' as sale from entries order by seq`;
    const bySale = new Map<string, Array<{ seq: number; hash: string }>>();
    for (const r of rows) bySale.set(r.sale, [...(bySale.get(r.sale) ?? []), { seq: Number(r.seq), hash: r.hash }]);
    for (const { sale, result } of acknowledged) {
      const entry = result!.entries[0]!;
      expect(bySale.get(sale), `acknowledged sale ${sale}`).toEqual([{ seq: entry.seq, hash: entry.hash }]);
    }
    for (const { sale, error } of refused) expect(bySale.get(sale), `refused sale ${sale} (${String(error)})`).toBeUndefined();
    expect(rows).toHaveLength(acknowledged.length);

    // The journal goes on by itself, no reopen.
    const after = await journal.append([created('after', 1, 1)]);
    expect(after.firstSeq).toBe(rows.length + 1);
    expect(journal.status().state).toBe('healthy');
    expect(await journal.verify()).toEqual({ ok: true, entries: rows.length + 1 });
    expect((await journal.sales.byCheckout(1, 1)).length).toBe(acknowledged.filter((o) => Number(o.sale.slice(1)) % 4 === 0).length + 1);
    // The lease ran out with no one to take it: renewed, never lost.
    expect(await lease.renew()).toBe(true);
    expect(lost).toBeNull();
  }, 120_000);

  it('a standby waiting for the lease outlives the restart and takes the lease once it runs out', async () => {
    // The active core dies (its lease is left to run out); the standby waits through the restart.
    // Asks every 50 ms, so some of its questions meet the server down.
    const other = new CoreLease({ sql, holder: 'core-b', leaseMs: 150 });
    await lease.release();
    const dead = new CoreLease({ sql, holder: 'core-dead', leaseMs: 1_500 });
    const deadTerm = await dead.acquire();
    const waiting = other.acquire();
    await new Promise((r) => setTimeout(r, 100));
    await db.restart();
    expect(await waiting).toBe(deadTerm + 1);
    await other.release();
  }, 60_000);
});
