/**
 * The PostgreSQL journal adapter: the same JournalPort as the embedded file journal, its
 * record in the tables of migrations/0001_journal.sql. The core never imports this module;
 * the start-up entry points open it when POS_DATABASE_URL is set.
 *
 * An append is ONE transaction: its entries (hash-chained exactly as the files are, over the
 * same canonical JSON), the sale rows they change (folded by journal/fold.ts, the embedded
 * adapter's own fold), the shifts, the projections, and the keys they claim (webhook-id,
 * settlement id, Idempotency-Key) under UNIQUE constraints. Appends that arrive while one
 * commits wait and go together in the next transaction (a group commit, as the file log
 * groups its fsyncs), so a busy store pays one commit for many entries.
 *
 * When the connection drops during a commit, whether it committed is not known: the adapter
 * asks the database, once it answers again, whether the group's first entry is there with
 * its hash. There: the append is done (acknowledged once). Absent: it is sent once more.
 * Either way nothing is applied twice: the entries' seq is the primary key.
 */
import postgres from 'postgres';
import type { Clock } from '../shared/clock.ts';
import { deepFreeze } from '../shared/freeze.ts';
import type { Logger } from '../core/log.ts';
import { canonicalJson, entryHash, GENESIS_PREV, type JsonObject } from '../core/journal/canonical.ts';
import { batchOf, foldBatch, foldProjections, saleIdsOf, webhookIdOf, type BatchState, type SaleRow } from '../core/journal/fold.ts';
import { CORE_TOOK_OVER, JournalUnavailableError, operatorAction, ownSaleKeys, SHIFT_CLOSED, SHIFT_OPENED } from '../core/journal/port.ts';
import type {
  AppendResult,
  ClaimedKeys,
  EntryInput,
  JournalDefinition,
  JournalEntry,
  JournalPort,
  JournalProblem,
  JournalStatus,
  ReducerFailure,
  SaleKeys,
  SaleQueries,
  ShiftQueries,
  SharedJournal,
  ShiftRecord,
  StoreStats,
  VerifyProgress,
  VerifyResult,
} from '../core/journal/port.ts';
import { checkAppendable, checkEntry, webhookEntry, WebhookOnce } from '../core/journal/entry-rules.ts';
import { CheckoutCache } from './checkout-cache.ts';
import { codeOf, isConnectionLoss, type Sql } from './connect.ts';
import { FENCED_CODE } from './lease.ts';
import { countRow, decodeRows, entryOf, entryRow, projectionRow, saleRecordRow, saleRow, saleRowOf, seqRow, shiftOf, shiftRow, type EntryRow } from './rows.ts';

export interface OpenPostgresJournalOptions<S extends object> extends JournalDefinition<S> {
  /** The pool (connect.ts openPool), its schema migrated (migrate.ts). */
  sql: Sql;
  clock: Clock;
  log?: Logger;
  /** Told when writing fails, and when it works again. */
  onHealthChange?: () => void;
  /** End the pool when the journal closes: the entry point hands its pool over. */
  endPoolOnClose?: boolean;
  /** Entries one transaction takes at most; more wait for the next. */
  groupLimit?: number;
  /** How long an append whose commit's outcome is unknown waits for the database to answer again. */
  reconnectWaitMs?: number;
  /**
   * Test seams: `beforeCommit` runs inside the transaction after its writes (to cut the
   * connection there), `afterCommit` after the commit (to lose its answer).
   */
  faults?: { beforeCommit?: () => Promise<void>; afterCommit?: () => Promise<void> };
  /**
   * The lease this core writes under (lease.ts): every append's statement checks it with
   * pos_fence, so once another core took over, no append of this one commits.
   */
  fence?: { term: number; holder: string };
  /** Run at close, before the pool ends (the entry point lets its lease go there). */
  onClose?: () => Promise<void>;
  /**
   * The lease this core took and the inbox the standbys fill (open.ts): the journal is then
   * shared by several cores, and `shared` tells the core so (JournalPort.shared).
   */
  shared?: Omit<SharedJournal, 'recordTakeover'>;
}

const KEPT_REDUCER_FAILURES = 20;
const DEFAULT_GROUP_LIMIT = 512;
/** Sales whose rows this core keeps at hand for the next fold: the most recently touched. */
const SALE_CACHE = 20_000;
const DEFAULT_RECONNECT_WAIT_MS = 15_000;
/** Entries read at a time by verify and by a projection's rebuild: constant memory. */
const READ_BATCH = 2_000;
const LABEL = 'postgresql';

function constraintOf(err: unknown): string | undefined {
  return err instanceof postgres.PostgresError && err.code === '23505' ? err.constraint_name : undefined;
}

interface Pending {
  /** Each entry: its canonical data, the keys it claims, the sales it names. */
  inputs: readonly { type: string; data: string; claimed: ClaimedKeys; sales: readonly string[]; webhookId?: string }[];
  resolve: (result: AppendResult | 'duplicate') => void;
  reject: (err: unknown) => void;
}

interface Head {
  seq: number;
  hash: string;
}

