import type { BoardCheckout, FloorBoard } from '../../electron/core/contract.ts';

/** What the floor board shows of the core's board: one store or all, and only what needs a person. */
export interface BoardFilter {
  /** null: every store. */
  storeId: number | null;
  needsPerson: boolean;
}

/** A checkout needs a person while a sale of it waits for one (its payment may hold the QR). */
export function needsPerson(checkout: BoardCheckout): boolean {
  return checkout.attention.length > 0 || checkout.held;
}

export function filterBoard(checkouts: readonly BoardCheckout[], filter: BoardFilter): BoardCheckout[] {
  return checkouts.filter((c) => (filter.storeId === null || c.store_id === filter.storeId) && (!filter.needsPerson || needsPerson(c)));
}

/** The stores on the board, in order, each with the name people call it by (null when the service gave none). */
export function boardStores(board: Pick<FloorBoard, 'checkouts'>): { store_id: number; store_name: string | null }[] {
  const stores = new Map<number, string | null>();
  for (const c of board.checkouts) if (!stores.has(c.store_id) || stores.get(c.store_id) === null) stores.set(c.store_id, c.store_name);
  return [...stores].sort(([a], [b]) => a - b).map(([store_id, store_name]) => ({ store_id, store_name }));
}
