/**
 * The checkpoint: the working set's state at one entry of the log (its seq and hash), the
 * summaries of the sealed segments before it, and the projections' states. It lets an
 * open read only the segment it was taken in (and what came after) instead of all history.
 *
 * It is a cache, never the truth: written atomically (temp, fsync, rename, fsync dir), and
 * IGNORED — the journal is rebuilt from the log — when it does not match the log: a bad
 * format or version, other projections, a sealed segment missing or of another size, or
 * (found while reading its segment again at open) another hash at its seq or a log that
 * ends before it.
 *
 * Across a new chain (a manager's Start a new chain over a break) it records the breaks
 * acknowledged up to its head and the old tail's files: those files are vouched for by size
 * only (never trusted, never replayed), and each chain start before the resume point is
 * checked again against the break it names. It is never written while the chain is broken
 * or writing fails (store.ts), and every file operation goes through the log's JournalFs.
 */
import { join } from 'node:path';
import { canonicalJson, GENESIS_PREV } from './canonical.ts';
import { checkChainStart, firstLineOf, nodeJournalFs, readWholeFile, writeFileAtomic } from './log.ts';
import type { AcknowledgedBreak, ShiftRecord } from './port.ts';
import type { JournalFile, JournalFs, PendingBreak, ResumePoint } from './log.ts';
import type { SegmentSummary } from './segment-index.ts';
import type { SaleRow, WebhookRow } from './fold.ts';
import { PackedRow, packRow } from './packed.ts';

export const CHECKPOINT_FILE = 'checkpoint.json';
// 2: acknowledged breaks and old-tail files; a version-1 file is ignored (rebuilt once).
// Written in lines since issue 28 (checkpointChunks), the same members: a version-2 file of
// one line, as written before, is still read (whole, once).
export const CHECKPOINT_VERSION = 2;

/** A checkpoint's rows: as read (R = SaleRow), or as held and written, some packed (HeldRow). */
export interface CheckpointFile<S, R = SaleRow<S>> {
  version: number;
  /** The last entry folded into this state, and the segment it is in. */
  seq: number;
  hash: string;
  segment: string;
  /** Every segment before `segment` that holds trusted entries, sealed, in order. */
  segments: SegmentSummary[];
  /** Breaks acknowledged by chains started at or before `seq`, oldest first. */
  acknowledgedBreaks: AcknowledgedBreak[];
  /**
   * The old tails' files (from each acknowledged break on) with their sizes: kept for
   * forensics, never written again, so a size that changed means the checkpoint is void.
   */
  tails: { name: string; bytes: number }[];
  sales: R[];
  shifts: ShiftRecord[];
  webhooks: WebhookRow[];
  projections: Record<string, unknown>;
  reducerFailures: number;
}

/**
 * Temp file, fsync, rename over the old one, fsync the dir: a crash at any point leaves
 * the old checkpoint or the new one, whole, never a mix (and a stray temp file is ignored).
 * Written as it is made (checkpointChunks): the whole text is never held at once.
 */
/** A row as the working set holds it: a packed row writes itself as the row (PackedRow.toJSON). */
export type HeldRow<S> = SaleRow<S> | PackedRow<S>;

export async function writeCheckpoint<S>(dir: string, file: CheckpointFile<S, HeldRow<S>>, fs: JournalFs = nodeJournalFs, beforeRename?: () => Promise<void>): Promise<void> {
  await writeFileAtomic(join(dir, CHECKPOINT_FILE), checkpointChunks(file), fs, { beforeRename, syncDir: dir });
}

/** Rows serialized between two turns of the event loop. */
const ROWS_PER_TURN = 500;
/** Rows whose record was found JSON-safe: rows are replaced on every change, never changed in place. */
const CHECKED = new WeakSet<object>();

/** The lists kept one item a line, in the order they are written. */
const LISTS = ['sales', 'shifts', 'webhooks'] as const;
/** What ends the header line (the sales list opens), and each list's closing line. */
const SALES_OPEN = ',"sales":[';
const LIST_CLOSE = ['],"shifts":[', '],"webhooks":[', ']}'] as const;
/** How a checkpoint of this layout starts (the header's first member); an older one starts `{"sales":[`. */
const LINES_START = '{"version":';

