import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../shared/prng.ts';
import { CheckoutIndex, type IndexedKeys } from './checkout-index.ts';

/**
 * The in-memory keys answer as the IndexedDB indexes they replaced: the rule is written out
 * here plainly (filter and sort the rows held), and random puts, moves and deletes must give
 * the same answers from the index.
 */

const byId = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const isNum = (v: unknown): v is number => typeof v === 'number' && !Number.isNaN(v);

function rule(rows: Map<string, IndexedKeys>) {
  const all = [...rows.values()];
  const onCheckout = (s: number, c: number) => all.filter((r) => isNum(r.store_id) && isNum(r.checkout_id) && r.store_id === s && r.checkout_id === c);
  const placed = (s: number, c: number) =>
    onCheckout(s, c)
      .filter((r) => isNum(r.created_at))
      .sort((a, b) => (a.created_at! < b.created_at! ? -1 : a.created_at! > b.created_at! ? 1 : byId(a.sale_id, b.sale_id)));
  return {
    inRange: (s: number, c: number, from?: number, to?: number) => placed(s, c).filter((r) => (from === undefined || r.created_at! >= from) && (to === undefined || r.created_at! < to)).map((r) => r.sale_id),
    newest: (s: number, c: number, count: number, from?: number, to?: number) =>
      placed(s, c)
        .filter((r) => (from === undefined || r.created_at! >= from) && (to === undefined || r.created_at! < to))
        .reverse()
        .slice(0, count)
        .map((r) => r.sale_id),
    needingPerson: (s: number, c: number) => onCheckout(s, c).filter((r) => r.needs_person === 'yes').map((r) => r.sale_id).sort(byId),
    displaceable: (s: number, c: number) => onCheckout(s, c).filter((r) => r.displaceable === 'yes').map((r) => r.sale_id).sort(byId),
    needingPersonAnywhere: () =>
      all
        .filter((r) => isNum(r.store_id) && isNum(r.checkout_id) && r.needs_person === 'yes')
        .sort((a, b) => a.store_id! - b.store_id! || a.checkout_id! - b.checkout_id! || byId(a.sale_id, b.sale_id))
        .map((r) => r.sale_id),
    createdBetween: (from: number, to: number) =>
      all
        .filter((r) => isNum(r.created_at) && r.created_at >= from && r.created_at < to)
        .sort((a, b) => (a.created_at! < b.created_at! ? -1 : a.created_at! > b.created_at! ? 1 : byId(a.sale_id, b.sale_id)))
        .map((r) => r.sale_id),
    withStatus: (status: string) => all.filter((r) => r.status === status).map((r) => r.sale_id).sort(byId),
    withShift: (shift: string) => all.filter((r) => r.shift_id === shift).map((r) => r.sale_id).sort(byId),
    byPixId: (pix: string) => all.filter((r) => r.pix_id === pix).map((r) => r.sale_id).sort(byId)[0],
    byServiceId: (svc: string) => all.filter((r) => r.service_id === svc).map((r) => r.sale_id).sort(byId)[0],
  };
}

function pick<T>(r: () => number, items: readonly T[]): T {
  return items[Math.floor(r() * items.length)]!;
}

function randomRow(r: () => number, id: string): IndexedKeys {
  const row: Record<string, unknown> = { sale_id: id };
  // Mostly well-formed; now and then a key IndexedDB would not index (absent, NaN, a string).
  row.store_id = pick(r, [1, 1, 1, 2, Number.NaN, undefined]);
  row.checkout_id = pick(r, [1, 2, 2, 3, '2', undefined]);
  row.created_at = pick(r, [1000, 1000, 2000, 3000, 3000, 4000, -Infinity, Infinity, Number.NaN, undefined]);
  row.needs_person = pick(r, ['yes', undefined, undefined, 'no']);
  row.displaceable = pick(r, ['yes', undefined, undefined]);
  row.pix_id = pick(r, ['pix-a', 'pix-b', undefined, undefined, 7]);
  row.service_id = pick(r, ['svc-a', undefined, undefined]);
  row.status = pick(r, ['created', 'paid', 'paid', undefined, 3]);
  row.shift_id = pick(r, ['shift-1', 'shift-2', undefined, 7]);
  for (const k of Object.keys(row)) if (row[k] === undefined) delete row[k];
  return row as unknown as IndexedKeys;
}

