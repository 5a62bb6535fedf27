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
 * How a packed value is rebuilt. `value`: the next of the packed values; `same string`: the
 * packed value at that position again (a string a row repeats: its ids, its QR text); `same
 * object`: the object or list built at that position (in the order they are first met) again
 * (a payment both as reported and as counted); `object` and `list`: their members in order;
 * `empty` lists and objects are the shared frozen ones.
 */
type Node =
  | { readonly kind: 'value' }
  | { readonly kind: 'same string'; readonly at: number }
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

/** Strings this long or longer are written once per value and referred to again (`same string`). */
const REPEATED_STRING = 8;
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
/** Member names as they are written in a signature, each quoted once. */
const quoted = new Map<string, string>();

function quote(key: string): string {
  let q = quoted.get(key);
  if (q === undefined) {
    q = JSON.stringify(key);
    if (quoted.size < MAX_SHAPES * 8) quoted.set(key, q);
  }
  return q;
}

class NotPackable extends Error {}

/**
 * One walk of a value: its values in order and its signature (the structure, written out:
 * member names, nesting, and where a string or an object repeats). The nodes are built only
 * for a structure not seen before (`nodes`), so packing a row of a known structure makes no
 * more than its values list and its text.
 */
class Packer {
  readonly values: unknown[] = [];
  signature = '';
  readonly #nodes: boolean;
  readonly #strings = new Map<string, number>();
  readonly #objects = new Map<object, number>();
  /** The objects being walked: a value that contains itself is refused. */
  readonly #path = new Set<object>();

  constructor(nodes: boolean) {
    this.#nodes = nodes;
  }