/**
 * The checkpoint as JSON text in chunks, the rows a few hundred at a time with a turn of the
 * event loop between: a working set of ten thousand sales took the core's loop for most of a
 * second in one piece (issue 9's benchmark), every few thousand entries, while every till
 * waited; the chunks are also encoded and written one at a time. Each row's record is checked
 * once to survive JSON unchanged (no NaN, Infinity, Date or Map: canonicalJson throws), and not
 * again for a row already checked. The rows are the frozen ones of one moment (store.ts
 * captures them), so serializing them later is safe.
 *
 * The text is one JSON object laid out in lines, so it is read back a line at a time
 * (readCheckpoint) and never as one string: the header's members first (version first), then
 * each list's items one a line, every item but a list's last followed by a comma:
 *
 *     {"version":2,"seq":…,"reducerFailures":0,"sales":[
 *     {sale row},
 *     {sale row}
 *     ],"shifts":[
 *     ],"webhooks":[
 *     {webhook row}
 *     ]}
 *
 * JSON.stringify writes a newline inside a string as `\n`, so a line's end is never in an item.
 */
export async function* checkpointChunks<S>(file: CheckpointFile<S, HeldRow<S>>): AsyncGenerator<string> {
  const { sales, shifts, webhooks, version, ...rest } = file;
  canonicalJson(rest.projections);
  // The version first, so a reader knows the layout from the first bytes; the header always
  // has members, so its text ends with `}`.
  yield `${JSON.stringify({ version, ...rest }).slice(0, -1)}${SALES_OPEN}\n`;
  const lists: Record<(typeof LISTS)[number], readonly object[]> = { sales, shifts, webhooks };
  for (const [k, name] of LISTS.entries()) {
    const items = lists[name];
    for (let i = 0; i < items.length; i += ROWS_PER_TURN) {
      if (i > 0) await new Promise<void>((resolve) => setImmediate(resolve));
      const lines: string[] = [];
      const end = Math.min(items.length, i + ROWS_PER_TURN);
      for (let j = i; j < end; j++) {
        const item = items[j]!;
        // A packed row is JSON that gives it back exactly (packed.ts): nothing to check.
        if (name === 'sales' && !(item instanceof PackedRow) && !CHECKED.has(item)) {
          canonicalJson((item as SaleRow<S>).record);
          CHECKED.add(item);
        }
        lines.push(`${JSON.stringify(item)}${j < items.length - 1 ? ',' : ''}\n`);
      }
      yield lines.join('');
    }
    yield `${LIST_CLOSE[k]}\n`;
  }
}

/** The checkpoint's text in the chunks it is written in. */
export async function checkpointParts<S>(file: CheckpointFile<S, HeldRow<S>>): Promise<string[]> {
  const parts: string[] = [];
  for await (const part of checkpointChunks(file)) parts.push(part);
  return parts;
}

/** The checkpoint's whole text (checkpointParts joined). */
export async function checkpointText<S>(file: CheckpointFile<S, HeldRow<S>>): Promise<string> {
  return (await checkpointParts(file)).join('');
}

/** The sizes of the old tails' files the acknowledged breaks name, as they are now. */
export async function tailsOf(dir: string, breaks: readonly AcknowledgedBreak[], fs: JournalFs = nodeJournalFs): Promise<{ name: string; bytes: number }[]> {
  const names = [...new Set(breaks.flatMap((b) => b.untrusted.segments))].sort();
  const out: { name: string; bytes: number }[] = [];
  for (const name of names) out.push({ name, bytes: (await fs.stat(join(dir, name))).size });
  return out;
}

export type CheckpointRead<S, R = SaleRow<S>> = { ok: true; file: CheckpointFile<S, R> } | { ok: false; reason: string };

/** Strings this short are one copy already: JSON.parse internalizes them (V8). */
const SHORT_STRING = 10;

/**
 * A row read back from a checkpoint (JSON) holds a copy of each value wherever it appears: the
 * record held one pix_id in five places, one EMV text in two, and a payment both as reported
 * and as counted, where the row the fold built held each once (issue 28: about 300 bytes more a
 * sale after a start). Within one row, equal strings become one, and so do equal objects in
 * lists (compared by their JSON, which is what the checkpoint kept of them). Changes no value.
 * Done as each row is read, so a start never holds the copies of all rows at once (about 100 MB
 * with 100,000 sales). Not frozen: the view freezes the rows it keeps.
 */
