/**
 * What the journal answers, over ALL history, at a cost that depends on recent work:
 *
 * - the working set (view.ts: in memory, the back office's keys in IndexedDB): sales still at
 *   work or touched lately, every shift, recent webhook-ids; restored from the checkpoint at open;
 * - history: the sealed segments, each with an index (segment-index.ts) and a bloom filter
 *   kept in the checkpoint, read on demand; and the segment being written, indexed live.
 *
 * Invariants the queries rely on:
 * - a sale touched by an entry of the segment being written is in the working set (a sale
 *   leaves it only when a segment is sealed, and only if that segment was its last touch);
 * - a sale that needs a person, is displaceable, has an open status or belongs to an open
 *   shift never leaves it: those queries read the working set only;
 * - outside the working set, a sale is as the newest sealed segment that touches it kept it.
 */
import { join } from 'node:path';
import type { Logger } from '../log.ts';
import { CHECKPOINT_VERSION, tailsOf, writeCheckpoint } from './checkpoint.ts';
import type { CheckpointFile, CheckpointHeader, HeldRow } from './checkpoint.ts';
import { checkLine, readWholeFile } from './log.ts';
import type { EntryPosition, JournalFs } from './log.ts';
import { byId } from './checkout-index.ts';
import { Bloom, bloomHash, bloomKey, own, readEntries, readSegmentIndex, SegmentIndexBuilder, writeSegmentIndex } from './segment-index.ts';
import type { BloomHash, SaleSnapshot, SegmentIndexFile, SegmentSummary } from './segment-index.ts';
import { foldProjections, saleIdsOf } from './fold.ts';
import { MemoryWorkingSet } from './view.ts';
import { rowOf } from './packed.ts';
import type { SaleRow } from './fold.ts';
import type { SaleIndex, SaleQueriesOf, WorkingSetWriter } from './view.ts';
import type { AcknowledgedBreak, JournalEntry, OpenedFrom, Projections, ReducerFailure, SaleKeys, SaleReducer, ShiftRecord, StoreStats } from './port.ts';

export interface StoreOptions<S extends object> {
  dir: string;
  reduceSale: SaleReducer<S>;
  saleKeys: (sale: S) => Partial<SaleKeys>;
  log?: Logger;
  projections: Projections;
  openStatuses: ReadonlySet<string>;
  /** A sale untouched this long (by entry time) may leave the working set once its segment is sealed. */
  workingSetMs: number;
  /** A webhook-id this old leaves the working set; dedupe then reads history (slower, still exact). */
  webhookIdsMs: number;
  /**
   * A checkpoint is written after this many entries (a number, or a rule of the working
   * set's size in sales), at every sealed segment and at close.
   */
  checkpointEvery: number | ((workingSetSales: number) => number);
  /** Test seam: runs between the checkpoint's fsync and its rename. */
  beforeCheckpointRename?: () => Promise<void>;
  onFailures: (failures: readonly ReducerFailure[]) => void;
  /** The log's file seam: checkpoints and segment indexes are written and read through it. */
  fs?: JournalFs;
  /**
   * The log's state when a checkpoint is about to be written: none while the chain is broken
   * or writing fails; one written after a new chain records the breaks acknowledged so far.
   */
  health?: () => { writable: boolean; acknowledgedBreaks: readonly AcknowledgedBreak[] };
}

const INDEX_CACHE = 48;
/**
 * A checkpoint's rows are restored this many at a time, as they are read: each batch's keys
 * go into IndexedDB in one transaction, whose requests live until its last one is written (the
 * more a batch holds, the more of them outlive a young-generation collection and are garbage
 * in the old one: 2,000 a batch was about 40 MB more heap at the end of a start with 100,000 sales).
 */
const RESTORE_BATCH = 250;
const SALE_KEY_NAMES = ['store_id', 'checkout_id', 'status', 'created_at', 'pix_id', 'service_id', 'external_id', 'shift_id', 'needs_person', 'displaceable'] as const;

