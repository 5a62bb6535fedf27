import { chmod, mkdir, open, readdir, stat, truncate } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock } from '../../shared/clock.ts';
import type { Logger } from '../log.ts';
import { canonicalJson, entryHash, entryLine, GENESIS_PREV } from './canonical.ts';
import type { JsonObject } from './canonical.ts';
import { acquireDirLock } from './lock.ts';
import type { DirLock } from './lock.ts';

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

export type VerifyResult = { ok: true; entries: number } | { ok: false; firstBroken: BrokenEntry };

export interface LogStats {
  /** Group commits done (one write + one fsync per segment touched). */
  commits: number;
  /** Entries written by those commits; entries/commits is the mean group size. */
  committedEntries: number;
}

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
}

export interface OpenLogOptions {
  dir: string;
  clock: Clock;
  log?: Logger;
  /** Receives every valid entry at open, in order, in batches; awaited before reading on. */
  replay?: (entries: JournalEntry[], positions: EntryPosition[]) => Promise<void> | void;
  replayBatchSize?: number;
  /**
   * Called once per group commit, in seq order, after the bytes are fsync'd; the appends of
   * that group resolve only after it settles. Calls never overlap.
   */
  onDurable?: (entries: JournalEntry[], positions: EntryPosition[]) => Promise<void> | void;
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
  /** Set when a write or fsync failed: from then on nothing is appended. */
  readonly failure: Error | null;
  readonly stats: LogStats;
  /** Entries read and checked at open (after the resume point, if there was one). */
  readonly openedEntries: number;
  /**
   * Verify, one segment at a time: yields after each segment is read, so a caller can show
   * progress or stop; holds one read chunk, never the history. The last item has `done`.
   */
  verifySegments(): AsyncGenerator<VerifyProgress>;
  close(): Promise<void>;
}

export type VerifyProgress =
  | { done: false; segment: string; entries: number }
  | { done: true; result: VerifyResult };

/** Appends are refused: the chain on disk is broken, or a write failed, or the log is closed. */
export class JournalUnavailableError extends Error {
  override name = 'JournalUnavailableError';
}

const SEGMENT_NAME = /^journal-(\d{4}-\d{2}-\d{2})\.jsonl$/;
const HEX64 = /^[0-9a-f]{64}$/;
const READ_CHUNK = 1 << 20;

class VerifyStopped extends Error {}

