/**
 * The embedded journal adapter (the port is port.ts). Electron's main process has no
 * IndexedDB of its own, so the durable record is the hash-chained, fsync'd JSON-lines log
 * (log.ts). IndexedDB (fake-indexeddb's engine, through idb) holds only the working set
 * (view.ts); older history is read from the segments on demand through their indexes
 * (store.ts, segment-index.ts), and a verified checkpoint (checkpoint.ts) lets an open read
 * only the last segment, not all history.
 * An append resolves once its bytes are fsync'd and the view has applied it (its rows in
 * memory; the back office's keys are written to IndexedDB in the background, and every index
 * query also finds those not written yet), so anything a caller was told is durable survives
 * a SIGKILL, and what the view answers was always durable first.
 */
import type { Clock } from '../../shared/clock.ts';
import type { Logger } from '../log.ts';
import { resumePointOf, streamCheckpoint } from './checkpoint.ts';
import { nodeJournalFs, openLog, writeProblem } from './log.ts';
import type { JournalFs, JournalLog, ProbeTimers, ResumePoint } from './log.ts';
import { CHAIN_STARTED, operatorAction, ownSaleKeys, SHIFT_CLOSED, SHIFT_OPENED } from './port.ts';
import type { AppendResult, EntryInput, JournalDefinition, JournalEntry, JournalPort, JournalStatus, ReducerFailure, SaleQueries, ShiftQueries, ShiftRecord, StoreStats, VerifyProgress, VerifyResult } from './port.ts';
import { CheckpointMismatch, JournalStore } from './store.ts';
import { openView } from './view.ts';
import { checkAppendable, checkEntry, webhookEntry, WebhookOnce } from './entry-rules.ts';
import { Mutex } from '../../shared/mutex.ts';

export type { JournalFs, ProbeTimers } from './log.ts';
export { JournalLockedError } from './lock.ts';

/** The embedded adapter's open: the journal's definition, and where and how it keeps the log. */
export interface OpenJournalOptions<S extends object> extends JournalDefinition<S> {
  /** The data dir; segments and the lock file go straight into it. */
  dir: string;
  clock: Clock;
  log?: Logger;
  /** The file layer and probe timers of the log (tests inject a failing disk and fire timers). */
  fs?: JournalFs;
  timers?: ProbeTimers;
  /** Told when writing fails, and when it works again. */
  onHealthChange?: () => void;
  /** How long (entry time) a sale no one touches stays in the working set; 2 days by default. */
  workingSetMs?: number;
  /**
   * How long a webhook-id stays in the working set; older ones are still found in
   * history. 3 days by default: the service retries for 1h15m (contract 4).
   */
  webhookIdsMs?: number;
  /**
   * Entries between two checkpoints (one is also written at every new segment and at close).
   * By default 5,000, or CHECKPOINT_ENTRIES_PER_SALE entries for each sale the working set
   * holds when that is more: a checkpoint writes the whole working set, so writing it every
   * 5,000 entries cost each entry more the larger the working set grew (a busy store keeps two
   * days of sales). An open reads the checkpoint's whole segment again anyway; what a longer
   * wait adds to it is folding those entries into the working set.
   */
  checkpointEvery?: number;
  /** Test seam: runs between a checkpoint's fsync and its rename (to crash there). */
  beforeCheckpointRename?: () => Promise<void>;
  /**
   * Test seam: false holds every row of the working set as objects, none packed (view.ts
   * #asleep), so a test compares the answers of both.
   */
  packRows?: boolean;
  /**
   * Packed rows a query unpacks between two turns of the event loop (view.ts UNPACK_SLICE).
   * Test and bench seam: a test crosses a slice's end with few rows, the bench unpacks all at
   * once (Infinity) to compare.
   */
  unpackSlice?: number;
}

const KEPT_REDUCER_FAILURES = 20;

