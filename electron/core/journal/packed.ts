/**
 * A compact form of a working-set row that no till asks for on every change (issue 28): its
 * structure (member names, nesting, which strings repeat where) held once for every row of
 * that structure, and its values in one JSON text. A paid sale as objects was about 2.3 KB of
 * heap: some twenty objects and lists, a boxed number for each time, one string for each id;
 * packed it is one string of about 900 characters. A row is unpacked when it is read:
 * deeply frozen, equal as a value to the row that was packed.
 *
 * Only what JSON keeps exactly is packed (plain objects and arrays, strings, booleans, null,
 * finite numbers other than -0, no member set to undefined, no member named __proto__):
 * anything else is refused (pack returns null) and the caller keeps the row as it is.
 */
import type { SaleRow } from './fold.ts';

/** The one empty list every frozen or unpacked row holds for each of its empty lists. */
export const EMPTY_LIST: readonly never[] = Object.freeze([]);
const EMPTY_OBJECT: Readonly<Record<string, never>> = Object.freeze({});

/**
 * How a packed value is rebuilt. `value`: the next of the packed values; `same value`: the
 * packed value at that position again (a string or number a row repeats: its ids, its QR
 * text, its amount, a time); `same
 * object`: the object or list built at that position (in the order they are first met) again
 * (a payment both as reported and as counted); `object` and `list`: their members in order;
 * `empty` lists and objects are the shared frozen ones.
 */
type Node =
  | { readonly kind: 'value' }
  | { readonly kind: 'same value'; readonly at: number }
  | { readonly kind: 'same object'; readonly at: number }
  | { readonly kind: 'object'; readonly keys: readonly string[]; readonly members: readonly Node[] }
  | { readonly kind: 'list'; readonly items: readonly Node[] }
  | { readonly kind: 'empty list' }
  | { readonly kind: 'empty object' };

/** A structure shared by every packed value of that structure. */
export interface Shape {
  readonly root: Node;
}

export interface Packed {
  readonly shape: Shape;
  /** The values, in the order the shape reads them, as a JSON list. */
  readonly text: string;
}

/**
 * Strings this long or longer, and numbers this far from zero, are written once per value and
 * referred to again (`same value`): a paid sale repeats its service_id five times, its amount
 * as text six, its times two or three. Shorter ones are cheaper written again.
 */
const REPEATED_STRING = 4;
const REPEATED_NUMBER = 1_000;
/** Deeper than this is refused, as the journal's canonical form refuses it. */
const MAX_DEPTH = 64;
/**
 * Distinct structures held. A sale's structure follows its life (paid, displaced, refunded…),
 * a few hundred in all; past the bound, a new structure is not packed (its row stays as it is).
 */
const MAX_SHAPES = 4_096;

const VALUE: Node = { kind: 'value' };
const EMPTY_LIST_NODE: Node = { kind: 'empty list' };
const EMPTY_OBJECT_NODE: Node = { kind: 'empty object' };

/** Every structure, by its signature (see Packer). */
const shapes = new Map<string, Shape>();

class NotPackable extends Error {}

/**
 * One walk of a value: its values in order and its signature (the structure, written out:
 * member names, nesting, and where a value or an object repeats). The nodes are built only for
 * a structure not seen before (`nodes`), so packing a row of a known structure makes little
 * more than its values list and its text. One packer is reused (a pack never waits): a
 * row's maps made anew each time were most of what packing cost.
 */
class Packer {
  values: unknown[] = [];
  signature = '';
  nodes = false;
  readonly #strings = new Map<string, number>();
  readonly #numbers = new Map<number, number>();
  readonly #objects = new Map<object, number>();

  reset(nodes: boolean): void {
    this.values = [];
    this.signature = '';
    this.nodes = nodes;
    this.#strings.clear();
    this.#numbers.clear();
    this.#objects.clear();
  }

