import { hash } from 'node:crypto';

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** The hash that stands before the first entry of a journal. */
export const GENESIS_PREV = '0'.repeat(64);

const MAX_DEPTH = 64;

/**
 * Canonical JSON: object members sorted by key (UTF-16 code units), no whitespace.
 *
 * An entry's hash is taken over this text, so two serializations of the same data must
 * never differ, and data that JSON would silently change (NaN becomes null, a Date becomes
 * a string, a Map becomes {}) is refused instead: what is hashed is what replay reads back.
 * Object members whose value is `undefined` are left out, as JSON.stringify does, because
 * optional fields are written that way all over TypeScript code.
 */
export function canonicalJson(value: unknown): string {
  return write(value, 0, new Set());
}

function write(value: unknown, depth: number, path: Set<object>): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`journal data cannot hold ${String(value)}`);
      return JSON.stringify(value);
    case 'object':
      break;
    default:
      throw new TypeError(`journal data cannot hold a ${typeof value}`);
  }
  if (value === null) return 'null';
  if (depth >= MAX_DEPTH) throw new TypeError('journal data is nested too deeply');
  if (path.has(value)) throw new TypeError('journal data cannot be circular');
  path.add(value);
  let out: string;
  if (Array.isArray(value)) {
    const parts: string[] = [];
    for (let i = 0; i < value.length; i++) {
      // A hole or undefined would turn into null: refuse rather than change the data.
      if (!(i in value) || value[i] === undefined) throw new TypeError('journal data cannot hold undefined in an array');
      parts.push(write(value[i], depth + 1, path));
    }
    out = `[${parts.join(',')}]`;
  } else {
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) {
      throw new TypeError('journal data must be plain objects, arrays, strings, finite numbers, booleans and null');
    }
    const record = value as Record<string, unknown>;
    const parts: string[] = [];
    for (const key of Object.keys(record).sort()) {
      const member = record[key];
      if (member === undefined) continue;
      parts.push(`${JSON.stringify(key)}:${write(member, depth + 1, path)}`);
    }
    out = `{${parts.join(',')}}`;
  }
  path.delete(value);
  return out;
}

export function sha256Hex(text: string): string {
  // One-shot: no Hash object per entry, which verify's speed depends on.
  return hash('sha256', text, 'hex');
}

/**
 * hash = sha256 of the canonical JSON of {at, data, prev, seq, type}. Keys in canonical
 * order spell at, data, prev, seq, type, so the text is assembled directly from the
 * already-canonical data instead of serializing it a second time.
 */
export function entryHash(seq: number, prev: string, at: number, type: string, canonicalData: string): string {
  return sha256Hex(
    `{"at":${JSON.stringify(at)},"data":${canonicalData},"prev":${JSON.stringify(prev)},"seq":${JSON.stringify(seq)},"type":${JSON.stringify(type)}}`,
  );
}

/** One line of a segment, without its newline. Field order is for people reading the file. */
export function entryLine(seq: number, prev: string, hash: string, at: number, type: string, canonicalData: string): string {
  return `{"seq":${seq},"prev":"${prev}","hash":"${hash}","at":${JSON.stringify(at)},"type":${JSON.stringify(type)},"data":${canonicalData}}`;
}
