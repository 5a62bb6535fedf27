import { randomUUID } from 'node:crypto';
import * as fake from 'fake-indexeddb';
import { deleteDB, openDB, unwrap } from 'idb';
import type { DBSchema, IDBPDatabase, IDBPTransaction } from 'idb';
import { deepFreeze } from '../../shared/freeze.ts';
import { byId, CheckoutIndex } from './checkout-index.ts';
import { EMPTY_LIST, PackedRow, packRow, rowOf } from './packed.ts';
import { batchOf, foldBatch, type BatchState, type SaleRow, type WebhookRow } from './fold.ts';
import { ownSaleKeys, type JournalEntry, type ReducerFailure, type SaleKeys, type SaleReducer, type ShiftRecord } from './port.ts';


/**
 * What IndexedDB keeps of a sale: its id and the keys of the back office's queries (multiEntry
 * indexes), each the key itself or, when the sale has none, an empty list. A sale without a
 * key is then in no entry of that index, as before, and the engine has no invalid key to throw
 * about: with `undefined` it built and threw a DataError for every put of a sale outside a
 * shift or without an external id (issue 9). A key is not wrapped in a list of one: the engine
 * keeps a structured clone of every record, and with it four lists for each sale of the
 * working set (issue 28). The record itself is in memory (#rows) and in the
 * checkpoint: every query took its rows from there already. The other keys (status, shift and
 * created_at among them) are indexed in memory (checkout-index.ts).
 */
interface IndexedSale {
  sale_id: string;
  external_id: string | [];
}

const NO_KEY: [] = [];

function indexedSale(row: Partial<SaleKeys> & { sale_id: string }): IndexedSale {
  const text = (v: unknown) => (typeof v === 'string' ? v : NO_KEY);
  return {
    sale_id: row.sale_id,
    external_id: text(row.external_id),
  };
}

/** The key an IndexedSale holds for an index, if any. */
function keyOf<T extends string>(key: T | []): T | undefined {
  return Array.isArray(key) ? undefined : key;
}

/**
 * What a put hands the engine: the keys without the sale id, which is the record's key given
 * beside it (out of line). With the id in the record (a key path), the engine kept the id of
 * its clone of the record: a second copy of every sale id, beside the one memory holds and
 * every index shares (issue 28).
 */
type StoredKeys = Omit<IndexedSale, 'sale_id'>;

function storedKeys(sale: IndexedSale): StoredKeys {
  return { external_id: sale.external_id };
}

function sameIndexedSale(a: IndexedSale, b: IndexedSale): boolean {
  return keyOf(a.external_id) === keyOf(b.external_id);
}

interface JournalSchema extends DBSchema {
  sales: {
    key: string;
    value: StoredKeys;
    indexes: {
      by_external_id: string;
    };
  };
  shifts: {
    key: string;
    value: ShiftRecord;
    indexes: { by_opened_at: number; by_state: string };
  };
}

/**
 * The IndexedDB stores: what is queried by index. The webhook-ids are asked only by id, and
 * from memory (#hooks); they are kept with the rest in the checkpoint. Written to IndexedDB
 * too, they were two more puts a sale that nothing ever read back.
 */
const STORES = ['sales', 'shifts'] as const;

const INDEXED_DB_GLOBALS = {
  indexedDB: fake.indexedDB,
  IDBKeyRange: fake.IDBKeyRange,
  IDBRequest: fake.IDBRequest,
  IDBOpenDBRequest: fake.IDBOpenDBRequest,
  IDBDatabase: fake.IDBDatabase,
  IDBObjectStore: fake.IDBObjectStore,
  IDBIndex: fake.IDBIndex,
  IDBCursor: fake.IDBCursor,
  IDBCursorWithValue: fake.IDBCursorWithValue,
  IDBTransaction: fake.IDBTransaction,
  IDBVersionChangeEvent: fake.IDBVersionChangeEvent,
};

/**
 * idb reaches IndexedDB through globals only (openDB calls the global indexedDB, and it
 * recognises requests and transactions with instanceof on the global classes). Node has
 * none, so fake-indexeddb's engine is installed where nothing is; an IndexedDB that is
 * already there (a browser, or fake-indexeddb/auto) is kept and used as a whole.
 */
function ensureIndexedDb(): void {
  const g = globalThis as Record<string, unknown>;
  for (const [name, value] of Object.entries(INDEXED_DB_GLOBALS)) {
    if (g[name] === undefined) Object.defineProperty(globalThis, name, { value, writable: true, configurable: true });
  }
}

function keyRange(): typeof IDBKeyRange {
  return (globalThis as unknown as { IDBKeyRange: typeof IDBKeyRange }).IDBKeyRange;
}

/** Half-open [from, to) over numbers; either side may be left open. */
function between(fromMs: number | undefined, toMs: number | undefined): IDBKeyRange | undefined {
  const KR = keyRange();
  if (fromMs === undefined && toMs === undefined) return undefined;
  if (toMs === undefined) return KR.lowerBound(fromMs);
  if (fromMs === undefined) return KR.upperBound(toMs, true);
  if (toMs <= fromMs) return undefined;
  return KR.bound(fromMs, toMs, false, true);
}