/** One group's transaction: its entries after the head, whose each is, and what they change. */
interface Plan<S> {
  entries: JournalEntry[];
  /** Each entry's data as the canonical text its hash covers. */
  texts: string[];
  /** Which of the group's appends each entry belongs to. */
  owners: number[];
  claims: ClaimedKeys[];
  hooks: Array<{ webhookId: string; index: number }>;
  head: Head;
  /** Set by the write: the projections and failures after the group. */
  states: Map<string, unknown> | null;
  failures: ReducerFailure[];
  /** Entries of another journal, imported: a webhook-id already there is kept as it is. */
  verbatim?: boolean;
  /** Set by the write: the rows the group changes, cached once it commits. */
  sales: SaleRow<S>[];
  /** Set by the write: those sales' rows as they were before the group. */
  previous: ReadonlyMap<string, SaleRow<S> | undefined>;
  shifts: ShiftRecord[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The port, and what only the import of an embedded journal (import.ts) uses. */
export interface PostgresJournalPort<S extends object> extends JournalPort<S> {
  /**
   * Writes entries of another journal as they are (seq, prev, hash, at, data), each checked to
   * follow the head and to hash to its hash, folded as an append folds them: one transaction.
   */
  importEntries(entries: readonly JournalEntry[]): Promise<void>;
}

/** An entry to import that does not continue this journal's chain: nothing of its batch is written. */
export class ChainMismatchError extends Error {
  override readonly name = 'ChainMismatchError';
}

export async function openPostgresJournal<S extends object>(options: OpenPostgresJournalOptions<S>): Promise<PostgresJournalPort<S>> {
  const { sql } = options;
  const [last] = decodeRows(entryRow, 'entries', await sql`select seq, prev, hash, at, type, data from entries order by seq desc limit 1`);
  const [state] = decodeRows(countRow, 'journal_state', await sql`select reducer_failures as count from journal_state where id = 1`);
  if (state === undefined) throw new Error('The journal_state table has no row: the schema was not migrated (migrate.ts).');
  const journal = new PostgresJournal<S>(options, last ?? null, state.count);
  await journal.loadProjections();
  return journal;
}

class PostgresJournal<S extends object> implements PostgresJournalPort<S> {
  readonly #o: OpenPostgresJournalOptions<S>;
  readonly #sql: Sql;
  readonly #keys: (sale: S) => Partial<SaleKeys>;
  readonly #operatorActions: ReadonlySet<string>;
  #head: Head;
  #projections = new Map<string, unknown>();
  #failureCount: number;
  readonly #firstFailures: ReducerFailure[] = [];
  #state: JournalStatus['state'] = 'healthy';
  #failure: string | null = null;
  #failureProblem: JournalProblem | null = null;
  #corruption: JournalStatus['corruption'] = null;
  readonly #commits = { commits: 0, committedEntries: 0 };
  #queue: Pending[] = [];
  readonly #saleCache = new Map<string, SaleRow<S>>();
  readonly #shiftCache = new Map<string, ShiftRecord>();
  readonly #checkouts: CheckoutCache<S>;
  /** Reads under way or done for sales an append waiting in the queue names (#prefetch). */
  readonly #prefetched = new Map<string, Promise<ReadonlyMap<string, SaleRow<S>>>>();
  #pumping: Promise<void> | null = null;
  readonly #webhooks = new WebhookOnce();
  #closed = false;
  /** Set once an append found another core holding the lease: this one never writes again. */
  #fenced: string | null = null;
  readonly sales: SaleQueries<S>;
  readonly shifts: ShiftQueries;
  readonly shared?: SharedJournal;
  #takeover: Promise<JournalEntry> | null = null;

  constructor(options: OpenPostgresJournalOptions<S>, last: EntryRow | null, failures: number) {
    this.#o = options;
    if (options.shared) {
      const lease = options.shared;
      this.shared = { ...lease, recordTakeover: () => this.#recordTakeover(lease) };
    }
    this.#sql = options.sql;
    this.#keys = options.saleKeys ?? ((sale) => ownSaleKeys(sale));
    this.#operatorActions = new Set(options.operatorActions ?? []);
    this.#head = last === null ? { seq: 0, hash: GENESIS_PREV } : { seq: last.seq, hash: last.hash };
    this.#failureCount = failures;
    if (last !== null && entryHash(last.seq, last.prev, last.at, last.type, last.data) !== last.hash) {
      this.#corrupt({ segment: LABEL, line: last.seq, seq: last.seq, reason: 'the newest entry does not hash to the hash it carries' });
    }
    const sql = this.#sql;
    const records = async (rows: Promise<readonly unknown[]>) => decodeRows(saleRecordRow, 'sales', await rows).map((r) => r.record as S);
    const one = async (rows: Promise<readonly unknown[]>) => (await records(rows))[0];
    const cols = sql`sale_id, record, touched_seq, touched_at`;
    this.sales = {
      // The rows this core last wrote are the current ones (it is the one writer).
      get: async (id) => this.#saleCache.get(id)?.record ?? one(sql`select ${cols} from sales where sale_id = ${id}`),
      byPixId: (pixId) => one(sql`select ${cols} from sales where pix_id = ${pixId} order by sale_id collate "C" limit 1`),
      byServiceId: (serviceId) => one(sql`select ${cols} from sales where service_id = ${serviceId} order by sale_id collate "C" limit 1`),
      byExternalId: (externalId) => records(sql`select ${cols} from sales where external_id = ${externalId} order by sale_id collate "C"`),
      byCheckout: (storeId, checkoutId, range = {}) => {
        const from = range.fromMs === undefined ? sql`` : sql`and created_at >= ${range.fromMs}`;
        const to = range.toMs === undefined ? sql`` : sql`and created_at < ${range.toMs}`;
        return records(sql`select ${cols} from sales where store_id = ${storeId} and checkout_id = ${checkoutId} and created_at is not null ${from} ${to} order by created_at, sale_id collate "C"`);
      },
      latestOnCheckout: async (storeId, checkoutId) => (await this.sales.recentOnCheckout(storeId, checkoutId, 1))[0],
      recentOnCheckout: async (storeId, checkoutId, count, sinceMs) => {
        if (!Number.isSafeInteger(count) || count < 1) return [];
        const held = await this.#checkouts.recent(storeId, checkoutId, count, sinceMs);
        if (held) return held.map((r) => r.record);
        const since = sinceMs === undefined ? sql`` : sql`and created_at >= ${sinceMs}`;
        return records(sql`select ${cols} from sales where store_id = ${storeId} and checkout_id = ${checkoutId} and created_at is not null ${since} order by created_at desc, sale_id collate "C" desc limit ${count}`);
      },
      needingPerson: async (storeId, checkoutId) =>
        (await this.#checkouts.needingPerson(storeId, checkoutId))?.map((r) => r.record) ??
        records(sql`select ${cols} from sales where store_id = ${storeId} and checkout_id = ${checkoutId} and needs_person order by sale_id collate "C"`),
      needingPersonAnywhere: () => records(sql`select ${cols} from sales where needs_person order by store_id, checkout_id, sale_id collate "C"`),
      displaceable: async (storeId, checkoutId) =>
        (await this.#checkouts.displaceable(storeId, checkoutId))?.map((r) => r.record) ??
        records(sql`select ${cols} from sales where store_id = ${storeId} and checkout_id = ${checkoutId} and displaceable order by sale_id collate "C"`),
      byStatus: (status) => records(sql`select ${cols} from sales where status = ${status} order by sale_id collate "C"`),
      byShift: (shiftId) => records(sql`select ${cols} from sales where shift_id = ${shiftId} order by sale_id collate "C"`),
      createdBetween: (fromMs, toMs) => (toMs > fromMs ? records(sql`select ${cols} from sales where created_at >= ${fromMs} and created_at < ${toMs} order by created_at, sale_id collate "C"`) : Promise.resolve([])),
    };
    const full = async (rows: Promise<readonly unknown[]>) => decodeRows(saleRow, 'sales', await rows).map((r) => saleRowOf<S>(r));
    this.#checkouts = new CheckoutCache<S>({
      load: async (storeId, checkoutId, count) => {
        const [recent, displaceable, needing] = await Promise.all([
          full(sql`select * from sales where store_id = ${storeId} and checkout_id = ${checkoutId} and created_at is not null order by created_at desc, sale_id collate "C" desc limit ${count}`),
          full(sql`select * from sales where store_id = ${storeId} and checkout_id = ${checkoutId} and displaceable`),
          full(sql`select * from sales where store_id = ${storeId} and checkout_id = ${checkoutId} and needs_person`),
        ]);
        return { recent, displaceable, needing };
      },
    });
    const shifts = async (rows: Promise<readonly unknown[]>) => decodeRows(shiftRow, 'shifts', await rows).map(shiftOf);
    this.shifts = {
      get: async (id) => (await shifts(sql`select * from shifts where id = ${id}`))[0],
      open: () => shifts(sql`select * from shifts where state = 'open' order by id collate "C"`),
      openedBetween: (fromMs, toMs) => (toMs > fromMs ? shifts(sql`select * from shifts where opened_at >= ${fromMs} and opened_at < ${toMs} order by opened_at, id collate "C"`) : Promise.resolve([])),
    };
  }

  /**
   * The projections as the database keeps them; one the definition names and the database
   * does not have yet (a new one) is folded over the whole journal once and stored.
   */
  async loadProjections(): Promise<void> {
    const defined = this.#o.projections ?? {};
    const stored = new Map(decodeRows(projectionRow, 'projections', await this.#sql`select name, state from projections`).map((r) => [r.name, r.state]));
    const missing = Object.keys(defined).filter((name) => !stored.has(name));
    for (const [name, p] of Object.entries(defined)) this.#projections.set(name, stored.has(name) ? stored.get(name) : p.initial);
    if (missing.length === 0 || this.#head.seq === 0) return;
    const rebuild = Object.fromEntries(missing.map((name) => [name, defined[name]!]));
    let states = new Map(missing.map((name) => [name, defined[name]!.initial as unknown]));
    const failures: ReducerFailure[] = [];
    for (let after = 0; after < this.#head.seq; after += READ_BATCH) {
      const rows = decodeRows(entryRow, 'entries', await this.#sql`select seq, prev, hash, at, type, data from entries where seq > ${after} and seq <= ${after + READ_BATCH} order by seq`);
      states = foldProjections(rebuild, states, rows.map(entryOf), failures);
    }
    const head = this.#head.seq;
    await this.#sql`insert into projections ${this.#sql(
      [...states].map(([name, state]) => ({ name, state: JSON.stringify(state), seq: head })),
      'name',
      'state',
      'seq',
    )} on conflict (name) do nothing`;
    for (const [name, state] of states) this.#projections.set(name, state);
    this.#noteFailures(failures);
  }

  // ---- appends ----

  /** The entries' canonical text and claimed keys, checked before they join a group: one bad input never fails the others. */
  #prepare(inputs: readonly EntryInput[], webhookId?: string): Pending['inputs'] {
    return inputs.map((input) => {
      checkEntry(input, this.#operatorActions);
      const data = canonicalJson(input.data);
      const draft = { seq: 0, prev: GENESIS_PREV, hash: GENESIS_PREV, at: 0, type: input.type, data: input.data as JsonObject };
      const claimed = this.#o.claimedKeys?.(draft) ?? {};
      const sales = saleIdsOf(draft);
      return webhookId === undefined ? { type: input.type, data, claimed, sales } : { type: input.type, data, claimed, sales, webhookId };
    });
  }

  /**
   * Reads the rows of sales this core does not hold while the append waits its turn, so the
   * group's commit finds them at hand and stays one round trip. Valid until this core writes
   * the sale (its own row then wins, see #stored); dropped when the group has read it.
   */
  #prefetch(ids: readonly string[]): void {
    const missing = [...new Set(ids)].filter((id) => !this.#saleCache.has(id) && !this.#prefetched.has(id));
    if (missing.length === 0) return;
    const sql = this.#sql;
    const read = (async () => new Map(decodeRows(saleRow, 'sales', await sql`select * from sales where sale_id in ${sql(missing)}`).map((r) => [r.sale_id, saleRowOf<S>(r)])))();
    // A failed read is read again by the commit itself (#stored).
    read.catch(() => {});
    for (const id of missing) this.#prefetched.set(id, read);
  }

  #enqueue(inputs: Pending['inputs']): Promise<AppendResult | 'duplicate'> {
    if (this.#closed) return Promise.reject(new JournalUnavailableError('The journal is closed.', 'journal_closed'));
    if (this.#state === 'corrupt') return Promise.reject(this.#brokenError());
    if (this.#fenced !== null) return Promise.reject(new JournalUnavailableError(this.#fenced, 'journal_write_failed'));
    this.#prefetch(inputs.flatMap((input) => input.sales));
    return new Promise((resolve, reject) => {
      this.#queue.push({ inputs, resolve, reject });
      this.#kick();
    });
  }

  /** One pump at a time; an append queued while the last one was finishing starts the next. */
  #kick(): void {
    if (this.#pumping) return;
    this.#pumping = (async () => {
      try {
        await this.#pump();
      } finally {
        this.#pumping = null;
        if (this.#queue.length > 0) this.#kick();
      }
    })();
  }

  async #pump(): Promise<void> {
    while (this.#queue.length > 0) {
      const limit = this.#o.groupLimit ?? DEFAULT_GROUP_LIMIT;
      const group: Pending[] = [];
      let size = 0;
      while (this.#queue.length > 0 && (group.length === 0 || size + this.#queue[0]!.inputs.length <= limit)) {
        const next = this.#queue.shift()!;
        group.push(next);
        size += next.inputs.length;
      }
      await this.#commitGroup(group);
    }
  }

  async #commitGroup(group: Pending[]): Promise<void> {
    try {
      const results = await this.#commitOnce(group);
      group.forEach((p, i) => p.resolve(results[i]!));
      this.#healthy();
    } catch (err) {
      if (constraintOf(err) !== undefined && group.length > 1) {
        // A key taken twice fails the whole transaction: each goes alone, so only its owner fails.
        for (const p of group) await this.#commitGroup([p]);
        return;
      }
      const refusal = this.#refusal(err);
      for (const p of group) p.reject(refusal);
    }
  }

  /** The group's transaction; after a lost connection, what the database says happened to it. */
  async #commitOnce(group: Pending[]): Promise<Array<AppendResult | 'duplicate'>> {
    const plan = this.#plan(group);
    try {
      await this.#write(plan);
    } catch (err) {
      if (!isConnectionLoss(err) || plan.entries.length === 0) throw err;
      this.#o.log?.warn('the database connection was lost during an append; asking whether it committed', { seq: plan.entries[0]!.seq });
      const landed = await this.#landed(plan.entries[0]!);
      if (!landed) {
        // Not committed: sent once more, as one new attempt (its seqs are free, nothing doubles).
        const again = this.#plan(group);
        await this.#write(again);
        return this.#applied(group, again);
      }
    }
    return this.#applied(group, plan);
  }

  /** Whether `first` is in the database as written; waits for the database to answer again. */
  async #landed(first: JournalEntry): Promise<boolean> {
    const until = Date.now() + (this.#o.reconnectWaitMs ?? DEFAULT_RECONNECT_WAIT_MS);
    for (let wait = 100; ; wait = Math.min(wait * 2, 2_000)) {
      try {
        const rows = decodeRows(entryRow, 'entries', await this.#sql`select seq, prev, hash, at, type, data from entries where seq = ${first.seq}`);
        if (rows.length === 0) return false;
        if (rows[0]!.hash === first.hash) return true;
        throw new JournalUnavailableError(`Entry ${first.seq} in the database is not the one this core wrote: another core is writing to the same database.`, 'journal_write_failed');
      } catch (err) {
        if (!isConnectionLoss(err) || Date.now() >= until) throw err;
        await sleep(wait);
      }
    }
  }

  /** Entries with their seq and hash after the current head, and what they change. */
  #plan(group: Pending[]): Plan<S> {
    let { seq, hash } = this.#head;
    const at = this.#o.clock.now();
    const entries: JournalEntry[] = [];
    const texts: string[] = [];
    const owners: number[] = [];
    const claims: ClaimedKeys[] = [];
    const hooks: Array<{ webhookId: string; index: number }> = [];
    group.forEach((p, owner) => {
      for (const input of p.inputs) {
        seq += 1;
        const next = entryHash(seq, hash, at, input.type, input.data);
        entries.push({ seq, prev: hash, hash: next, at, type: input.type, data: JSON.parse(input.data) as JsonObject });
        hash = next;
        texts.push(input.data);
        owners.push(owner);
        claims.push(input.claimed);
        if (input.webhookId !== undefined) hooks.push({ webhookId: input.webhookId, index: entries.length - 1 });
      }
    });
    return { entries, texts, owners, claims, hooks, head: { seq, hash }, states: null, failures: [], sales: [], previous: new Map(), shifts: [] };
  }

  /**
   * The sales and shifts a group folds, as they stand: from this core's own cache of the rows
   * it wrote or read (it is the one writer: a second one is refused by the entries' key), and
   * from the database for those it has not seen. Read before the group's statement, so the
   * statement itself is one round trip.
   */
  async #stored(batch: ReturnType<typeof batchOf>): Promise<BatchState<S>> {
    const sql = this.#sql;
    const sales = new Map<string, SaleRow<S>>();
    const unread: string[] = [];
    for (const id of batch.saleIds) {
      const read = this.#prefetched.get(id);
      this.#prefetched.delete(id);
      if (this.#saleCache.has(id)) continue;
      const row = read === undefined ? 'unread' : await read.then((rows) => rows.get(id), () => 'unread' as const);
      if (row === 'unread') unread.push(id);
      else if (row !== undefined) sales.set(id, row);
    }
    const missingShifts = batch.shiftIds.filter((id) => !this.#shiftCache.has(id));
    const [saleRows, shiftRows] = await Promise.all([
      unread.length === 0 ? [] : sql`select * from sales where sale_id in ${sql(unread)}`,
      missingShifts.length === 0 ? [] : sql`select * from shifts where id in ${sql(missingShifts)}`,
    ]);
    for (const r of decodeRows(saleRow, 'sales', saleRows)) sales.set(r.sale_id, saleRowOf<S>(r));
    const shifts = new Map(decodeRows(shiftRow, 'shifts', shiftRows).map((r) => [r.id, shiftOf(r)]));
    return {
      sales: new Map(batch.saleIds.map((id) => [id, this.#saleCache.get(id) ?? sales.get(id)])),
      hooks: new Map(),
      shifts: new Map(batch.shiftIds.map((id) => [id, this.#shiftCache.get(id) ?? shifts.get(id)])),
    };
  }

  async #write(plan: Plan<S>): Promise<void> {
    const { entries } = plan;
    if (entries.length === 0) return;
    const batch = batchOf(entries);
    const failures: ReducerFailure[] = [];
    const stored = await this.#stored(batch);
    const changes = foldBatch(entries, batch.refs, stored, undefined, this.#o.reduceSale, this.#keys);
    failures.push(...changes.failures);
    const states = foldProjections(this.#o.projections ?? {}, this.#projections, entries, failures);
    // Kept on the plan before the commit: if its answer is lost and it did land, they hold.
    plan.states = states;
    plan.failures = failures;
    plan.sales = changes.sales;
    plan.previous = stored.sales;
    plan.shifts = changes.shifts;
    const beforeCommit = this.#o.faults?.beforeCommit;
    if (beforeCommit) {
      // The test seam: the same statement inside an explicit transaction, cut before its commit.
      await this.#sql.begin(async (tx) => {
        await this.#statement(tx, plan, batch.refs);
        await beforeCommit();
      });
    } else {
      // ONE statement: every row of the group in data-modifying CTEs, committed as one
      // transaction in one round trip (a transaction held over several round trips waited on
      // this busy process's event loop between them).
      await this.#statement(this.#sql, plan, batch.refs);
    }
    await this.#o.faults?.afterCommit?.();
  }

  #statement(q: Sql | postgres.TransactionSql, plan: Plan<S>, refs: readonly string[][]) {
    const { entries } = plan;
    const last = entries.at(-1)!.seq;
    const parts = [
      q`e as (insert into entries ${q(
        entries.map((e, i) => ({ seq: e.seq, prev: e.prev, hash: e.hash, at: e.at, type: e.type, data: plan.texts[i]! })),
        'seq',
        'prev',
        'hash',
        'at',
        'type',
        'data',
      )})`,
    ];
    const links = entries.flatMap((e, i) => refs[i]!.map((sale_id) => ({ sale_id, seq: e.seq })));
    if (links.length > 0) parts.push(q`l as (insert into entry_sales ${q(links, 'sale_id', 'seq')})`);
    if (plan.sales.length > 0) parts.push(q`s as (${upsertSales(q, plan.sales)})`);
    if (plan.shifts.length > 0) parts.push(q`h as (${upsertShifts(q, plan.shifts)})`);
    const hooks = plan.hooks.map((h) => ({ webhook_id: h.webhookId, seq: entries[h.index]!.seq }));
    if (hooks.length > 0) {
      parts.push(plan.verbatim ? q`w as (insert into webhook_ids ${q(hooks, 'webhook_id', 'seq')} on conflict (webhook_id) do nothing)` : q`w as (insert into webhook_ids ${q(hooks, 'webhook_id', 'seq')})`);
    }
    const settlements = plan.claims.flatMap((c, i) => (c.settlementId === undefined ? [] : [{ settlement_id: c.settlementId, seq: entries[i]!.seq }]));
    if (settlements.length > 0) parts.push(q`t as (insert into settlement_ids ${q(settlements, 'settlement_id', 'seq')} on conflict (settlement_id) do nothing)`);
    const keys = plan.claims.flatMap((c, i) => (c.idempotencyKeys ?? []).map((k) => ({ idempotency_key: k.key, sale_id: k.saleId, seq: entries[i]!.seq })));
    if (keys.length > 0) parts.push(q`k as (insert into idempotency_keys ${q(keys, 'idempotency_key', 'sale_id', 'seq')})`);
    const changed = [...(plan.states ?? [])].filter(([name, state]) => this.#projections.get(name) !== state).map(([name, state]) => ({ name, state: JSON.stringify(state), seq: last }));
    if (changed.length > 0) parts.push(q`p as (insert into projections ${q(changed, 'name', 'state', 'seq')} on conflict (name) do update set state = excluded.state, seq = excluded.seq)`);
    if (plan.failures.length > 0) parts.push(q`f as (update journal_state set reducer_failures = reducer_failures + ${plan.failures.length} where id = 1)`);
    const fence = this.#o.fence;
    if (fence) parts.push(q`z as (select pos_fence(${fence.term}, ${fence.holder}) as held)`);
    const ctes = parts.reduce((all, part) => q`${all}, ${part}`);
    // The fence is the statement's result: if it raises, nothing of the statement commits.
    return fence ? q`with ${ctes} select held from z` : q`with ${ctes} select 1`;
  }

  /** After the commit: the head, the projections and the failures move on. */
  #advance(plan: Plan<S>): void {
    if (plan.entries.length === 0) return;
    this.#head = plan.head;
    if (plan.states) this.#projections = plan.states;
    for (const row of plan.sales) {
      // Touched last, so kept longest (a Map keeps insertion order).
      this.#saleCache.delete(row.sale_id);
      // Frozen, as the file journal's rows are: callers share them, none may change them.
      const frozen = deepFreeze(row);
      this.#saleCache.set(row.sale_id, frozen);
      this.#prefetched.delete(row.sale_id);
      this.#checkouts.put(plan.previous.get(row.sale_id), frozen);
    }
    for (const id of this.#saleCache.keys()) {
      if (this.#saleCache.size <= SALE_CACHE) break;
      this.#saleCache.delete(id);
    }
    for (const shift of plan.shifts) this.#shiftCache.set(shift.id, shift);
    this.#noteFailures(plan.failures);
    this.#commits.commits += 1;
    this.#commits.committedEntries += plan.entries.length;
  }

  /** After the commit: each caller gets its own entries. */
  #applied(group: Pending[], plan: Plan<S>): Array<AppendResult | 'duplicate'> {
    this.#advance(plan);
    return group.map((_, owner) => {
      const mine = plan.entries.filter((__, i) => plan.owners[i] === owner);
      return { entries: mine, firstSeq: mine[0]?.seq ?? this.#head.seq + 1, lastSeq: mine.at(-1)?.seq ?? this.#head.seq };
    });
  }

  #noteFailures(failures: readonly ReducerFailure[]): void {
    if (failures.length === 0) return;
    this.#failureCount += failures.length;
    for (const f of failures) {
      if (this.#firstFailures.length < KEPT_REDUCER_FAILURES) this.#firstFailures.push(f);
      this.#o.log?.error('a journal entry could not be folded', { seq: f.seq, sale_id: f.saleId, error: f.message });
    }
  }

  #refusal(err: unknown): unknown {
    if (err instanceof TypeError || err instanceof JournalUnavailableError) return err;
    if (codeOf(err) === FENCED_CODE) {
      this.#fenced = `This core no longer holds the merchant's lease (term ${this.#o.fence?.term}): another core is active and writes the journal now. Restart this core; it will stand by.`;
      return this.#fail(new JournalUnavailableError(this.#fenced, 'journal_write_failed', { cause: err }));
    }
    const constraint = constraintOf(err);
    if (constraint === 'idempotency_keys_once') return new TypeError('an Idempotency-Key already journaled for another request cannot be journaled again');
    if (err instanceof postgres.PostgresError && err.code === '23503' && err.constraint_name === 'entries_follow') {
      return this.#fail(
        new JournalUnavailableError(
          `The database's journal does not end where this core's does: entry ${this.#head.seq} is not in it as written. It was restored from an older backup, or a replica was promoted without the last commits. Nothing more is written: restart the core on the database that has every entry.`,
          'journal_write_failed',
          { cause: err },
        ),
      );
    }
    if (constraint === 'entries_pkey') {
      return this.#fail(new JournalUnavailableError('Another core wrote to this database at the same time: this one stops writing. Run one core per database.', 'journal_write_failed', { cause: err }));
    }
    const reason = err instanceof Error ? err.message : String(err);
    const problem: JournalProblem = isConnectionLoss(err) ? 'journal_io_error' : 'journal_write_failed';
    return this.#fail(new JournalUnavailableError(`The database did not take the entry: ${reason}.`, problem, { cause: err }));
  }

  #fail(err: JournalUnavailableError): JournalUnavailableError {
    const was = this.#state;
    this.#state = 'failed';
    this.#failure = err.message;
    this.#failureProblem = (err.params?.problem as JournalProblem | undefined) ?? 'journal_write_failed';
    this.#o.log?.error('journal append failed', { error: err.message });
    if (was !== 'failed') this.#o.onHealthChange?.();
    return err;
  }

  #healthy(): void {
    if (this.#state !== 'failed') return;
    this.#state = 'healthy';
    this.#failure = null;
    this.#failureProblem = null;
    this.#o.log?.info('journal writes work again');
    this.#o.onHealthChange?.();
  }

  #corrupt(broken: NonNullable<JournalStatus['corruption']>): void {
    this.#state = 'corrupt';
    this.#corruption = broken;
  }

  #brokenError(): JournalUnavailableError {
    const at = this.#corruption;
    return new JournalUnavailableError(`The journal in the database is damaged${at ? ` at entry ${at.seq} (${at.reason})` : ''}: restore the database from its backup.`, 'journal_broken');
  }

