/**
 * The checkout cache answers as the database does: after random appends on a few checkouts
 * (new sales that displace the open one, payments, a person's attention set and cleared,
 * ties in created_at, ids outside the BMP), with reads and appends racing, every answer the
 * adapter gives from memory equals the one the database gives for the same question.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../shared/clock.ts';
import type { JournalPort, SaleReducer, SaleRecord } from '../core/journal/port.ts';
import { byCodePoint, RECENT_HELD } from './checkout-cache.ts';
import { openPool, type Sql } from './connect.ts';
import { openTestDatabase, type TestDatabase } from './fixtures/test-database.ts';
import { openPostgresJournal } from './journal.ts';
import { migrate } from './migrate.ts';

let db: TestDatabase;
let sql: Sql;

beforeAll(async () => {
  db = await openTestDatabase();
  sql = await openPool({ url: db.url, max: 4 });
  await migrate(sql);
}, 120_000);
afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await db?.drop();
});

type Sale = SaleRecord;

/** A checkout's sales as the terminal keeps them, reduced to the flags the cache files by. */
const reduce: SaleReducer<Sale> = (current, entry, saleId) => {
  const d = entry.data;
  switch (entry.type) {
    case 'sale.created':
      if (saleId !== d.sale_id) return current && current.displaceable === 'yes' ? { ...current, status: 'displaced', displaceable: undefined } : undefined;
      return { sale_id: saleId, store_id: Number(d.store_id), checkout_id: Number(d.checkout_id), status: 'pending', amount_cents: Number(d.amount_cents), created_at: entry.at, displaceable: 'yes' };
    case 'charge.paid':
      return current && { ...current, status: 'paid', displaceable: undefined, needs_person: current.status === 'displaced' ? 'yes' : current.needs_person };
    case 'attention.set':
      return current && { ...current, needs_person: 'yes' };
    case 'attention.cleared':
      return current && { ...current, needs_person: undefined };
    default:
      return undefined;
  }
};

/** A small deterministic generator (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const CHECKOUTS = [1, 2, 3];
/** Id prefixes whose "C" order differs from UTF-16's: a BMP letter above U+E000 and one outside the BMP. */
const PREFIXES = ['s', 'S', '\uff21', '\u{1f600}', 'é'];

/** Every question the cache answers, asked of the database (byCheckout and an id lookup always go there). */
async function fromDatabase(j: JournalPort<Sale>, checkoutId: number, count: number, sinceMs: number | undefined) {
  const all = (await j.sales.byCheckout(1, checkoutId)).reverse();
  const newest = all.filter((s) => sinceMs === undefined || s.created_at >= sinceMs).slice(0, count);
  const flagged = (flag: 'displaceable' | 'needs_person') => all.filter((s) => s[flag] === 'yes').sort((a, b) => byCodePoint(a.sale_id, b.sale_id));
  return { newest, displaceable: flagged('displaceable'), needing: flagged('needs_person') };
}

async function fromCache(j: JournalPort<Sale>, checkoutId: number, count: number, sinceMs: number | undefined) {
  return {
    newest: await j.sales.recentOnCheckout(1, checkoutId, count, sinceMs),
    displaceable: await j.sales.displaceable(1, checkoutId),
    needing: await j.sales.needingPerson(1, checkoutId),
  };
}

describe('the PostgreSQL adapter’s checkout cache', () => {
  it('orders ids as collate "C" does', async () => {
    const ids = ['a', 'B', 'é', '\uff21', '\u{1f600}', '\ue000', '\ud7ff', 'ab', 'a\u{10000}', 'a\uffff', ''];
    const rows = await sql<{ x: string }[]>`select x from unnest(${ids}::text[]) as x order by x collate "C"`;
    expect([...ids].sort(byCodePoint)).toEqual(rows.map((r) => r.x));
  });

  it('answers as the database does through displacements, payments, attention and racing reads', async () => {
    await sql`truncate entries, entry_sales, sales, shifts, projections, webhook_ids, settlement_ids, idempotency_keys`;
    const clock = new ManualClock(Date.UTC(2026, 10, 27, 9, 0));
    const open = () => openPostgresJournal<Sale>({ sql, clock, reduceSale: reduce });
    let live = await open();
    const next = random(20261127);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
    const made: Array<{ id: string; checkoutId: number }> = [];
    let n = 0;
    const step = async (): Promise<unknown> => {
      const r = next();
      if (r < 0.45 || made.length === 0) {
        const checkoutId = pick(CHECKOUTS);
        const id = `${pick(PREFIXES)}${n++}`;
        // The new sale displaces the checkout's open ones: one entry names them all.
        const open = await live.sales.displaceable(1, checkoutId);
        made.push({ id, checkoutId });
        return live.append([{ type: 'sale.created', data: { sale_id: id, sale_ids: [id, ...open.map((s) => s.sale_id)], store_id: 1, checkout_id: checkoutId, amount_cents: 100 + n } }]);
      }
      const { id } = pick(made);
      if (r < 0.7) return live.append([{ type: 'charge.paid', data: { sale_id: id } }]);
      if (r < 0.85) return live.append([{ type: 'attention.set', data: { sale_id: id } }]);
      if (r < 0.92) return live.append([{ type: 'attention.cleared', data: { sale_id: id } }]);
      // A read racing the appends: the cache's first read of a checkout meets commits under way.
      return live.sales.recentOnCheckout(1, pick(CHECKOUTS), 1 + Math.floor(next() * RECENT_HELD));
    };
    try {
      for (let round = 0; round < 12; round++) {
        // Some rounds keep the clock still: sales created in the same millisecond tie on created_at.
        if (round % 3 !== 0) clock.advance(1 + Math.floor(next() * 5_000));
        await Promise.all(Array.from({ length: 15 }, step));
        for (const checkoutId of CHECKOUTS) {
          for (const count of [1, 4, 10, RECENT_HELD, RECENT_HELD + 3]) {
            const sinceMs = next() < 0.5 ? undefined : clock.now() - Math.floor(next() * 30_000);
            expect(await fromCache(live, checkoutId, count, sinceMs)).toEqual(await fromDatabase(live, checkoutId, count, sinceMs));
          }
        }
      }
      // A core that starts over the same database reads each checkout afresh and agrees.
      const again = await open();
      for (const checkoutId of CHECKOUTS) expect(await fromCache(again, checkoutId, 10, undefined)).toEqual(await fromCache(live, checkoutId, 10, undefined));
      await live.close();
      // And goes on from there: its appends name sales it has never held (read while they wait their turn).
      live = again;
      for (let round = 0; round < 4; round++) {
        clock.advance(1_000);
        await Promise.all(Array.from({ length: 15 }, step));
        for (const checkoutId of CHECKOUTS) expect(await fromCache(live, checkoutId, 10, undefined)).toEqual(await fromDatabase(live, checkoutId, 10, undefined));
      }
      expect(made.length).toBeGreaterThan(RECENT_HELD * CHECKOUTS.length);
      expect((await live.sales.needingPersonAnywhere()).length).toBeGreaterThan(0);
    } finally {
      await live.close();
    }
  }, 60_000);
});