function shareWithin<T>(row: T): T {
  const strings = new Map<string, string>();
  const listed = new Map<string, object>();
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      if (v.length <= SHORT_STRING) return v;
      const held = strings.get(v);
      if (held !== undefined) return held;
      strings.set(v, v);
      return v;
    }
    if (v === null || typeof v !== 'object' || Object.isFrozen(v)) return v;
    const list = Array.isArray(v);
    const o = v as Record<string, unknown>;
    for (const key of Object.keys(o)) {
      let next = walk(o[key]);
      if (list && next !== null && typeof next === 'object') {
        const json = JSON.stringify(next);
        const held = listed.get(json);
        if (held === undefined) listed.set(json, next);
        else next = held;
      }
      // Always set for a string: two equal strings are === whichever copy each is, so a
      // comparison would keep every copy (and did: the EMV text, the ids, twice a row).
      if (next !== o[key] || typeof next === 'string') Reflect.set(o, key, next);
    }
    return v;
  };
  return walk(row) as T;
}

/** Bytes read at a time: a checkpoint is read in pieces this size, a line at a time. */
const READ_BYTES = 1 << 20;

/** The file's lines (without their newline), read READ_BYTES at a time; the last one even without a newline. */
async function* linesOf(fh: JournalFile, from: number): AsyncGenerator<string> {
  const size = (await fh.stat()).size;
  let position = from;
  // Each read gets a buffer of its own, so a line's start kept from the last one stays valid.
  let carry: Buffer[] = [];
  while (position < size) {
    const buf = Buffer.allocUnsafe(Math.min(READ_BYTES, size - position));
    const { bytesRead } = await fh.read(buf, 0, buf.length, position);
    if (bytesRead === 0) break;
    position += bytesRead;
    const chunk = buf.subarray(0, bytesRead);
    let start = 0;
    for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, nl);
      yield (carry.length > 0 ? Buffer.concat([...carry, piece]) : piece).toString('utf8');
      carry = [];
      start = nl + 1;
    }
    if (start < chunk.length) carry.push(chunk.subarray(start));
  }
  if (carry.length > 0) yield Buffer.concat(carry).toString('utf8');
}

type Parsed = { ok: true; raw: unknown } | { ok: false; reason: string };

/**
 * The checkpoint in checkpointChunks' layout, parsed a line at a time: a working set of
 * 100,000 sales is about 290 MB of text, and reading it as one buffer, one string and one
 * JSON.parse held all three at once at every start (issue 28). 'other layout': the file is
 * JSON in another layout (an older checkpoint: one line), read whole by the caller.
 */
/**
 * How a read hands on what it parses: `header`, once its header is parsed, may stop the read
 * (false: the checkpoint is not used, nothing more is read); `sale` gets each sale row as
 * parsed and says what the sales list keeps of it (nothing: undefined).
 */
interface ReadSink {
  header?: (raw: unknown) => Promise<boolean>;
  sale: (item: unknown) => unknown;
}

type Stopped = { ok: 'stopped' };

