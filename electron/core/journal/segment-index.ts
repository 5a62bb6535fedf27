/**
 * A segment's index: what history lookups need to find a sale, a webhook-id or an entry
 * type in a sealed segment without reading it. Written beside the segment as a sidecar
 * (journal-YYYY-MM-DD.index.json, journal-cNNNN-YYYY-MM-DD.index.json for a later chain's
 * segment) when the segment is sealed; only a cache of the
 * log's content, so a missing or stale one is rebuilt from the segment (store.ts).
 *
 * Each sale the segment touches is kept as it stood at the segment's end (its record and
 * keys): the newest segment that touches a sale holds the sale as it is now.
 */
import { join } from 'node:path';
import { checkLine, nodeJournalFs, readWholeFile, writeFileAtomic } from './log.ts';
import type { JournalEntry, SaleKeys } from './port.ts';
import type { EntryPosition, JournalFs } from './log.ts';
import { saleIdsOf, webhookIdOf } from './fold.ts';

export const INDEX_VERSION = 1;

export interface SaleSnapshot<S> {
  keys: Partial<SaleKeys>;
  record: S;
}

/** What the checkpoint keeps of each sealed segment: enough to vouch for it and to pick it. */
export interface SegmentSummary {
  name: string;
  bytes: number;
  firstSeq: number;
  lastSeq: number;
  /** The hash the segment's first entry chains from, and its last entry's hash. */
  prevHash: string;
  lastHash: string;
  minAt: number;
  maxAt: number;
  /** created_at range of the sales it holds (null when none has one). */
  minCreated: number | null;
  maxCreated: number | null;
  /** Bloom filter (base64) over the keys bloomKey names; a miss means "not in this segment". */
  bloom: string;
}

export interface SegmentIndexFile<S> {
  version: number;
  summary: SegmentSummary;
  /** Byte offset of each entry; entry i has seq firstSeq + i. */
  offsets: number[];
  bySale: Record<string, number[]>;
  byType: Record<string, number[]>;
  webhooks: Record<string, number>;
  sales: Record<string, SaleSnapshot<S>>;
}

export function indexName(segment: string): string {
  return segment.replace(/\.jsonl$/, '.index.json');
}

/** The key spaces a segment's bloom filter answers for. */
export const bloomKey = {
  sale: (id: string) => `s:${id}`,
  type: (t: string) => `y:${t}`,
  webhook: (id: string) => `w:${id}`,
  pix: (id: string) => `p:${id}`,
  service: (id: string) => `v:${id}`,
  external: (id: string) => `e:${id}`,
  checkout: (store: number, checkout: number) => `c:${store}:${checkout}`,
  shift: (id: string) => `h:${id}`,
  status: (s: string) => `t:${s}`,
};

/** The bloom keys a sale's keys put it under. */
export function saleBloomKeys(saleId: string, keys: Partial<SaleKeys>): string[] {
  const out = [bloomKey.sale(saleId)];
  if (keys.pix_id !== undefined) out.push(bloomKey.pix(keys.pix_id));
  if (keys.service_id !== undefined) out.push(bloomKey.service(keys.service_id));
  if (keys.external_id !== undefined) out.push(bloomKey.external(keys.external_id));
  if (keys.store_id !== undefined && keys.checkout_id !== undefined) out.push(bloomKey.checkout(keys.store_id, keys.checkout_id));
  if (keys.shift_id !== undefined) out.push(bloomKey.shift(keys.shift_id));
  if (keys.status !== undefined) out.push(bloomKey.status(keys.status));
  return out;
}

// A lookup of a key that is nowhere tests every sealed segment's filter: with ~1,000 of
// them, the false-positive rate must be far below 1/1000 (here about 1 in 15,000).
const BLOOM_HASHES = 14;
const BLOOM_BITS_PER_KEY = 20;

export type BloomHash = readonly [number, number];

/** Two independent 32-bit hashes (FNV-1a, and FNV-1a with another basis and a final mix). */
export function bloomHash(key: string): BloomHash {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  b = Math.imul(b ^ (b >>> 13), 0xc2b2ae35);
  return [a >>> 0, (b | 1) >>> 0];
}