class JournalImpl<S extends object> implements JournalPort<S> {
  readonly #log: JournalLog;
  readonly #view: JournalStore<S>;
  readonly #operatorActions: ReadonlySet<string>;
  readonly #failures: { count: number; first: ReducerFailure[] };
  readonly #webhooks = new WebhookOnce();
  readonly #shiftLock = new Mutex();
  #closing: Promise<void> | null = null;
  readonly sales: SaleQueries<S>;
  readonly shifts: ShiftQueries;

  constructor(log: JournalLog, view: JournalStore<S>, operatorActions: ReadonlySet<string>, failures: { count: number; first: ReducerFailure[] }) {
    this.#log = log;
    this.#view = view;
    this.#operatorActions = operatorActions;
    this.#failures = failures;
    this.sales = {
      get: (id) => view.sale(id),
      byPixId: (pixId) => view.saleByPixId(pixId),
      byServiceId: (serviceId) => view.saleByServiceId(serviceId),
      byExternalId: (externalId) => view.salesByExternalId(externalId),
      byCheckout: (storeId, checkoutId, range) => view.salesByCheckout(storeId, checkoutId, range),
      latestOnCheckout: (storeId, checkoutId) => view.latestSaleOnCheckout(storeId, checkoutId),
      recentOnCheckout: (storeId, checkoutId, count, sinceMs) => view.recentSalesOnCheckout(storeId, checkoutId, count, sinceMs),
      needingPerson: (storeId, checkoutId) => view.salesNeedingPerson(storeId, checkoutId),
      needingPersonAnywhere: () => view.salesNeedingPersonAnywhere(),
      displaceable: (storeId, checkoutId) => view.displaceableSales(storeId, checkoutId),
      byStatus: (status) => view.salesByStatus(status),
      byShift: (shiftId) => view.salesByShift(shiftId),
      createdBetween: (fromMs, toMs) => view.salesCreatedBetween(fromMs, toMs),
    };
    this.shifts = {
      get: (id) => view.shift(id),
      open: () => view.openShifts(),
      openedBetween: (fromMs, toMs) => view.shiftsOpenedBetween(fromMs, toMs),
    };
  }

  async #append(inputs: readonly EntryInput[]): Promise<AppendResult> {
    const entries = await this.#log.append(inputs);
    return { entries, firstSeq: entries[0]?.seq ?? this.#log.lastSeq + 1, lastSeq: entries.at(-1)?.seq ?? this.#log.lastSeq };
  }