/** The sale queries, answered by the working set here and by the whole journal in store.ts. */
export interface SaleQueriesOf<S> {
  sale(id: string): Promise<S | undefined>;
  saleByPixId(pixId: string): Promise<S | undefined>;
  saleByServiceId(serviceId: string): Promise<S | undefined>;
  salesByExternalId(externalId: string): Promise<S[]>;
  /** Sales of one checkout, oldest first; optionally created in [fromMs, toMs). */
  salesByCheckout(storeId: number, checkoutId: number, range?: { fromMs?: number; toMs?: number }): Promise<S[]>;
  /** The checkout's newest sale by created_at (reference 4.5 rule 3: payments go to the newest). */
  latestSaleOnCheckout(storeId: number, checkoutId: number): Promise<S | undefined>;
  /** The checkout's newest `count` sales by created_at (from `sinceMs` on), newest first: reads no more than that. */
  recentSalesOnCheckout(storeId: number, checkoutId: number, count: number, sinceMs?: number): Promise<S[]>;
  /** The checkout's sales whose keys say needs_person 'yes'. */
  salesNeedingPerson(storeId: number, checkoutId: number): Promise<S[]>;
  /** Every sale whose keys say needs_person 'yes', on any checkout. */
  salesNeedingPersonAnywhere(): Promise<S[]>;
  /** The checkout's sales whose keys say displaceable 'yes'. */
  displaceableSales(storeId: number, checkoutId: number): Promise<S[]>;
  salesByStatus(status: string): Promise<S[]>;
  salesByShift(shiftId: string): Promise<S[]>;
  salesCreatedBetween(fromMs: number, toMs: number): Promise<S[]>;

  webhookSeq(webhookId: string): Promise<number | undefined>;

  shift(id: string): Promise<ShiftRecord | undefined>;
  openShifts(): Promise<ShiftRecord[]>;
  shiftsOpenedBetween(fromMs: number, toMs: number): Promise<ShiftRecord[]>;
}

/** What the journal's apply, seal and checkpoint need of a working set (IndexedDB, or memory while rebuilding). */
export type WorkingSetWriter<S> = Pick<SaleIndex<S>, 'applyEntries' | 'missing' | 'rows' | 'storedRows' | 'size' | 'webhookRows' | 'allShifts' | 'openShifts' | 'evict'>;

/**
 * The working set in plain memory, for the open that rebuilds from the whole log: the
 * same fold as the IndexedDB index, without its per-record cost; its rows go into
 * IndexedDB once, at the end (SaleIndex.restoreSales).
 */
export class MemoryWorkingSet<S> implements WorkingSetWriter<S> {
  readonly #reduce: SaleReducer<S>;
  readonly #keys: (sale: S) => Partial<SaleKeys>;
  readonly #sales = new Map<string, SaleRow<S>>();
  readonly #hooks = new Map<string, WebhookRow>();
  readonly #shifts = new Map<string, ShiftRecord>();

  constructor(reduce: SaleReducer<S>, keys: (sale: S) => Partial<SaleKeys>) {
    this.#reduce = reduce;
    this.#keys = keys;
  }

