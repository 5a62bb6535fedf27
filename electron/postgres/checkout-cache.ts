/**
 * What a till asks on every change of its checkout, answered from memory: the checkout's
 * newest sales, its displaceable ones and those that need a person. With 64 tills these were
 * about 24 queries a sale, each a round trip behind the others and a decode of its rows; they
 * held the PostgreSQL core to a third of the embedded one's sales a second.
 *
 * Sound because this core is the database's one writer (a second is refused by the entries'
 * primary key): every sale row that changes passes through `put` once its commit is done, so
 * a checkout held here is the database's as of the last commit. A checkout is read from the
 * database the first time it is asked for; rows committed while that read is under way are
 * put on top of what it returns, in commit order. Only a bounded number of checkouts is held;
 * one that leaves is read again when next asked.
 *
 * Order is the database's: created_at, then sale_id as `collate "C"` compares (UTF-8 bytes,
 * which is code point order).
 */
import { deepFreeze } from '../shared/freeze.ts';
import type { SaleRow } from '../core/journal/fold.ts';

/** The newest sales held per checkout: more than any view asks for (it asks for 10 at most). */
export const RECENT_HELD = 16;
/** Checkouts held at once; the least recently asked leaves first. */
const CHECKOUTS_HELD = 4_096;

/** What the cache needs of the database: one checkout's sales, as committed. */
export interface CheckoutSource<S> {
  /** The newest `count` sales by created_at desc, sale_id desc; and every displaceable one, and every one needing a person. */
  load(storeId: number, checkoutId: number, count: number): Promise<{ recent: SaleRow<S>[]; displaceable: SaleRow<S>[]; needing: SaleRow<S>[] }>;
}

interface Held<S> {
  /** A prefix of the checkout's sales, newest first: the newest `recent.length` of them. */
  recent: SaleRow<S>[];
  /** `recent` is every sale of the checkout that has a created_at. */
  complete: boolean;
  displaceable: Map<string, SaleRow<S>>;
  needing: Map<string, SaleRow<S>>;
}

type Put<S> = [previous: SaleRow<S> | undefined, next: SaleRow<S>];

/** Code point order, as PostgreSQL's "C" collation orders UTF-8 text. */
export function byCodePoint(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // A surrogate (a code point above U+FFFF) sorts after every BMP unit from U+E000 on.
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs && !ys && y >= 0xe000) return 1;
    if (ys && !xs && x >= 0xe000) return -1;
    return x - y;
  }
  return a.length - b.length;
}

/** Newest first: created_at desc, then sale_id desc. */
function newerFirst<S>(a: SaleRow<S>, b: SaleRow<S>): number {
  const at = (b.created_at as number) - (a.created_at as number);
  return at !== 0 ? at : byCodePoint(b.sale_id, a.sale_id);
}

function placed<S>(row: SaleRow<S>): boolean {
  return typeof row.created_at === 'number' && Number.isFinite(row.created_at);
}

function keyOf(storeId: unknown, checkoutId: unknown): string | undefined {
  return Number.isInteger(storeId) && Number.isInteger(checkoutId) ? `${storeId as number}:${checkoutId as number}` : undefined;
}

export class CheckoutCache<S> {
  readonly #source: CheckoutSource<S>;
  readonly #held = new Map<string, Held<S>>();
  /** Checkouts being read, with the rows committed meanwhile (put on top once the read is back). */
  readonly #loading = new Map<string, { done: Promise<Held<S>>; puts: Put<S>[] }>();

  constructor(source: CheckoutSource<S>) {
    this.#source = source;
  }

  /** The checkout's newest `count` sales created at or after `sinceMs`, newest first; undefined when the held prefix cannot tell. */
  async recent(storeId: number, checkoutId: number, count: number, sinceMs?: number): Promise<SaleRow<S>[] | undefined> {
    if (count > RECENT_HELD) return undefined;
    const held = await this.#get(storeId, checkoutId);
    if (held === undefined || (count > held.recent.length && !held.complete)) return undefined;
    const out: SaleRow<S>[] = [];
    for (const row of held.recent) {
      if (out.length >= count || (sinceMs !== undefined && !((row.created_at as number) >= sinceMs))) break;
      out.push(row);
    }
    return out;
  }

