import { describe, expect, it } from 'vitest';
import type { BoardCheckout } from '../../electron/core/contract.ts';
import { boardStores, filterBoard, needsPerson } from './floorBoard.ts';

const checkout = (store_id: number, checkout_id: number, over: Partial<BoardCheckout> = {}): BoardCheckout => ({
  store_id,
  checkout_id,
  store_name: null,
  checkout_desc: null,
  tills: [],
  store_computer: false,
  charge: null,
  last: null,
  attention: [],
  held: false,
  displacements: [],
  ...over,
});

describe('the floor board’s filters', () => {
  const quiet = checkout(1, 1, { store_name: 'Centro' });
  const held = checkout(1, 2, { held: true });
  const other = checkout(2, 1, { store_name: 'Praia', attention: [{ sale_id: 's1' } as BoardCheckout['attention'][number]] });
  const all = [quiet, held, other];

  it('keeps one store, or every store', () => {
    expect(filterBoard(all, { storeId: null, needsPerson: false })).toEqual(all);
    expect(filterBoard(all, { storeId: 1, needsPerson: false })).toEqual([quiet, held]);
    expect(filterBoard(all, { storeId: 3, needsPerson: false })).toEqual([]);
  });

  it('keeps the checkouts where a person is needed: a sale waiting for one, or a payment holding the QR', () => {
    expect(all.map(needsPerson)).toEqual([false, true, true]);
    expect(filterBoard(all, { storeId: null, needsPerson: true })).toEqual([held, other]);
    expect(filterBoard(all, { storeId: 2, needsPerson: true })).toEqual([other]);
  });

  it('lists each store once, by number, with a name when any of its checkouts has one', () => {
    expect(boardStores({ checkouts: [other, held, quiet] })).toEqual([
      { store_id: 1, store_name: 'Centro' },
      { store_id: 2, store_name: 'Praia' },
    ]);
  });
});