  async append(inputs: readonly EntryInput[]): Promise<AppendResult> {
    for (const input of inputs) checkAppendable(input, this.#operatorActions);
    const result = await this.#enqueue(this.#prepare(inputs));
    return result as AppendResult;
  }

  async recordWebhook(webhookId: string, input: EntryInput): Promise<'recorded' | 'duplicate'> {
    const prepared = this.#prepare([webhookEntry(webhookId, input, this.#operatorActions)], webhookId);
    return this.#webhooks.run(webhookId, async () => {
      if ((await this.webhookSeq(webhookId)) !== undefined) return 'duplicate';
      try {
        await this.#enqueue(prepared);
      } catch (err) {
        // Another core journaled it between the read and the commit: the constraint said so.
        if (constraintOf(err) === 'webhook_ids_once' || (err instanceof JournalUnavailableError && constraintOf(err.cause) === 'webhook_ids_once')) return 'duplicate';
        throw err;
      }
      return 'recorded';
    });
  }

  /** CORE_TOOK_OVER for this core's term: written under the fence like any append, once (a failed try may be tried again). */
  #recordTakeover(lease: Omit<SharedJournal, 'recordTakeover'>): Promise<JournalEntry> {
    this.#takeover ??= (async () => {
      const data = { term: lease.term, holder: lease.holder, previous_holder: lease.previousHolder };
      const result = (await this.#enqueue(this.#prepare([{ type: CORE_TOOK_OVER, data }]))) as AppendResult;
      return result.entries[0]!;
    })();
    const written = this.#takeover;
    written.catch(() => {
      if (this.#takeover === written) this.#takeover = null;
    });
    return written;
  }

  #shiftTurn: Promise<unknown> = Promise.resolve();
  #shiftLocked<T>(run: () => Promise<T>): Promise<T> {
    const next = this.#shiftTurn.then(run, run);
    this.#shiftTurn = next.catch(() => undefined);
    return next;
  }

  openShift(shiftId: string, by: string, data: Readonly<Record<string, unknown>> = {}): Promise<ShiftRecord> {
    return this.#shiftLocked(async () => {
      if (typeof shiftId !== 'string' || shiftId === '') throw new TypeError('a shift needs an id');
      if (await this.shifts.get(shiftId)) throw new Error(`shift ${shiftId} was already opened`);
      await this.#enqueue(this.#prepare([operatorAction(SHIFT_OPENED, by, { ...data, shift_id: shiftId })]));
      return (await this.shifts.get(shiftId))!;
    });
  }

  closeShift(shiftId: string, by: string, data: Readonly<Record<string, unknown>> = {}): Promise<ShiftRecord> {
    return this.#shiftLocked(async () => {
      const shift = await this.shifts.get(shiftId);
      if (!shift) throw new Error(`shift ${shiftId} was never opened`);
      if (shift.state === 'closed') throw new Error(`shift ${shiftId} is already closed`);
      await this.#enqueue(this.#prepare([operatorAction(SHIFT_CLOSED, by, { ...data, shift_id: shiftId })]));
      return (await this.shifts.get(shiftId))!;
    });
  }

  async importEntries(entries: readonly JournalEntry[]): Promise<void> {
    if (entries.length === 0) return;
    if (this.#pumping || this.#queue.length > 0) throw new Error('an import runs on a journal nothing else appends to');
    let { seq, hash } = this.#head;
    const texts: string[] = [];
    const hooks: Plan<S>['hooks'] = [];
    const seen = new Set<string>();
    for (const e of entries) {
      if (e.seq !== seq + 1) throw new ChainMismatchError(`entry ${e.seq} does not follow entry ${seq}`);
      if (e.prev !== hash) throw new ChainMismatchError(`entry ${e.seq} does not continue the chain of entry ${seq}`);
      const text = canonicalJson(e.data);
      if (entryHash(e.seq, e.prev, e.at, e.type, text) !== e.hash) throw new ChainMismatchError(`entry ${e.seq} does not hash to the hash it carries`);
      texts.push(text);
      const hook = webhookIdOf(e);
      // The first entry to carry a webhook-id keeps it, as in the file journal.
      if (hook !== undefined && !seen.has(hook)) {
        seen.add(hook);
        hooks.push({ webhookId: hook, index: texts.length - 1 });
      }
      seq = e.seq;
      hash = e.hash;
    }
    const plan: Plan<S> = {
      entries: [...entries],
      texts,
      owners: entries.map(() => 0),
      claims: entries.map((e) => this.#o.claimedKeys?.(e) ?? {}),
      hooks,
      head: { seq, hash },
      states: null,
      failures: [],
      verbatim: true,
      sales: [],
      previous: new Map(),
      shifts: [],
    };
    await this.#write(plan);
    this.#advance(plan);
  }

  // ---- reads ----

  async #entries(rows: Promise<readonly unknown[]>): Promise<JournalEntry[]> {
    return decodeRows(entryRow, 'entries', await rows).map(entryOf);
  }

  eventsForSale(saleId: string): Promise<JournalEntry[]> {
    return this.#entries(this.#sql`select e.seq, e.prev, e.hash, e.at, e.type, e.data from entry_sales s join entries e on e.seq = s.seq where s.sale_id = ${saleId} order by e.seq`);
  }
  eventsBetween(fromMs: number, toMs: number): Promise<JournalEntry[]> {
    if (!(toMs > fromMs)) return Promise.resolve([]);
    return this.#entries(this.#sql`select seq, prev, hash, at, type, data from entries where at >= ${fromMs} and at < ${toMs} order by at, seq`);
  }
  eventsOfType(type: string): Promise<JournalEntry[]> {
    return this.#entries(this.#sql`select seq, prev, hash, at, type, data from entries where type = ${type} order by seq`);
  }
  async webhookSeq(webhookId: string): Promise<number | undefined> {
    const [row] = decodeRows(seqRow, 'webhook_ids', await this.#sql`select seq from webhook_ids where webhook_id = ${webhookId}`);
    return row?.seq;
  }

  projection<T>(name: string): T {
    if (!this.#projections.has(name)) throw new Error(`no projection named ${name}`);
    return this.#projections.get(name) as T;
  }

  // ---- verify ----

  async *verifySegments(): AsyncGenerator<VerifyProgress> {
    let prev = GENESIS_PREV;
    let expected = 1;
    for (;;) {
      const rows = decodeRows(entryRow, 'entries', await this.#sql`select seq, prev, hash, at, type, data from entries where seq >= ${expected} order by seq limit ${READ_BATCH}`);
      for (const row of rows) {
        const broken = (reason: string): VerifyProgress => {
          const firstBroken = { segment: LABEL, line: expected, seq: expected, reason };
          this.#corrupt(firstBroken);
          return { done: true, result: { ok: false, firstBroken } };
        };
        if (row.seq !== expected) {
          yield broken(`entry ${expected} is missing`);
          return;
        }
        if (row.prev !== prev) {
          yield broken('its prev is not the hash of the entry before it');
          return;
        }
        if (entryHash(row.seq, row.prev, row.at, row.type, row.data) !== row.hash) {
          yield broken('it does not hash to the hash it carries');
          return;
        }
        prev = row.hash;
        expected += 1;
      }
      if (rows.length < READ_BATCH) break;
      yield { done: false, segment: LABEL, entries: expected - 1 };
    }
    yield { done: true, result: { ok: true, entries: expected - 1 } };
  }

  async verify(): Promise<VerifyResult> {
    let result: VerifyResult = { ok: true, entries: 0 };
    for await (const step of this.verifySegments()) if (step.done) result = step.result;
    return result;
  }

  startNewChain(): Promise<JournalEntry> {
    // A file journal's chain breaks when a disk damages a file; a database's is restored with
    // the database's own tools (its backups, point-in-time recovery), not by writing around it.
    if (this.#state !== 'corrupt') return Promise.reject(new Error('the journal is not broken: there is no chain to restart'));
    return Promise.reject(this.#brokenError());
  }

  async storeStats(): Promise<StoreStats> {
    const [row] = decodeRows(countRow, 'sales', await this.#sql`select count(*) as count from sales`);
    return { workingSetSales: row?.count ?? 0, sealedSegments: 0, indexLoads: 0, indexRebuilds: 0, checkpointsWritten: 0, checkpointFailures: 0 };
  }

  status(): JournalStatus {
    return {
      state: this.#state,
      entries: this.#head.seq,
      lastSeq: this.#head.seq,
      segments: 0,
      tornTail: null,
      corruption: this.#corruption,
      failure: this.#failure,
      failureProblem: this.#failureProblem,
      acknowledgedBreaks: [],
      reducerFailures: this.#failureCount,
      firstReducerFailures: [...this.#firstFailures],
      commits: { ...this.#commits },
      opened: { checkpointSeq: null, checkpointIgnored: null, entriesRead: this.#head.seq === 0 ? 0 : 1, entriesApplied: 0 },
    };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#pumping;
    try {
      await this.#o.onClose?.();
    } finally {
      if (this.#o.endPoolOnClose) await this.#sql.end({ timeout: 5 });
    }
  }
}

function upsertSales<S>(tx: Sql | postgres.TransactionSql, rows: readonly SaleRow<S>[]) {
  const values = rows.map((r) => ({
    sale_id: r.sale_id,
    store_id: r.store_id ?? null,
    checkout_id: r.checkout_id ?? null,
    status: r.status ?? null,
    created_at: r.created_at ?? null,
    amount_cents: r.amount_cents ?? null,
    pix_id: r.pix_id ?? null,
    service_id: r.service_id ?? null,
    external_id: r.external_id ?? null,
    shift_id: r.shift_id ?? null,
    needs_person: r.needs_person === 'yes',
    displaceable: r.displaceable === 'yes',
    record: JSON.stringify(r.record),
    touched_seq: r.touched_seq,
    touched_at: r.touched_at,
  }));
  return tx`insert into sales ${tx(values)} on conflict (sale_id) do update set
    store_id = excluded.store_id, checkout_id = excluded.checkout_id, status = excluded.status,
    created_at = excluded.created_at, amount_cents = excluded.amount_cents, pix_id = excluded.pix_id,
    service_id = excluded.service_id, external_id = excluded.external_id, shift_id = excluded.shift_id,
    needs_person = excluded.needs_person, displaceable = excluded.displaceable, record = excluded.record,
    touched_seq = excluded.touched_seq, touched_at = excluded.touched_at`;
}

function upsertShifts(q: Sql | postgres.TransactionSql, shifts: readonly ShiftRecord[]) {
  const rows = shifts.map((shift) => ({ id: shift.id, state: shift.state, opened_at: shift.opened_at, opened_by: shift.opened_by, opened_seq: shift.opened_seq, closed_at: shift.closed_at ?? null, closed_by: shift.closed_by ?? null, closed_seq: shift.closed_seq ?? null }));
  return q`insert into shifts ${q(rows)} on conflict (id) do update set state = excluded.state, closed_at = excluded.closed_at, closed_by = excluded.closed_by, closed_seq = excluded.closed_seq`;
}