  /**
   * A value that contains itself goes deeper at every turn until MAX_DEPTH refuses it: an
   * object is known again (`same object`) only once it is whole, so no cycle is ever written.
   */
  walk(v: unknown, depth: number): Node | undefined {
    switch (typeof v) {
      case 'string': {
        if (v.length >= REPEATED_STRING) {
          const at = this.#strings.get(v);
          if (at !== undefined) return this.#same(at);
          this.#strings.set(v, this.values.length);
        }
        return this.#value(v);
      }
      case 'number':
        if (!Number.isFinite(v) || Object.is(v, -0)) throw new NotPackable();
        if (Math.abs(v) >= REPEATED_NUMBER) {
          const at = this.#numbers.get(v);
          if (at !== undefined) return this.#same(at);
          this.#numbers.set(v, this.values.length);
        }
        return this.#value(v);
      case 'boolean':
        return this.#value(v);
      case 'object':
        break;
      default:
        throw new NotPackable();
    }
    if (v === null) return this.#value(v);
    if (depth >= MAX_DEPTH) throw new NotPackable();
    const seen = this.#objects.get(v);
    if (seen !== undefined) {
      this.signature += SAME_OBJECT[seen] ?? `@${seen}`;
      return this.nodes ? { kind: 'same object', at: seen } : undefined;
    }
    let node: Node | undefined;
    if (Array.isArray(v)) {
      // Another prototype (a subclass) would not be given back as it is.
      if (Object.getPrototypeOf(v) !== Array.prototype) throw new NotPackable();
      if (v.length === 0) {
        this.signature += '[]';
        return EMPTY_LIST_NODE;
      }
      const items: Node[] | undefined = this.nodes ? [] : undefined;
      this.signature += '[';
      for (let i = 0; i < v.length; i++) {
        if (!(i in v)) throw new NotPackable();
        const item = this.walk(v[i], depth + 1);
        if (items) items.push(item!);
      }
      this.signature += ']';
      if (items) node = { kind: 'list', items };
    } else {
      // An object without a prototype would not be given back as one: refused, as it is rare.
      if (Object.getPrototypeOf(v) !== Object.prototype) throw new NotPackable();
      const keys = Object.keys(v);
      if (keys.length === 0) {
        this.signature += '{}';
        return EMPTY_OBJECT_NODE;
      }
      const o = v as Record<string, unknown>;
      const members: Node[] | undefined = this.nodes ? [] : undefined;
      this.signature += '{';
      for (const key of keys) {
        const member = o[key];
        if (member === undefined || key === '__proto__') throw new NotPackable();
        this.signature += nameToken(key);
        const m = this.walk(member, depth + 1);
        if (members) members.push(m!);
      }
      this.signature += '}';
      if (members) node = { kind: 'object', keys, members };
    }
    // Known again from here on: it is whole (see above).
    this.#objects.set(v, this.#objects.size);
    return node;
  }

  #same(at: number): Node | undefined {
    this.signature += SAME_VALUE[at] ?? `^${at}`;
    return this.nodes ? { kind: 'same value', at } : undefined;
  }

  #value(v: unknown): Node | undefined {
    this.values.push(v);
    this.signature += '_';
    return this.nodes ? VALUE : undefined;
  }
}

const packer = new Packer();

/** A member name as a signature writes it (its length first: read back whatever it holds), made once. */
const nameTokens = new Map<string, string>();
function nameToken(key: string): string {
  let token = nameTokens.get(key);
  if (token === undefined) {
    token = `${key.length}:${key}`;
    if (nameTokens.size < MAX_SHAPES * 8) nameTokens.set(key, token);
  }
  return token;
}

/** The signature's tokens for a position met again, the first few made once. */
const SAME_VALUE = Array.from({ length: 256 }, (_, i) => `^${i}`);
const SAME_OBJECT = Array.from({ length: 256 }, (_, i) => `@${i}`);

/**
 * Shapes used last, newest first: a value is first tried along these (follow), which is most
 * of the cost of writing its signature out saved: a busy day's sales have a handful of shapes.
 */
const recent: Shape[] = [];
const RECENT_SHAPES = 8;

/** A primitive value JSON gives back exactly (see pack). */
function isPlainValue(v: unknown): boolean {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(v) && !Object.is(v, -0);
    default:
      return v === null;
  }
}

/**
 * Walks `v` along `node`, collecting its values into `values`: true when the shape rebuilds
 * exactly `v` from them (every member name in its order, every repeat a repeat, every object
 * met again the same object). A value that fits no recent shape is packed by Packer.
 */
