import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { GENERATED_OPEN_STATUSES, generatedSaleReducer } from '../../bench/generate-history.ts';
import type { GeneratedSale } from '../../bench/generate-history.ts';
import { openJournal } from './journal.ts';
import type { JournalPort } from './port.ts';

/**
 * A checkout's newest sales (every charge plans on them, every checkout view shows them)
 * cost what is asked, not the checkout's whole day: a busy checkout's thousandth sale is
 * rung up as fast as its first. The answers stay those of the whole checkout, newest
 * first, ties in created_at broken by the greater sale_id first.
 */

/** The engine's database: spied on to count the transactions reads start. */
interface EngineDatabase {
  transaction(...args: unknown[]): { mode: string };
}
const ENGINE_DATABASE = new URL('../../../node_modules/fake-indexeddb/build/esm/FDBDatabase.js', import.meta.url).href;
const Database = ((await import(ENGINE_DATABASE)) as { default: { prototype: EngineDatabase } }).default;

const START = Date.UTC(2026, 10, 23, 9);
let dir: string;
let j: JournalPort<GeneratedSale>;
const clock = new ManualClock(START);

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'journal-recent-'));
  j = await openJournal<GeneratedSale>({ dir, clock, reduceSale: generatedSaleReducer, openStatuses: GENERATED_OPEN_STATUSES });
  // 300 sales on checkout 1 and 60 on checkout 2, three at a time at the same millisecond.
  for (let n = 0; n < 360; n += 3) {
    await j.append(
      [0, 1, 2].map((k) => {
        const i = n + k;
        // Ids not in creation order, so a tie is decided by the id, not by the order written.
        const sale_id = `s${((i * 7919) % 1000).toString().padStart(4, '0')}`;
        return { type: 'sale.created', data: { sale_id, store_id: 1, checkout_id: i % 6 === 5 ? 2 : 1, amount_cents: 100 + i, external_id: `order-${i}`, shift_id: 'shift-1', by: 'cashier' } };
      }),
    );
    clock.advance(1_000);
  }
});
afterEach(async () => {
  vi.restoreAllMocks();
  await j.close();
  await rm(dir, { recursive: true, force: true });
});

/** The modes of the IndexedDB transactions started while `run` runs. */
async function transactionsStarted(run: () => Promise<unknown>): Promise<string[]> {
  const spy = vi.spyOn(Database.prototype, 'transaction');
  try {
    await run();
    return spy.mock.results.map((r) => (r.value as { mode: string }).mode);
  } finally {
    spy.mockRestore();
  }
}

describe('a checkout’s newest sales', () => {
  it('are the whole checkout’s, newest first with ties by the greater id, and so is its latest', async () => {
    for (const checkoutId of [1, 2]) {
      const all = (await j.sales.byCheckout(1, checkoutId)).reverse();
      expect(all).toHaveLength(checkoutId === 1 ? 300 : 60);
      for (const count of [1, 2, 4, 30, 500]) expect(await j.sales.recentOnCheckout(1, checkoutId, count)).toEqual(all.slice(0, count));
      const since = START + 50_000;
      expect(await j.sales.recentOnCheckout(1, checkoutId, 30, since)).toEqual(all.filter((s) => s.created_at! >= since).slice(0, 30));
      expect(await j.sales.latestOnCheckout(1, checkoutId)).toEqual(all[0]);
    }
  });

  it('and what every change at a till asks are answered from memory, never queued behind IndexedDB', async () => {
    const [newest] = await j.sales.recentOnCheckout(1, 1, 1);
    await j.append([{ type: 'sale.qr_issued', data: { sale_id: newest!.sale_id, pix_id: 'pix-1', service_id: 'svc-1' } }]);
    let answers: unknown[] = [];
    const started = await transactionsStarted(async () =>
      (answers = await Promise.all([
        j.sales.recentOnCheckout(1, 1, 10),
        j.sales.latestOnCheckout(1, 2),
        j.sales.displaceable(1, 1),
        j.sales.needingPerson(1, 2),
        j.sales.byCheckout(1, 2),
        j.sales.byPixId('pix-1'),
        j.sales.byServiceId('svc-1'),
      ])),
    );
    expect((answers as { sale_id: string }[][])[0]).toHaveLength(10);
    expect(answers.slice(5).map((s) => (s as { sale_id: string } | undefined)?.sale_id)).toEqual([newest!.sale_id, newest!.sale_id]);
    // With 64 tills these were 28 index queries a sale, each waiting its turn in the engine,
    // and the working set's writes waited behind them (issue 9).
    expect(started).toEqual([]);
  });
});