  async append(inputs: readonly EntryInput[]): Promise<AppendResult> {
    for (const input of inputs) checkAppendable(input, this.#operatorActions);
    return this.#append(inputs);
  }

  async recordWebhook(webhookId: string, input: EntryInput): Promise<'recorded' | 'duplicate'> {
    const entry = webhookEntry(webhookId, input, this.#operatorActions);
    return this.#webhooks.run(webhookId, async () => {
      if ((await this.#view.webhookSeq(webhookId)) !== undefined) return 'duplicate';
      await this.#append([entry]);
      return 'recorded';
    });
  }

  openShift(shiftId: string, by: string, data: Readonly<Record<string, unknown>> = {}): Promise<ShiftRecord> {
    return this.#shiftLock.run(async () => {
      if (typeof shiftId !== 'string' || shiftId === '') throw new TypeError('a shift needs an id');
      if (await this.#view.shift(shiftId)) throw new Error(`shift ${shiftId} was already opened`);
      const input = operatorAction(SHIFT_OPENED, by, { ...data, shift_id: shiftId });
      checkEntry(input, this.#operatorActions);
      await this.#append([input]);
      return (await this.#view.shift(shiftId))!;
    });
  }

  closeShift(shiftId: string, by: string, data: Readonly<Record<string, unknown>> = {}): Promise<ShiftRecord> {
    return this.#shiftLock.run(async () => {
      const shift = await this.#view.shift(shiftId);
      if (!shift) throw new Error(`shift ${shiftId} was never opened`);
      if (shift.state === 'closed') throw new Error(`shift ${shiftId} is already closed`);
      const input = operatorAction(SHIFT_CLOSED, by, { ...data, shift_id: shiftId });
      checkEntry(input, this.#operatorActions);
      await this.#append([input]);
      return (await this.#view.shift(shiftId))!;
    });
  }

  eventsForSale(saleId: string): Promise<JournalEntry[]> {
    return this.#view.eventsForSale(saleId);
  }
  eventsBetween(fromMs: number, toMs: number): Promise<JournalEntry[]> {
    return this.#view.eventsBetween(fromMs, toMs);
  }
  eventsOfType(type: string): Promise<JournalEntry[]> {
    return this.#view.eventsOfType(type);
  }
  webhookSeq(webhookId: string): Promise<number | undefined> {
    return this.#view.webhookSeq(webhookId);
  }

  projection<T>(name: string): T {
    return this.#view.projection(name) as T;
  }

  verify(): Promise<VerifyResult> {
    return this.#log.verify();
  }
  verifySegments(): AsyncGenerator<VerifyProgress> {
    return this.#log.verifySegments();
  }
  storeStats(): Promise<StoreStats> {
    return this.#view.workingSetStats();
  }

  startNewChain(by: string): Promise<JournalEntry> {
    // Serialized with the shift operations, the other check-then-append of the journal.
    return this.#shiftLock.run(async () => {
      const input = operatorAction(CHAIN_STARTED, by);
      if (typeof by !== 'string' || by.trim() === '') throw new TypeError(`entry ${CHAIN_STARTED} is an operator action: data.by must name the operator who did it`);
      return this.#log.startNewChain(input.data);
    });
  }

  status(): JournalStatus {
    const log = this.#log;
    const state = log.corruption ? 'corrupt' : log.failure ? 'failed' : log.tornTail ? 'torn-tail-repaired' : 'healthy';
    return {
      state,
      entries: log.lastSeq,
      lastSeq: log.lastSeq,
      segments: log.segments.length,
      tornTail: log.tornTail,
      corruption: log.corruption,
      failure: log.failure?.message ?? null,
      failureProblem: log.failure ? writeProblem(log.failure) : null,
      acknowledgedBreaks: [...log.acknowledgedBreaks],
      reducerFailures: this.#view.failureCount,
      firstReducerFailures: [...this.#failures.first],
      commits: { ...log.stats },
      opened: { ...this.#view.opened },
    };
  }

  async close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.#log.close();
      await this.#view.close(this.#log.corruption === null && this.#log.failure === null);
    })();
    return this.#closing;
  }
}

/**
 * Opens the sale journal: the durable log in `dir`, its working set restored from the
 * checkpoint (if it matches the log) and brought up to date from the entries after it,
 * else rebuilt from the whole log (and a new checkpoint written).
 * A torn tail is repaired and reported; a broken chain opens read-only (status 'corrupt').
 * Throws JournalLockedError if another live process holds the dir.
 */
export async function openJournal<S extends object>(options: OpenJournalOptions<S>): Promise<JournalPort<S>> {
  const first = await openFrom(options, true);
  if ('journal' in first) return first.journal;
  options.log?.warn('journal: the checkpoint does not match the log; rebuilding from the whole log', { reason: first.ignored });
  const second = await openFrom(options, false, first.ignored);
  if ('journal' in second) return second.journal;
  throw new Error(`journal: open without a checkpoint cannot disagree with one (${second.ignored})`);
}

