/**
 * The working set's per-checkout keys in plain memory: what a till asks on every change of
 * its checkout (the newest sales, the displaceable ones, those that need a person) and what
 * every payment report asks (the sale with this pix_id or service_id). With 64 tills these
 * were about 28 IndexedDB index queries a sale; in the engine each read waited its turn
 * behind the others and the working set's writes waited behind the reads (issue 9). The
 * other query (the external id: the back office's) stays IndexedDB's. The time range, the
 * status and the shift are answered here too: each was an IndexedDB index of every sale of
 * the working set, 130 to 160 bytes a sale apiece, where the time range reads the lists below,
 * which hold every sale with a checkout already, and a status or a shift is one entry in a set
 * (issue 28).
 *
 * Answers as the IndexedDB indexes it replaces did: a sale is in an index only when every
 * part of that key is a number (not NaN) or a string as SaleKeys types it; a checkout's sales
 * are ordered by created_at, ties by sale_id (UTF-16 code units, as IndexedDB compares keys);
 * `newest` walks that order backwards.
 */

/** The parts of a working-set row (view.ts's SaleRow) this index reads. */
export interface IndexedKeys {
  sale_id: string;
  store_id?: number;
  checkout_id?: number;
  created_at?: number;
  pix_id?: string;
  service_id?: string;
  status?: string;
  shift_id?: string;
  needs_person?: string;
  displaceable?: string;
}

interface Placed {
  at: number;
  id: string;
}

function isNumber(v: unknown): v is number {
  return typeof v === 'number' && !Number.isNaN(v);
}

/** Ascending: for two sale ids, IndexedDB's order (UTF-16 code units, as JS compares strings). */
function ascending<T extends number | string>(a: T, b: T): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** IndexedDB's order for two sale ids. */
export const byId: (a: string, b: string) => number = ascending;

/** created_at, then sale_id; Infinity - Infinity is NaN, so equal infinities fall to the id. */
function compare(a: Placed, b: Placed): number {
  return a.at < b.at ? -1 : a.at > b.at ? 1 : byId(a.id, b.id);
}