async function parseByLines(fh: JournalFile, sink: ReadSink): Promise<Parsed | Stopped | 'other layout'> {
  const start = Buffer.alloc(LINES_START.length);
  const { bytesRead } = await fh.read(start, 0, start.length, 0);
  if (start.subarray(0, bytesRead).toString('latin1') !== LINES_START) return 'other layout';
  const lines = linesOf(fh, 0);
  const first = await lines.next();
  if (first.done || !first.value.endsWith(SALES_OPEN)) return 'other layout';
  let header: unknown;
  try {
    header = JSON.parse(`${first.value.slice(0, -SALES_OPEN.length)}}`);
  } catch {
    return { ok: false, reason: 'is not valid JSON' };
  }
  if (sink.header && !(await sink.header(header))) return { ok: 'stopped' };
  const lists: Record<(typeof LISTS)[number], unknown[]> = { sales: [], shifts: [], webhooks: [] };
  let items = 0;
  let k = 0;
  let comma = false;
  let lineNo = 1;
  for await (const line of lines) {
    lineNo++;
    if (k === LISTS.length) return { ok: false, reason: `is not valid JSON (text after its end, line ${lineNo})` };
    const list = lists[LISTS[k]!];
    if (line === LIST_CLOSE[k]) {
      if (comma) return { ok: false, reason: `is not valid JSON (a comma before the end of its ${LISTS[k]} list, line ${lineNo})` };
      k++;
      items = 0;
      continue;
    }
    if (items > 0 && !comma) return { ok: false, reason: `is not valid JSON (no comma before line ${lineNo})` };
    comma = line.endsWith(',');
    let item: unknown;
    try {
      item = JSON.parse(comma ? line.slice(0, -1) : line);
    } catch {
      return { ok: false, reason: `is not valid JSON (line ${lineNo})` };
    }
    items++;
    const kept = k === 0 ? await sink.sale(item) : item;
    if (kept !== undefined) list.push(kept);
  }
  if (k < LISTS.length) return { ok: false, reason: 'is not valid JSON (it ends before its last list does)' };
  if (header === null || typeof header !== 'object' || Array.isArray(header)) return { ok: true, raw: header };
  return { ok: true, raw: { ...header, ...lists } };
}