describe('reads asked at the same time', () => {
  /** What many tills ask at once: each checkout's view and plan, and a webhook's match. */
  const burst = () =>
    [1, 2].flatMap((checkoutId) => [
      j.sales.recentOnCheckout(1, checkoutId, 30),
      j.sales.latestOnCheckout(1, checkoutId),
      j.sales.displaceable(1, checkoutId),
      j.sales.needingPerson(1, checkoutId),
      j.sales.byExternalId(`order-${checkoutId * 5}`),
      j.sales.byShift('shift-1'),
    ]);

  it('share one read transaction and answer as each would alone', async () => {
    const alone: unknown[] = [];
    for (const read of burst()) alone.push(await read);
    let together: unknown[] = [];
    const started = await transactionsStarted(async () => (together = await Promise.all(burst())));
    expect(together).toEqual(alone);
    // One transaction per read queued each read behind all the others (issue 9).
    expect(started).toEqual(['readonly']);
  });

  it('a read the engine refuses fails alone', async () => {
    const [bad, ...good] = await Promise.allSettled([j.sales.byExternalId(Number.NaN as unknown as string), ...burst()]);
    expect(bad!.status).toBe('rejected');
    expect(good.every((r) => r.status === 'fulfilled')).toBe(true);
    expect((good[0] as PromiseFulfilledResult<unknown[]>).value).toHaveLength(30);
  });

  it('hand out sales no caller can change behind the journal’s back', async () => {
    const [newest] = await j.sales.recentOnCheckout(1, 1, 1);
    expect(() => {
      (newest as { amount_cents: number }).amount_cents = 1;
    }).toThrow(TypeError);
    expect((await j.sales.get(newest!.sale_id))?.amount_cents).toBe(newest!.amount_cents);
    expect(newest!.amount_cents).not.toBe(1);
  });

  it('see every write acknowledged before they were asked, in memory and in IndexedDB alike', async () => {
    // What memory answers (a checkout's sales) and what IndexedDB's indexes answer (the back
    // office's queries) alike.
    await j.append([{ type: 'sale.created', data: { sale_id: 'late', store_id: 1, checkout_id: 1, amount_cents: 1, external_id: 'order-late', shift_id: 'shift-2', by: 'cashier' } }]);
    const [latest, byId, recent, byExternal, byShift, created] = await Promise.all([
      j.sales.latestOnCheckout(1, 1),
      j.sales.get('late'),
      j.sales.recentOnCheckout(1, 1, 2),
      j.sales.byExternalId('order-late'),
      j.sales.byShift('shift-2'),
      j.sales.createdBetween(clock.now(), clock.now() + 1),
    ]);
    expect([latest?.sale_id, byId?.sale_id, recent[0]?.sale_id, byExternal[0]?.sale_id, byShift[0]?.sale_id, created.at(-1)?.sale_id]).toEqual(['late', 'late', 'late', 'late', 'late', 'late']);
    // And a sale that left an answer since is no longer in it.
    await j.append([{ type: 'sale.qr_issued', data: { sale_id: 'late', pix_id: 'pix-late', service_id: 'svc-late' } }]);
    expect((await j.sales.byStatus('created')).map((s) => s.sale_id)).not.toContain('late');
    expect((await j.sales.byStatus('pending')).map((s) => s.sale_id)).toContain('late');
  });
});