/** The first position in `list` (sorted by compare) whose item is not `below`. */
function firstNotBelow(list: readonly Placed[], below: (p: Placed) => boolean): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (below(list[mid]!)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The first position whose created_at is at least `at` (any id). */
function firstAtOrAfter(list: readonly Placed[], at: number): number {
  return firstNotBelow(list, (p) => p.at < at);
}

/** "store:checkout" for two numbers (String(-0) is "0": IndexedDB takes -0 and 0 as one key too). */
function checkoutKey(storeId: unknown, checkoutId: unknown): string | undefined {
  return isNumber(storeId) && isNumber(checkoutId) ? `${storeId}:${checkoutId}` : undefined;
}

/** The store and checkout of a checkoutKey (every number reads back from its String). */
function checkoutOf(key: string): [number, number] {
  const [store, checkout] = key.split(':');
  return [Number(store), Number(checkout)];
}

const FILED_BY = ['sale_id', 'store_id', 'checkout_id', 'created_at', 'status', 'shift_id', 'needs_person', 'displaceable', 'pix_id', 'service_id'] as const;

/** Whether two rows are filed the same (a changed NaN reads as moved: filed again, harmlessly). */
function filedAlike(a: IndexedKeys, b: IndexedKeys): boolean {
  return FILED_BY.every((k) => a[k] === b[k]);
}

export class CheckoutIndex {
  /** Per checkout: its sales with a created_at, sorted by created_at then sale_id. */
  readonly #placed = new Map<string, Placed[]>();
  /** The sales with a created_at and no checkout (a record without one), in the same order. */
  readonly #unplaced: Placed[] = [];
  /** By status, and by shift: its sales. */
  readonly #status = new Map<string, Set<string>>();
  readonly #shift = new Map<string, Set<string>>();
  /** Per checkout (checkoutKey): its sales that need a person, and its displaceable ones. */
  readonly #needsPerson = new Map<string, Set<string>>();
  readonly #displaceable = new Map<string, Set<string>>();
  /** By pix_id and service_id: the one sale that carries it, or a set should two ever do. */
  readonly #pix = new Map<string, OneOrMore>();
  readonly #service = new Map<string, OneOrMore>();

  /** Files `next` in place of `previous` (the same sale's row as it was, if it was held). */
  put(previous: IndexedKeys | undefined, next: IndexedKeys): void {
    if (previous !== undefined) {
      // Most changes of a sale move none of these keys (a status, a payment).
      if (filedAlike(previous, next)) return;
      this.delete(previous);
    }
    const checkout = checkoutKey(next.store_id, next.checkout_id);
    const id = next.sale_id;
    if (checkout !== undefined) {
      if (isNumber(next.created_at)) {
        const list = this.#placed.get(checkout) ?? [];
        if (list.length === 0) this.#placed.set(checkout, list);
        place(list, { at: next.created_at, id });
      }
      if (next.needs_person === 'yes') setOf(this.#needsPerson, checkout).add(id);
      if (next.displaceable === 'yes') setOf(this.#displaceable, checkout).add(id);
    } else if (isNumber(next.created_at)) place(this.#unplaced, { at: next.created_at, id });
    if (typeof next.status === 'string') setOf(this.#status, next.status).add(id);
    if (typeof next.shift_id === 'string') setOf(this.#shift, next.shift_id).add(id);
    if (typeof next.pix_id === 'string') addOne(this.#pix, next.pix_id, id);
    if (typeof next.service_id === 'string') addOne(this.#service, next.service_id, id);
  }

  /** Takes a row out of every index it is filed in (the keys it was filed with). */
  delete(row: IndexedKeys): void {
    const checkout = checkoutKey(row.store_id, row.checkout_id);
    const id = row.sale_id;
    if (checkout !== undefined) {
      const list = this.#placed.get(checkout);
      if (list !== undefined && isNumber(row.created_at)) {
        unplace(list, { at: row.created_at, id });
        if (list.length === 0) this.#placed.delete(checkout);
      }
      removeId(this.#needsPerson, checkout, id);
      removeId(this.#displaceable, checkout, id);
    } else if (isNumber(row.created_at)) unplace(this.#unplaced, { at: row.created_at, id });
    if (typeof row.status === 'string') removeId(this.#status, row.status, id);
    if (typeof row.shift_id === 'string') removeId(this.#shift, row.shift_id, id);
    if (typeof row.pix_id === 'string') removeOne(this.#pix, row.pix_id, id);
    if (typeof row.service_id === 'string') removeOne(this.#service, row.service_id, id);
  }

  /** The checkout's sales created in [fromMs, toMs) (either side open), oldest first. */
  inRange(storeId: number, checkoutId: number, fromMs?: number, toMs?: number): string[] {
    const list = this.#placed.get(checkoutKey(storeId, checkoutId) ?? '');
    if (list === undefined || Number.isNaN(fromMs) || Number.isNaN(toMs)) return [];
    const start = fromMs === undefined ? 0 : firstAtOrAfter(list, fromMs);
    const end = toMs === undefined ? list.length : firstAtOrAfter(list, toMs);
    return list.slice(start, Math.max(start, end)).map((p) => p.id);
  }

  /** The checkout's newest `count` sales created in [fromMs, toMs) (either side open), newest first, ties by the greater id. */
  newest(storeId: number, checkoutId: number, count: number, fromMs?: number, toMs?: number): string[] {
    const list = this.#placed.get(checkoutKey(storeId, checkoutId) ?? '');
    const out: string[] = [];
    if (list === undefined || Number.isNaN(toMs)) return out;
    const end = toMs === undefined ? list.length : firstAtOrAfter(list, toMs);
    for (let i = end - 1; i >= 0 && out.length < count; i--) {
      const p = list[i]!;
      if (fromMs !== undefined && !(p.at >= fromMs)) break;
      out.push(p.id);
    }
    return out;
  }

  /**
   * Every sale created in [fromMs, toMs), by created_at then id, as IndexedDB's index on
   * created_at gave them: the part of each checkout's list in the range, merged.
   */
  createdBetween(fromMs: number, toMs: number): string[] {
    const found: Placed[] = [];
    for (const list of [...this.#placed.values(), this.#unplaced]) {
      const start = firstAtOrAfter(list, fromMs);
      const end = firstAtOrAfter(list, toMs);
      for (let i = start; i < end; i++) found.push(list[i]!);
    }
    return found.sort(compare).map((p) => p.id);
  }

  /** The sales whose status is this one, by id. */
  withStatus(status: string): string[] {
    return sortedIds(this.#status.get(status));
  }

  /** The sales rung up in this shift, by id. */
  withShift(shiftId: string): string[] {
    return sortedIds(this.#shift.get(shiftId));
  }

  /** The checkout's sales that need a person, by id. */
  needingPerson(storeId: number, checkoutId: number): string[] {
    return sortedIds(this.#needsPerson.get(checkoutKey(storeId, checkoutId) ?? ''));
  }

  /** Every sale that needs a person: by store, checkout, then id. */
  needingPersonAnywhere(): string[] {
    const checkouts = [...this.#needsPerson.keys()].map((key) => ({ key, at: checkoutOf(key) }));
    checkouts.sort((a, b) => ascending(a.at[0], b.at[0]) || ascending(a.at[1], b.at[1]));
    return checkouts.flatMap(({ key }) => sortedIds(this.#needsPerson.get(key)));
  }

  /** The checkout's displaceable sales, by id. */
  displaceable(storeId: number, checkoutId: number): string[] {
    return sortedIds(this.#displaceable.get(checkoutKey(storeId, checkoutId) ?? ''));
  }

  /** Every checkout that has a sale with a created_at, as [store, checkout]. */
  checkouts(): [number, number][] {
    return [...this.#placed.keys()].map(checkoutOf);
  }

  /** The sale with this pix_id (the least id, should two ever carry it). */
  byPixId(pixId: string): string | undefined {
    return leastOf(this.#pix.get(pixId));
  }

  /** The sale with this service_id (the least id, should two ever carry it). */
  byServiceId(serviceId: string): string | undefined {
    return leastOf(this.#service.get(serviceId));
  }
}

/** Files `p` in its place in `list` (sorted by compare). */
function place(list: Placed[], p: Placed): void {
  // New sales are the newest: usually a push at the end.
  const last = list.at(-1);
  if (last === undefined || compare(last, p) < 0) list.push(p);
  else list.splice(firstNotBelow(list, (q) => compare(q, p) < 0), 0, p);
}

/** Takes `p` (its created_at and id) out of `list`, if there. */
function unplace(list: Placed[], p: Placed): void {
  const at = firstNotBelow(list, (q) => compare(q, p) < 0);
  if (at < list.length && compare(list[at]!, p) === 0) list.splice(at, 1);
}

/**
 * One sale id, or several. Almost every pix_id and service_id is one sale's: a Set for each
 * was about 300 bytes a sale of the working set (issue 28).
 */
type OneOrMore = string | Set<string>;

function addOne(map: Map<string, OneOrMore>, key: string, id: string): void {
  const held = map.get(key);
  if (held === undefined || held === id) map.set(key, id);
  else if (typeof held === 'string') map.set(key, new Set([held, id]));
  else held.add(id);
}

function removeOne(map: Map<string, OneOrMore>, key: string, id: string): void {
  const held = map.get(key);
  if (held === undefined) return;
  if (typeof held === 'string') {
    if (held === id) map.delete(key);
    return;
  }
  held.delete(id);
  if (held.size === 1) map.set(key, held.values().next().value!);
  else if (held.size === 0) map.delete(key);
}

function setOf(map: Map<string, Set<string>>, key: string): Set<string> {
  let set = map.get(key);
  if (set === undefined) map.set(key, (set = new Set()));
  return set;
}

function removeId(map: Map<string, Set<string>>, key: string, id: string): void {
  const set = map.get(key);
  if (set === undefined) return;
  set.delete(id);
  if (set.size === 0) map.delete(key);
}

function sortedIds(ids: ReadonlySet<string> | undefined): string[] {
  return ids === undefined ? [] : [...ids].sort(byId);
}

function leastOf(held: OneOrMore | undefined): string | undefined {
  return typeof held === 'string' ? held : leastId(held);
}

function leastId(ids: ReadonlySet<string> | undefined): string | undefined {
  let least: string | undefined;
  for (const id of ids ?? []) if (least === undefined || id < least) least = id;
  return least;
}