export function segmentName(day: string): string {
  return `journal-${day}.jsonl`;
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
  const seqText = String(expectedSeq);
  let i = 0;
  const expect = (s: string) => {
    if (!text.startsWith(s, i)) return false;
    i += s.length;
    return true;
  };
  if (!expect('{"seq":') || !expect(seqText) || !expect(',"prev":"') || !expect(expectedPrev) || !expect('","hash":"')) return false;
  const recorded = text.slice(i, i + 64);
  i += 64;
  if (!expect('","at":')) return false;
  const typeAt = text.indexOf(',"type":"', i);
  if (typeAt < 0) return false;
  const atText = text.slice(i, typeAt);
  const at = Number(atText);
  if (!Number.isFinite(at) || JSON.stringify(at) !== atText) return false;
  i = typeAt + ',"type":'.length;
  const dataAt = text.indexOf('","data":{', i);
  if (dataAt < 0 || !text.endsWith('}')) return false;
  const typeText = text.slice(i, dataAt + 1);
  let type: unknown;
  try {
    type = JSON.parse(typeText);
  } catch {
    return false;
  }
  if (typeof type !== 'string' || type === '' || JSON.stringify(type) !== typeText) return false;
  const data = text.slice(dataAt + '","data":'.length, -1);
  return entryHash(expectedSeq, expectedPrev, at, type, data) === recorded;
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
async function* readLines(path: string, limit?: number): AsyncGenerator<RawLine> {
  const fh = await open(path, 'r');
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

async function listSegments(dir: string): Promise<string[]> {
  const names = (await readdir(dir)).filter((n) => SEGMENT_NAME.test(n));
  // YYYY-MM-DD sorts as text in date order.
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
}

interface ScanOptions {
  /** Cut an unterminated last line away (open); verify only reports it. */
  repairTornTail: boolean;
  /** Read at most this many bytes of each segment (verify); segments absent here are skipped. */
  limits?: ReadonlyMap<string, number>;
  onEntry?: (entry: JournalEntry, position: EntryPosition) => Promise<void> | void;
  /** Start at this segment instead of the first (open from a checkpoint). */
  from?: ResumePoint;
  /** Lines need not be parsed (verify): those the writer wrote pass lineIsIntact. */
  hashOnly?: boolean;
  /** Called after each whole segment is read: verify's progress. */
  onSegment?: (segment: string, entries: number) => Promise<void> | void;
}

async function scan(dir: string, segments: readonly string[], options: ScanOptions): Promise<ScanResult> {
  let expectedSeq = options.from?.seq ?? 1;
  let prev = options.from?.prev ?? GENESIS_PREV;
  let count = 0;
  const sizes = new Map<string, number>();
  const present: { name: string; size: number; committed: number | undefined }[] = [];
  const firstRead = options.from?.index ?? 0;
  for (const [i, name] of segments.entries()) {
    const limit = options.limits?.get(name);
    if (options.limits && limit === undefined) continue;
    const size = options.from?.sizes?.[i] ?? (await stat(join(dir, name))).size;
    // Vouched for by the checkpoint: its bytes count as committed without being read.
    if (i < firstRead) sizes.set(name, size);
    else present.push({ name, size: limit === undefined ? size : Math.min(size, limit), committed: limit });
  }
  // A torn line can only be the last bytes written: in the last segment that has any.
  let lastWritten = -1;
  present.forEach((p, i) => {
    if (p.size > 0) lastWritten = i;
  });

  for (let i = 0; i < present.length; i++) {
    const { name, size, committed } = present[i]!;
    let validBytes = 0;
    let lines = 0;
    for await (const raw of readLines(join(dir, name), size)) {
      lines = raw.line;
      if (!raw.terminated) {
        if (i === lastWritten && options.repairTornTail) {
          const torn = { segment: name, line: raw.line, bytes: size - raw.offset };
          await truncate(join(dir, name), raw.offset);
          const fh = await open(join(dir, name), 'r+');
          try {
            await fh.datasync();
          } finally {
            await fh.close();
          }
          sizes.set(name, raw.offset);
          return { lastSeq: expectedSeq - 1, lastHash: prev, sizes, torn, broken: null, count };
        }
        const reason = i === lastWritten ? 'last line is unterminated (torn write)' : 'unterminated line before the end of the journal';
        return { lastSeq: expectedSeq - 1, lastHash: prev, sizes, torn: null, count, broken: { segment: name, line: raw.line, seq: expectedSeq, reason } };
      }
      if (options.hashOnly && !options.onEntry && lineIsIntact(raw.text, expectedSeq, prev)) {
        const length = raw.bytes + 1;
        expectedSeq++;
        // The hash is the 64 characters after the prev: lineIsIntact matched them.
        const at = 7 + String(expectedSeq - 1).length + 9 + 64 + 10;
        prev = raw.text.slice(at, at + 64);
        count++;
        validBytes = raw.offset + length;
        continue;
      }
      const checked = checkLine(raw.text, expectedSeq, prev);
      if (!checked.ok) {
        return {
          lastSeq: expectedSeq - 1, lastHash: prev, sizes, torn: null, count,
          broken: { segment: name, line: raw.line, seq: expectedSeq, reason: checked.reason },
        };
      }
      const length = raw.bytes + 1;
      await options.onEntry?.(checked.entry, { segment: name, offset: raw.offset, length });
      expectedSeq++;
      prev = checked.entry.hash;
      count++;
      validBytes = raw.offset + length;
    }
    if (committed !== undefined && size < committed) {
      return {
        lastSeq: expectedSeq - 1, lastHash: prev, sizes, torn: null, count,
        broken: { segment: name, line: lines + 1, seq: expectedSeq, reason: `segment is ${size} bytes, but ${committed} were committed to it` },
      };
    }
    sizes.set(name, validBytes);
    await options.onSegment?.(name, count);
  }
  return { lastSeq: expectedSeq - 1, lastHash: prev, sizes, torn: null, broken: null, count };
}

interface Pending {
  entries: JournalEntry[];
  lines: string[];
  positions: EntryPosition[];
  resolve: (entries: JournalEntry[]) => void;
  reject: (err: unknown) => void;
}

export async function fsyncDir(dir: string): Promise<void> {
  // A new segment's name must be durable too, or a power cut can lose the whole file.
  // Windows cannot open a directory for fsync; NTFS journals the name itself.
  if (process.platform === 'win32') return;
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

async function writeAll(fh: FileHandle, buf: Buffer): Promise<void> {
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
  #fh: FileHandle | null = null;
  #queue: Pending[] = [];
  #flushing: Promise<void> | null = null;
  #applied: Promise<void> = Promise.resolve();
  #closed = false;
  #failure: Error | null = null;
  readonly tornTail: TornTail | null;
  readonly corruption: BrokenEntry | null;
  readonly stats: LogStats = { commits: 0, committedEntries: 0 };
  readonly openedEntries: number;

  constructor(dir: string, clock: Clock, lock: DirLock, segments: string[], result: ScanResult, onDurable: OpenLogOptions['onDurable']) {
    this.#dir = dir;
    this.#clock = clock;
    this.#lock = lock;
    this.#onDurable = onDurable;
    this.#segments = segments;
    this.#durable = result.sizes;
    this.#durableSeq = result.lastSeq;
    this.#durableHash = result.lastHash;
    this.#nextSeq = result.lastSeq + 1;
    this.#headHash = result.lastHash;
    const last = segments.at(-1);
    this.#day = last === undefined ? null : SEGMENT_NAME.exec(last)![1]!;
    this.tornTail = result.torn;
    this.corruption = result.broken;
    this.openedEntries = result.count;
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
    if (this.#closed) return Promise.reject(new JournalUnavailableError('The journal is closed.'));
    if (this.corruption) {
      const c = this.corruption;
      return Promise.reject(new JournalUnavailableError(`The journal is corrupt at ${c.segment} line ${c.line} (seq ${c.seq}: ${c.reason}); nothing more is written until it is repaired.`));
    }
    if (this.#failure) return Promise.reject(new JournalUnavailableError(`A journal write failed (${this.#failure.message}); reopen the journal.`, { cause: this.#failure }));
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
          for (const p of group) p.reject(this.#failure);
          for (const p of this.#queue) p.reject(this.#failure);
          this.#queue = [];
          // What reached the disk is unknown after a failed fsync: close the file and make
          // the next open find the truth by reading it.
          await this.#fh?.close().catch(() => undefined);
          this.#fh = null;
          return;
        }
        const entries = group.flatMap((p) => p.entries);
        const positions = group.flatMap((p) => p.positions);
        const settled = this.#applied.then(() => this.#onDurable?.(entries, positions));
        this.#applied = settled.then(
          () => undefined,
          () => undefined,
        );
        settled.then(
          () => {
            for (const p of group) p.resolve(p.entries);
          },
          (err: unknown) => {
            for (const p of group) p.reject(err);
          },
        );
      }
    } finally {
      this.#flushing = null;
    }
  }

  async #commit(group: Pending[]): Promise<void> {
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
        const position = { segment: segmentName(day), offset: 0, length: Buffer.byteLength(p.lines[i]!, 'utf8') };
        run.positions.push(position);
        p.positions.push(position);
        run.lastSeq = e.seq;
        run.lastHash = e.hash;
      });
    }
    for (const run of runs) {
      const name = segmentName(run.day);
      if (this.#day !== run.day || this.#fh === null) {
        await this.#fh?.close();
        this.#fh = null;
        const isNew = !this.#durable.has(name);
        this.#fh = await open(join(this.#dir, name), 'a', 0o600);
        if (isNew) {
          await fsyncDir(this.#dir);
          this.#durable.set(name, 0);
          this.#segments.push(name);
        }
        this.#day = run.day;
      }
      const buf = Buffer.from(run.lines.join(''), 'utf8');
      let offset = this.#durable.get(name) ?? 0;
      for (const position of run.positions) {
        position.offset = offset;
        offset += position.length;
      }
      await writeAll(this.#fh, buf);
      await this.#fh.datasync();
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
    if (this.corruption) {
      const result = await scan(this.#dir, [...this.#segments], { repairTornTail: false, hashOnly: true, onSegment });
      return result.broken ? { ok: false, firstBroken: result.broken } : { ok: true, entries: result.count };
    }
    // A snapshot of what is committed now; appends carry on while the files are read.
    const limits = new Map(this.#durable);
    const expectedSeq = this.#durableSeq;
    const expectedHash = this.#durableHash;
    const segments = [...this.#segments];
    const result = await scan(this.#dir, segments, { repairTornTail: false, hashOnly: true, limits, onSegment });
    if (result.broken) return { ok: false, firstBroken: result.broken };
    if (result.lastSeq !== expectedSeq || result.lastHash !== expectedHash) {
      const segment = segments.at(-1) ?? segmentName(utcDay(this.#clock.now()));
      return {
        ok: false,
        firstBroken: { segment, line: 0, seq: result.lastSeq + 1, reason: `the journal ends at seq ${result.lastSeq}, but ${expectedSeq} entries were committed` },
      };
    }
    return { ok: true, entries: result.count };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    while (this.#flushing) await this.#flushing;
    await this.#applied;
    await this.#fh?.close().catch(() => undefined);
    this.#fh = null;
    await this.#lock.release();
  }
}

/**
 * Opens (creating if needed) the journal in `dir`: takes the single-writer lock, reads
 * every segment in order, hands valid entries to `replay`, cuts away a torn last line and
 * reports it. A broken chain does not stop the open: the log comes up read-only with
 * `corruption` naming the first broken entry, so the app can still show what it has.
 */
export async function openLog(options: OpenLogOptions): Promise<JournalLog> {
  const { dir, clock } = options;
  await mkdir(dir, { recursive: true, mode: 0o700 });
  // The journal holds business data: this user only, even if the dir existed before.
  const mode = (await stat(dir)).mode & 0o777;
  if ((mode & 0o077) !== 0 && process.platform !== 'win32') await chmod(dir, mode & 0o700);
  const lock = await acquireDirLock(dir);
  try {
    const segments = await listSegments(dir);
    const from = (await options.resume?.(segments)) ?? undefined;
    const batchSize = Math.max(1, options.replayBatchSize ?? 4096);
    let batch: JournalEntry[] = [];
    let positions: EntryPosition[] = [];
    // One batch is applied while the next is read: the reads' waits overlap the view's work.
    let applying: Promise<void> = Promise.resolve();
    const replay = options.replay;
    const result = await scan(dir, segments, {
      repairTornTail: true,
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
    if (result.broken) {
      options.log?.error('journal: the chain is broken; the journal is read-only', { ...result.broken });
    }
    return new SegmentedLog(dir, clock, lock, segments, result, options.onDurable);
  } catch (err) {
    await lock.release();
    throw err;
  }
}