function expectSameAnswers(index: CheckoutIndex, rows: Map<string, IndexedKeys>): void {
  const want = rule(rows);
  for (const s of [1, 2]) {
    for (const c of [1, 2, 3]) {
      expect(index.inRange(s, c)).toEqual(want.inRange(s, c));
      expect(index.inRange(s, c, 2000, 4000)).toEqual(want.inRange(s, c, 2000, 4000));
      expect(index.inRange(s, c, 3000)).toEqual(want.inRange(s, c, 3000));
      for (const count of [1, 3, 50]) {
        expect(index.newest(s, c, count)).toEqual(want.newest(s, c, count));
        expect(index.newest(s, c, count, 2000)).toEqual(want.newest(s, c, count, 2000));
        expect(index.newest(s, c, count, undefined, 3000)).toEqual(want.newest(s, c, count, undefined, 3000));
      }
      expect(index.needingPerson(s, c)).toEqual(want.needingPerson(s, c));
      expect(index.displaceable(s, c)).toEqual(want.displaceable(s, c));
    }
  }
  expect(index.needingPersonAnywhere()).toEqual(want.needingPersonAnywhere());
  // Over every checkout, and the sales without one.
  for (const [from, to] of [[2000, 4000], [-Infinity, 3000], [1000, Infinity], [-Infinity, Infinity]] as const) expect(index.createdBetween(from, to)).toEqual(want.createdBetween(from, to));
  for (const status of ['created', 'paid', '3']) expect(index.withStatus(status)).toEqual(want.withStatus(status));
  for (const shift of ['shift-1', 'shift-2', '7']) expect(index.withShift(shift)).toEqual(want.withShift(shift));
  for (const pix of ['pix-a', 'pix-b', '7']) expect(index.byPixId(pix)).toBe(want.byPixId(pix));
  expect(index.byServiceId('svc-a')).toBe(want.byServiceId('svc-a'));
}

describe('the working set’s checkout keys in memory', () => {
  it('answer as the IndexedDB indexes did through random puts, moves and deletes', () => {
    for (const seed of [1, 2, 3, 42, 2026]) {
      const r = mulberry32(seed);
      const index = new CheckoutIndex();
      const rows = new Map<string, IndexedKeys>();
      for (let step = 0; step < 400; step++) {
        const id = `s${Math.floor(r() * 40).toString().padStart(2, '0')}`;
        if (r() < 0.15 && rows.has(id)) {
          index.delete(rows.get(id)!);
          rows.delete(id);
        } else {
          const next = randomRow(r, id);
          index.put(rows.get(id), next);
          rows.set(id, next);
        }
        if (step % 20 === 19) expectSameAnswers(index, rows);
      }
      expectSameAnswers(index, rows);
    }
  });

  it('order a checkout’s sales by created_at, ties by id, whatever order they were put in', () => {
    const index = new CheckoutIndex();
    for (const [id, at] of [['b', 5], ['c', 5], ['a', 9], ['d', 1], ['a0', 5]] as const) index.put(undefined, { sale_id: id, store_id: 1, checkout_id: 1, created_at: at });
    expect(index.inRange(1, 1)).toEqual(['d', 'a0', 'b', 'c', 'a']);
    expect(index.newest(1, 1, 3)).toEqual(['a', 'c', 'b']);
    expect(index.newest(1, 1, 10, 5, 9)).toEqual(['c', 'b', 'a0']);
  });

  it('move a sale when its keys change, and leave it filed when only other fields do', () => {
    const index = new CheckoutIndex();
    const first = { sale_id: 's1', store_id: 1, checkout_id: 1, created_at: 10, displaceable: 'yes', status: 'pending' };
    index.put(undefined, first);
    const paid = { ...first, status: 'paid', displaceable: undefined, pix_id: 'pix-1' };
    index.put(first, paid);
    expect(index.displaceable(1, 1)).toEqual([]);
    expect(index.byPixId('pix-1')).toBe('s1');
    expect([index.withStatus('pending'), index.withStatus('paid')]).toEqual([[], ['s1']]);
    const moved = { ...paid, checkout_id: 2 };
    index.put(paid, moved);
    expect([index.inRange(1, 1), index.inRange(1, 2)]).toEqual([[], ['s1']]);
    index.delete(moved);
    expect([index.inRange(1, 2), index.byPixId('pix-1'), index.withStatus('paid'), index.createdBetween(0, 100)]).toEqual([[], undefined, [], []]);
  });

  it('answer nothing for a NaN bound or a checkout it never saw', () => {
    const index = new CheckoutIndex();
    index.put(undefined, { sale_id: 's1', store_id: 1, checkout_id: 1, created_at: 10 });
    expect(index.inRange(1, 1, Number.NaN)).toEqual([]);
    expect(index.newest(1, 1, 5, undefined, Number.NaN)).toEqual([]);
    expect(index.newest(Number.NaN, 1, 5)).toEqual([]);
    expect(index.inRange(9, 9)).toEqual([]);
  });
});
