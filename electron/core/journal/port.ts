/**
 * The journal's port: what the rest of the core may ask of the durable record, whichever
 * adapter keeps it. The embedded adapter (journal.ts: the fsync'd log, its IndexedDB working
 * set and checkpoints) implements it today; a database adapter implements the same surface.
 * Consumers import this module only (types, the entry conventions and the refusal error);
 * only the composition opens an adapter.
 *
 * Entry conventions (all in `data`): `sale_id` / `sale_ids` name the sales an entry is
 * about (the reducer is called for each); `webhook_id` is set by recordWebhook only;
 * `by` names the operator on operator actions; `shift_id` on shift.opened/shift.closed.
 */
import type { Clock } from '../../shared/clock.ts';
import { CoreError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { WebhookInbox } from '../webhooks/inbox.ts';
import type { JsonObject } from './canonical.ts';

/** What a caller hands to `append`: the journal adds seq, prev, hash and at. */
export interface EntryInput {
  type: string;
  /** A plain JSON object; see canonicalJson for what is refused. */
  data: Readonly<Record<string, unknown>>;
}

/** One line of the journal. hash = sha256(canonical {at, data, prev, seq, type}). */
export interface JournalEntry {
  seq: number;
  prev: string;
  hash: string;
  /** Epoch ms from the injected clock when the entry was appended. */
  at: number;
  type: string;
  data: JsonObject;
}

export interface BrokenEntry {
  /** File name of the segment, e.g. journal-2026-11-21.jsonl. */
  segment: string;
  /** 1-based line number in that segment. */
  line: number;
  /** The seq the broken entry has, or would have had at that position. */
  seq: number;
  reason: string;
}

export interface TornTail {
  segment: string;
  line: number;
  /** Bytes cut away: the unterminated remains of a write that never finished. */
  bytes: number;
}

/**
 * A break a manager acknowledged by starting a new chain (startNewChain). The old chain's
 * entries from `broken` on are not trusted facts: they are never replayed, but the files
 * stay as they were found, and every verify names the break again.
 */
export interface AcknowledgedBreak {
  broken: BrokenEntry;
  /** The hash the broken line claims, if it has one (null for a line that is not an entry). */
  brokenHash: string | null;
  /** sha256 of the broken line's bytes as found: which damage was acknowledged. */
  brokenLineSha256: string;
  /** The last trusted entry before the break: the new chain continues from its hash. */
  goodHead: { seq: number; hash: string };
  /** The new chain's first entry, signed by the person who started it. */
  restart: { seq: number; hash: string; segment: string; at: number; by: string };
  /** What the old chain holds from the broken line to its end, kept for forensics. */
  untrusted: { segments: string[]; lines: number };
}

export type VerifyResult =
  | { ok: true; entries: number; acknowledgedBreaks?: AcknowledgedBreak[] }
  | { ok: false; firstBroken: BrokenEntry; acknowledgedBreaks?: AcknowledgedBreak[] };

/** The first entry of every chain after the first: who started it, and over which break. */
export const CHAIN_STARTED = 'journal.chain_started';

/**
 * A core took the merchant's lease from another core (a journal shared by several cores):
 * `term`, `holder` (this core's name) and `previous_holder`. Written by the core that took it,
 * once per term, through SharedJournal.recordTakeover only: a journal of one core's own (the
 * files) never has one. The first core on a database and a core restarted in its own place
 * take the lease from no other core: no entry (services/parts.ts tookOverFromAnother).
 */
export const CORE_TOOK_OVER = 'core.took_over';

/**
 * What a journal shared by several cores (one active, the others standing by) adds to the
 * port: which lease this core writes under, the webhook inbox the standbys fill, and the
 * takeover entry. The file journal has none of it.
 */
export interface SharedJournal {
  /** This core's name in the lease. */
  readonly holder: string;
  readonly term: number;
  /** Who held the lease before this core took it; null when no core did. */
  readonly previousHolder: string | null;
  readonly inbox: WebhookInbox;
  /** Journals CORE_TOOK_OVER for this term (once: a second call resolves with the same entry). */
  recordTakeover(): Promise<JournalEntry>;
}

export interface LogStats {
  /** Group commits done (one write + one fsync per segment touched). */
  commits: number;
  /** Entries written by those commits; entries/commits is the mean group size. */
  committedEntries: number;
}

export type VerifyProgress =
  | { done: false; segment: string; entries: number }
  | { done: true; result: VerifyResult };

export type JournalProblem = 'journal_broken' | 'journal_disk_full' | 'journal_io_error' | 'journal_write_failed' | 'journal_closed';

/**
 * Appends are refused: the chain on disk is broken, or writing fails, or the log is closed.
 * A CoreError, so the refusal reaches the counter as a sentence (`params.problem`).
 */
export class JournalUnavailableError extends CoreError {
  override name = 'JournalUnavailableError';
  constructor(message: string, problem: JournalProblem, options?: { cause?: unknown }) {
    super('journal_unavailable', message, { problem }, options);
  }
}

/**
 * Small derived state kept across starts without reading history: folded over every entry
 * in seq order (at append, and at open over the entries after the checkpoint), persisted in
 * the checkpoint. Pure and deterministic like the sale reducer; the state must survive
 * JSON (plain objects, arrays, strings, finite numbers, booleans, null) and must not be
 * mutated: reduce returns the next state.
 */
export interface Projection<T> {
  initial: T;
  reduce(state: T, entry: JournalEntry): T;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each projection has its own state type
export type Projections = Readonly<Record<string, Projection<any>>>;

export interface OpenedFrom {
  /** The checkpoint the open started from, or null (none, or ignored: see `checkpointIgnored`). */
  checkpointSeq: number | null;
  checkpointIgnored: string | null;
  /** Entries read and checked at open: the checkpoint's own segment and what follows it. */
  entriesRead: number;
  /** Of those, the entries folded into the working set and projections (after the checkpoint). */
  entriesApplied: number;
}

export interface StoreStats {
  workingSetSales: number;
  sealedSegments: number;
  /** Segment indexes read from disk for history lookups, and rebuilt because missing or stale. */
  indexLoads: number;
  indexRebuilds: number;
  checkpointsWritten: number;
  checkpointFailures: number;
}

/**
 * What the view indexes a sale by; times are epoch ms. A key that is absent (or not a
 * string/number) leaves the sale out of that one index, nothing more.
 */
export interface SaleKeys {
  store_id: number;
  checkout_id: number;
  status: string;
  /** When the sale began, for time-range queries and "newest on the checkout". */
  created_at: number;
  pix_id?: string;
  service_id?: string;
  external_id?: string;
  shift_id?: string;
  /**
   * 'yes' while a person must still look at the sale; absent otherwise, so the sale leaves
   * that index once acknowledged. Per checkout, like `displaceable`.
   */
  needs_person?: string;
  /** 'yes' while a newer sale on the checkout would displace this one; absent otherwise. */
  displaceable?: string;
  /** What the customer owes, in integer minor units: a database keeps it in a bigint column. */
  amount_cents?: number;
}

/**
 * The documented minimal sale shape: a record that carries its own keys under the
 * reference's names. The sale state machine (electron/core/sales/) may use any shape of
 * its own instead, and say how to read the keys from it with `saleKeys`.
 */
export interface SaleRecord extends SaleKeys {
  sale_id: string;
  amount_cents: number;
}

/**
 * Folds one journal entry into one sale. Called for every entry that names the sale in
 * `data.sale_id` or `data.sale_ids`, in seq order, at append and again at every replay, so
 * it must be pure and deterministic: no clock, no I/O, no randomness, no mutation of
 * `current`; what it needs comes from the entry (`entry.at` is when). It returns the next
 * record, or undefined for "this entry does not change the sale" (a sale is never deleted).
 * It must not throw for entry types it does not know; if it throws anyway, the entry stays
 * journaled, the sale keeps its previous record and the failure is counted in the status.
 */
export type SaleReducer<S> = (current: S | undefined, entry: JournalEntry, saleId: string) => S | undefined;

/** Reads a sale's index keys; pure, like the reducer. */
export type SaleKeysOf<S> = (sale: S) => SaleKeys;

/** The default: the keys are fields of the record itself (SaleRecord); a field of the wrong type is no key. */
export function ownSaleKeys(sale: object): Partial<SaleKeys> {
  const s = sale as Record<string, unknown>;
  const keys: Partial<SaleKeys> = {};
  for (const name of ['store_id', 'checkout_id', 'created_at', 'amount_cents'] as const) {
    const v = s[name];
    if (typeof v === 'number' && Number.isFinite(v)) keys[name] = v;
  }
  for (const name of ['status', 'pix_id', 'service_id', 'external_id', 'shift_id', 'needs_person', 'displaceable'] as const) {
    const v = s[name];
    if (typeof v === 'string') keys[name] = v;
  }
  return keys;
}

/** Entry types the journal itself understands, to index shifts. */
export const SHIFT_OPENED = 'shift.opened';
export const SHIFT_CLOSED = 'shift.closed';

export interface ShiftRecord {
  id: string;
  state: 'open' | 'closed';
  opened_at: number;
  opened_by: string;
  opened_seq: number;
  closed_at?: number;
  closed_by?: string;
  closed_seq?: number;
}

export interface ReducerFailure {
  seq: number;
  saleId: string;
  message: string;
}

/**
 * What a journal is for, whichever adapter keeps it: how entries fold into sales, which
 * entry types are operator actions, the projections kept beside it and which statuses stay
 * in the working set. The terminal declares its own (TERMINAL_JOURNAL); an adapter's open
 * takes it with the adapter's own settings.
 */
export interface JournalDefinition<S extends object> {
  reduceSale: SaleReducer<S>;
  /** How to read a sale's index keys; by default they are its own fields (SaleRecord). */
  saleKeys?: SaleKeysOf<S>;
  /**
   * Entry types that are operator actions (a correction, an acknowledgement, a refund…):
   * each must say who in `data.by`. Shift open/close always must.
   */
  operatorActions?: Iterable<string>;
  /**
   * Derived state kept and folded over every entry: read it with `journal.projection(name)`.
   * The embedded adapter keeps it in its checkpoint; adding or removing one makes its next
   * open rebuild.
   */
  projections?: Projections;
  /**
   * Sale statuses that are not final: such a sale never leaves the working set, and
   * `sales.byStatus` of one of them reads the working set only.
   */
  openStatuses?: Iterable<string>;
  /** Which keys an entry claims (see ClaimedKeys); pure, like the reducer. */
  claimedKeys?: (entry: JournalEntry) => ClaimedKeys;
}

/**
 * The keys an entry takes for itself, which no other entry may take again: a database
 * adapter holds them with UNIQUE constraints in the append's own transaction, so a second
 * request under a key already taken can never be journaled (not a read, then a write). The
 * embedded adapter, one writer over one file, needs no constraint and ignores them.
 */
export interface ClaimedKeys {
  /** Idempotency-Keys sent (a sale's create, a refund), each with the sale it is for. */
  idempotencyKeys?: ReadonlyArray<{ key: string; saleId: string }>;
  /** A settlement the entry announces: the first such entry is the one it is reconciled from. */
  settlementId?: number;
}

export interface AppendResult {
  entries: JournalEntry[];
  firstSeq: number;
  lastSeq: number;
}

export interface JournalStatus {
  /**
   * healthy; torn-tail-repaired: a write interrupted by a crash was cut away at open (every
   * acknowledged entry is intact); corrupt: the chain is broken at `corruption`, only the
   * entries before it are in the view and nothing more is written until startNewChain;
   * failed: a write or fsync failed, nothing is written until a write probe (on the next
   * append, or on a timer with backoff) succeeds, then the state goes back by itself.
   */
  state: 'healthy' | 'torn-tail-repaired' | 'corrupt' | 'failed';
  entries: number;
  lastSeq: number;
  segments: number;
  tornTail: TornTail | null;
  corruption: BrokenEntry | null;
  failure: string | null;
  /** Which sentence the failure gets (a full disk, an I/O error, another write error). */
  failureProblem: JournalProblem | null;
  /** Breaks a manager acknowledged by starting a new chain: shown for ever. */
  acknowledgedBreaks: AcknowledgedBreak[];
  /**
   * Entries the sale reducer (or a projection) threw on or returned a bad record for,
   * counted across starts (the checkpoint keeps the count); this session's first few are kept.
   */
  reducerFailures: number;
  firstReducerFailures: ReducerFailure[];
  commits: LogStats;
  /** How the last open started: from which checkpoint, and how many entries it read. */
  opened: OpenedFrom;
}

export interface SaleQueries<S> {
  get(id: string): Promise<S | undefined>;
  byPixId(pixId: string): Promise<S | undefined>;
  byServiceId(serviceId: string): Promise<S | undefined>;
  byExternalId(externalId: string): Promise<S[]>;
  byCheckout(storeId: number, checkoutId: number, range?: { fromMs?: number; toMs?: number }): Promise<S[]>;
  latestOnCheckout(storeId: number, checkoutId: number): Promise<S | undefined>;
  /** The checkout's newest `count` sales by time (created from `sinceMs` on, if given), newest first. */
  recentOnCheckout(storeId: number, checkoutId: number, count: number, sinceMs?: number): Promise<S[]>;
  /** The checkout's sales a person must still look at (SaleKeys.needs_person). */
  needingPerson(storeId: number, checkoutId: number): Promise<S[]>;
  /** Every checkout's sales a person must still look at: a supervisor's merchant-wide list. */
  needingPersonAnywhere(): Promise<S[]>;
  /** The checkout's sales a newer sale would displace (SaleKeys.displaceable). */
  displaceable(storeId: number, checkoutId: number): Promise<S[]>;
  byStatus(status: string): Promise<S[]>;
  byShift(shiftId: string): Promise<S[]>;
  createdBetween(fromMs: number, toMs: number): Promise<S[]>;
}

export interface ShiftQueries {
  get(id: string): Promise<ShiftRecord | undefined>;
  open(): Promise<ShiftRecord[]>;
  openedBetween(fromMs: number, toMs: number): Promise<ShiftRecord[]>;
}

export interface JournalPort<S extends object = SaleRecord> {
  /**
   * Resolves when the entries are fsync'd and in the view. A crash before that may keep a
   * prefix of the call's entries (each whole, the chain intact): a fact that must be all
   * or nothing belongs in ONE entry (name several sales with `data.sale_ids`).
   * `data.webhook_id` is reserved for recordWebhook, shift.* types for openShift/closeShift.
   */
  append(inputs: readonly EntryInput[]): Promise<AppendResult>;
  /**
   * Journals a webhook event once per webhook-id: 'recorded' once it is durable (answer
   * the sender 2xx only then), 'duplicate' if that id is already journaled. Concurrent
   * calls with one id journal it once.
   */
  recordWebhook(webhookId: string, input: EntryInput): Promise<'recorded' | 'duplicate'>;
  openShift(shiftId: string, by: string, data?: Readonly<Record<string, unknown>>): Promise<ShiftRecord>;
  closeShift(shiftId: string, by: string, data?: Readonly<Record<string, unknown>>): Promise<ShiftRecord>;
  readonly sales: SaleQueries<S>;
  readonly shifts: ShiftQueries;
  eventsForSale(saleId: string): Promise<JournalEntry[]>;
  /** Entries with at in [fromMs, toMs), in time order. */
  eventsBetween(fromMs: number, toMs: number): Promise<JournalEntry[]>;
  eventsOfType(type: string): Promise<JournalEntry[]>;
  webhookSeq(webhookId: string): Promise<number | undefined>;
  /** A projection's current state (see JournalDefinition.projections); throws for an unknown name. */
  projection<T>(name: string): T;
  verify(): Promise<VerifyResult>;
  /**
   * Over a broken chain (status 'corrupt'), a manager's way out: a new chain whose first
   * entry, signed `by` them, records the broken entry and the last good head. The old
   * segments stay untouched; appends work again.
   */
  startNewChain(by: string): Promise<JournalEntry>;
  /** Verify one segment at a time, in constant memory; the last item carries the result. */
  verifySegments(): AsyncGenerator<VerifyProgress>;
  /** The working set's size and history's index reads. */
  storeStats(): Promise<StoreStats>;
  status(): JournalStatus;
  close(): Promise<void>;
  /** Only a journal shared by several cores (see SharedJournal). */
  readonly shared?: SharedJournal;
}

/** An operator action: who did it goes in `data.by`; when is the entry's `at`. */
export function operatorAction(type: string, by: string, data: Readonly<Record<string, unknown>> = {}): EntryInput {
  return { type, data: { ...data, by } };
}

/**
 * How an entry point hands the core a journal other than the embedded one: the core says
 * what the journal is for and gives its clock, log and health hook; the opener keeps its own
 * settings (a database URL) to itself. Without one, the core opens the file journal in its
 * data dir.
 */
export type JournalOpener<S extends object> = (
  definition: JournalDefinition<S> & {
    clock: Clock;
    log: Logger;
    onHealthChange: () => void;
    /**
     * A shared journal's opener waits while another core is active: it calls this once when
     * it starts to wait, with the inbox where this core may keep the webhooks it receives.
     */
    standingBy?: (inbox: WebhookInbox) => void;
  },
) => Promise<JournalPort<S>>;