  walk(v: unknown, depth: number): Node | undefined {
    switch (typeof v) {
      case 'string': {
        if (v.length >= REPEATED_STRING) {
          const at = this.#strings.get(v);
          if (at !== undefined) {
            this.signature += `^${at}`;
            return this.#nodes ? { kind: 'same string', at } : undefined;
          }
          this.#strings.set(v, this.values.length);
        }
        return this.#value(v);
      }
      case 'number':
        if (!Number.isFinite(v) || Object.is(v, -0)) throw new NotPackable();
        return this.#value(v);
      case 'boolean':
        return this.#value(v);
      case 'object':
        break;
      default:
        throw new NotPackable();
    }
    if (v === null) return this.#value(v);
    if (depth >= MAX_DEPTH || this.#path.has(v)) throw new NotPackable();
    const list = Array.isArray(v);
    const proto: unknown = Object.getPrototypeOf(v);
    // An object without a prototype would not be given back as one: refused, as it is rare.
    if (proto !== (list ? Array.prototype : Object.prototype)) throw new NotPackable();
    const keys = list ? null : Object.keys(v);
    if (list ? (v as unknown[]).length === 0 : keys!.length === 0) {
      this.signature += list ? '[]' : '{}';
      return list ? EMPTY_LIST_NODE : EMPTY_OBJECT_NODE;
    }
    const seen = this.#objects.get(v);
    if (seen !== undefined) {
      this.signature += `@${seen}`;
      return this.#nodes ? { kind: 'same object', at: seen } : undefined;
    }
    this.#objects.set(v, this.#objects.size);
    this.#path.add(v);
    let node: Node | undefined;
    if (list) {
      const items = v as unknown[];
      const nodes: Node[] = [];
      this.signature += '[';
      for (let i = 0; i < items.length; i++) {
        if (!(i in items)) throw new NotPackable();
        if (i > 0) this.signature += ',';
        const item = this.walk(items[i], depth + 1);
        if (this.#nodes) nodes.push(item!);
      }
      this.signature += ']';
      if (this.#nodes) node = { kind: 'list', items: nodes };
    } else {
      const o = v as Record<string, unknown>;
      const members: Node[] = [];
      this.signature += '{';
      for (let i = 0; i < keys!.length; i++) {
        const key = keys![i]!;
        const member = o[key];
        if (member === undefined || key === '__proto__') throw new NotPackable();
        this.signature += i > 0 ? `,${quote(key)}:` : `${quote(key)}:`;
        const m = this.walk(member, depth + 1);
        if (this.#nodes) members.push(m!);
      }
      this.signature += '}';
      if (this.#nodes) node = { kind: 'object', keys: keys!, members };
    }
    this.#path.delete(v);
    return node;
  }

  #value(v: unknown): Node | undefined {
    this.values.push(v);
    this.signature += '_';
    return this.#nodes ? VALUE : undefined;
  }
}

/** The packed form of `value`, or null when JSON would not give it back exactly. */
export function pack(value: unknown): Packed | null {
  try {
    const packer = new Packer(false);
    packer.walk(value, 0);
    let shape = shapes.get(packer.signature);
    if (shape === undefined) {
      if (shapes.size >= MAX_SHAPES) return null;
      shape = { root: new Packer(true).walk(value, 0)! };
      shapes.set(packer.signature, shape);
    }
    return { shape, text: JSON.stringify(packer.values) };
  } catch (err) {
    if (err instanceof NotPackable) return null;
    throw err;
  }
}

/** The value `pack` was given, deeply frozen (its empty lists and objects the shared ones). */
export function unpack<T>(packed: Packed): T {
  const values = JSON.parse(packed.text) as unknown[];
  const built: object[] = [];
  let next = 0;
  const build = (node: Node): unknown => {
    switch (node.kind) {
      case 'value':
        return values[next++];
      case 'same string':
        return values[node.at];
      case 'same object':
        return built[node.at];
      case 'empty list':
        return EMPTY_LIST;
      case 'empty object':
        return EMPTY_OBJECT;
      case 'list': {
        const list = new Array<unknown>(node.items.length);
        built.push(list);
        for (let i = 0; i < list.length; i++) list[i] = build(node.items[i]!);
        return Object.freeze(list);
      }
      case 'object': {
        const o: Record<string, unknown> = {};
        built.push(o);
        for (let i = 0; i < node.keys.length; i++) o[node.keys[i]!] = build(node.members[i]!);
        return Object.freeze(o);
      }
    }
  };
  return build(packed.shape.root) as T;
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
  readonly #packed: Packed;
  /** The row's keys, kept from packing until taken (see packRow's `keepKeys`). */
  #keys: RowKeys<S> | null;

  constructor(row: SaleRow<S>, packed: Packed, keepKeys: boolean) {
    this.sale_id = row.sale_id;
    this.touched_seq = row.touched_seq;
    this.touched_at = row.touched_at;
    this.#packed = packed;
    this.#keys = keepKeys ? keysOf(row) : null;
  }

  /**
   * The keys kept from packing, once (then they are dropped), else the row unpacked: a
   * checkpoint's rows are indexed as they are restored, and unpacking each of them for it was
   * a whole row's garbage a sale.
   */
  takeKeys(): RowKeys<S> {
    const keys = this.#keys;
    this.#keys = null;
    return keys ?? this.row();
  }

  row(): SaleRow<S> {
    return unpack<SaleRow<S>>(this.#packed);
  }

  toJSON(): SaleRow<S> {
    return this.row();
  }
}

/** What a row is indexed by: the row without its record. */
export type RowKeys<S> = Omit<SaleRow<S>, 'record'>;

function keysOf<S>(row: SaleRow<S>): RowKeys<S> {
  const { record: _record, ...keys } = row;
  return keys;
}

/**
 * A row packed, or null when it cannot be (see pack) or is not a row (no id or touch).
 * `keepKeys`: its keys are kept beside it until taken once (PackedRow.takeKeys).
 */
export function packRow<S>(row: SaleRow<S>, keepKeys = false): PackedRow<S> | null {
  if (typeof row.sale_id !== 'string' || typeof row.touched_seq !== 'number' || typeof row.touched_at !== 'number') return null;
  const packed = pack(row);
  return packed === null ? null : new PackedRow(row, packed, keepKeys);
}

/** A stored row as a row: unpacked if it is packed. */
export function rowOf<S>(stored: SaleRow<S> | PackedRow<S>): SaleRow<S> {
  return stored instanceof PackedRow ? stored.row() : stored;
}