async function openFrom<S extends object>(options: OpenJournalOptions<S>, useCheckpoint: boolean, ignored: string | null = null): Promise<{ journal: JournalPort<S> } | { ignored: string }> {
  const saleKeys = options.saleKeys ?? ownSaleKeys;
  const view = await openView(
    options.reduceSale,
    saleKeys,
    (err) => options.log?.error("journal: the back office's index could not store a change; its lists may miss a sale until the next start", { error: err }),
    { packRows: options.packRows ?? true, ...(options.unpackSlice === undefined ? {} : { unpackSlice: options.unpackSlice }) },
  );
  const failures = { count: 0, first: [] as ReducerFailure[] };
  const projections = options.projections ?? {};
  // Set once the log is open: until then no checkpoint is written (the store asks health()).
  let opened: JournalLog | null = null;
  const store = new JournalStore<S>(
    {
      dir: options.dir, reduceSale: options.reduceSale, saleKeys, log: options.log, projections,
      openStatuses: new Set(options.openStatuses ?? []),
      workingSetMs: options.workingSetMs ?? 2 * DAY_MS,
      webhookIdsMs: options.webhookIdsMs ?? 3 * DAY_MS,
      checkpointEvery: options.checkpointEvery === undefined ? (sales) => Math.max(CHECKPOINT_EVERY, CHECKPOINT_ENTRIES_PER_SALE * sales) : Math.max(1, options.checkpointEvery),
      beforeCheckpointRename: options.beforeCheckpointRename,
      fs: options.fs,
      health: () => ({ writable: opened !== null && opened.corruption === null && opened.failure === null, acknowledgedBreaks: opened?.acknowledgedBreaks ?? [] }),
      onFailures: (failed) => {
        failures.count += failed.length;
        for (const f of failed) {
          if (failures.first.length < KEPT_REDUCER_FAILURES) failures.first.push(f);
          options.log?.error('journal: the sale reducer failed on an entry; the entry is kept, the sale is unchanged', { ...f });
        }
      },
    },
    view,
  );
  store.opened.checkpointIgnored = ignored;
  let mismatch: string | null = null;
  let log: JournalLog;
  try {
    log = await openLog({
      dir: options.dir, clock: options.clock, log: options.log, replay: store.apply, onDurable: store.apply,
      ...(options.fs ? { fs: options.fs } : {}),
      ...(options.timers ? { timers: options.timers } : {}),
      ...(options.onHealthChange ? { onHealthChange: options.onHealthChange } : {}),
      resume: async (segments) => {
        if (!useCheckpoint) return null;
        let point: ResumePoint | null = null;
        // The checkpoint's members are checked against the log before any row is read; its
        // rows then go into the working set as they are read.
        const read = await streamCheckpoint<S>(options.dir, options.fs ?? nodeJournalFs, {
          begin: async (header) => {
            const checked = await resumePointOf(options.dir, header, segments, Object.keys(projections), options.fs);
            if (!checked.ok) {
              mismatch = `the checkpoint ${checked.reason}`;
              return false;
            }
            point = checked.point;
            store.beginRestore(header);
            return true;
          },
          sale: (held, row) => store.restoreSale(held, row),
        });
        if (read === null || read.ok === 'unused') return null;
        if (!read.ok) {
          // Rows of it are in the working set already: the open starts again without it.
          if (read.begun) throw new CheckpointMismatch(`the checkpoint ${read.reason}`);
          mismatch = `the checkpoint ${read.reason}`;
          return null;
        }
        await store.finishRestore(read.header);
        // The store folds nothing up to the checkpoint's seq: it only indexes those entries again.
        return { ...(point as unknown as ResumePoint), indexOnlyThrough: read.header.seq };
      },
    });
  } catch (err) {
    await view.close();
    if (err instanceof CheckpointMismatch) return { ignored: err.message };
    throw err;
  }
  mismatch ??= store.checkpointMismatch();
  if (mismatch !== null && store.opened.checkpointSeq !== null) {
    await log.close();
    await view.close();
    return { ignored: mismatch };
  }
  if (mismatch !== null) {
    options.log?.warn('journal: the checkpoint was ignored; rebuilt from the whole log', { reason: mismatch });
    store.opened.checkpointIgnored = mismatch;
  }
  opened = log;
  await store.finishOpen(log.corruption === null && log.failure === null);
  return { journal: new JournalImpl(log, store, new Set(options.operatorActions ?? []), failures) };
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** Entries between two checkpoints at least, by default (see OpenJournalOptions.checkpointEvery). */
export const CHECKPOINT_EVERY = 5000;
/**
 * A sale is about four entries (its intent, the create's outcome, the payment, its settlement):
 * waiting that many entries a sale, a checkpoint writes each sale of a busy day about once
 * instead of once per entry (at 64 tills the checkpoints were 8 % of the core's busy time).
 */
export const CHECKPOINT_ENTRIES_PER_SALE = 4;