  async displaceable(storeId: number, checkoutId: number): Promise<SaleRow<S>[] | undefined> {
    const held = await this.#get(storeId, checkoutId);
    return held && sortedById(held.displaceable);
  }

  async needingPerson(storeId: number, checkoutId: number): Promise<SaleRow<S>[] | undefined> {
    const held = await this.#get(storeId, checkoutId);
    return held && sortedById(held.needing);
  }

  /** A committed row (`previous`: the same sale's row before the commit, if known). */
  put(previous: SaleRow<S> | undefined, next: SaleRow<S>): void {
    const keys = new Set([keyOf(previous?.store_id, previous?.checkout_id), keyOf(next.store_id, next.checkout_id)]);
    for (const key of keys) {
      if (key === undefined) continue;
      this.#loading.get(key)?.puts.push([previous, next]);
      const held = this.#held.get(key);
      if (held) apply(held, key, next);
    }
  }

  /** Forgets every checkout: the next question reads the database again. */
  clear(): void {
    this.#held.clear();
    // A read under way is no longer trusted either: it is dropped when it comes back.
    this.#loading.clear();
  }

  async #get(storeId: number, checkoutId: number): Promise<Held<S> | undefined> {
    const key = keyOf(storeId, checkoutId);
    if (key === undefined) return undefined;
    const held = this.#held.get(key);
    if (held) {
      // Asked last, so kept longest (a Map keeps insertion order).
      this.#held.delete(key);
      this.#held.set(key, held);
      return held;
    }
    const loading = this.#loading.get(key);
    if (loading) return loading.done;
    const entry = { done: this.#load(key, storeId, checkoutId), puts: [] as Put<S>[] };
    this.#loading.set(key, entry);
    try {
      return await entry.done;
    } finally {
      if (this.#loading.get(key) === entry) this.#loading.delete(key);
    }
  }

  async #load(key: string, storeId: number, checkoutId: number): Promise<Held<S>> {
    const rows = await this.#source.load(storeId, checkoutId, RECENT_HELD + 1);
    const recent = rows.recent.map((r) => deepFreeze(r));
    const complete = recent.length <= RECENT_HELD;
    const held: Held<S> = {
      recent: recent.slice(0, RECENT_HELD),
      complete,
      displaceable: new Map(rows.displaceable.map((r) => [r.sale_id, deepFreeze(r)])),
      needing: new Map(rows.needing.map((r) => [r.sale_id, deepFreeze(r)])),
    };
    const entry = this.#loading.get(key);
    // Cleared while reading: answer this question with what came back, but keep nothing.
    if (entry === undefined) return held;
    for (const [, next] of entry.puts) apply(held, key, next);
    this.#held.set(key, held);
    for (const old of this.#held.keys()) {
      if (this.#held.size <= CHECKOUTS_HELD) break;
      this.#held.delete(old);
    }
    return held;
  }
}

/** Files a committed row in a held checkout: out of every list first, then where its keys say. */
function apply<S>(held: Held<S>, key: string, row: SaleRow<S>): void {
  const id = row.sale_id;
  const at = held.recent.findIndex((r) => r.sale_id === id);
  if (at >= 0) held.recent.splice(at, 1);
  held.displaceable.delete(id);
  held.needing.delete(id);
  if (keyOf(row.store_id, row.checkout_id) !== key) return;
  if (row.displaceable === 'yes') held.displaceable.set(id, row);
  if (row.needs_person === 'yes') held.needing.set(id, row);
  if (!placed(row)) return;
  const last = held.recent.at(-1);
  // Past the held prefix of a checkout with more sales: not among its newest, nothing to hold.
  if (!held.complete && (last === undefined || newerFirst(row, last) > 0)) return;
  let i = 0;
  while (i < held.recent.length && newerFirst(held.recent[i]!, row) < 0) i++;
  held.recent.splice(i, 0, row);
  if (held.recent.length > RECENT_HELD) {
    held.recent.length = RECENT_HELD;
    held.complete = false;
  }
}

function sortedById<S>(rows: ReadonlyMap<string, SaleRow<S>>): SaleRow<S>[] {
  return [...rows.values()].sort((a, b) => byCodePoint(a.sale_id, b.sale_id));
}
