/**
 * One active core per database, fenced: the lease is taken, renewed and taken over with a new
 * term; an append checks its term inside its own statement, so a core that lost the lease
 * (paused with SIGSTOP past it, here) can never write again, and a takeover waits for an
 * append that already holds the lease to commit first.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, systemClock } from '../shared/clock.ts';
import { reduceTestSale } from '../core/journal/fixtures/test-sale.ts';
import { JournalUnavailableError, type SaleRecord } from '../core/journal/port.ts';
import { openPool, type Sql } from './connect.ts';
import { openTestDatabase, type TestDatabase } from './fixtures/test-database.ts';
import { openPostgresJournal } from './journal.ts';
import { CoreLease } from './lease.ts';
import { migrate } from './migrate.ts';
import { postgresJournal } from './open.ts';

let db: TestDatabase;
const pools: Sql[] = [];

beforeAll(async () => {
  db = await openTestDatabase();
}, 120_000);
afterAll(async () => {
  await Promise.all(pools.map((p) => p.end({ timeout: 5 })));
  await db?.drop();
});

/** A fresh, migrated database of this file's server: its URL and a pool on it. */
async function freshDatabase(): Promise<{ url: string; sql: Sql }> {
  const url = await db.another();
  const sql = await openPool({ url, max: 4 });
  pools.push(sql);
  await migrate(sql);
  return { url, sql };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const sale = (id: string) => ({ type: 'sale.created', data: { sale_id: id, store_id: 1, checkout_id: 1, amount_cents: 100 } });
const clock = new ManualClock(Date.UTC(2026, 10, 27, 12, 0));

describe('the merchant’s lease', () => {
  it('is held by one core, renewed by it, and taken over under a new term once it runs out', async () => {
    const { sql } = await freshDatabase();
    const a = new CoreLease({ sql, holder: 'core-a', leaseMs: 400 });
    const b = new CoreLease({ sql, holder: 'core-b', leaseMs: 400 });
    expect(await a.tryAcquire()).toEqual({ held: true, term: 1 });
    const refused = await b.tryAcquire();
    expect(refused).toMatchObject({ held: false, holder: 'core-a' });
    expect(refused.held === false && refused.runsOutInMs).toBeGreaterThan(0);
    expect(await a.renew()).toBe(true);
    await sleep(450);
    // Ran out: B takes it under the next term; A's renewal finds it gone.
    expect(await b.tryAcquire()).toEqual({ held: true, term: 2 });
    // Who held it before: the takeover entry names them.
    expect([a.previousHolder, b.previousHolder]).toEqual([null, 'core-a']);
    expect(await a.renew()).toBe(false);
    // Released on a clean stop: taken at once, without waiting for it to run out.
    await b.release();
    expect(await a.tryAcquire()).toEqual({ held: true, term: 3 });
  });

  it('publishes where its holder serves tills: written at each take and renewal, read by a standby as it waits, gone when let go', async () => {
    const { sql } = await freshDatabase();
    const a = new CoreLease({ sql, holder: 'core-a', leaseMs: 60_000, address: '10.0.0.11:5180' });
    const b = new CoreLease({ sql, holder: 'core-b', leaseMs: 400, address: '10.0.0.12:5180' });
    const c = new CoreLease({ sql, holder: 'core-c', leaseMs: 400, address: '10.0.0.13:5180' });
    expect(await a.tryAcquire()).toEqual({ held: true, term: 1 });
    expect(await b.tryAcquire()).toMatchObject({ held: false, holder: 'core-a', address: '10.0.0.11:5180' });
    // Whatever happened to the row meanwhile, a renewal writes it again.
    await sql`update core_lease set address = null`;
    expect(await a.renew()).toBe(true);
    expect((await sql`select address from core_lease`)[0]).toEqual({ address: '10.0.0.11:5180' });
    // C stands by and is told which core is active, and again when that changes: here A
    // restarted at another address (the same name takes its lease back at once).
    const told: unknown[] = [];
    const waiting = c.acquire((active) => told.push(active));
    await waitFor(() => told.length === 1);
    const moved = new CoreLease({ sql, holder: 'core-a', leaseMs: 60_000, address: '10.0.0.21:5180' });
    expect(await moved.tryAcquire()).toEqual({ held: true, term: 2 });
    await waitFor(() => told.length === 2);
    expect(told).toEqual([
      { holder: 'core-a', address: '10.0.0.11:5180' },
      { holder: 'core-a', address: '10.0.0.21:5180' },
    ]);
    await moved.release();
    expect((await sql`select address from core_lease`)[0]).toEqual({ address: null });
    expect(await waiting).toBe(3);
    expect((await sql`select holder, address from core_lease`)[0]).toEqual({ holder: 'core-c', address: '10.0.0.13:5180' });
    // A core with no address others can reach publishes none.
    await c.release();
    expect(await new CoreLease({ sql, holder: 'core-d', leaseMs: 400 }).tryAcquire()).toEqual({ held: true, term: 4 });
    expect(await new CoreLease({ sql, holder: 'core-e', leaseMs: 400 }).tryAcquire()).toMatchObject({ held: false, holder: 'core-d', address: null });
  });

  it('stays its holder’s after it ran out while no core took it over: the holder renews it and goes on writing', async () => {
    const { sql } = await freshDatabase();
    const lease = new CoreLease({ sql, holder: 'core-a', leaseMs: 200 });
    const term = await lease.acquire();
    const a = await openPostgresJournal<SaleRecord>({ sql, clock, reduceSale: reduceTestSale, fence: { term, holder: 'core-a' } });
    // The database was away for longer than a lease, say: no renewal, and no standby.
    await sleep(300);
    await a.append([sale('a-1')]);
    expect(await lease.renew()).toBe(true);
    await a.append([sale('a-2')]);
    expect((await sql`select count(*)::int as n from entries`)[0]).toEqual({ n: 2 });
    await a.close();
  });

  it('is taken back at once by the same core restarted, under a new term', async () => {
    const { sql } = await freshDatabase();
    expect(await new CoreLease({ sql, holder: 'store-pc:/data', leaseMs: 60_000 }).tryAcquire()).toEqual({ held: true, term: 1 });
    expect(await new CoreLease({ sql, holder: 'other-pc:/data', leaseMs: 60_000 }).tryAcquire()).toMatchObject({ held: false, holder: 'store-pc:/data' });
    expect(await new CoreLease({ sql, holder: 'store-pc:/data', leaseMs: 60_000 }).tryAcquire()).toEqual({ held: true, term: 2 });
  });

  it('refuses every append of a core that lost it, and nothing of them commits', async () => {
    const { sql } = await freshDatabase();
    const leaseA = new CoreLease({ sql, holder: 'core-a', leaseMs: 300 });
    const termA = await leaseA.acquire();
    const a = await openPostgresJournal<SaleRecord>({ sql, clock, reduceSale: reduceTestSale, fence: { term: termA, holder: 'core-a' } });
    await a.append([sale('a-1')]);
    await sleep(350);
    const leaseB = new CoreLease({ sql, holder: 'core-b', leaseMs: 60_000 });
    const termB = await leaseB.acquire();
    const b = await openPostgresJournal<SaleRecord>({ sql, clock, reduceSale: reduceTestSale, fence: { term: termB, holder: 'core-b' } });
    await expect(a.append([sale('a-2')])).rejects.toThrow(new JournalUnavailableError("This core no longer holds the merchant's lease (term 1): another core is active and writes the journal now. Restart this core; it will stand by.", 'journal_write_failed'));
    expect(a.status().state).toBe('failed');
    // Never again, even without asking the database.
    await expect(a.append([sale('a-3')])).rejects.toThrow('no longer holds');
    await b.append([sale('b-1')]);
    expect((await sql`select data from entries order by seq`).map((r) => JSON.parse(r.data as string).sale_id)).toEqual(['a-1', 'b-1']);
    expect(await b.verify()).toEqual({ ok: true, entries: 2 });
    await a.close();
    await b.close();
  });

  it('makes a takeover wait for an append that holds the lease to commit first', async () => {
    const { sql } = await freshDatabase();
    const leaseA = new CoreLease({ sql, holder: 'core-a', leaseMs: 400 });
    const termA = await leaseA.acquire();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let inside!: () => void;
    const checked = new Promise<void>((r) => (inside = r));
    const a = await openPostgresJournal<SaleRecord>({
      sql,
      clock,
      reduceSale: reduceTestSale,
      fence: { term: termA, holder: 'core-a' },
      // The append's statement (fence checked, lock held) waits here, before its commit.
      faults: { beforeCommit: async () => (inside(), held) },
    });
    const appended = a.append([sale('a-1')]);
    await checked;
    await sleep(450);
    // The lease ran out meanwhile, but A's append holds the lease row: B's takeover waits.
    let tookOver = false;
    const b = new CoreLease({ sql, holder: 'core-b', leaseMs: 60_000 });
    const takeover = b.tryAcquire().then((answer) => ((tookOver = true), answer));
    await sleep(300);
    expect(tookOver).toBe(false);
    release();
    await appended;
    expect(await takeover).toEqual({ held: true, term: 2 });
    await expect(a.append([sale('a-2')])).rejects.toThrow('no longer holds');
    expect((await sql`select count(*)::int as n from entries`)[0]).toEqual({ n: 1 });
    await a.close();
  });
});

describe('a core paused past its lease (SIGSTOP)', () => {
  it('is replaced by a standby, and once resumed its writes are refused and it stops writing by itself', async () => {
    const { url, sql } = await freshDatabase();
    const writer = spawn(process.execPath, [fileURLToPath(new URL('./fixtures/lease-writer.ts', import.meta.url)), url, 'core-a', '1000'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const lines = outputOf(writer);
    await waitFor(() => lines.filter((l) => l.startsWith('ack ')).length >= 5);
    writer.kill('SIGSTOP');
    const paused = Date.now();
    // The standby: opened as the entry points open it, it waits for the lease to run out.
    const standby = await postgresJournal<SaleRecord>({ url, holder: 'core-b', leaseMs: 60_000 })({ clock: systemClock, log: { info: () => undefined, warn: () => undefined, error: () => undefined }, onHealthChange: () => undefined, reduceSale: reduceTestSale });
    expect(Date.now() - paused).toBeGreaterThanOrEqual(500);
    const first = await standby.append([sale('core-b-0')]);
    writer.kill('SIGCONT');
    const exit = await new Promise<number | null>((resolve) => writer.on('exit', resolve));
    expect(exit).toBe(0);
    const refused = lines.filter((l) => l.startsWith('refused '));
    expect(refused).toHaveLength(1);
    expect(refused[0]).toContain("This core no longer holds the merchant's lease");
    // Nothing of A's after the takeover: A's entries all precede B's first, and the chain holds.
    const acks = lines.filter((l) => l.startsWith('ack ')).map((l) => Number(l.slice(4)));
    expect(Math.max(...acks)).toBeLessThan(first.firstSeq);
    const rows = await sql<{ owner: string; n: number }[]>`select split_part((data::json)->>'sale_id', '-', 2) as owner, count(*)::int as n from entries group by 1 order by 1`;
    expect(rows).toEqual([
      { owner: 'a', n: acks.length },
      { owner: 'b', n: 1 },
    ]);
    expect(await standby.verify()).toEqual({ ok: true, entries: acks.length + 1 });
    await standby.close();
  }, 60_000);
});

function outputOf(child: ChildProcess): string[] {
  const lines: string[] = [];
  let rest = '';
  child.stdout!.on('data', (b: Buffer) => {
    const parts = (rest + b.toString()).split('\n');
    rest = parts.pop()!;
    lines.push(...parts);
  });
  child.stderr!.on('data', (b: Buffer) => process.stderr.write(b));
  return lines;
}

async function waitFor(ok: () => boolean, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await sleep(20);
  }
}
