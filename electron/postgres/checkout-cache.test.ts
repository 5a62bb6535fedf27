/**
 * What the database-backed test (checkout-cache.int.test.ts) cannot time: a commit that lands
 * while a checkout's first read is still under way. The read's answer is held back here, as a
 * slow database would, and the commit is put meanwhile.
 */
import { describe, expect, it } from 'vitest';
import type { SaleRow } from '../core/journal/fold.ts';
import { CheckoutCache, RECENT_HELD, type CheckoutSource } from './checkout-cache.ts';

type Row = SaleRow<{ sale_id: string }>;

function row(id: string, createdAt: number, flags: { displaceable?: boolean; needs?: boolean; checkout?: number } = {}): Row {
  const r: Row = { sale_id: id, record: { sale_id: id }, touched_seq: 1, touched_at: createdAt, store_id: 1, checkout_id: flags.checkout ?? 1, created_at: createdAt };
  if (flags.displaceable) r.displaceable = 'yes';
  if (flags.needs) r.needs_person = 'yes';
  return r;
}

/** A database whose answer arrives when the test says. */
function slowSource(answer: Awaited<ReturnType<CheckoutSource<{ sale_id: string }>['load']>>) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let reads = 0;
  const source: CheckoutSource<{ sale_id: string }> = {
    load: async (storeId, checkoutId) => {
      reads += 1;
      await gate;
      const mine = (rows: readonly Row[]) => rows.filter((r) => r.store_id === storeId && r.checkout_id === checkoutId);
      return { recent: mine(answer.recent), displaceable: mine(answer.displaceable), needing: mine(answer.needing) };
    },
  };
  return { source, release, reads: () => reads };
}

const ids = (rows: readonly Row[] | undefined) => rows?.map((r) => r.sale_id);

describe('the checkout cache', () => {
  it('puts the commits that land during a checkout’s first read on top of what the read returns', async () => {
    const a = row('a', 1_000, { displaceable: true });
    const db = slowSource({ recent: [a], displaceable: [a], needing: [] });
    const cache = new CheckoutCache(db.source);
    const asked = cache.recent(1, 1, 5);
    // Committed while the read is out: b displaces a; a then needs a person (paid late).
    const b = row('b', 2_000, { displaceable: true });
    cache.put(undefined, b);
    cache.put(a, row('a', 1_000));
    cache.put(row('a', 1_000), row('a', 1_000, { needs: true }));
    db.release();
    expect(ids(await asked)).toEqual(['b', 'a']);
    expect(ids(await cache.displaceable(1, 1))).toEqual(['b']);
    expect(ids(await cache.needingPerson(1, 1))).toEqual(['a']);
    expect(db.reads()).toBe(1);
  });

  it('asks the database once for questions that arrive together, and not again', async () => {
    const db = slowSource({ recent: [], displaceable: [], needing: [] });
    const cache = new CheckoutCache(db.source);
    const answers = Promise.all([cache.recent(1, 1, 1), cache.displaceable(1, 1), cache.needingPerson(1, 1)]);
    db.release();
    expect(await answers).toEqual([[], [], []]);
    await cache.recent(1, 1, 3);
    expect(db.reads()).toBe(1);
  });

  it('holds only a prefix of a long checkout, and says when it cannot answer from it', async () => {
    const rows = Array.from({ length: RECENT_HELD + 1 }, (_, i) => row(`s${String(i).padStart(2, '0')}`, 10_000 - i));
    const db = slowSource({ recent: rows, displaceable: [], needing: [] });
    db.release();
    const cache = new CheckoutCache(db.source);
    expect(ids(await cache.recent(1, 1, RECENT_HELD))).toEqual(ids(rows.slice(0, RECENT_HELD)));
    // A sale older than the held prefix is not among the newest: the prefix stays as it is.
    cache.put(undefined, row('old', 1));
    expect(ids(await cache.recent(1, 1, 2))).toEqual(['s00', 's01']);
    // The newest moves out of the prefix's reach (its created_at changes): fewer held, the rest asked of the database.
    cache.put(rows[0], row('s00', 0));
    expect(ids(await cache.recent(1, 1, RECENT_HELD - 1))).toEqual(ids(rows.slice(1, RECENT_HELD)));
    expect(await cache.recent(1, 1, RECENT_HELD)).toBeUndefined();
    expect(await cache.recent(1, 1, RECENT_HELD + 1)).toBeUndefined();
  });

  it('moves a sale to another checkout when its row says so, and forgets everything on clear', async () => {
    const a = row('a', 1_000, { displaceable: true });
    const db = slowSource({ recent: [a], displaceable: [a], needing: [] });
    db.release();
    const cache = new CheckoutCache(db.source);
    expect(ids(await cache.displaceable(1, 1))).toEqual(['a']);
    expect(ids(await cache.displaceable(1, 2))).toEqual([]);
    cache.put(a, row('a', 1_000, { displaceable: true, checkout: 2 }));
    expect(ids(await cache.displaceable(1, 1))).toEqual([]);
    expect(ids(await cache.recent(1, 1, 1))).toEqual([]);
    expect(ids(await cache.displaceable(1, 2))).toEqual(['a']);
    cache.clear();
    await cache.recent(1, 1, 1);
    expect(db.reads()).toBe(3);
  });

  it('answers nothing for a checkout that is not a pair of integers, without asking', async () => {
    const db = slowSource({ recent: [], displaceable: [], needing: [] });
    const cache = new CheckoutCache(db.source);
    expect(await cache.recent(Number.NaN, 1, 1)).toBeUndefined();
    expect(await cache.displaceable(1.5, 1)).toBeUndefined();
    expect(db.reads()).toBe(0);
  });
});