function follow(node: Node, v: unknown, values: unknown[], objects: object[]): boolean {
  switch (node.kind) {
    case 'value':
      if (!isPlainValue(v)) return false;
      values.push(v);
      return true;
    case 'same value':
      return v === values[node.at];
    case 'same object':
      return v === objects[node.at];
    case 'empty list':
      return Array.isArray(v) && v.length === 0 && Object.getPrototypeOf(v) === Array.prototype;
    case 'empty object':
      return v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype && Object.keys(v).length === 0;
    case 'list': {
      if (!Array.isArray(v) || v.length !== node.items.length || Object.getPrototypeOf(v) !== Array.prototype) return false;
      for (let i = 0; i < v.length; i++) if (!(i in v) || !follow(node.items[i]!, v[i], values, objects)) return false;
      objects.push(v);
      return true;
    }
    case 'object': {
      if (v === null || typeof v !== 'object' || Object.getPrototypeOf(v) !== Object.prototype) return false;
      const keys = Object.keys(v);
      if (keys.length !== node.keys.length) return false;
      const o = v as Record<string, unknown>;
      for (let i = 0; i < keys.length; i++) if (keys[i] !== node.keys[i] || !follow(node.members[i]!, o[keys[i]!], values, objects)) return false;
      objects.push(v);
      return true;
    }
  }
}

/** The packed form of `value`, or null when JSON would not give it back exactly. */
export function pack(value: unknown): Packed | null {
  for (let i = 0; i < recent.length; i++) {
    const values: unknown[] = [];
    const shape = recent[i]!;
    if (!follow(shape.root, value, values, [])) continue;
    if (i > 0) {
      recent.splice(i, 1);
      recent.unshift(shape);
    }
    return { shape, text: compact(JSON.stringify(values)) };
  }
  const packed = packAnew(value);
  if (packed !== null) {
    recent.unshift(packed.shape);
    if (recent.length > RECENT_SHAPES) recent.pop();
  }
  return packed;
}

function packAnew(value: unknown): Packed | null {
  try {
    packer.reset(false);
    packer.walk(value, 0);
    const signature = packer.signature;
    let shape = shapes.get(signature);
    if (shape === undefined) {
      if (shapes.size >= MAX_SHAPES) return null;
      const values = packer.values;
      packer.reset(true);
      shape = { root: packer.walk(value, 0)! };
      shapes.set(signature, shape);
      packer.values = values;
    }
    return { shape, text: compact(JSON.stringify(packer.values)) };
  } catch (err) {
    if (err instanceof NotPackable) return null;
    throw err;
  } finally {
    packer.reset(false);
  }
}

/** The value `pack` was given, deeply frozen (its empty lists and objects the shared ones). */
export function unpack<T>(packed: Packed): T {
  return rebuild<T>(packed.shape, packed.text);
}

/** `freeze`: false only for a value that is written and dropped (PackedRow.toJSON). */
function rebuild<T>(shape: Shape, text: string, freeze = true): T {
  const values = JSON.parse(expand(text)) as unknown[];
  const built: object[] = [];
  let next = 0;
  const build = (node: Node): unknown => {
    switch (node.kind) {
      case 'value':
        return values[next++];
      case 'same value':
        return values[node.at];
      case 'same object':
        return built[node.at];
      case 'empty list':
        return EMPTY_LIST;
      case 'empty object':
        return EMPTY_OBJECT;
      // Numbered once whole, as Packer numbers them.
      case 'list': {
        const list = new Array<unknown>(node.items.length);
        for (let i = 0; i < list.length; i++) list[i] = build(node.items[i]!);
        built.push(list);
        return freeze ? Object.freeze(list) : list;
      }
      case 'object': {
        const o: Record<string, unknown> = {};
        for (let i = 0; i < node.keys.length; i++) o[node.keys[i]!] = build(node.members[i]!);
        built.push(o);
        return freeze ? Object.freeze(o) : o;
      }
    }
  };
  return build(shape.root) as T;
}

// ---- ids in the text ------------------------------------------------------------------
//
// Most of a packed sale is its ids: its own and its request's (uuids), its webhooks' (a uuid
// each), the service's pix id and the QR text's (long hex runs). Each is held as its bytes,
// one character a byte, behind a mark JSON text never holds as such (JSON.stringify writes a
// control character as \u00XX): U+0001 and 16 bytes for a uuid as randomUUID writes it,
// U+0002, a length and that many bytes for a run of lowercase hex digits. 36 characters
// become 17, a 32-digit run 18. Only the text changes: `expand` gives the JSON text back.

const UUID_MARK = '\u0001';
const HEX_MARK = '\u0002';
// eslint-disable-next-line no-control-regex -- the marks are control characters on purpose (see above)
const MARKS = /[\u0001\u0002]/g;
/** Runs of lowercase hex digits and dashes: a uuid, or hex runs between dashes (see compactId). */
const ID_LIKE = /[0-9a-f][0-9a-f-]{15,}/g;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SHORTEST_RUN = 16;
/** The most bytes one HEX_MARK holds (its length is one character of 0-255). */
const HEX_RUN_BYTES = 255;
const HEX_PAIR = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));
const HEX_VALUE = new Uint8Array(128);
for (let d = 0; d < 16; d++) HEX_VALUE['0123456789abcdef'.charCodeAt(d)] = d;