export function buildBloom(keys: Iterable<string>, count: number): string {
  const bits = Math.max(64, Math.ceil((count * BLOOM_BITS_PER_KEY) / 8) * 8);
  const bytes = new Uint8Array(bits / 8);
  for (const key of keys) {
    const [h1, h2] = bloomHash(key);
    for (let j = 0; j < BLOOM_HASHES; j++) {
      const bit = (h1 + j * h2) % bits;
      bytes[bit >>> 3]! |= 1 << (bit & 7);
    }
  }
  return Buffer.from(bytes).toString('base64');
}

/** Decoded filters, tested many times per lookup across a few hundred segments. */
export class Bloom {
  readonly #bytes: Uint8Array;
  readonly #bits: number;
  constructor(base64: string) {
    this.#bytes = new Uint8Array(Buffer.from(base64, 'base64'));
    this.#bits = this.#bytes.length * 8;
  }
  /** The key's hash is taken once by the caller (bloomHash), then tested against every segment. */
  has(hash: BloomHash): boolean {
    if (this.#bits === 0) return false;
    const [h1, h2] = hash;
    for (let j = 0; j < BLOOM_HASHES; j++) {
      const bit = (h1 + j * h2) % this.#bits;
      if ((this.#bytes[bit >>> 3]! & (1 << (bit & 7))) === 0) return false;
    }
    return true;
  }
}

/** Collects one segment's index while its entries are applied, in seq order. */
export class SegmentIndexBuilder {
  readonly name: string;
  readonly firstSeq: number;
  readonly prevHash: string;
  lastSeq: number;
  lastHash: string;
  bytes = 0;
  minAt = Infinity;
  maxAt = -Infinity;
  readonly offsets: number[] = [];
  readonly bySale = new Map<string, number[]>();
  readonly byType = new Map<string, number[]>();
  readonly webhooks = new Map<string, number>();

  constructor(name: string, firstSeq: number, prevHash: string) {
    this.name = name;
    this.firstSeq = firstSeq;
    this.prevHash = prevHash;
    this.lastSeq = firstSeq - 1;
    this.lastHash = prevHash;
  }

  add(entry: JournalEntry, position: EntryPosition): void {
    const i = this.offsets.length;
    if (entry.seq !== this.firstSeq + i) throw new Error(`segment index ${this.name}: expected seq ${this.firstSeq + i}, got ${entry.seq}`);
    this.offsets.push(position.offset);
    this.bytes = position.offset + position.length;
    this.lastSeq = entry.seq;
    this.lastHash = entry.hash;
    if (entry.at < this.minAt) this.minAt = entry.at;
    if (entry.at > this.maxAt) this.maxAt = entry.at;
    for (const id of saleIdsOf(entry)) push(this.bySale, id, i);
    push(this.byType, entry.type, i);
    const hook = webhookIdOf(entry);
    if (hook !== undefined && !this.webhooks.has(hook)) this.webhooks.set(hook, entry.seq);
  }

  /** Seals it: the sales it touched as they stand now (the caller's working set). */
  finish<S>(sales: ReadonlyMap<string, SaleSnapshot<S>>): SegmentIndexFile<S> {
    const keys: string[] = [];
    let minCreated: number | null = null;
    let maxCreated: number | null = null;
    for (const [id, snap] of sales) {
      keys.push(...saleBloomKeys(id, snap.keys));
      const c = snap.keys.created_at;
      if (typeof c === 'number') {
        if (minCreated === null || c < minCreated) minCreated = c;
        if (maxCreated === null || c > maxCreated) maxCreated = c;
      }
    }
    for (const t of this.byType.keys()) keys.push(bloomKey.type(t));
    for (const w of this.webhooks.keys()) keys.push(bloomKey.webhook(w));
    for (const id of this.bySale.keys()) if (!sales.has(id)) keys.push(bloomKey.sale(id));
    const summary: SegmentSummary = {
      name: this.name, bytes: this.bytes, firstSeq: this.firstSeq, lastSeq: this.lastSeq, prevHash: this.prevHash, lastHash: this.lastHash,
      minAt: this.minAt, maxAt: this.maxAt, minCreated, maxCreated, bloom: buildBloom(keys, keys.length),
    };
    return {
      version: INDEX_VERSION,
      summary,
      offsets: this.offsets,
      bySale: Object.fromEntries(this.bySale),
      byType: Object.fromEntries(this.byType),
      webhooks: Object.fromEntries(this.webhooks),
      sales: Object.fromEntries(sales),
    };
  }
}

/**
 * A short list (a sale's few entries) is copied at its exact length: push grows a list of one
 * to room for seventeen, 150 bytes a sale for the whole day the segment is live (issue 28).
 * Long lists (an entry type's) grow by push, as copying them would cost each entry their length.
 */
const EXACT_UP_TO = 16;

function push(map: Map<string, number[]>, key: string, value: number): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else if (list.length < EXACT_UP_TO) map.set(key, [...list, value]);
  else list.push(value);
}

/** Written beside the segment; a torn write is only a stale index, found and rebuilt at use. */
export async function writeSegmentIndex<S>(dir: string, file: SegmentIndexFile<S>, fs: JournalFs = nodeJournalFs): Promise<void> {
  await writeFileAtomic(join(dir, indexName(file.summary.name)), JSON.stringify(file), fs);
}

/** The sidecar if it is whole and describes exactly this segment; null otherwise. */
export async function readSegmentIndex<S>(dir: string, summary: SegmentSummary, fs: JournalFs = nodeJournalFs): Promise<SegmentIndexFile<S> | null> {
  let text: string;
  try {
    const buf = await readWholeFile(join(dir, indexName(summary.name)), fs);
    if (buf === null) return null;
    text = buf.toString('utf8');
  } catch {
    return null;
  }
  let file: SegmentIndexFile<S>;
  try {
    file = JSON.parse(text) as SegmentIndexFile<S>;
  } catch {
    return null;
  }
  const s = file?.summary;
  if (file?.version !== INDEX_VERSION || !s || !Array.isArray(file.offsets)) return null;
  if (s.name !== summary.name || s.bytes !== summary.bytes || s.firstSeq !== summary.firstSeq || s.lastSeq !== summary.lastSeq || s.lastHash !== summary.lastHash || s.prevHash !== summary.prevHash) return null;
  if (file.offsets.length !== summary.lastSeq - summary.firstSeq + 1) return null;
  for (const field of ['bySale', 'byType', 'webhooks', 'sales'] as const) {
    if (file[field] === null || typeof file[field] !== 'object') return null;
  }
  return file;
}

export function own<T>(record: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/** Entries read and checked in one turn of the event loop (see readEntries): about 10 ms. */
const READ_RUN = 250;

/**
 * Reads entries of one segment by ordinal (sorted), each checked against its own hash and
 * its expected seq: an offset that no longer points at its entry is an error, not a guess.
 */
export async function readEntries(dir: string, segment: string, firstSeq: number, offsets: readonly number[], bytes: number, ordinals: readonly number[], fs: JournalFs = nodeJournalFs): Promise<JournalEntry[]> {
  if (ordinals.length === 0) return [];
  const fh = await fs.open(join(dir, segment), 'r');
  try {
    const out: JournalEntry[] = [];
    // Neighbouring entries are read in one go: a sale's entries are usually close together.
    // At most READ_RUN of them: each read is a turn of the event loop, and checking a busy
    // day's entries (about 40 µs each) in one went on for seconds, every till waiting (issue 28).
    let i = 0;
    while (i < ordinals.length) {
      let j = i;
      while (j + 1 < ordinals.length && j + 1 - i < READ_RUN && ordinals[j + 1]! - ordinals[j]! <= 8) j++;
      const start = offsets[ordinals[i]!]!;
      const endOrdinal = ordinals[j]! + 1;
      const end = endOrdinal < offsets.length ? offsets[endOrdinal]! : bytes;
      const buf = Buffer.allocUnsafe(end - start);
      const { bytesRead } = await fh.read(buf, 0, buf.length, start);
      if (bytesRead !== buf.length) throw new Error(`${segment}: the index points past the end of the segment`);
      for (let k = i; k <= j; k++) {
        const o = ordinals[k]!;
        const from = offsets[o]! - start;
        const to = (o + 1 < offsets.length ? offsets[o + 1]! : bytes) - start - 1;
        out.push(parseAt(buf.toString('utf8', from, to), firstSeq + o, segment));
      }
      i = j + 1;
    }
    return out;
  } finally {
    await fh.close();
  }
}

function parseAt(text: string, seq: number, segment: string): JournalEntry {
  let prev = '';
  try {
    prev = String((JSON.parse(text) as { prev?: unknown }).prev);
  } catch {
    // checkLine names it.
  }
  const checked = checkLine(text, seq, prev);
  if (!checked.ok) throw new Error(`${segment}: entry ${seq} read through the index: ${checked.reason}`);
  return checked.entry;
}