  async applyEntries(entries: readonly JournalEntry[], seeds?: ReadonlyMap<string, S>): Promise<ReducerFailure[]> {
    if (entries.length === 0) return [];
    const batch = batchOf(entries);
    const state: BatchState<S> = {
      sales: new Map(batch.saleIds.map((id) => [id, this.#sales.get(id)])),
      hooks: new Map(batch.hookIds.map((id) => [id, this.#hooks.get(id)])),
      shifts: new Map(batch.shiftIds.map((id) => [id, this.#shifts.get(id)])),
    };
    const changes = foldBatch(entries, batch.refs, state, seeds, this.#reduce, this.#keys);
    for (const h of changes.hooks) this.#hooks.set(h.webhook_id, h);
    for (const sh of changes.shifts) this.#shifts.set(sh.id, sh);
    for (const row of changes.sales) this.#sales.set(row.sale_id, row);
    return changes.failures;
  }
  async missing(saleIds: readonly string[]): Promise<string[]> {
    return saleIds.filter((id) => !this.#sales.has(id));
  }
  async rows(saleIds?: readonly string[]): Promise<SaleRow<S>[]> {
    if (saleIds === undefined) return [...this.#sales.values()];
    return saleIds.flatMap((id) => this.#sales.get(id) ?? []);
  }
  async storedRows(): Promise<SaleRow<S>[]> {
    return [...this.#sales.values()];
  }
  size(): number {
    return this.#sales.size;
  }
  async webhookRows(): Promise<WebhookRow[]> {
    return [...this.#hooks.values()];
  }
  async allShifts(): Promise<ShiftRecord[]> {
    return [...this.#shifts.values()];
  }
  async openShifts(): Promise<ShiftRecord[]> {
    return [...this.#shifts.values()].filter((s) => s.state === 'open');
  }
  async evict(saleIds: readonly string[], webhookIds: readonly string[]): Promise<void> {
    for (const id of saleIds) this.#sales.delete(id);
    for (const id of webhookIds) this.#hooks.delete(id);
  }
}

export type RowQuery =
  | { index: 'by_external_id' | 'by_status' | 'by_shift'; value: string }
  /** `newest`: only that many rows, newest created first (ties: the greater sale_id first). */
  | { index: 'by_checkout'; storeId: number; checkoutId: number; fromMs?: number; toMs?: number; newest?: number }
  | { index: 'by_created_at'; fromMs: number; toMs: number };

/**
 * The working set: the sales still at work (and those touched lately), every shift, the
 * recent webhook-ids; a till's keys indexed in memory, the back office's in IndexedDB. What
 * left it is in the segments (store.ts reads them on demand); its queries answer for the
 * working set only.
 */
export interface SaleIndex<S> extends SaleQueriesOf<S> {
  /**
   * Applies entries (in seq order) in one transaction; a sale not in the index starts from
   * `seeds` (its record read back from history), else from nothing. Returns reducer failures.
   */
  applyEntries(entries: readonly JournalEntry[], seeds?: ReadonlyMap<string, S>): Promise<ReducerFailure[]>;
  /** The rows an index query finds, with their ids and keys (to merge with history's). */
  rowsWhere(query: RowQuery): Promise<SaleRow<S>[]>;
  /** Which of these sale ids the index does not hold. */
  missing(saleIds: readonly string[]): Promise<string[]>;
  rows(saleIds?: readonly string[]): Promise<SaleRow<S>[]>;
  /**
   * Every row as it is held: some packed (PackedRow), whose id and last touch read without
   * unpacking them, and which JSON.stringify writes as the row (a checkpoint writes these).
   */
  storedRows(): Promise<(SaleRow<S> | PackedRow<S>)[]>;
  /** How many sales it holds. */
  size(): number;
  webhookRows(): Promise<WebhookRow[]>;
  allShifts(): Promise<ShiftRecord[]>;
  /**
   * Puts sales back as a checkpoint kept them, a batch at a time: each as read (packed, or
   * not) with the row itself, for its keys. Then finishRestore, once.
   */
  restoreSales(batch: readonly (readonly [SaleRow<S> | PackedRow<S>, SaleRow<S>])[]): Promise<void>;
  /** The shifts and webhook-ids a checkpoint kept, once its sales are back. */
  finishRestore(shifts: readonly ShiftRecord[], webhooks: readonly WebhookRow[]): Promise<void>;
  /** Lets sales and webhook-ids leave the working set (they stay in history). */
  evict(saleIds: readonly string[], webhookIds: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * `onWriteFailure`: told if IndexedDB refuses a write of the back office's keys, which the
 * apply does not wait for (IdbSaleIndex #writeSoon).
 */
export async function openView<S extends object>(
  reduceSale: SaleReducer<S>,
  saleKeys: (sale: S) => Partial<SaleKeys> = ownSaleKeys,
  onWriteFailure: (err: unknown) => void = () => undefined,
  options: { packRows?: boolean; unpackSlice?: number } = {},
): Promise<SaleIndex<S>> {
  ensureIndexedDb();
  // Filled at every start from a checkpoint and the log: a fresh, private database each time.
  const name = `journal-view-${randomUUID()}`;
  const db = await openDB<JournalSchema>(name, 1, {
    upgrade(d) {
      // What the back office asks. A checkout's sales, those that need a person or are
      // displaceable, and the pix_id and service_id that payments are matched by are asked
      // on every change at every till: those keys are indexed in memory (checkout-index.ts),
      // and so are the status, the shift and created_at, each an index of every sale here (issue 28).
      // No version bump: this database is new at every open (see above).
      // Keyed out of line by the sale id (see StoredKeys).
      const sales = d.createObjectStore('sales');
      sales.createIndex('by_external_id', 'external_id', { multiEntry: true });
      const shifts = d.createObjectStore('shifts', { keyPath: 'id' });
      shifts.createIndex('by_opened_at', 'opened_at');
      shifts.createIndex('by_state', 'state');
    },
  });
  return new IdbSaleIndex(db, name, reduceSale, saleKeys, onWriteFailure, options.packRows ?? true, options.unpackSlice ?? UNPACK_SLICE);
}

type ReadTx = IDBPTransaction<JournalSchema, typeof STORES, 'readonly'>;
type WriteTx = IDBPTransaction<JournalSchema, ['sales'], 'readwrite'>;

/** Sales' keys written in one transaction: a read transaction waits at most for that many puts. */
const WRITE_BATCH = 64;
/**
 * A checkout's newest sales held as they are (not packed): the most any till's question reads
 * of them (a checkout view reads the newest 10, a charge's plan 4, a receipt's reprint 5).
 */
const AWAKE_NEWEST = 16;

/**
 * Packed rows a query unpacks in one turn of the event loop. A row takes about 20 µs to
 * unpack: a day's 50,000 sales unpacked at once held the core a second, every till's charge
 * and payment waiting behind a shift report (issue 28). 500 of them are about 10 ms.
 */
export const UNPACK_SLICE = 500;

/** Which key of IndexedSale each of IndexedDB's sale indexes is on. */
const INDEXED_FIELD = { by_external_id: 'external_id' } as const;
interface PendingRead {
  run: (tx: ReadTx) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
}

class IdbSaleIndex<S extends object> implements SaleIndex<S> {
  readonly #db: IDBPDatabase<JournalSchema>;
  /**
   * What the stores hold, by key: set when a write's transaction has completed, so it is what
   * a read transaction sees (none runs while a write does). Queries ask the IndexedDB indexes
   * for keys and take the rows from here: the engine copies every row it hands out, and with
   * 64 tills those copies were a quarter of the core's time (issue 9). Frozen, since callers
   * share them.
   */
  readonly #rows = new Map<string, SaleRow<S> | PackedRow<S>>();
  /** The per-checkout, pix_id, service_id, status, shift and created_at keys of #rows, updated with it. */
  readonly #byCheckout = new CheckoutIndex();
  readonly #hooks = new Map<string, WebhookRow>();
  readonly #shifts = new Map<string, ShiftRecord>();
  /** Strings and short lists that rows repeat, each held once (see freezeRow). */
  readonly #shared = new SharedParts();
  readonly #name: string;
  readonly #reduce: SaleReducer<S>;
  readonly #keys: (sale: S) => Partial<SaleKeys>;
  /** Reads waiting for this turn's shared transaction (see #read). */
  #reads: PendingRead[] = [];
  /**
   * Sales whose keys IndexedDB does not hold yet (waiting for a write, or in one not yet
   * committed), the newest keys of each: every index query takes them as candidates too, so
   * an answer never waits for the engine to catch up (see #writeSoon).
   */
  readonly #unwritten = new Map<string, IndexedSale>();
  /** The one write transaction of sales' keys under way, if any; close waits for it. */
  #writing: Promise<void> | null = null;
  #closed = false;
  readonly #onWriteFailure: (err: unknown) => void;
  /** False only in tests: every row held as objects, to compare the answers of both. */
  readonly #packRows: boolean;
  /** UNPACK_SLICE, but in tests (to cross a slice's end with few rows) and the bench (Infinity: all at once). */
  readonly #unpackSlice: number;

  constructor(db: IDBPDatabase<JournalSchema>, name: string, reduce: SaleReducer<S>, keys: (sale: S) => Partial<SaleKeys>, onWriteFailure: (err: unknown) => void, packRows: boolean, unpackSlice: number) {
    this.#db = db;
    this.#packRows = packRows;
    this.#unpackSlice = unpackSlice;
    this.#name = name;
    this.#reduce = reduce;
    this.#keys = keys;
    this.#onWriteFailure = onWriteFailure;
  }

  async applyEntries(entries: readonly JournalEntry[], seeds?: ReadonlyMap<string, S>): Promise<ReducerFailure[]> {
    if (entries.length === 0) return [];
    const batch = batchOf(entries);
    // Applies never overlap (the log runs them one at a time), so the rows in memory are the
    // current ones: IndexedDB is only written.
    const state: BatchState<S> = {
      sales: new Map(batch.saleIds.map((id) => [id, this.#row(id)])),
      hooks: new Map(batch.hookIds.map((id) => [id, this.#hooks.get(id)])),
      shifts: new Map(batch.shiftIds.map((id) => [id, this.#shifts.get(id)])),
    };
    const changes = foldBatch(entries, batch.refs, state, seeds, this.#reduce, this.#keys);
    // Only sales whose back-office keys moved are written: most changes move none (a
    // payment, the touch of an entry).
    const puts: IndexedSale[] = [];
    for (const row of changes.sales) {
      const next = indexedSale(row);
      const before = state.sales.get(row.sale_id);
      if (before === undefined || !sameIndexedSale(indexedSale(before), next)) puts.push(next);
    }
    if (changes.shifts.length > 0) {
      // A shift opens or closes a few times a day: written before the apply resolves.
      const tx = this.#db.transaction('shifts', 'readwrite');
      await Promise.all([...changes.shifts.map((sh) => tx.objectStore('shifts').put(sh)), tx.done]);
    }
    for (const h of changes.hooks) this.#hooks.set(h.webhook_id, deepFreeze(h));
    for (const sh of changes.shifts) this.#shifts.set(sh.id, deepFreeze(sh));
    for (const row of changes.sales) this.#setRow(row, state.sales.get(row.sale_id));
    for (const p of puts) this.#unwritten.set(p.sale_id, p);
    this.#writeSoon();
    return changes.failures;
  }

  async sale(id: string): Promise<S | undefined> {
    return this.#row(id)?.record;
  }
  async saleByPixId(pixId: string): Promise<S | undefined> {
    return this.#recordOf(this.#byCheckout.byPixId(pixId));
  }
  async saleByServiceId(serviceId: string): Promise<S | undefined> {
    return this.#recordOf(this.#byCheckout.byServiceId(serviceId));
  }
  async rowsWhere(q: RowQuery): Promise<SaleRow<S>[]> {
    switch (q.index) {
      case 'by_checkout': {
        // Newest first and no more than asked: a busy checkout's whole day is never read.
        const { storeId, checkoutId, fromMs, toMs, newest } = q;
        return newest === undefined ? this.#manyRows(this.#byCheckout.inRange(storeId, checkoutId, fromMs, toMs)) : this.#rowsOf(this.#byCheckout.newest(storeId, checkoutId, newest, fromMs, toMs));
      }
      case 'by_created_at':
        return this.#createdBetween(q.fromMs, q.toMs);
      case 'by_status':
        return this.#manyRows(this.#byCheckout.withStatus(q.value));
      case 'by_shift':
        return this.#manyRows(this.#byCheckout.withShift(q.value));
      default:
        return this.#keyed(q.index, q.value);
    }
  }
  async salesByExternalId(externalId: string): Promise<S[]> {
    return records(await this.rowsWhere({ index: 'by_external_id', value: externalId }));
  }
  async salesByCheckout(storeId: number, checkoutId: number, range: { fromMs?: number; toMs?: number } = {}): Promise<S[]> {
    return records(await this.rowsWhere({ index: 'by_checkout', storeId, checkoutId, ...range }));
  }
  async latestSaleOnCheckout(storeId: number, checkoutId: number): Promise<S | undefined> {
    return (await this.recentSalesOnCheckout(storeId, checkoutId, 1))[0];
  }
  async recentSalesOnCheckout(storeId: number, checkoutId: number, count: number, sinceMs?: number): Promise<S[]> {
    if (!Number.isSafeInteger(count) || count < 1) return [];
    return records(this.#rowsOf(this.#byCheckout.newest(storeId, checkoutId, count, sinceMs)));
  }
  async salesNeedingPerson(storeId: number, checkoutId: number): Promise<S[]> {
    return records(this.#rowsOf(this.#byCheckout.needingPerson(storeId, checkoutId)));
  }
  async salesNeedingPersonAnywhere(): Promise<S[]> {
    return records(this.#rowsOf(this.#byCheckout.needingPersonAnywhere()));
  }
  async displaceableSales(storeId: number, checkoutId: number): Promise<S[]> {
    return records(this.#rowsOf(this.#byCheckout.displaceable(storeId, checkoutId)));
  }
  async salesByStatus(status: string): Promise<S[]> {
    return records(await this.rowsWhere({ index: 'by_status', value: status }));
  }
  async salesByShift(shiftId: string): Promise<S[]> {
    return records(await this.rowsWhere({ index: 'by_shift', value: shiftId }));
  }
  async salesCreatedBetween(fromMs: number, toMs: number): Promise<S[]> {
    return records(await this.#createdBetween(fromMs, toMs));
  }

  async webhookSeq(webhookId: string): Promise<number | undefined> {
    return this.#hooks.get(webhookId)?.seq;
  }

  async shift(id: string): Promise<ShiftRecord | undefined> {
    return this.#shifts.get(id);
  }
  openShifts(): Promise<ShiftRecord[]> {
    return this.#read((tx) => tx.objectStore('shifts').index('by_state').getAll('open'));
  }
  async shiftsOpenedBetween(fromMs: number, toMs: number): Promise<ShiftRecord[]> {
    const range = between(fromMs, toMs);
    return range ? this.#read((tx) => tx.objectStore('shifts').index('by_opened_at').getAll(range)) : [];
  }

  #recordOf(id: string | undefined): S | undefined {
    return id === undefined ? undefined : this.#row(id)?.record;
  }
  /**
   * Writes the unwritten keys to IndexedDB, WRITE_BATCH sales at a time, one transaction after
   * the other, without the apply waiting: the engine runs one request per turn of the event
   * loop, so writing ten sales' keys took ten turns, about 12 ms of every append's 19 under
   * 64 tills, and at 600 sales a second there are fewer turns than puts (issue 9's benchmark).
   * A sale's keys that change again while they wait are written once. Queries do not wait for
   * this (#saleRows); a read transaction waits at most for the batch under way.
   */
  #writeSoon(): void {
    if (this.#writing !== null || this.#unwritten.size === 0 || this.#closed) return;
    const batch: IndexedSale[] = [];
    for (const keys of this.#unwritten.values()) {
      batch.push(keys);
      if (batch.length === WRITE_BATCH) break;
    }
    let tx: WriteTx;
    try {
      tx = this.#db.transaction('sales', 'readwrite');
    } catch (err) {
      // The database is closed: the keys stay unwritten, and queries still find them.
      this.#onWriteFailure(err);
      return;
    }
    this.#writing = Promise.all([...batch.map((keys) => tx.objectStore('sales').put(storedKeys(keys), keys.sale_id)), tx.done]).then(
      () => {
        // Only the keys this transaction wrote leave: newer keys of the same sale wait for the next.
        for (const keys of batch) if (this.#unwritten.get(keys.sale_id) === keys) this.#unwritten.delete(keys.sale_id);
        this.#writing = null;
        this.#writeSoon();
      },
      (err: unknown) => {
        // Keys are checked before they are put (indexedSale), so this is a closed database:
        // they stay unwritten (queries still find them) and the next apply tries again.
        this.#writing = null;
        this.#onWriteFailure(err);
      },
    );
  }

  #rowsOf(ids: readonly string[]): SaleRow<S>[] {
    return ids.flatMap((id) => this.#row(id) ?? []);
  }
  /**
   * The rows of a query that may find thousands (a day's, a shift's, a status's): unpacked
   * #unpackSlice packed rows at a time, the event loop free between two slices, so a till's
   * charge or payment waits for one slice, not for the whole query (see UNPACK_SLICE).
   *
   * The answer is the working set as it was when the query began, as the query all at once
   * gave it: the rows held then are taken before the first slice (a held row is never
   * changed, a change holds a new one), so a sale changed, added or evicted between two slices
   * is answered as it was. A report or a list is a reading at one moment; a sale paid while
   * it is built is shown unpaid, as it would have been had the question come a moment
   * earlier, and the next reading shows it paid. Re-reading a changed row instead would mix
   * moments within one answer: a sale counted by the status it no longer has.
   */
  async #manyRows(ids: readonly string[]): Promise<SaleRow<S>[]> {
    const held: (SaleRow<S> | PackedRow<S>)[] = [];
    for (const id of ids) {
      const row = this.#rows.get(id);
      if (row !== undefined) held.push(row);
    }
    const out: SaleRow<S>[] = new Array<SaleRow<S>>(held.length);
    let unpacked = 0;
    for (let i = 0; i < held.length; i++) {
      const row = held[i]!;
      if (row instanceof PackedRow) {
        if (unpacked === this.#unpackSlice) {
          await nextTurn();
          unpacked = 0;
        }
        unpacked++;
        out[i] = row.row();
      } else out[i] = row;
    }
    return out;
  }
  /** The row as it is held, unpacked if it is packed. */
  #row(id: string): SaleRow<S> | undefined {
    const held = this.#rows.get(id);
    return held === undefined ? undefined : rowOf(held);
  }
  /** `previous`: the sale's row before this change, if it was held (the index moves it). */
  #setRow(row: SaleRow<S>, previous: SaleRow<S> | undefined): void {
    this.#byCheckout.put(previous, row);
    const packed = this.#asleep(row) ? packRow(row) : null;
    this.#rows.set(row.sale_id, packed ?? freezeRow(row, this.#shared));
    // A new sale on a checkout: the one it pushes out of the checkout's newest goes to sleep.
    if (previous === undefined && typeof row.store_id === 'number' && typeof row.checkout_id === 'number') {
      const pushed = this.#byCheckout.newest(row.store_id, row.checkout_id, AWAKE_NEWEST + 1)[AWAKE_NEWEST];
      const held = pushed === undefined ? undefined : this.#rows.get(pushed);
      if (held !== undefined && !(held instanceof PackedRow) && this.#asleep(held)) this.#rows.set(pushed!, packRow(held) ?? held);
    }
  }

  /**
   * Whether a row may be held packed: what a till asks on every change of its checkout (its
   * newest sales, the displaceable ones, those that need a person) stays as it is, everything
   * else of the working set (most of two busy days) is packed and unpacked when it is read.
   * Only a matter of cost: a query answers the same either way.
   */
  #asleep(row: SaleRow<S>): boolean {
    if (!this.#packRows) return false;
    if (row.needs_person === 'yes' || row.displaceable === 'yes') return false;
    if (typeof row.store_id !== 'number' || typeof row.checkout_id !== 'number') return true;
    return !this.#byCheckout.newest(row.store_id, row.checkout_id, AWAKE_NEWEST).includes(row.sale_id);
  }

  /**
   * The rows an IndexedDB index query finds: the index gives candidate ids, to which the
   * unwritten ones are added, and memory the rows; a row whose keys (as memory has them now)
   * do not match is left out. Memory is the truth: the index only narrows the search, and a
   * sale whose keys it does not hold yet is unwritten. So the answer is the working set's as
   * of this moment, whatever the engine has written.
   */
  async #saleRows(keysOf: (tx: ReadTx) => Promise<IDBValidKey[]>, matches: (sale: IndexedSale) => boolean, order: (a: IndexedSale, b: IndexedSale) => number): Promise<SaleRow<S>[]> {
    return this.#read(async (tx) => {
      const ids = (await keysOf(tx)) as string[];
      const found = new Set(ids);
      const late = [...this.#unwritten.keys()].filter((id) => !found.has(id));
      const rows = [...ids, ...late].flatMap((id) => this.#row(id) ?? []).filter((row) => matches(indexedSale(row)));
      // In the order IndexedDB gives (by the index's key, then the sale id), unwritten ones included.
      return late.length === 0 ? rows : rows.sort((a, b) => order(indexedSale(a), indexedSale(b)));
    });
  }

  #keyed(index: 'by_external_id', value: string): Promise<SaleRow<S>[]> {
    const field = INDEXED_FIELD[index];
    return this.#saleRows((tx) => tx.objectStore('sales').index(index).getAllKeys(value), (sale) => keyOf(sale[field]) === value, (a, b) => byId(a.sale_id, b.sale_id));
  }

  async #createdBetween(fromMs: number, toMs: number): Promise<SaleRow<S>[]> {
    // The range refuses what IndexedDB's did (a NaN bound) and is empty when it was.
    if (between(fromMs, toMs) === undefined) return [];
    return this.#manyRows(this.#byCheckout.createdBetween(fromMs, toMs));
  }

  /**
   * One read of the working set. Reads asked in the same turn of the event loop share one
   * read-only transaction: the engine starts one transaction per turn, so a transaction per
   * read queued every read behind all the others (issue 9's benchmark: about 40 transactions
   * a sale, most of them the reads of checkout views). A shared transaction sees every write
   * committed before it starts, and starts no earlier than the read would have alone, so no
   * read sees older data than before. `run` must issue its request at once: a transaction
   * closes when nothing is pending.
   */
  #read<T>(run: (tx: ReadTx) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#reads.push({ run, resolve: resolve as (value: unknown) => void, reject });
      if (this.#reads.length === 1) setImmediate(() => this.#flushReads());
    });
  }

  #flushReads(): void {
    const reads = this.#reads;
    this.#reads = [];
    if (reads.length === 1) return this.#readAlone(reads[0]!);
    let tx: ReadTx;
    try {
      tx = this.#db.transaction(STORES, 'readonly');
    } catch (err) {
      // The database is closed: every read waiting fails as it would have alone.
      for (const r of reads) r.reject(err);
      return;
    }
    for (const r of reads) {
      let request: Promise<unknown>;
      try {
        request = r.run(tx);
      } catch (err) {
        // A key IndexedDB refuses throws here, before any request: only this read fails.
        r.reject(err);
        continue;
      }
      // A failed request aborts the transaction it shares, failing the others with it: a
      // failed read is asked again alone, so only a read that fails by itself reports it.
      request.then(r.resolve, () => this.#readAlone(r));
    }
  }

  #readAlone(r: PendingRead): void {
    try {
      r.run(this.#db.transaction(STORES, 'readonly')).then(r.resolve, r.reject);
    } catch (err) {
      r.reject(err);
    }
  }

  async missing(saleIds: readonly string[]): Promise<string[]> {
    // From memory: every append asks, and a read transaction per append is not free.
    return saleIds.filter((id) => !this.#rows.has(id));
  }
  async rows(saleIds?: readonly string[]): Promise<SaleRow<S>[]> {
    if (saleIds === undefined) return [...this.#rows.values()].map(rowOf);
    return saleIds.flatMap((id) => this.#row(id) ?? []);
  }
  async storedRows(): Promise<(SaleRow<S> | PackedRow<S>)[]> {
    return [...this.#rows.values()];
  }
  size(): number {
    return this.#rows.size;
  }
  async webhookRows(): Promise<WebhookRow[]> {
    return [...this.#hooks.values()];
  }
  async allShifts(): Promise<ShiftRecord[]> {
    return [...this.#shifts.values()];
  }
  /**
   * A batch's keys go into IndexedDB in one transaction (store.ts RESTORE_BATCH): in one for
   * all, every put's request, promise and pending record was held until the last was written,
   * some hundreds of MB at a start with 100,000 sales (issue 28). Nothing reads before the open
   * ends, so the batches are not seen apart.
   */
  async restoreSales(batch: readonly (readonly [SaleRow<S> | PackedRow<S>, SaleRow<S>])[]): Promise<void> {
    if (batch.length === 0) return;
    const tx = this.#db.transaction('sales', 'readwrite');
    // The engine's own store: a put's failure aborts the transaction (tx.done rejects), so
    // no put needs a promise and listeners of its own, 100,000 of them at a start.
    const store = unwrap(tx.objectStore('sales'));
    for (const [held, row] of batch) {
      store.put(storedKeys(indexedSale(row)), row.sale_id);
      this.#byCheckout.put(this.#row(row.sale_id), row);
      // Packed unless a till asks for it on every change (#asleep, and each checkout's newest
      // in finishRestore). A row read from a checkpoint shares its equal parts already
      // (checkpoint.ts shareWithin).
      const asleep = this.#packRows && row.needs_person !== 'yes' && row.displaceable !== 'yes';
      const kept = held instanceof PackedRow ? (asleep ? held : held.row()) : asleep ? (packRow(held) ?? held) : held;
      this.#rows.set(row.sale_id, kept instanceof PackedRow ? kept : freezeRow(kept, this.#shared));
    }
    await tx.done;
  }

  async finishRestore(shifts: readonly ShiftRecord[], webhooks: readonly WebhookRow[]): Promise<void> {
    // Each checkout's newest, as they are: what its till asks on every change.
    for (const [storeId, checkoutId] of this.#byCheckout.checkouts()) {
      for (const id of this.#byCheckout.newest(storeId, checkoutId, AWAKE_NEWEST)) {
        const held = this.#rows.get(id);
        if (held instanceof PackedRow) this.#rows.set(id, held.row());
      }
    }
    const tx = this.#db.transaction('shifts', 'readwrite');
    await Promise.all([...shifts.map((r) => tx.objectStore('shifts').put(r)), tx.done]);
    for (const r of shifts) this.#shifts.set(r.id, deepFreeze(r));
    for (const r of webhooks) this.#hooks.set(r.webhook_id, deepFreeze(r));
  }
  async evict(saleIds: readonly string[], webhookIds: readonly string[]): Promise<void> {
    // Keys of these sales still waiting are not written any more; a write under way is ordered
    // before the delete.
    for (const id of saleIds) this.#unwritten.delete(id);
    if (saleIds.length > 0) {
      const tx = this.#db.transaction('sales', 'readwrite');
      await Promise.all([...saleIds.map((id) => tx.objectStore('sales').delete(id)), tx.done]);
    }
    for (const id of saleIds) {
      const row = this.#row(id);
      if (row !== undefined) this.#byCheckout.delete(row);
      this.#rows.delete(id);
    }
    for (const id of webhookIds) this.#hooks.delete(id);
  }

  async close(): Promise<void> {
    // The database is new at every open: what is still unwritten does not matter any more.
    this.#closed = true;
    await this.#writing;
    this.#db.close();
    await deleteDB(this.#name);
  }
}

/**
 * Strings this long or shorter are one copy already: V8 internalizes them as JSON is parsed.
 * Longer ones up to SHARED_STRING are a sale's words and names that many sales repeat (a
 * shift's id, a QR type, a status of more than ten letters); longer still, they are ids.
 */
const INTERNALIZED_STRING = 10;
const SHARED_STRING = 24;
/** Lists of this many strings or fewer are shared when equal (a payment's sources, its amounts as reported). */
const SHARED_LIST = 2;
/** Distinct parts held for sharing: past it, the pool starts again (what repeats comes back at once). */
const SHARED_PARTS = 4_096;

/**
 * Strings and short lists of strings that the rows of the working set repeat, held once: every
 * sale of a shift held its own copy of the shift's id, of its QR type, of its payment's
 * ['webhook'] (each copy read from the log or the checkpoint is a string or list of its own),
 * 30 to 60 bytes each, two days of sales over (issue 28). Bounded: ids pass through and leave.
 */
class SharedParts {
  readonly #strings = new Map<string, string>();
  readonly #lists = new Map<string, readonly string[]>();

  string(v: string): string {
    if (v.length <= INTERNALIZED_STRING || v.length > SHARED_STRING) return v;
    const held = this.#strings.get(v);
    if (held !== undefined) return held;
    if (this.#strings.size >= SHARED_PARTS) this.#strings.clear();
    this.#strings.set(v, v);
    return v;
  }

  /** A frozen list of strings: the one held equal to it, or it. */
  list(v: readonly unknown[]): readonly unknown[] {
    if (v.length > SHARED_LIST || !v.every((item) => typeof item === 'string' && item.length <= SHARED_STRING)) return v;
    const key = JSON.stringify(v);
    const held = this.#lists.get(key);
    if (held !== undefined) return held;
    if (this.#lists.size >= SHARED_PARTS) this.#lists.clear();
    this.#lists.set(key, v as readonly string[]);
    return v;
  }
}

/**
 * Freezes a row as deepFreeze does, each empty list in it (a sale's record has about seven:
 * no displacements, no expiries, no acknowledgements…) becoming the one shared EMPTY_LIST: an
 * empty list is 32 bytes of heap, and the working set keeps two days of sales (issue 28); and
 * each string or short list of strings that rows repeat becoming the one `shared` holds. A
 * part frozen already was frozen by this walk (it is an earlier row's): it is shared as it is.
 * Equal as a value (every query and test compares rows by value), and frozen either way.
 */
function freezeRow<T>(value: T, shared: SharedParts): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  const o = value as Record<string, unknown>;
  for (const key of Object.keys(o)) {
    const v = o[key];
    let next: unknown = v;
    if (typeof v === 'string') next = shared.string(v);
    else if (Array.isArray(v)) next = v.length === 0 ? EMPTY_LIST : shared.list(freezeRow(v, shared));
    else freezeRow(v, shared);
    // Always for a string (two equal strings are ===, whichever copy each is). Reflect.set: a
    // property that cannot be written keeps its own part.
    if (next !== v || typeof next === 'string') Reflect.set(o, key, next);
  }
  return Object.freeze(value);
}

/** After what waits in this turn of the event loop (I/O, timers due) has run. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function records<S>(rows: SaleRow<S>[]): S[] {
  return rows.map((r) => r.record);
}