async function parseCheckpoint(path: string, fs: JournalFs, sink: ReadSink): Promise<Parsed | Stopped | null> {
  let fh: JournalFile;
  try {
    fh = await fs.open(path, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    return { ok: false, reason: `cannot be read: ${(err as Error).message}` };
  }
  let parsed: Parsed | Stopped | 'other layout';
  try {
    parsed = await parseByLines(fh, sink);
  } catch (err) {
    if (err instanceof HeaderRefused) throw err;
    return { ok: false, reason: `cannot be read: ${(err as Error).message}` };
  } finally {
    await fh.close();
  }
  if (parsed !== 'other layout') return parsed;
  // An older checkpoint (or one written as one JSON text): read whole, once; the next
  // checkpoint is written in lines.
  let text: string;
  let raw: { sales?: unknown } | null;
  try {
    const buf = await readWholeFile(path, fs);
    if (buf === null) return null;
    text = buf.toString('utf8');
  } catch (err) {
    return { ok: false, reason: `cannot be read: ${(err as Error).message}` };
  }
  try {
    raw = JSON.parse(text) as { sales?: unknown } | null;
  } catch {
    return { ok: false, reason: 'is not valid JSON' };
  }
  if (sink.header && !(await sink.header(raw))) return { ok: 'stopped' };
  if (raw !== null && typeof raw === 'object' && Array.isArray(raw.sales)) {
    const kept: unknown[] = [];
    for (const item of raw.sales) {
      const k = await sink.sale(item);
      if (k !== undefined) kept.push(k);
    }
    raw.sales = kept;
  }
  return { ok: true, raw };
}

export async function readCheckpoint<S>(dir: string, fs: JournalFs = nodeJournalFs): Promise<CheckpointRead<S> | null> {
  const parsed = await parseCheckpoint(join(dir, CHECKPOINT_FILE), fs, { sale: shareWithin });
  if (parsed === null || parsed.ok !== true) return parsed as CheckpointRead<S> | null;
  const problem = headerProblem(parsed.raw, true);
  return problem === null ? { ok: true, file: parsed.raw as CheckpointFile<S> } : { ok: false, reason: problem };
}

/** What is wrong with a checkpoint's members (its lists too, if `lists`), or null. */
function headerProblem(raw: unknown, lists: boolean): string | null {
  const f = raw as Partial<CheckpointFile<unknown, unknown>> | null;
  if (f === null || typeof f !== 'object') return 'is not an object';
  if (f.version !== CHECKPOINT_VERSION) return `has version ${String(f.version)}, not ${CHECKPOINT_VERSION}`;
  if (!Number.isSafeInteger(f.seq) || (f.seq as number) < 1 || typeof f.hash !== 'string' || typeof f.segment !== 'string') return 'has no valid head';
  for (const field of ['segments', 'acknowledgedBreaks', 'tails', ...(lists ? (['sales', 'shifts', 'webhooks'] as const) : [])] as const) {
    if (!Array.isArray(f[field])) return `has no ${field} list`;
  }
  if (f.projections === null || typeof f.projections !== 'object' || Array.isArray(f.projections)) return 'has no projections';
  if (typeof f.reducerFailures !== 'number') return 'has no reducer failure count';
  return null;
}

/** A checkpoint's members but its sale rows (handed on as read: streamCheckpoint). */
export type CheckpointHeader<S> = Omit<CheckpointFile<S, never>, 'sales'>;

/**
 * What a start does with a checkpoint, read a row at a time: `begin` gets its members once
 * they are checked, before any row, and says whether the checkpoint is used (false: nothing
 * more is read); `sale` then gets each sale row, packed where it can be (packed.ts), with the
 * row as read (for its keys; it is dropped after). No start holds a checkpoint's rows as
 * objects all at once, nor a list of them (issue 28: 250 MB with 100,000 sales).
 */
export interface CheckpointSink<S> {
  begin(header: CheckpointHeader<S>): Promise<boolean>;
  sale(held: HeldRow<S>, row: SaleRow<S>): Promise<void>;
}

/**
 * readCheckpoint, the rows handed to `sink` as they are read. `begun`: whether `begin` took the
 * checkpoint before the read failed (what it was given is then not the whole checkpoint).
 * Null: there is none; 'unused': `begin` said no.
 */
export async function streamCheckpoint<S>(
  dir: string,
  fs: JournalFs,
  sink: CheckpointSink<S>,
): Promise<{ ok: true; header: CheckpointHeader<S> } | { ok: false; reason: string; begun: boolean } | { ok: 'unused' } | null> {
  let begun = false;
  let parsed: Parsed | Stopped | null;
  try {
    parsed = await parseCheckpoint(join(dir, CHECKPOINT_FILE), fs, {
      header: async (raw) => {
        const problem = headerProblem(raw, false);
        if (problem !== null) throw new HeaderRefused(problem);
        begun = await sink.begin(raw as CheckpointHeader<S>);
        return begun;
      },
      sale: async (item) => {
        if (item === null || typeof item !== 'object' || Array.isArray(item) || typeof (item as SaleRow<S>).sale_id !== 'string') throw new HeaderRefused('holds a sale row that is not one');
        const row = item as SaleRow<S>;
        await sink.sale(packRow(row) ?? shareWithin(row), row);
        return undefined;
      },
    });
  } catch (err) {
    if (err instanceof HeaderRefused) return { ok: false, reason: err.message, begun };
    throw err;
  }
  if (parsed === null) return null;
  if (parsed.ok === 'stopped') return { ok: 'unused' };
  if (!parsed.ok) return { ok: false, reason: parsed.reason, begun };
  const problem = headerProblem({ ...(parsed.raw as object), sales: [] }, true);
  if (problem !== null) return { ok: false, reason: problem, begun };
  const { sales: _sales, ...header } = parsed.raw as CheckpointFile<S>;
  return { ok: true, header };
}

/** A checkpoint refused while it is read (see streamCheckpoint). */
class HeaderRefused extends Error {}

function pendingOf(b: AcknowledgedBreak): PendingBreak {
  return { broken: { ...b.broken }, goodHead: { ...b.goodHead }, untrusted: { segments: [...b.untrusted.segments], lines: b.untrusted.lines } };
}

/**
 * Whether the segments the checkpoint vouches for are on disk as it saw them, and where open
 * must start reading: at the first byte of the checkpoint's own segment. Seqs jump at each
 * new chain, so each segment's range comes from its summary, never from arithmetic; the
 * trusted path may leave a chain only at a good head a recorded break names, and enter the
 * next one only at the chain start that acknowledges it (read again and checked here).
 */
export async function resumePointOf<S>(
  dir: string,
  file: CheckpointHeader<S>,
  segments: readonly string[],
  projectionNames: readonly string[],
  fs: JournalFs = nodeJournalFs,
): Promise<{ ok: true; point: ResumePoint } | { ok: false; reason: string }> {
  const kept = Object.keys(file.projections).sort();
  const wanted = [...projectionNames].sort();
  if (kept.join('\n') !== wanted.join('\n')) return { ok: false, reason: `keeps projections [${kept.join(', ')}], the journal has [${wanted.join(', ')}]` };
  const index = segments.indexOf(file.segment);
  if (index < 0) return { ok: false, reason: `its segment ${file.segment} is missing` };
  const tails = new Map(file.tails.map((t) => [t.name, t.bytes]));
  const restarts = new Map(file.acknowledgedBreaks.map((b) => [b.restart.segment, b]));
  for (const b of file.acknowledgedBreaks) {
    if (b.restart.seq > file.seq) return { ok: false, reason: `records a chain started after its head (seq ${b.restart.seq})` };
  }
  let seq = 1;
  let prev = GENESIS_PREV;
  let k = 0;
  const sizes: number[] = [];
  for (let i = 0; i < index; i++) {
    const name = segments[i]!;
    let size: number;
    try {
      size = (await fs.stat(join(dir, name))).size;
    } catch {
      return { ok: false, reason: `segment ${name} is missing` };
    }
    const tail = tails.get(name);
    const s = file.segments[k];
    if (s?.name === name) {
      if (!(s.lastSeq >= s.firstSeq)) return { ok: false, reason: `segment ${s.name} has no entries` };
      const restart = restarts.get(name);
      if (restart) {
        const ok = await chainStartHolds(dir, name, restart, seq, prev, s, fs);
        if (ok !== null) return { ok: false, reason: ok };
      } else if (s.firstSeq !== seq || s.prevHash !== prev) {
        return { ok: false, reason: `segment ${s.name} does not continue the chain` };
      }
      // A segment broken part-way keeps its trusted entries and the old tail after them.
      const expected = tail ?? s.bytes;
      if (size !== expected || s.bytes > expected) return { ok: false, reason: `segment ${s.name} is ${size} bytes, it sealed ${expected}` };
      seq = s.lastSeq + 1;
      prev = s.lastHash;
      k++;
    } else if (tail !== undefined && !restarts.has(name)) {
      if (size !== tail) return { ok: false, reason: `old-tail segment ${name} is ${size} bytes, it was ${tail}` };
    } else if (s !== undefined) {
      return { ok: false, reason: `segment ${s.name} it sealed is missing (${name} lies in its place)` };
    } else {
      return { ok: false, reason: `segment ${name} is neither one it sealed nor part of an acknowledged break` };
    }
    sizes.push(size);
  }
  if (k !== file.segments.length) return { ok: false, reason: `vouches for ${file.segments.length} sealed segments, ${k} lie before ${file.segment}` };
  // Every break it records was checked above (its chain starts before) or is checked by the scan.
  for (const b of file.acknowledgedBreaks) {
    const at = segments.indexOf(b.restart.segment);
    if (at < 0 || at > index) return { ok: false, reason: `records a chain started in ${b.restart.segment}, not before its own segment` };
  }
  const own = restarts.get(file.segment);
  if (own) {
    // Its own segment starts a chain: the open's scan checks that start against this break.
    if (own.goodHead.seq !== seq - 1 || own.goodHead.hash !== prev) return { ok: false, reason: `the break it records does not follow the trusted path (good head ${own.goodHead.seq})` };
    const earlier = file.acknowledgedBreaks.filter((b) => b !== own);
    return { ok: true, point: { index, seq, prev, sizes, pending: pendingOf(own), acknowledged: earlier } };
  }
  if (file.seq < seq) return { ok: false, reason: `its seq ${file.seq} lies before its segment` };
  return { ok: true, point: { index, seq, prev, sizes, acknowledged: file.acknowledgedBreaks } };
}

/** The sealed segment `name` starts a chain: it must acknowledge `b`, from the trusted path's head. */
async function chainStartHolds(dir: string, name: string, b: AcknowledgedBreak, seq: number, prev: string, s: SegmentSummary, fs: JournalFs): Promise<string | null> {
  if (b.goodHead.seq !== seq - 1 || b.goodHead.hash !== prev) return `the break before ${name} does not follow the trusted path (good head ${b.goodHead.seq})`;
  if (s.firstSeq !== b.restart.seq || s.prevHash !== b.goodHead.hash) return `segment ${name} does not start the chain the break records`;
  const line = await firstLineOf(join(dir, name), fs);
  const start = line === null ? null : checkChainStart(line, pendingOf(b), name);
  if (!start?.ok || start.entry.hash !== b.restart.hash) return `segment ${name} does not start with the entry that acknowledges the break at seq ${b.broken.seq}`;
  return null;
}