function keysOfRow<S>(row: SaleRow<S>): Partial<SaleKeys> {
  const keys: Record<string, unknown> = {};
  for (const k of SALE_KEY_NAMES) if (row[k] !== undefined) keys[k] = row[k];
  return keys as Partial<SaleKeys>;
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

interface Found<S> {
  id: string;
  keys: Partial<SaleKeys>;
  record: S;
}

export class JournalStore<S extends object> implements SaleQueriesOf<S> {
  readonly #o: StoreOptions<S>;
  readonly #w: SaleIndex<S>;
  /** Where apply writes: memory while an open rebuilds from the whole log, then #w. */
  #writer: WorkingSetWriter<S>;
  #staging: MemoryWorkingSet<S> | null;
  #summaries: SegmentSummary[] = [];
  #blooms: Bloom[] = [];
  #live: SegmentIndexBuilder | null = null;
  readonly #cache = new Map<number, SegmentIndexFile<S>>();
  readonly #rebuilding = new Map<number, Promise<SegmentIndexFile<S>>>();
  #projections = new Map<string, unknown>();
  #failureCount = 0;
  /** Entries up to this seq were folded already (the checkpoint's): at open they only index. */
  #foldedSeq = 0;
  #expected: { seq: number; hash: string; segment: string } | null = null;
  #confirmed = false;
  #opening = true;
  #sinceCheckpoint = 0;
  #sealedSinceCheckpoint = false;
  #checkpointing: Promise<void> = Promise.resolve();
  #closed = false;
  /** A checkpoint's rows read and not restored yet (see restoreSale). */
  readonly #restoring: [HeldRow<S>, SaleRow<S>][] = [];
  readonly opened: OpenedFrom = { checkpointSeq: null, checkpointIgnored: null, entriesRead: 0, entriesApplied: 0 };
  readonly stats = { indexLoads: 0, indexRebuilds: 0, checkpointsWritten: 0, checkpointFailures: 0 };

  constructor(options: StoreOptions<S>, index: SaleIndex<S>) {
    this.#o = options;
    this.#w = index;
    this.#staging = new MemoryWorkingSet(options.reduceSale, options.saleKeys);
    this.#writer = this.#staging;
    for (const [name, p] of Object.entries(options.projections)) this.#projections.set(name, p.initial);
  }

  get failureCount(): number {
    return this.#failureCount;
  }

  /**
   * Puts the checkpoint's state in place (its rows follow, restoreSale, then finishRestore);
   * open then reads its segment again to confirm it.
   */
  beginRestore(cp: CheckpointHeader<S>): void {
    this.#summaries = cp.segments;
    this.#blooms = cp.segments.map((s) => new Bloom(s.bloom));
    this.#projections = new Map(Object.entries(cp.projections));
    this.#failureCount = cp.reducerFailures;
    this.#foldedSeq = cp.seq;
    this.#expected = { seq: cp.seq, hash: cp.hash, segment: cp.segment };
    this.opened.checkpointSeq = cp.seq;
    // A checkpoint leaves little to apply: straight into IndexedDB.
    this.#staging = null;
    this.#writer = this.#w;
  }

  /** A checkpoint's sale row as read (packed, or not), and the row itself for its keys. */
  async restoreSale(held: HeldRow<S>, row: SaleRow<S>): Promise<void> {
    this.#restoring.push([held, row]);
    if (this.#restoring.length >= RESTORE_BATCH) await this.#w.restoreSales(this.#restoring.splice(0));
  }

  async finishRestore(cp: Pick<CheckpointHeader<S>, 'shifts' | 'webhooks'>): Promise<void> {
    await this.#w.restoreSales(this.#restoring.splice(0));
    await this.#w.finishRestore(cp.shifts, cp.webhooks);
  }

  /** After the open's read: null if the checkpoint (if any) matched the log, else why not. */
  checkpointMismatch(): string | null {
    if (this.#expected === null || this.#confirmed) return null;
    return `the log ends before the checkpoint's seq ${this.#expected.seq}`;
  }

  /** The replay and onDurable of the log: runs never overlap (the log serializes them). */
  apply = async (entries: JournalEntry[], positions: EntryPosition[]): Promise<void> => {
    if (this.#opening) this.opened.entriesRead += entries.length;
    let start = 0;
    while (start < entries.length) {
      const segment = positions[start]!.segment;
      let end = start + 1;
      while (end < entries.length && positions[end]!.segment === segment) end++;
      await this.#applyRun(entries.slice(start, end), positions.slice(start, end));
      start = end;
    }
    if (!this.#opening && (this.#sealedSinceCheckpoint || this.#sinceCheckpoint >= this.#checkpointEvery())) this.#scheduleCheckpoint();
  };

  async #applyRun(entries: JournalEntry[], positions: EntryPosition[]): Promise<void> {
    const first = entries[0]!;
    if (this.#live?.name !== positions[0]!.segment) {
      if (this.#live) await this.#seal(this.#live, first.at);
      this.#live = new SegmentIndexBuilder(positions[0]!.segment, first.seq, first.prev);
    }
    const live = this.#live;
    entries.forEach((e, i) => live.add(e, positions[i]!));
    let fold = entries;
    const expected = this.#expected;
    if (expected !== null && !this.#confirmed && first.seq <= expected.seq) {
      const at = entries.find((e) => e.seq === expected.seq);
      if (at) {
        if (at.hash !== expected.hash || positions[entries.indexOf(at)]!.segment !== expected.segment) {
          throw new CheckpointMismatch(`the log's entry ${expected.seq} is not the one the checkpoint was taken at`);
        }
        this.#confirmed = true;
      }
      fold = entries.filter((e) => e.seq > this.#foldedSeq);
    }
    if (fold.length === 0) return;
    if (this.#opening) this.opened.entriesApplied += fold.length;
    this.#sinceCheckpoint += fold.length;
    // A sale that left the working set comes back as history last kept it.
    const named = [...new Set(fold.flatMap(saleIdsOf))];
    const seeds = new Map<string, S>();
    for (const id of await this.#writer.missing(named)) {
      const found = await this.#historySale(id);
      if (found) seeds.set(id, found.record);
    }
    const failures = await this.#writer.applyEntries(fold, seeds);
    this.#projections = foldProjections(this.#o.projections, this.#projections, fold, failures);
    if (failures.length > 0) {
      this.#failureCount += failures.length;
      this.#o.onFailures(failures);
    }
  }

  async #seal(live: SegmentIndexBuilder, nowAt: number): Promise<void> {
    const rows = await this.#writer.rows([...live.bySale.keys()]);
    const snaps = new Map<string, SaleSnapshot<S>>(rows.map((r) => [r.sale_id, { keys: keysOfRow(r), record: r.record }]));
    const file = live.finish(snaps);
    this.#summaries.push(file.summary);
    this.#blooms.push(new Bloom(file.summary.bloom));
    this.#remember(this.#summaries.length - 1, file);
    try {
      await writeSegmentIndex(this.#o.dir, file, this.#o.fs);
    } catch (err) {
      // Only a cache: the next lookup that needs it rebuilds it from the segment.
      this.#o.log?.warn('journal: a segment index could not be written; it will be rebuilt when needed', { segment: live.name, error: (err as Error).message });
    }
    await this.#evict(live.lastSeq, nowAt);
    this.#sealedSinceCheckpoint = true;
  }

  async #evict(sealedSeq: number, nowAt: number): Promise<void> {
    const openShifts = new Set((await this.#writer.openShifts()).map((s) => s.id));
    const sales: string[] = [];
    for (const held of await this.#writer.storedRows()) {
      // The touch first: a packed row is unpacked only when it may leave.
      if (held.touched_seq > sealedSeq || held.touched_at > nowAt - this.#o.workingSetMs) continue;
      const row = rowOf(held);
      if (row.needs_person === 'yes' || row.displaceable === 'yes') continue;
      if (typeof row.status === 'string' && this.#o.openStatuses.has(row.status)) continue;
      if (typeof row.shift_id === 'string' && openShifts.has(row.shift_id)) continue;
      sales.push(row.sale_id);
    }
    const hooks = (await this.#writer.webhookRows()).filter((h) => h.seq <= sealedSeq && h.at <= nowAt - this.#o.webhookIdsMs).map((h) => h.webhook_id);
    await this.#writer.evict(sales, hooks);
  }

  // ---- checkpoints ----

  async #capture(): Promise<CheckpointFile<S, HeldRow<S>> | null> {
    const live = this.#live;
    if (!live || live.lastSeq < 1) return null;
    // Everything is read before the first await: the reads' transactions are queued ahead
    // of the next apply's, and the rest is copied now.
    const head = { seq: live.lastSeq, hash: live.lastHash, segment: live.name, segments: [...this.#summaries] };
    const projections = Object.fromEntries(this.#projections);
    const reducerFailures = this.#failureCount;
    // As held: a packed row is written as the row it is (checkpointChunks), a few hundred at a time.
    const [sales, shifts, webhooks] = await Promise.all([this.#writer.storedRows(), this.#writer.allShifts(), this.#writer.webhookRows()]);
    return { version: CHECKPOINT_VERSION, ...head, acknowledgedBreaks: [], tails: [], sales, shifts, webhooks, projections, reducerFailures };
  }

  #checkpointEvery(): number {
    const every = this.#o.checkpointEvery;
    return typeof every === 'number' ? every : every(this.#writer.size());
  }

  #scheduleCheckpoint(): void {
    this.#sinceCheckpoint = 0;
    this.#sealedSinceCheckpoint = false;
    // Captured now, between two applies, so it is one consistent moment; written after.
    const captured = this.#capture();
    this.#checkpointing = this.#checkpointing.then(async () => {
      const file = await captured;
      if (file) await this.#write(file);
    });
  }

  async #write(file: CheckpointFile<S, HeldRow<S>>): Promise<void> {
    const health = this.#o.health?.() ?? { writable: true, acknowledgedBreaks: [] };
    if (!health.writable) {
      // Over a break or a failed write the head may not be on the trusted path, or a cut-back
      // is pending: no checkpoint now; the next apply (or close) after the journal heals tries again.
      this.#sealedSinceCheckpoint = true;
      return;
    }
    try {
      file.acknowledgedBreaks = health.acknowledgedBreaks.filter((b) => b.restart.seq <= file.seq).map((b) => structuredClone(b));
      file.tails = await tailsOf(this.#o.dir, file.acknowledgedBreaks, this.#o.fs);
      // The checkpoint is JSON: a record or state JSON would change (NaN, Infinity, a Date,
      // a Map) is not written at all (writeCheckpoint's checkpointParts throws), and the next
      // open rebuilds from the log instead.
      await writeCheckpoint(this.#o.dir, file, this.#o.fs, this.#o.beforeCheckpointRename);
      this.stats.checkpointsWritten++;
    } catch (err) {
      this.stats.checkpointFailures++;
      // Tried again at close at the latest (a failing disk may have healed by then).
      this.#sinceCheckpoint = Math.max(this.#sinceCheckpoint, 1);
      this.#o.log?.warn('journal: a checkpoint could not be written; the next open reads more of the log', { error: (err as Error).message });
    }
  }

  /** Called once the log is open: from now on, what is applied is new. */
  async finishOpen(writable: boolean): Promise<void> {
    this.#opening = false;
    this.#expected = null;
    const staging = this.#staging;
    if (staging) {
      const rows = await staging.rows();
      for (let i = 0; i < rows.length; i += RESTORE_BATCH) await this.#w.restoreSales(rows.slice(i, i + RESTORE_BATCH).map((r) => [r, r]));
      await this.#w.finishRestore(await staging.allShifts(), await staging.webhookRows());
      this.#staging = null;
      this.#writer = this.#w;
    }
    if (!writable) return;
    if (this.opened.entriesApplied > 0 || this.opened.checkpointSeq === null) this.#scheduleCheckpoint();
    await this.#checkpointing;
  }

  /** After the log is closed (nothing more is applied): the last checkpoint, then the index goes. */
  async close(writable: boolean): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (writable && (this.#sinceCheckpoint > 0 || this.#sealedSinceCheckpoint)) this.#scheduleCheckpoint();
    await this.#checkpointing;
    await this.#w.close();
  }

  /** Counted once the checkpoints already scheduled are written (or failed). */
  async workingSetStats(): Promise<StoreStats> {
    await this.#checkpointing;
    return { workingSetSales: this.#w.size(), sealedSegments: this.#summaries.length, ...this.stats };
  }

  // ---- history ----

  #remember(i: number, file: SegmentIndexFile<S>): void {
    this.#cache.delete(i);
    this.#cache.set(i, file);
    while (this.#cache.size > INDEX_CACHE) this.#cache.delete(this.#cache.keys().next().value as number);
  }

  async #index(i: number): Promise<SegmentIndexFile<S>> {
    const cached = this.#cache.get(i);
    if (cached) {
      this.#remember(i, cached);
      return cached;
    }
    const summary = this.#summaries[i]!;
    this.stats.indexLoads++;
    let file = await readSegmentIndex<S>(this.#o.dir, summary, this.#o.fs);
    if (!file) {
      let rebuilding = this.#rebuilding.get(i);
      if (!rebuilding) {
        rebuilding = this.#rebuildIndex(i).finally(() => this.#rebuilding.delete(i));
        this.#rebuilding.set(i, rebuilding);
      }
      file = await rebuilding;
    }
    this.#remember(i, file);
    return file;
  }

  /** A missing or stale sidecar, made again from its segment and the sales as history had them. */
  async #rebuildIndex(i: number): Promise<SegmentIndexFile<S>> {
    const summary = this.#summaries[i]!;
    this.stats.indexRebuilds++;
    this.#o.log?.warn('journal: rebuilding a missing or stale segment index', { segment: summary.name });
    const whole = await readWholeFile(join(this.#o.dir, summary.name), this.#o.fs);
    // A segment broken part-way was sealed at its last trusted entry; the old tail after it
    // stays in the file (for forensics) and is no part of the index.
    if (whole === null || whole.length < summary.bytes) throw new Error(`segment ${summary.name} is ${whole?.length ?? 0} bytes, it was sealed at ${summary.bytes}: run verify`);
    const text = whole.subarray(0, summary.bytes);
    const builder = new SegmentIndexBuilder(summary.name, summary.firstSeq, summary.prevHash);
    const sales = new Map<string, S | undefined>();
    let seq = summary.firstSeq;
    let prev = summary.prevHash;
    let offset = 0;
    while (offset < text.length) {
      const nl = text.indexOf(10, offset);
      if (nl < 0) throw new Error(`segment ${summary.name}: unterminated line at byte ${offset}: run verify`);
      const checked = checkLine(text.toString('utf8', offset, nl), seq, prev);
      if (!checked.ok) throw new Error(`segment ${summary.name}: entry ${seq}: ${checked.reason}: run verify`);
      const entry = checked.entry;
      builder.add(entry, { segment: summary.name, offset, length: nl + 1 - offset });
      for (const id of saleIdsOf(entry)) {
        if (!sales.has(id)) sales.set(id, (await this.#historySale(id, i))?.record);
        try {
          const next = this.#o.reduceSale(sales.get(id), entry, id);
          if (next !== undefined && next !== null && typeof next === 'object') sales.set(id, next);
        } catch {
          // Counted when the entry was first applied; the sale keeps its record, as it did then.
        }
      }
      seq++;
      prev = entry.hash;
      offset = nl + 1;
    }
    if (builder.lastSeq !== summary.lastSeq || builder.lastHash !== summary.lastHash) throw new Error(`segment ${summary.name} does not end where it was sealed: run verify`);
    const snaps = new Map<string, SaleSnapshot<S>>();
    for (const [id, record] of sales) {
      if (record === undefined) continue;
      let keys: Partial<SaleKeys> = {};
      try {
        keys = this.#o.saleKeys(record);
      } catch {
        // As when applied: findable by id only.
      }
      snaps.set(id, { keys, record });
    }
    const file = builder.finish(snaps);
    // The bloom in the checkpoint stays the one sealed; this one is equal or finer.
    file.summary = summary;
    await writeSegmentIndex(this.#o.dir, file, this.#o.fs).catch(() => undefined);
    return file;
  }

  /** The newest sealed segment before `before` that keeps the sale: the sale as it is since. */
  async #historySale(id: string, before = this.#summaries.length): Promise<Found<S> | undefined> {
    const key = bloomHash(bloomKey.sale(id));
    for (let i = before - 1; i >= 0; i--) {
      if (!this.#blooms[i]!.has(key)) continue;
      const snap = own((await this.#index(i)).sales, id);
      if (snap) return { id, keys: snap.keys, record: snap.record };
    }
    return undefined;
  }

  /**
   * Sales of history (not in the working set) whose CURRENT keys pass `match`, looked for in
   * the segments `pick` keeps; a snapshot found in segment i is current unless a newer
   * segment touches the sale again.
   */
  async #historySales(pick: (s: SegmentSummary, bloom: Bloom) => boolean, match: (keys: Partial<SaleKeys>) => boolean, order?: number[]): Promise<Found<S>[]> {
    const seen = new Map<string, number>();
    const indices = order ?? this.#summaries.map((_, i) => i);
    for (const i of indices) {
      if (!pick(this.#summaries[i]!, this.#blooms[i]!)) continue;
      const file = await this.#index(i);
      for (const id of Object.keys(file.sales)) {
        if (match(file.sales[id]!.keys) && (seen.get(id) ?? -1) < i) seen.set(id, i);
      }
    }
    return this.#resolve(seen, match);
  }

  async #resolve(candidates: Map<string, number>, match: (keys: Partial<SaleKeys>) => boolean): Promise<Found<S>[]> {
    const ids = await this.#w.missing([...candidates.keys()]);
    const out: Found<S>[] = [];
    for (const id of ids) {
      const found = await this.#historySale(id);
      if (found && match(found.keys)) out.push(found);
    }
    return out;
  }

  // ---- sale queries: the working set, then history ----

  async sale(id: string): Promise<S | undefined> {
    return (await this.#w.sale(id)) ?? (await this.#historySale(id))?.record;
  }

  async #byUniqueKey(fromWorkingSet: S | undefined, key: BloomHash, field: 'pix_id' | 'service_id', value: string): Promise<S | undefined> {
    if (fromWorkingSet) return fromWorkingSet;
    for (let i = this.#summaries.length - 1; i >= 0; i--) {
      if (!this.#blooms[i]!.has(key)) continue;
      const file = await this.#index(i);
      const ids = Object.keys(file.sales).filter((id) => file.sales[id]!.keys[field] === value).sort(byId);
      const found = await this.#resolve(new Map(ids.map((id) => [id, i])), (k) => k[field] === value);
      if (found.length > 0) return found.sort((a, b) => byId(a.id, b.id))[0]!.record;
    }
    return undefined;
  }

  async saleByPixId(pixId: string): Promise<S | undefined> {
    return this.#byUniqueKey(await this.#w.saleByPixId(pixId), bloomHash(bloomKey.pix(pixId)), 'pix_id', pixId);
  }
  async saleByServiceId(serviceId: string): Promise<S | undefined> {
    return this.#byUniqueKey(await this.#w.saleByServiceId(serviceId), bloomHash(bloomKey.service(serviceId)), 'service_id', serviceId);
  }

  async salesByExternalId(externalId: string): Promise<S[]> {
    const working = await this.#w.rowsWhere({ index: 'by_external_id', value: externalId });
    const key = bloomHash(bloomKey.external(externalId));
    const history = await this.#historySales((_, b) => b.has(key), (k) => k.external_id === externalId);
    return mergeRows(working, history, (a, b) => byId(a.id, b.id));
  }

  async salesByCheckout(storeId: number, checkoutId: number, range: { fromMs?: number; toMs?: number } = {}): Promise<S[]> {
    const { fromMs, toMs } = range;
    const inRange = (c: number | undefined) => c !== undefined && (fromMs === undefined || c >= fromMs) && (toMs === undefined || c < toMs);
    const working = await this.#w.rowsWhere({ index: 'by_checkout', storeId, checkoutId, fromMs, toMs });
    const key = bloomHash(bloomKey.checkout(storeId, checkoutId));
    const history = await this.#historySales(
      (s, b) => b.has(key) && overlaps(s, fromMs, toMs),
      (k) => k.store_id === storeId && k.checkout_id === checkoutId && inRange(num(k.created_at)),
    );
    return mergeRows(working, history, byCreated);
  }

  async latestSaleOnCheckout(storeId: number, checkoutId: number): Promise<S | undefined> {
    return (await this.recentSalesOnCheckout(storeId, checkoutId, 1))[0];
  }

  async recentSalesOnCheckout(storeId: number, checkoutId: number, count: number, sinceMs?: number): Promise<S[]> {
    if (!Number.isSafeInteger(count) || count < 1) return [];
    // The working set's newest `count` only: an older one of it can never be among the answer.
    const rows = await this.#w.rowsWhere({ index: 'by_checkout', storeId, checkoutId, fromMs: sinceMs, newest: count });
    const key = bloomHash(bloomKey.checkout(storeId, checkoutId));
    // Newest created first; a segment whose newest sale is older than the count-th found
    // cannot change the answer: usually none of history is read.
    const order = this.#summaries.map((_, i) => i).filter((i) => this.#summaries[i]!.maxCreated !== null && this.#blooms[i]!.has(key));
    order.sort((a, b) => (this.#summaries[b]!.maxCreated ?? 0) - (this.#summaries[a]!.maxCreated ?? 0));
    // Then the working set's rows are the answer as they come (newest first, ties by the
    // greater id): every change at a till asks this, most often with no history to look at.
    const newestOlder = order.length === 0 ? null : this.#summaries[order[0]!]!.maxCreated!;
    const countth = rows.length >= count ? num(rows[count - 1]!.created_at) : undefined;
    if (newestOlder === null || (countth !== undefined && newestOlder < countth) || (sinceMs !== undefined && newestOlder < sinceMs)) return rows.map((r) => r.record);
    const working = rows.map(foundOf);
    const all = [...working].sort(byCreatedDesc);
    const match = (k: Partial<SaleKeys>) => k.store_id === storeId && k.checkout_id === checkoutId && num(k.created_at) !== undefined && (sinceMs === undefined || k.created_at! >= sinceMs);
    const seen = new Set(all.map((f) => f.id));
    for (const i of order) {
      const s = this.#summaries[i]!;
      const threshold = all.length >= count ? num(all[count - 1]!.keys.created_at)! : -Infinity;
      if (s.maxCreated! < threshold || (sinceMs !== undefined && s.maxCreated! < sinceMs)) break;
      const file = await this.#index(i);
      const candidates = new Map<string, number>();
      for (const id of Object.keys(file.sales)) if (!seen.has(id) && match(file.sales[id]!.keys)) candidates.set(id, i);
      for (const f of await this.#resolve(candidates, match)) {
        if (seen.has(f.id)) continue;
        seen.add(f.id);
        all.push(f);
      }
      all.sort(byCreatedDesc);
    }
    return all.slice(0, count).map((f) => f.record);
  }

  salesNeedingPerson(storeId: number, checkoutId: number): Promise<S[]> {
    return this.#w.salesNeedingPerson(storeId, checkoutId);
  }
  /** A sale that needs a person never leaves the working set: it alone answers. */
  salesNeedingPersonAnywhere(): Promise<S[]> {
    return this.#w.salesNeedingPersonAnywhere();
  }
  displaceableSales(storeId: number, checkoutId: number): Promise<S[]> {
    return this.#w.displaceableSales(storeId, checkoutId);
  }

  async salesByStatus(status: string): Promise<S[]> {
    const working = await this.#w.rowsWhere({ index: 'by_status', value: status });
    if (this.#o.openStatuses.has(status)) return working.map((r) => r.record);
    const key = bloomHash(bloomKey.status(status));
    const history = await this.#historySales((_, b) => b.has(key), (k) => k.status === status);
    return mergeRows(working, history, (a, b) => byId(a.id, b.id));
  }

  async salesByShift(shiftId: string): Promise<S[]> {
    const working = await this.#w.rowsWhere({ index: 'by_shift', value: shiftId });
    const key = bloomHash(bloomKey.shift(shiftId));
    const history = await this.#historySales((_, b) => b.has(key), (k) => k.shift_id === shiftId);
    return mergeRows(working, history, (a, b) => byId(a.id, b.id));
  }

  async salesCreatedBetween(fromMs: number, toMs: number): Promise<S[]> {
    if (!(toMs > fromMs)) return [];
    const working = await this.#w.rowsWhere({ index: 'by_created_at', fromMs, toMs });
    const history = await this.#historySales(
      (s) => overlaps(s, fromMs, toMs),
      (k) => num(k.created_at) !== undefined && k.created_at! >= fromMs && k.created_at! < toMs,
    );
    return mergeRows(working, history, byCreated);
  }

  // ---- entries: read from the segments through their indexes ----

  async #readSealed(i: number, ordinals: readonly number[]): Promise<JournalEntry[]> {
    const s = this.#summaries[i]!;
    const file = await this.#index(i);
    return readEntries(this.#o.dir, s.name, s.firstSeq, file.offsets, s.bytes, ordinals, this.#o.fs);
  }
  async #readLive(ordinals: readonly number[]): Promise<JournalEntry[]> {
    const live = this.#live;
    if (!live || ordinals.length === 0) return [];
    // A copy: appends push to the live arrays while the read awaits.
    return readEntries(this.#o.dir, live.name, live.firstSeq, live.offsets.slice(0, ordinals.at(-1)! + 2), live.bytes, ordinals, this.#o.fs);
  }

  eventsForSale(saleId: string): Promise<JournalEntry[]> {
    return this.#eventsIndexed('bySale', bloomKey.sale(saleId), saleId);
  }

  /** The entries an index lists under `name`: the sealed segments whose bloom filter may hold it, then the live one. */
  async #eventsIndexed(by: 'bySale' | 'byType', bloom: string, name: string): Promise<JournalEntry[]> {
    const key = bloomHash(bloom);
    const out: JournalEntry[] = [];
    for (let i = 0; i < this.#summaries.length; i++) {
      if (!this.#blooms[i]!.has(key)) continue;
      const ordinals = own((await this.#index(i))[by], name);
      if (ordinals) out.push(...(await this.#readSealed(i, ordinals)));
    }
    out.push(...(await this.#readLive([...(this.#live?.[by].get(name) ?? [])])));
    return out;
  }

  async eventsBetween(fromMs: number, toMs: number): Promise<JournalEntry[]> {
    if (!(toMs > fromMs)) return [];
    const out: JournalEntry[] = [];
    const keep = (e: JournalEntry) => e.at >= fromMs && e.at < toMs;
    for (let i = 0; i < this.#summaries.length; i++) {
      const s = this.#summaries[i]!;
      if (s.maxAt < fromMs || s.minAt >= toMs) continue;
      const all = Array.from({ length: s.lastSeq - s.firstSeq + 1 }, (_, k) => k);
      for (const e of await this.#readSealed(i, all)) if (keep(e)) out.push(e);
    }
    const live = this.#live;
    if (live && live.offsets.length > 0 && live.maxAt >= fromMs && live.minAt < toMs) {
      // One at a time: a busy day's live segment spread as arguments of one push overflowed the stack.
      for (const e of await this.#readLive(Array.from({ length: live.offsets.length }, (_, k) => k))) if (keep(e)) out.push(e);
    }
    // The order of an index on `at`: by time, then by seq.
    return out.sort((a, b) => a.at - b.at || a.seq - b.seq);
  }

  eventsOfType(type: string): Promise<JournalEntry[]> {
    return this.#eventsIndexed('byType', bloomKey.type(type), type);
  }

  async webhookSeq(webhookId: string): Promise<number | undefined> {
    const working = await this.#w.webhookSeq(webhookId);
    if (working !== undefined) return working;
    const key = bloomHash(bloomKey.webhook(webhookId));
    // The first entry that carried the id keeps it: oldest segment first.
    for (let i = 0; i < this.#summaries.length; i++) {
      if (!this.#blooms[i]!.has(key)) continue;
      const seq = own((await this.#index(i)).webhooks, webhookId);
      if (seq !== undefined) return seq;
    }
    return this.#live?.webhooks.get(webhookId);
  }

  // Every shift stays in the working set: a few a day.
  shift(id: string): Promise<ShiftRecord | undefined> {
    return this.#w.shift(id);
  }
  openShifts(): Promise<ShiftRecord[]> {
    return this.#w.openShifts();
  }
  shiftsOpenedBetween(fromMs: number, toMs: number): Promise<ShiftRecord[]> {
    return this.#w.shiftsOpenedBetween(fromMs, toMs);
  }

  projection(name: string): unknown {
    if (!this.#projections.has(name)) throw new Error(`no projection named ${name}`);
    return this.#projections.get(name);
  }
}

export class CheckpointMismatch extends Error {
  override name = 'CheckpointMismatch';
}

function foundOf<S>(r: SaleRow<S>): Found<S> {
  return { id: r.sale_id, keys: keysOfRow(r), record: r.record };
}

function mergeRows<S>(working: SaleRow<S>[], history: Found<S>[], compare: (a: Found<S>, b: Found<S>) => number): S[] {
  if (history.length === 0) return working.map((r) => r.record);
  return [...working.map(foundOf), ...history].sort(compare).map((f) => f.record);
}

function byCreated<S>(a: Found<S>, b: Found<S>): number {
  return (num(a.keys.created_at) ?? 0) - (num(b.keys.created_at) ?? 0) || byId(a.id, b.id);
}
function byCreatedDesc<S>(a: Found<S>, b: Found<S>): number {
  return -byCreated(a, b);
}

function overlaps(s: SegmentSummary, fromMs: number | undefined, toMs: number | undefined): boolean {
  if (s.minCreated === null || s.maxCreated === null) return false;
  return (fromMs === undefined || s.maxCreated >= fromMs) && (toMs === undefined || s.minCreated < toMs);
}