const codes: number[] = [];

/** The bytes of `hex` (lowercase, even length) from `from` to `to`, one character each. */
function bytesOf(hex: string, from: number, to: number): string {
  codes.length = 0;
  for (let i = from; i < to; i += 2) codes.push((HEX_VALUE[hex.charCodeAt(i)]! << 4) | HEX_VALUE[hex.charCodeAt(i + 1)]!);
  return String.fromCharCode(...codes);
}

function hexOf(text: string, from: number, bytes: number): string {
  let out = '';
  for (let i = from; i < from + bytes; i++) out += HEX_PAIR[text.charCodeAt(i)]!;
  return out;
}

function compactId(run: string): string {
  if (run.length === 36 && UUID.test(run)) {
    return UUID_MARK + bytesOf(run, 0, 8) + bytesOf(run, 9, 13) + bytesOf(run, 14, 18) + bytesOf(run, 19, 23) + bytesOf(run, 24, 36);
  }
  if (run.includes('-')) return run.split('-').map((part) => (part.length >= SHORTEST_RUN ? hexRun(part) : part)).join('-');
  return hexRun(run);
}

function hexRun(run: string): string {
  let out = '';
  let i = 0;
  while (run.length - i >= 2) {
    const bytes = Math.min(HEX_RUN_BYTES, (run.length - i) >> 1);
    out += HEX_MARK + String.fromCharCode(bytes) + bytesOf(run, i, i + bytes * 2);
    i += bytes * 2;
  }
  return out + run.slice(i);
}

/** JSON text with its ids held as bytes (see above). */
export function compact(json: string): string {
  return json.replace(ID_LIKE, compactId);
}

/** The JSON text `compact` was given. */
export function expand(text: string): string {
  MARKS.lastIndex = 0;
  let mark = MARKS.exec(text);
  if (mark === null) return text;
  let out = '';
  let p = 0;
  while (mark !== null) {
    const at = mark.index;
    out += text.slice(p, at);
    if (text.charCodeAt(at) === 1) {
      out += `${hexOf(text, at + 1, 4)}-${hexOf(text, at + 5, 2)}-${hexOf(text, at + 7, 2)}-${hexOf(text, at + 9, 2)}-${hexOf(text, at + 11, 6)}`;
      p = at + 17;
    } else {
      const bytes = text.charCodeAt(at + 1);
      out += hexOf(text, at + 2, bytes);
      p = at + 2 + bytes;
    }
    MARKS.lastIndex = p;
    mark = MARKS.exec(text);
  }
  return out + text.slice(p);
}

/**
 * A working-set row held packed. Its id and last touch stay readable without unpacking (the
 * working set is walked by them when a segment is sealed); JSON.stringify writes the row
 * itself (a checkpoint writes rows as they are held).
 */
export class PackedRow<S> {
  readonly sale_id: string;
  readonly touched_seq: number;
  readonly touched_at: number;
  // The Packed's two parts held here, not the Packed: one object less a row.
  readonly #shape: Shape;
  readonly #text: string;
  constructor(row: SaleRow<S>, packed: Packed) {
    this.sale_id = row.sale_id;
    this.touched_seq = row.touched_seq;
    this.touched_at = row.touched_at;
    this.#shape = packed.shape;
    this.#text = packed.text;
  }

  row(): SaleRow<S> {
    return rebuild<SaleRow<S>>(this.#shape, this.#text);
  }

  /** The row as JSON.stringify writes it (a checkpoint): built, written, dropped, so not frozen. */
  toJSON(): SaleRow<S> {
    return rebuild<SaleRow<S>>(this.#shape, this.#text, false);
  }
}

/** A row packed, or null when it cannot be (see pack) or is not a row (no id or touch). */
export function packRow<S>(row: SaleRow<S>): PackedRow<S> | null {
  if (typeof row.sale_id !== 'string' || typeof row.touched_seq !== 'number' || typeof row.touched_at !== 'number') return null;
  const packed = pack(row);
  return packed === null ? null : new PackedRow(row, packed);
}

/** A stored row as a row: unpacked if it is packed. */
export function rowOf<S>(stored: SaleRow<S> | PackedRow<S>): SaleRow<S> {
  return stored instanceof PackedRow ? stored.row() : stored;
}
