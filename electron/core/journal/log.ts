import { constants as fsConstants } from 'node:fs';
import { chmod, mkdir, open, readdir, rename, stat, truncate, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock } from '../../shared/clock.ts';
import { CoreError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { canonicalJson, entryHash, entryLine, GENESIS_PREV, sha256Hex } from './canonical.ts';
import type { JsonObject } from './canonical.ts';
import { acquireDirLock } from './lock.ts';
import type { DirLock } from './lock.ts';
import { CHAIN_STARTED, JournalUnavailableError, type AcknowledgedBreak, type BrokenEntry, type EntryInput, type JournalEntry, type JournalProblem, type LogStats, type TornTail, type VerifyProgress, type VerifyResult } from './port.ts';

/**
 * The file operations the log needs: node:fs/promises in the app; a test wraps it to make a
 * disk fill up or fail, so the failure paths run against a real journal in a temp dir.
 */
export interface JournalFile {
  read(buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
  write(buffer: Buffer, offset: number, length: number): Promise<{ bytesWritten: number }>;
  datasync(): Promise<void>;
  sync(): Promise<void>;
  stat(): Promise<{ size: number }>;
  truncate(length: number): Promise<void>;
  close(): Promise<void>;
}

export interface JournalFs {
  /** 'a-dsync': append, each write returning once its bytes are on disk (O_DSYNC); only where `dsyncAppends` (Linux). */
  open(path: string, flags: 'r' | 'r+' | 'a' | 'a-dsync' | 'w', mode?: number): Promise<JournalFile>;
  stat(path: string): Promise<{ size: number }>;
  readdir(path: string): Promise<string[]>;
  truncate(path: string, length: number): Promise<void>;
  unlink(path: string): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  /**
   * Whether the segments are opened 'a-dsync', so that a group commit is one write instead
   * of a write and an fdatasync. Each is a trip to the thread pool and back, and the way back
   * waits for a turn of the core's event loop: with 64 tills a commit took 8.6 ms (median)
   * of which the disk took about 0.2 (issue 9's benchmark).
   */
  readonly dsyncAppends: boolean;
}

/** O_DSYNC's open flags, where Node has the constant (not on Windows). */
const DSYNC_APPEND = typeof fsConstants.O_DSYNC === 'number' ? fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_APPEND | fsConstants.O_DSYNC : null;

/**
 * Whether a group commit on `platform` is one O_DSYNC write (true) or a write and an
 * fdatasync (false). A commit is durable only once the drive's own cache is flushed too:
 * - linux: an O_DSYNC write returns once its bytes are on stable storage, the drive's cache
 *   flushed (a FUA write or a flush), as fdatasync would; one trip instead of two (issue 9).
 * - darwin: O_DSYNC, like fsync, only hands the bytes to the drive, which may still lose them
 *   from its cache at a power cut; only fcntl(F_FULLFSYNC) flushes it, and libuv's fdatasync
 *   is F_FULLFSYNC there.
 * - win32: Node has no O_DSYNC; libuv's fdatasync asks Windows to flush the file's buffers
 *   through to the drive.
 * - any other (FreeBSD, OpenBSD, SunOS, AIX…): whether O_DSYNC reaches through the drive's
 *   cache depends on the file system; fdatasync (fsync where there is none) is the call each
 *   documents for durability. Only Linux's speed was measured, so only Linux takes the shortcut.
 */
export function commitsWithODsync(platform: NodeJS.Platform): boolean {
  return platform === 'linux' && DSYNC_APPEND !== null;
}

/** The file layer the log uses on `platform`: the app passes its own; a test pins each one. */
export function journalFsFor(platform: NodeJS.Platform): JournalFs {
  return {
    open: (path, flags, mode) => {
      if (flags !== 'a-dsync') return open(path, flags, mode);
      if (DSYNC_APPEND === null || !commitsWithODsync(platform)) return Promise.reject(new Error(`the journal does not open segments O_DSYNC on ${platform}`));
      return open(path, DSYNC_APPEND, mode);
    },
    dsyncAppends: commitsWithODsync(platform),
    stat: (path) => stat(path),
    readdir: (path) => readdir(path),
    truncate: (path, length) => truncate(path, length),
    unlink: (path) => unlink(path),
    rename: (from, to) => rename(from, to),
  };
}

export const nodeJournalFs: JournalFs = journalFsFor(process.platform);

/** Timers for the write probe; tests fire them by hand instead of waiting. */
export interface ProbeTimers {
  /** `fn` returns the probe's promise, so a test can wait for it to settle. */
  set(fn: () => Promise<void>, ms: number): unknown;
  clear(handle: unknown): void;
}

const realTimers: ProbeTimers = {
  set: (fn, ms) => setTimeout(() => void fn(), ms).unref(),
  clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** After a failed write, the first probe comes after this long, then twice as long each time. */
export const PROBE_FIRST_MS = 1_000;
export const PROBE_MAX_MS = 60_000;
const PROBE_FILE = '.write-probe';

/** Where an entry's line lies: what a segment's index records to read it again on demand. */
export interface EntryPosition {
  segment: string;
  /** Byte offset of the line in its segment, and its length with the newline. */
  offset: number;
  length: number;
}

/**
 * Where open starts reading: the first entry of segment `segments[index]` has seq `seq`
 * and chains from `prev`. The segments before it are taken as they are (their sizes are
 * the committed ones); `verify` still reads them all.
 */
export interface ResumePoint {
  index: number;
  seq: number;
  prev: string;
  /** The sizes of the segments before `index`, as the checkpoint checked them (no stat again). */
  sizes?: readonly number[];
  /**
   * Set when `segments[index]` starts a new chain: the break its first entry must name
   * (checked as a full scan checks it); `seq`/`prev` are then the good head's.
   */
  pending?: PendingBreak;
  /** Breaks acknowledged by chains that start before `index`, oldest first. */
  acknowledged?: readonly AcknowledgedBreak[];
  /**
   * Entries up to this seq are folded into the checkpoint already: open hands them on to be
   * indexed only, each with the members of its data that name sales and a webhook-id (see
   * indexedEntry), not its whole data. Read again for every start, 166,665 entries whole at
   * once in batches were some 150 MB of a start's heap with 100,000 sales (issue 28).
   */
  indexOnlyThrough?: number;
}

export interface OpenLogOptions {
  dir: string;
  clock: Clock;
  log?: Logger;
  /** Receives every valid entry at open, in order, in batches; awaited before reading on. */
  replay?: (entries: JournalEntry[], positions: EntryPosition[]) => Promise<void> | void;
  replayBatchSize?: number;
  /**
   * Called after the bytes are fsync'd, in seq order, for one group commit or for several
   * consecutive ones that became durable while the previous call ran; the appends of those
   * groups resolve only after it settles. Calls never overlap.
   */
  onDurable?: (entries: JournalEntry[], positions: EntryPosition[]) => Promise<void> | void;
  fs?: JournalFs;
  timers?: ProbeTimers;
  /** Told when writing fails, and when it works again (a probe or an append wrote). */
  onHealthChange?: () => void;
  /**
   * Called with the segment names once the dir is locked, before anything is read: a
   * checkpoint that vouches for the older segments says where to start; null reads all.
   */
  resume?: (segments: readonly string[]) => Promise<ResumePoint | null> | ResumePoint | null;
}

export interface JournalLog {
  /** Resolves once the entries are written and fsync'd; entries keep the order given. */
  append(inputs: readonly EntryInput[]): Promise<JournalEntry[]>;
  /** Reads every segment again and checks the whole chain against what was committed. */
  verify(): Promise<VerifyResult>;
  readonly lastSeq: number;
  readonly lastHash: string;
  readonly segments: readonly string[];
  readonly tornTail: TornTail | null;
  readonly corruption: BrokenEntry | null;
  /** Breaks acknowledged by a new chain, oldest first: kept for ever. */
  readonly acknowledgedBreaks: readonly AcknowledgedBreak[];
  /**
   * Set while writing fails (a full disk, an I/O error): appends are refused until a write
   * probe (on the next append, or on a timer with backoff) succeeds again.
   */
  readonly failure: Error | null;
  readonly stats: LogStats;
  /** Entries read and checked at open (after the resume point, if there was one). */
  readonly openedEntries: number;
  /**
   * Verify, one segment at a time: yields after each segment is read, so a caller can show
   * progress or stop; holds one read chunk, never the history. The last item has `done`.
   */
  verifySegments(): AsyncGenerator<VerifyProgress>;
  /**
   * Over a broken chain: starts a new chain whose first entry (CHAIN_STARTED, carrying
   * `data`, which names who in `by`) records the broken entry and the last good head. The
   * old segments are not touched; appends work again once it is durable.
   */
  startNewChain(data: Readonly<Record<string, unknown>>): Promise<JournalEntry>;
  close(): Promise<void>;
}

// The renderer's tests name the problems from here; the port (port.ts) declares them.
export type { JournalProblem } from './port.ts';

/** Which sentence a failed write gets, from its errno code. */
export function writeProblem(err: Error | null): JournalProblem {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (code === 'ENOSPC' || code === 'EDQUOT') return 'journal_disk_full';
  if (code === 'EIO') return 'journal_io_error';
  return 'journal_write_failed';
}

// Chain 1 is journal-YYYY-MM-DD.jsonl; chain n > 1 is journal-cNNNN-YYYY-MM-DD.jsonl, which
// sorts after every chain-1 name (a digit sorts before "c"), so text order is chain order.
const SEGMENT_NAME = /^journal-(?:c(\d{4})-)?(\d{4}-\d{2}-\d{2})\.jsonl$/;
const HEX64 = /^[0-9a-f]{64}$/;
const READ_CHUNK = 1 << 20;

class VerifyStopped extends Error {}

export function segmentName(day: string, chain = 1): string {
  return chain === 1 ? `journal-${day}.jsonl` : `journal-c${String(chain).padStart(4, '0')}-${day}.jsonl`;
}

/** The chain a segment belongs to (1 for the original one). */
export function segmentChain(name: string): number {
  const m = SEGMENT_NAME.exec(name);
  return m?.[1] === undefined ? 1 : Number(m[1]);
}

export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export type LineCheck = { ok: true; entry: JournalEntry } | { ok: false; reason: string };

/**
 * Checks one line against the chain so far. Pure: the table of hostile lines in
 * log.test.ts runs through it.
 */
export function checkLine(text: string, expectedSeq: number, expectedPrev: string): LineCheck {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'not valid JSON' };
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return { ok: false, reason: 'not a JSON object' };
  const e = raw as Record<string, unknown>;
  const { seq, prev, hash, at, type, data } = e;
  if (typeof seq !== 'number' || !Number.isSafeInteger(seq)) return { ok: false, reason: 'seq is not an integer' };
  if (seq !== expectedSeq) return { ok: false, reason: `expected seq ${expectedSeq}, found ${seq}` };
  if (typeof prev !== 'string' || !HEX64.test(prev)) return { ok: false, reason: 'prev is not a sha256 hex digest' };
  if (typeof hash !== 'string' || !HEX64.test(hash)) return { ok: false, reason: 'hash is not a sha256 hex digest' };
  if (typeof at !== 'number' || !Number.isFinite(at)) return { ok: false, reason: 'at is not a number' };
  if (typeof type !== 'string' || type === '') return { ok: false, reason: 'type is not a non-empty string' };
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return { ok: false, reason: 'data is not an object' };
  if (Object.keys(e).length !== 6) return { ok: false, reason: 'unexpected fields' };
  if (prev !== expectedPrev) return { ok: false, reason: 'prev does not match the hash of the entry before it' };
  let canonicalData: string;
  try {
    canonicalData = canonicalJson(data);
  } catch (err) {
    return { ok: false, reason: `data cannot be hashed: ${(err as Error).message}` };
  }
  if (entryHash(seq, prev, at, type, canonicalData) !== hash) return { ok: false, reason: 'hash does not match the content' };
  return { ok: true, entry: { seq, prev, hash, at, type, data: data as JsonObject } };
}

/**
 * Verify's fast path: true when `text` is exactly the line the writer writes (entryLine) for
 * the expected seq and prev, and its hash is the hash of those fields with the data AS
 * WRITTEN. The writer only ever writes canonical data, so a line that passes is one it
 * wrote; anything else (false) goes through checkLine, which names what is wrong. It
 * spares verify the parse and re-serialization of every entry's data.
 */
export function lineIsIntact(text: string, expectedSeq: number, expectedPrev: string): boolean {
  return intactLine(text, expectedSeq, expectedPrev) !== null;
}

/** lineIsIntact's parts of a line that passes it (its data as the text written), else null. */
function intactLine(text: string, expectedSeq: number, expectedPrev: string): { hash: string; at: number; type: string; data: string } | null {
  const seqText = String(expectedSeq);
  let i = 0;
  const expect = (s: string) => {
    if (!text.startsWith(s, i)) return null;
    i += s.length;
    return true;
  };
  if (!expect('{"seq":') || !expect(seqText) || !expect(',"prev":"') || !expect(expectedPrev) || !expect('","hash":"')) return null;
  const recorded = text.slice(i, i + 64);
  i += 64;
  if (!expect('","at":')) return null;
  const typeAt = text.indexOf(',"type":"', i);
  if (typeAt < 0) return null;
  const atText = text.slice(i, typeAt);
  const at = Number(atText);
  if (!Number.isFinite(at) || JSON.stringify(at) !== atText) return null;
  i = typeAt + ',"type":'.length;
  const dataAt = text.indexOf('","data":{', i);
  if (dataAt < 0 || !text.endsWith('}')) return null;
  const typeText = text.slice(i, dataAt + 1);
  let type: unknown;
  try {
    type = JSON.parse(typeText);
  } catch {
    return null;
  }
  if (typeof type !== 'string' || type === '' || JSON.stringify(type) !== typeText) return null;
  const data = text.slice(dataAt + '","data":'.length, -1);
  return entryHash(expectedSeq, expectedPrev, at, type, data) === recorded ? { hash: recorded, at, type, data } : null;
}

/** A string that holds its own characters, not a view into a longer one. */
function ownCopy(text: string): string {
  return JSON.parse(JSON.stringify(text)) as string;
}

/** The data members an index reads (fold.ts saleIdsOf, webhookIdOf). */
const INDEXED_MEMBERS = ['sale_id', 'sale_ids', 'webhook_id'] as const;

/**
 * An entry checked as verify checks it (lineIsIntact: the line the writer wrote, its hash over
 * its data as written), its data cut down to the members that name its sales and webhook-id:
 * the rest of it is parsed and dropped at once. Null for a line that does not pass: checkLine
 * then reads it whole and names what is wrong.
 */
function indexedEntry(text: string, seq: number, prev: string): LineCheck | null {
  const line = intactLine(text, seq, prev);
  if (line === null) return null;
  let whole: unknown;
  try {
    whole = JSON.parse(line.data);
  } catch {
    return null;
  }
  if (!isRecord(whole)) return null;
  const data: JsonObject = {};
  for (const name of INDEXED_MEMBERS) if (Object.hasOwn(whole, name)) data[name] = whole[name] as JsonObject[string];
  // The hash as a string of its own: a slice of the line kept the whole line alive (V8 slices
  // share their text) in every entry of the batch, and the next entry's prev with it.
  return { ok: true, entry: { seq, prev, hash: ownCopy(line.hash), at: line.at, type: line.type, data } };
}

interface RawLine {
  text: string;
  line: number;
  /** Byte offset of the line's first byte in its file, and its length in bytes (no newline). */
  offset: number;
  bytes: number;
  terminated: boolean;
}

/**
 * Streams a segment's lines in 1 MiB reads, so replay holds one chunk, not one file.
 * `limit` stops at a byte count: verify reads only what has been fsync'd, never the
 * half-written bytes of a commit in progress.
 */
async function* readLines(path: string, limit?: number, fs: JournalFs = nodeJournalFs): AsyncGenerator<RawLine> {
  const fh = await fs.open(path, 'r');
  try {
    const end = limit ?? (await fh.stat()).size;
    let position = 0;
    let carry: Buffer = Buffer.alloc(0);
    let carryOffset = 0;
    let lineNo = 0;
    while (position < end) {
      const buf = Buffer.allocUnsafe(Math.min(READ_CHUNK, end - position));
      const { bytesRead } = await fh.read(buf, 0, buf.length, position);
      if (bytesRead === 0) break;
      position += bytesRead;
      const data = carry.length > 0 ? Buffer.concat([carry, buf.subarray(0, bytesRead)]) : buf.subarray(0, bytesRead);
      let start = 0;
      for (let nl = data.indexOf(10, start); nl !== -1; nl = data.indexOf(10, start)) {
        lineNo++;
        yield { text: data.toString('utf8', start, nl), line: lineNo, offset: carryOffset + start, bytes: nl - start, terminated: true };
        start = nl + 1;
      }
      carryOffset += start;
      carry = Buffer.from(data.subarray(start));
    }
    if (carry.length > 0) yield { text: carry.toString('utf8'), line: lineNo + 1, offset: carryOffset, bytes: carry.length, terminated: false };
  } finally {
    await fh.close();
  }
}

async function listSegments(dir: string, fs: JournalFs = nodeJournalFs): Promise<string[]> {
  const names = (await fs.readdir(dir)).filter((n) => SEGMENT_NAME.test(n));
  // YYYY-MM-DD sorts as text in date order, and chains in their order (see SEGMENT_NAME).
  return names.sort();
}

interface ScanResult {
  lastSeq: number;
  lastHash: string;
  /** Bytes of each segment that hold whole, valid entries. */
  sizes: Map<string, number>;
  torn: TornTail | null;
  broken: BrokenEntry | null;
  count: number;
  acknowledged: AcknowledgedBreak[];
}

interface ScanOptions {
  /** Cut an unterminated last line away (open); verify only reports it. */
  repairTornTail: boolean;
  /** Read at most this many bytes of each segment (verify); segments absent here are skipped. */
  limits?: ReadonlyMap<string, number>;
  onEntry?: (entry: JournalEntry, position: EntryPosition) => Promise<void> | void;
  fs?: JournalFs;
  /** Start at this segment instead of the first (open from a checkpoint). */
  from?: ResumePoint;
  /** Lines need not be parsed (verify): those the writer wrote pass lineIsIntact. */
  hashOnly?: boolean;
  /** Called after each whole segment is read: verify's progress. */
  onSegment?: (segment: string, entries: number) => Promise<void> | void;
}

/** A chain broke here; the next chain's first entry must acknowledge exactly this. */
export interface PendingBreak {
  broken: BrokenEntry;
  goodHead: { seq: number; hash: string };
  untrusted: { segments: string[]; lines: number };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * Checks the first line of a chain after the first: a CHAIN_STARTED entry that continues
 * from the last good head and names exactly the break the scan found. Anything else is a
 * break of its own, never silently accepted.
 */
export function checkChainStart(text: string, pending: PendingBreak | null, segment: string): { ok: true; entry: JournalEntry; by: string } | { ok: false; reason: string } {
  if (pending === null) return { ok: false, reason: 'a new chain starts here, but the chain before it is not broken' };
  let seq: unknown;
  try {
    seq = (JSON.parse(text) as Record<string, unknown> | null)?.seq;
  } catch {
    return { ok: false, reason: 'not valid JSON' };
  }
  if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq <= pending.goodHead.seq) return { ok: false, reason: 'a new chain must start after the last good entry' };
  const checked = checkLine(text, seq, pending.goodHead.hash);
  if (!checked.ok) return checked;
  const { type, data } = checked.entry;
  const broken = data.broken;
  const head = data.good_head;
  const by = data.by;
  if (type !== CHAIN_STARTED || !isRecord(broken) || !isRecord(head) || typeof by !== 'string') return { ok: false, reason: 'a new chain must start with the entry that records the break' };
  const b = pending.broken;
  if (broken.seq !== b.seq || broken.segment !== b.segment || broken.line !== b.line || head.seq !== pending.goodHead.seq || head.hash !== pending.goodHead.hash) {
    return { ok: false, reason: `the new chain in ${segment} records a break other than the one found (entry ${b.seq}, ${b.segment} line ${b.line})` };
  }
  return { ok: true, entry: checked.entry, by };
}

async function scan(dir: string, segments: readonly string[], options: ScanOptions): Promise<ScanResult> {
  const fs = options.fs ?? nodeJournalFs;
  let expectedSeq = options.from?.seq ?? 1;
  let prev = options.from?.prev ?? GENESIS_PREV;
  let count = 0;
  const sizes = new Map<string, number>();
  // Breaks acknowledged before the resume point: the checkpoint re-checked their chains' starts.
  const acknowledged: AcknowledgedBreak[] = [...(options.from?.acknowledged ?? [])];
  const present: { name: string; size: number; committed: number | undefined }[] = [];
  const firstRead = options.from?.index ?? 0;
  for (const [i, name] of segments.entries()) {
    const limit = options.limits?.get(name);
    if (options.limits && limit === undefined) continue;
    const size = options.from?.sizes?.[i] ?? (await fs.stat(join(dir, name))).size;
    // Vouched for by the checkpoint: its bytes count as committed without being read.
    if (i < firstRead) sizes.set(name, size);
    else present.push({ name, size: limit === undefined ? size : Math.min(size, limit), committed: limit });
  }
  // A torn line can only be the last bytes written: in the last segment that has any.
  let lastWritten = -1;
  present.forEach((p, i) => {
    if (p.size > 0) lastWritten = i;
  });
  const result = (broken: BrokenEntry | null, torn: TornTail | null = null): ScanResult => ({ lastSeq: expectedSeq - 1, lastHash: prev, sizes, torn, broken, count, acknowledged });

  // A broken chain is read on to its end (its lines are counted, never trusted), because the
  // next chain may acknowledge the break; one that does not leaves the break unexplained.
  // From a checkpoint, the scan goes on in the chain of its segment; if that segment starts
  // a chain, its first entry is checked against the break the checkpoint says it acknowledges.
  let pending: PendingBreak | null = options.from?.pending ?? null;
  let chain = options.from ? segmentChain(segments[options.from.index] ?? '') : 0;
  let chainStarted = options.from !== undefined && options.from.pending === undefined;
  for (let i = 0; i < present.length; i++) {
    const { name, size, committed } = present[i]!;
    const segmentChainNo = segmentChain(name);
    if (segmentChainNo !== chain) {
      chain = segmentChainNo;
      chainStarted = false;
    }
    let validBytes = 0;
    let lines = 0;
    for await (const raw of readLines(join(dir, name), size, fs)) {
      lines = raw.line;
      if (pending && chainStarted) {
        pending.untrusted.lines++;
        if (!pending.untrusted.segments.includes(name)) pending.untrusted.segments.push(name);
        validBytes = raw.offset + Buffer.byteLength(raw.text, 'utf8') + (raw.terminated ? 1 : 0);
        continue;
      }
      if (!raw.terminated) {
        if (i === lastWritten && options.repairTornTail) {
          const torn = { segment: name, line: raw.line, bytes: size - raw.offset };
          await fs.truncate(join(dir, name), raw.offset);
          const fh = await fs.open(join(dir, name), 'r');
          try {
            await fh.datasync();
          } finally {
            await fh.close();
          }
          sizes.set(name, raw.offset);
          return result(pending?.broken ?? null, torn);
        }
        const reason = i === lastWritten ? 'last line is unterminated (torn write)' : 'unterminated line before the end of the journal';
        const broken = { segment: name, line: raw.line, seq: expectedSeq, reason };
        if (pending) return result(pending.broken);
        pending = { broken, goodHead: { seq: expectedSeq - 1, hash: prev }, untrusted: { segments: [name], lines: 1 } };
        chainStarted = true;
        validBytes = size;
        continue;
      }
      let checked: LineCheck;
      if (!chainStarted && chain > 1) {
        chainStarted = true;
        const start = checkChainStart(raw.text, pending, name);
        if (!start.ok && pending) {
          // A later chain that does not acknowledge the break before it is untrusted as a
          // whole; a chain after it may still acknowledge that break.
          pending.untrusted.lines++;
          if (!pending.untrusted.segments.includes(name)) pending.untrusted.segments.push(name);
          validBytes = raw.offset + Buffer.byteLength(raw.text, 'utf8') + 1;
          continue;
        }
        if (start.ok && pending) {
          const recorded = start.entry.data.broken as Record<string, unknown>;
          acknowledged.push({
            broken: pending.broken,
            brokenHash: typeof recorded.hash === 'string' ? recorded.hash : null,
            brokenLineSha256: typeof recorded.line_sha256 === 'string' ? recorded.line_sha256 : '',
            goodHead: pending.goodHead,
            restart: { seq: start.entry.seq, hash: start.entry.hash, segment: name, at: start.entry.at, by: start.by },
            untrusted: pending.untrusted,
          });
          pending = null;
        }
        checked = start;
      } else {
        chainStarted = true;
        if (options.hashOnly && !options.onEntry && lineIsIntact(raw.text, expectedSeq, prev)) {
          expectedSeq++;
          // The hash is the 64 characters after the prev: lineIsIntact matched them.
          const at = 7 + String(expectedSeq - 1).length + 9 + 64 + 10;
          prev = raw.text.slice(at, at + 64);
          count++;
          validBytes = raw.offset + raw.bytes + 1;
          continue;
        }
        const indexOnly = options.from?.indexOnlyThrough !== undefined && expectedSeq <= options.from.indexOnlyThrough;
        checked = (indexOnly ? indexedEntry(raw.text, expectedSeq, prev) : null) ?? checkLine(raw.text, expectedSeq, prev);
      }
      if (!checked.ok) {
        pending = {
          broken: { segment: name, line: raw.line, seq: expectedSeq, reason: checked.reason },
          goodHead: { seq: expectedSeq - 1, hash: prev },
          untrusted: { segments: [name], lines: 1 },
        };
        validBytes = raw.offset + Buffer.byteLength(raw.text, 'utf8') + 1;
        continue;
      }
      const length = raw.bytes + 1;
      await options.onEntry?.(checked.entry, { segment: name, offset: raw.offset, length });
      expectedSeq = checked.entry.seq + 1;
      prev = checked.entry.hash;
      count++;
      validBytes = raw.offset + length;
    }
    if (committed !== undefined && size < committed) {
      return result(pending?.broken ?? { segment: name, line: lines + 1, seq: expectedSeq, reason: `segment is ${size} bytes, but ${committed} were committed to it` });
    }
    sizes.set(name, validBytes);
    await options.onSegment?.(name, count);
  }
  return result(pending?.broken ?? null);
}

/**
 * What startNewChain records about the broken line, read from the file as it is: the hash it
 * claims, the sha256 of its bytes, and the highest seq any line of the broken tail claims, so
 * the new chain's seqs never repeat one the old files show.
 */
async function readBrokenTail(
  fs: JournalFs,
  dir: string,
  segments: readonly string[],
  broken: BrokenEntry,
): Promise<{ hash: string | null; lineSha256: string; maxSeq: number; untrusted: { segments: string[]; lines: number } }> {
  const untrusted = { segments: [] as string[], lines: 0 };
  let hash: string | null = null;
  let lineSha256 = '';
  // Every line from the broken one on stands for one seq, whatever it claims; and no seq
  // any of them claims is given out again.
  let positional = broken.seq - 1;
  let claimedMax = 0;
  let reading = false;
  for (const name of segments) {
    if (name === broken.segment) reading = true;
    if (!reading) continue;
    for await (const raw of readLines(join(dir, name), undefined, fs)) {
      if (name === broken.segment && raw.line < broken.line) continue;
      positional++;
      untrusted.lines++;
      if (!untrusted.segments.includes(name)) untrusted.segments.push(name);
      let parsed: unknown = null;
      try {
        parsed = JSON.parse(raw.text);
      } catch {
        // Not an entry at all: it still takes its seq.
      }
      const claimed = isRecord(parsed) ? parsed : {};
      if (typeof claimed.seq === 'number' && Number.isSafeInteger(claimed.seq)) claimedMax = Math.max(claimedMax, claimed.seq);
      if (name === broken.segment && raw.line === broken.line) {
        lineSha256 = sha256Hex(raw.text);
        hash = typeof claimed.hash === 'string' && HEX64.test(claimed.hash) ? claimed.hash : null;
      }
    }
  }
  return { hash, lineSha256, maxSeq: Math.max(positional, claimedMax), untrusted };
}

interface Pending {
  entries: JournalEntry[];
  lines: string[];
  positions: EntryPosition[];
  resolve: (entries: JournalEntry[]) => void;
  reject: (err: unknown) => void;
}

export async function fsyncDir(dir: string, fs: JournalFs = nodeJournalFs): Promise<void> {
  // A new segment's name must be durable too, or a power cut can lose the whole file.
  // Windows cannot open a directory for fsync; NTFS journals the name itself.
  if (process.platform === 'win32') return;
  const fh = await fs.open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** The first whole line of a segment, or null: a chain start, read again to check it. */
export async function firstLineOf(path: string, fs: JournalFs = nodeJournalFs): Promise<string | null> {
  for await (const raw of readLines(path, undefined, fs)) return raw.terminated ? raw.text : null;
  return null;
}

/** A whole small file (a checkpoint, a segment's index) through the seam, or null if absent. */
export async function readWholeFile(path: string, fs: JournalFs = nodeJournalFs): Promise<Buffer | null> {
  let fh: JournalFile;
  try {
    fh = await fs.open(path, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  try {
    const size = (await fh.stat()).size;
    const buf = Buffer.allocUnsafe(size);
    let done = 0;
    while (done < size) {
      const { bytesRead } = await fh.read(buf, done, size - done, done);
      if (bytesRead === 0) break;
      done += bytesRead;
    }
    return buf.subarray(0, done);
  } finally {
    await fh.close();
  }
}

/**
 * Temp file, write, fsync, rename over `path` (then, if asked, fsync the dir): a crash
 * leaves the old file or the new one, whole. Through the seam, so a failing disk fails it.
 */
export async function writeFileAtomic(
  path: string,
  data: string | readonly string[] | AsyncIterable<string>,
  fs: JournalFs = nodeJournalFs,
  options: { beforeRename?: () => Promise<void>; syncDir?: string } = {},
): Promise<void> {
  const temp = `${path}.tmp`;
  const fh = await fs.open(temp, 'w', 0o600);
  try {
    // Parts are encoded one at a time: a large file is never one large copy on the event loop,
    // and parts made as they are written (an async iterable) are never all held at once.
    for await (const part of typeof data === 'string' ? [data] : data) await writeAll(fh, Buffer.from(part, 'utf8'));
    await fh.datasync();
  } finally {
    await fh.close();
  }
  await options.beforeRename?.();
  await fs.rename(temp, path);
  if (options.syncDir !== undefined) await fsyncDir(options.syncDir, fs);
}

async function writeAll(fh: JournalFile, buf: Buffer): Promise<void> {
  let done = 0;
  while (done < buf.length) {
    const { bytesWritten } = await fh.write(buf, done, buf.length - done);
    done += bytesWritten;
  }
}

class SegmentedLog implements JournalLog {
  readonly #dir: string;
  readonly #clock: Clock;
  readonly #lock: DirLock;
  readonly #onDurable: OpenLogOptions['onDurable'];
  readonly #segments: string[];
  /** Bytes known fsync'd per segment: what verify may read. */
  readonly #durable: Map<string, number>;
  #durableSeq: number;
  #durableHash: string;
  /** Seq and hash of the last entry handed out, written or not. */
  #nextSeq: number;
  #headHash: string;
  #day: string | null;
  /** The chain new entries go to (segmentName's chain number). */
  #chain: number;
  #fh: JournalFile | null = null;
  #queue: Pending[] = [];
  #flushing: Promise<void> | null = null;
  /** Durable groups waiting for onDurable, in seq order. */
  #toApply: Pending[] = [];
  #applying: Promise<void> | null = null;
  #closed = false;
  #failure: Error | null = null;
  readonly #fs: JournalFs;
  readonly #timers: ProbeTimers;
  readonly #log: Logger | undefined;
  readonly #onHealthChange: (() => void) | undefined;
  /**
   * Segments to cut back to these sizes before anything more is written: the bytes of a
   * failed commit, never acknowledged, must not stay under the next entry of the chain.
   */
  readonly #cuts = new Map<string, number>();
  /** Cut-backs and write probes run one at a time, in order. */
  #repairing: Promise<void> = Promise.resolve();
  #probeTimer: unknown = null;
  #probeDelay = PROBE_FIRST_MS;
  #restarting = false;
  #corruption: BrokenEntry | null;
  readonly #acknowledged: AcknowledgedBreak[];
  readonly tornTail: TornTail | null;
  readonly stats: LogStats = { commits: 0, committedEntries: 0 };
  readonly openedEntries: number;

  constructor(dir: string, clock: Clock, lock: DirLock, segments: string[], result: ScanResult, options: OpenLogOptions) {
    this.#dir = dir;
    this.#clock = clock;
    this.#lock = lock;
    this.#onDurable = options.onDurable;
    this.#fs = options.fs ?? nodeJournalFs;
    this.#timers = options.timers ?? realTimers;
    this.#log = options.log;
    this.#onHealthChange = options.onHealthChange;
    this.#segments = segments;
    this.#durable = result.sizes;
    this.#durableSeq = result.lastSeq;
    this.#durableHash = result.lastHash;
    this.#nextSeq = result.lastSeq + 1;
    this.#headHash = result.lastHash;
    const last = segments.at(-1);
    this.#day = last === undefined ? null : SEGMENT_NAME.exec(last)![2]!;
    this.#chain = last === undefined ? 1 : segmentChain(last);
    this.tornTail = result.torn;
    this.#corruption = result.broken;
    this.#acknowledged = result.acknowledged;
    this.openedEntries = result.count;
  }

  get corruption(): BrokenEntry | null {
    return this.#corruption;
  }
  get acknowledgedBreaks(): readonly AcknowledgedBreak[] {
    return [...this.#acknowledged];
  }

  get lastSeq(): number {
    return this.#durableSeq;
  }
  get lastHash(): string {
    return this.#durableHash;
  }
  get segments(): readonly string[] {
    return [...this.#segments];
  }
  get failure(): Error | null {
    return this.#failure;
  }

  append(inputs: readonly EntryInput[]): Promise<JournalEntry[]> {
    if (this.#closed) return Promise.reject(new JournalUnavailableError('The journal is closed.', 'journal_closed'));
    if (this.#corruption) {
      const c = this.#corruption;
      return Promise.reject(
        new JournalUnavailableError(
          `The journal is corrupt at ${c.segment} line ${c.line} (seq ${c.seq}: ${c.reason}); nothing more is written until a manager starts a new chain.`,
          'journal_broken',
        ),
      );
    }
    // Writing failed before: try again now (cut back, probe), and append only if it works.
    if (this.#failure) return this.#repair(true).then(() => this.append(inputs), () => Promise.reject(this.#unavailable()));
    if (inputs.length === 0) return Promise.resolve([]);
    // Everything is validated and serialized before any seq is handed out, so a bad
    // input rejects the call without leaving a hole in the chain.
    const prepared: { type: string; data: string }[] = [];
    for (const input of inputs) {
      if (typeof input?.type !== 'string' || input.type === '') return Promise.reject(new TypeError('an entry needs a non-empty type'));
      const d: unknown = input.data;
      if (d === null || typeof d !== 'object' || Array.isArray(d)) return Promise.reject(new TypeError(`entry ${input.type}: data must be an object`));
      try {
        prepared.push({ type: input.type, data: canonicalJson(d) });
      } catch (err) {
        return Promise.reject(new TypeError(`entry ${input.type}: ${(err as Error).message}`));
      }
    }
    return this.#enqueue(prepared);
  }

  #unavailable(): JournalUnavailableError {
    const failure = this.#failure;
    return new JournalUnavailableError(
      `The journal cannot be written (${failure?.message ?? 'unknown error'}): charging is stopped and resumes by itself once a write succeeds again.`,
      writeProblem(failure),
      { cause: failure },
    );
  }

  #enqueue(prepared: readonly { type: string; data: string }[]): Promise<JournalEntry[]> {
    const entries: JournalEntry[] = [];
    const lines: string[] = [];
    for (const p of prepared) {
      const at = this.#clock.now();
      const seq = this.#nextSeq++;
      const prev = this.#headHash;
      const hash = entryHash(seq, prev, at, p.type, p.data);
      this.#headHash = hash;
      // The entry's data is parsed back from its canonical text, so what the view sees now
      // is exactly what replay will see after a restart.
      entries.push({ seq, prev, hash, at, type: p.type, data: JSON.parse(p.data) as JsonObject });
      lines.push(entryLine(seq, prev, hash, at, p.type, p.data) + '\n');
    }
    return new Promise<JournalEntry[]>((resolve, reject) => {
      this.#queue.push({ entries, lines, positions: [], resolve, reject });
      this.#flushing ??= this.#flushLoop();
    });
  }

  async #flushLoop(): Promise<void> {
    try {
      // Let every append of the current tick queue up first: they share the first fsync.
      await Promise.resolve();
      while (this.#queue.length > 0 && !this.#failure) {
        // Group commit: whoever queued while the previous write+fsync ran shares this one.
        const group = this.#queue;
        this.#queue = [];
        try {
          await this.#commit(group);
        } catch (err) {
          this.#failure = err instanceof Error ? err : new Error(String(err));
          // Nothing of this group or of the queue was acknowledged: their seqs are free again,
          // and the chain goes on from the last durable entry.
          this.#nextSeq = this.#durableSeq + 1;
          this.#headHash = this.#durableHash;
          const refusal = this.#unavailable();
          for (const p of group) p.reject(refusal);
          for (const p of this.#queue) p.reject(refusal);
          this.#queue = [];
          this.#log?.error('journal: a write failed; charging stops until a write succeeds again', { error: this.#failure });
          this.#onHealthChange?.();
          // What reached the disk is unknown after a failed write or fsync: cut it away at
          // once if the disk lets us, and probe for writing with backoff.
          void this.#repair(false).catch(() => undefined);
          this.#probeDelay = PROBE_FIRST_MS;
          this.#scheduleProbe();
          return;
        }
        this.#toApply.push(...group);
        this.#applying ??= this.#applyLoop();
      }
    } finally {
      this.#flushing = null;
    }
  }

  /**
   * Hands durable groups to onDurable, every group that became durable while the previous
   * call ran in one call: applying (a working-set transaction) costs about the same for one
   * entry as for many, so with many appends at once a call per group commit made each append
   * wait behind every earlier group's (issue 9's benchmark: 300 ms an append at 64 tills).
   */
  async #applyLoop(): Promise<void> {
    try {
      // Never finishes before its caller has stored it in #applying (an onDurable that
      // throws at once would otherwise leave a finished loop there, and nothing applied again).
      await Promise.resolve();
      while (this.#toApply.length > 0) {
        const groups = this.#toApply;
        this.#toApply = [];
        try {
          await this.#onDurable?.(
            groups.flatMap((p) => p.entries),
            groups.flatMap((p) => p.positions),
          );
        } catch (err) {
          for (const p of groups) p.reject(err);
          continue;
        }
        for (const p of groups) p.resolve(p.entries);
      }
    } finally {
      this.#applying = null;
    }
  }

  /**
   * Cuts away what failed commits left, then (probe) writes and fsyncs a scratch file: when
   * that works, writing works again and the failure is over. Throws while it does not.
   */
  #repair(probe: boolean): Promise<void> {
    const run = this.#repairing.then(async () => {
      if (!this.#failure || this.#closed) return;
      await this.#fh?.close().catch(() => undefined);
      this.#fh = null;
      for (const [name, size] of [...this.#cuts]) {
        const fh = await this.#fs.open(join(this.#dir, name), 'r+');
        try {
          await fh.truncate(size);
          await fh.datasync();
        } finally {
          await fh.close().catch(() => undefined);
        }
        this.#cuts.delete(name);
      }
      if (!probe) return;
      const path = join(this.#dir, PROBE_FILE);
      const fh = await this.#fs.open(path, 'w', 0o600);
      try {
        await writeAll(fh, Buffer.alloc(512, 0x0a));
        await fh.datasync();
      } finally {
        await fh.close().catch(() => undefined);
      }
      await this.#fs.unlink(path).catch(() => undefined);
      const was = this.#failure;
      this.#failure = null;
      this.#probeDelay = PROBE_FIRST_MS;
      if (this.#probeTimer !== null) this.#timers.clear(this.#probeTimer);
      this.#probeTimer = null;
      this.#log?.info('journal: writing works again; charging resumes', { after: was?.message });
      this.#onHealthChange?.();
    });
    this.#repairing = run.catch(() => undefined);
    return run;
  }

  #scheduleProbe(): void {
    if (this.#probeTimer !== null || this.#closed || !this.#failure) return;
    const delay = this.#probeDelay;
    this.#probeDelay = Math.min(delay * 2, PROBE_MAX_MS);
    this.#probeTimer = this.#timers.set(() => {
      this.#probeTimer = null;
      return this.#repair(true).catch(() => this.#scheduleProbe());
    }, delay);
  }

  async startNewChain(data: Readonly<Record<string, unknown>>): Promise<JournalEntry> {
    if (this.#closed) throw new JournalUnavailableError('The journal is closed.', 'journal_closed');
    const broken = this.#corruption;
    if (!broken) throw new CoreError('conflict', 'The journal is not broken: there is no chain to restart.', { reason: 'journal_not_broken' });
    if (this.#restarting) throw new CoreError('conflict', 'A new chain is being started already.', { reason: 'chain_restarting' });
    if (typeof data.by !== 'string' || data.by.trim() === '') throw new TypeError('a new chain is an operator action: data.by must name who started it');
    this.#restarting = true;
    const before = { chain: this.#chain, day: this.#day };
    try {
      if (this.#failure) await this.#repair(true).catch(() => Promise.reject(this.#unavailable()));
      const segments = await listSegments(this.#dir, this.#fs);
      const tail = await readBrokenTail(this.#fs, this.#dir, segments, broken);
      const goodHead = { seq: this.#durableSeq, hash: this.#durableHash };
      const full = {
        ...data,
        broken: { seq: broken.seq, segment: broken.segment, line: broken.line, reason: broken.reason, hash: tail.hash, line_sha256: tail.lineSha256 },
        good_head: goodHead,
      };
      // New files for the new chain: the old segments stay exactly as they were found.
      this.#chain = Math.max(1, ...segments.map(segmentChain)) + 1;
      this.#day = null;
      this.#nextSeq = Math.max(tail.maxSeq, goodHead.seq) + 1;
      this.#headHash = goodHead.hash;
      const [entry] = await this.#enqueue([{ type: CHAIN_STARTED, data: canonicalJson(full) }]);
      this.#corruption = null;
      this.#acknowledged.push({
        broken,
        brokenHash: tail.hash,
        brokenLineSha256: tail.lineSha256,
        goodHead,
        restart: { seq: entry!.seq, hash: entry!.hash, segment: segmentName(utcDay(entry!.at), this.#chain), at: entry!.at, by: data.by },
        untrusted: tail.untrusted,
      });
      this.#log?.warn('journal: a new chain was started over a broken entry; the old segments are kept as they are', { broken: { ...broken }, goodHead, by: data.by });
      return entry!;
    } catch (err) {
      if (this.#corruption) {
        this.#chain = before.chain;
        this.#day = before.day;
        this.#nextSeq = this.#durableSeq + 1;
        this.#headHash = this.#durableHash;
      }
      throw err;
    } finally {
      this.#restarting = false;
    }
  }

  async #commit(group: Pending[]): Promise<void> {
    // A failed commit takes back all it wrote, even runs already fsync'd: its callers are
    // told it failed, so none of it may stay in the chain.
    const before = { durable: new Map(this.#durable), seq: this.#durableSeq, hash: this.#durableHash };
    const touched = new Set<string>();
    try {
      await this.#commitRuns(group, touched);
    } catch (err) {
      for (const name of touched) {
        const size = before.durable.get(name) ?? 0;
        this.#cuts.set(name, Math.min(this.#cuts.get(name) ?? size, size));
        if (before.durable.has(name)) {
          this.#durable.set(name, size);
        } else {
          // A segment this commit created counts as new again: its name is fsync'd anew.
          this.#durable.delete(name);
          const at = this.#segments.indexOf(name);
          if (at !== -1) this.#segments.splice(at, 1);
        }
      }
      this.#durableSeq = before.seq;
      this.#durableHash = before.hash;
      throw err;
    }
  }

  async #commitRuns(group: Pending[], touched: Set<string>): Promise<void> {
    // Runs of consecutive entries per segment. A segment never goes back to an earlier day,
    // even if the clock does: the files stay in chain order.
    const runs: { day: string; lines: string[]; positions: EntryPosition[]; lastSeq: number; lastHash: string }[] = [];
    for (const p of group) {
      p.positions = [];
      p.entries.forEach((e, i) => {
        const entryDay = utcDay(e.at);
        const previous = runs.at(-1)?.day ?? this.#day;
        const day = previous !== null && previous > entryDay ? previous : entryDay;
        let run = runs.at(-1);
        if (run?.day !== day) {
          run = { day, lines: [], positions: [], lastSeq: e.seq, lastHash: e.hash };
          runs.push(run);
        }
        run.lines.push(p.lines[i]!);
        const position = { segment: segmentName(day, this.#chain), offset: 0, length: Buffer.byteLength(p.lines[i]!, 'utf8') };
        run.positions.push(position);
        p.positions.push(position);
        run.lastSeq = e.seq;
        run.lastHash = e.hash;
      });
    }
    for (const run of runs) {
      const name = segmentName(run.day, this.#chain);
      if (this.#day !== run.day || this.#fh === null) {
        await this.#fh?.close();
        this.#fh = null;
        const isNew = !this.#durable.has(name);
        this.#fh = await this.#fs.open(join(this.#dir, name), this.#fs.dsyncAppends ? 'a-dsync' : 'a', 0o600);
        touched.add(name);
        if (isNew) {
          await fsyncDir(this.#dir, this.#fs);
          this.#durable.set(name, 0);
          if (!this.#segments.includes(name)) this.#segments.push(name);
        }
        this.#day = run.day;
      }
      const buf = Buffer.from(run.lines.join(''), 'utf8');
      touched.add(name);
      let offset = this.#durable.get(name) ?? 0;
      for (const position of run.positions) {
        position.offset = offset;
        offset += position.length;
      }
      await writeAll(this.#fh, buf);
      // Opened 'a-dsync', the write returned once its bytes were on disk.
      if (!this.#fs.dsyncAppends) await this.#fh.datasync();
      this.#durable.set(name, (this.#durable.get(name) ?? 0) + buf.length);
      this.#durableSeq = run.lastSeq;
      this.#durableHash = run.lastHash;
      this.stats.committedEntries += run.lines.length;
    }
    this.stats.commits++;
  }

  async verify(): Promise<VerifyResult> {
    let last: VerifyProgress | undefined;
    for await (const progress of this.verifySegments()) last = progress;
    return (last as Extract<VerifyProgress, { done: true }>).result;
  }

  async *verifySegments(): AsyncGenerator<VerifyProgress> {
    // The scan waits at each segment's end until its progress is taken: it runs ahead by
    // one segment at most, and a caller that stops early stops the reading too.
    const ready: VerifyProgress[] = [];
    let wake: (() => void) | null = null;
    let resume: (() => void) | null = null;
    let stopped = false;
    const signal = () => {
      const w = wake;
      wake = null;
      w?.();
    };
    const onSegment = async (segment: string, entries: number): Promise<void> => {
      if (stopped) throw new VerifyStopped();
      ready.push({ done: false, segment, entries });
      signal();
      await new Promise<void>((resolve) => (resume = resolve));
      if (stopped) throw new VerifyStopped();
    };
    let failure: { err: unknown } | null = null;
    const running = this.#verifyScan(onSegment).then(
      (result) => {
        ready.push({ done: true, result });
        signal();
      },
      (err: unknown) => {
        if (!(err instanceof VerifyStopped)) failure = { err };
        ready.push({ done: true, result: { ok: true, entries: 0 } });
        signal();
      },
    );
    try {
      for (;;) {
        if (ready.length === 0) await new Promise<void>((resolve) => (wake = resolve));
        const next = ready.shift()!;
        if (next.done) {
          if (failure) throw (failure as { err: unknown }).err;
          yield next;
          return;
        }
        yield next;
        const r = resume as (() => void) | null;
        resume = null;
        r?.();
      }
    } finally {
      stopped = true;
      (resume as (() => void) | null)?.();
      await running;
    }
  }

  async #verifyScan(onSegment: (segment: string, entries: number) => Promise<void>): Promise<VerifyResult> {
    // A broken log writes nothing more: read every file as it is.
    const acknowledgedBreaks = (result: ScanResult) => (result.acknowledged.length > 0 ? { acknowledgedBreaks: result.acknowledged } : {});
    if (this.#corruption) {
      const result = await scan(this.#dir, await listSegments(this.#dir, this.#fs), { repairTornTail: false, hashOnly: true, onSegment, fs: this.#fs });
      return result.broken ? { ok: false, firstBroken: result.broken, ...acknowledgedBreaks(result) } : { ok: true, entries: result.count, ...acknowledgedBreaks(result) };
    }
    // A snapshot of what is committed now; appends carry on while the files are read.
    const limits = new Map(this.#durable);
    const expectedSeq = this.#durableSeq;
    const expectedHash = this.#durableHash;
    const segments = [...this.#segments];
    const result = await scan(this.#dir, segments, { repairTornTail: false, hashOnly: true, limits, onSegment, fs: this.#fs });
    if (result.broken) return { ok: false, firstBroken: result.broken, ...acknowledgedBreaks(result) };
    if (result.lastSeq !== expectedSeq || result.lastHash !== expectedHash) {
      const segment = segments.at(-1) ?? segmentName(utcDay(this.#clock.now()));
      return {
        ok: false,
        firstBroken: { segment, line: 0, seq: result.lastSeq + 1, reason: `the journal ends at seq ${result.lastSeq}, but ${expectedSeq} entries were committed` },
        ...acknowledgedBreaks(result),
      };
    }
    return { ok: true, entries: result.count, ...acknowledgedBreaks(result) };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#probeTimer !== null) this.#timers.clear(this.#probeTimer);
    this.#probeTimer = null;
    while (this.#flushing) await this.#flushing;
    await this.#repairing;
    while (this.#applying) await this.#applying;
    await this.#fh?.close().catch(() => undefined);
    this.#fh = null;
    await this.#lock.release();
  }
}

/**
 * Opens (creating if needed) the journal in `dir`: takes the single-writer lock, reads
 * every segment in order, hands valid entries to `replay`, cuts away a torn last line and
 * reports it. A broken chain does not stop the open: the log comes up read-only with
 * `corruption` naming the first broken entry, so the app can still show what it has, until
 * startNewChain continues in new segment files. Over a break a later chain acknowledges,
 * replay goes on in that chain: the broken chain's entries from the break on are read (and
 * counted in `acknowledgedBreaks`) but never replayed, since nothing vouches for them.
 */
export async function openLog(options: OpenLogOptions): Promise<JournalLog> {
  const { dir, clock } = options;
  await mkdir(dir, { recursive: true, mode: 0o700 });
  // The journal holds business data: this user only, even if the dir existed before.
  const mode = (await stat(dir)).mode & 0o777;
  if ((mode & 0o077) !== 0 && process.platform !== 'win32') await chmod(dir, mode & 0o700);
  const lock = await acquireDirLock(dir);
  try {
    const segments = await listSegments(dir, options.fs);
    const from = (await options.resume?.(segments)) ?? undefined;
    const batchSize = Math.max(1, options.replayBatchSize ?? 4096);
    let batch: JournalEntry[] = [];
    let positions: EntryPosition[] = [];
    // One batch is applied while the next is read: the reads' waits overlap the view's work.
    let applying: Promise<void> = Promise.resolve();
    const replay = options.replay;
    const result = await scan(dir, segments, {
      repairTornTail: true,
      fs: options.fs,
      from,
      onEntry: replay
        ? async (entry, position) => {
            batch.push(entry);
            positions.push(position);
            if (batch.length >= batchSize) {
              const full = batch;
              const fullPositions = positions;
              batch = [];
              positions = [];
              await applying;
              applying = Promise.resolve(replay(full, fullPositions));
              // Awaited before the next batch or after the scan; until then, not "unhandled".
              applying.catch(() => undefined);
            }
          }
        : undefined,
    });
    await applying;
    if (replay && batch.length > 0) await replay(batch, positions);
    if (result.torn) {
      options.log?.warn('journal: cut away a torn last line left by an interrupted write', { ...result.torn });
    }
    for (const b of result.acknowledged) {
      options.log?.warn('journal: a break acknowledged by a new chain; the old entries from it on are not replayed', { broken: { ...b.broken }, restart: { ...b.restart } });
    }
    if (result.broken) {
      options.log?.error('journal: the chain is broken; nothing is written until a manager starts a new chain', { ...result.broken });
    }
    return new SegmentedLog(dir, clock, lock, segments, result, options);
  } catch (err) {
    await lock.release();
    throw err;
  }
}
