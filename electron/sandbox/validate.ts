/**
 * Field validators for bodies, queries, paths and headers. They accumulate the entries of
 * the 422 validation list of reference section 7 (type, loc, msg, input, ctx) with the types
 * and messages of pydantic v2 / FastAPI, which the real service is built on. A handler reads
 * every field first, then calls `check()`, so one answer lists every problem at once.
 *
 *   const f = Fields.body(req.body);
 *   const amount = f.cents('amount', { required: true, gt: 0, le: 100_000_000 });
 *   const storeId = f.int('store_id', { default: 1 });
 *   f.check(); // throws ApiError 422 when anything was wrong
 *
 * Null is "absent" for an optional field (reference 4.1: "A field left out or sent as null
 * keeps its value") and a type error for a required one.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { BRL_SCALE, decodeWireAmount, formatCents } from '../shared/money.ts';
import { validationError } from './http.ts';
import type { ValidationItem } from './http.ts';

export type { ValidationItem } from './http.ts';

export type LocRoot = 'body' | 'query' | 'path' | 'header';

export interface FieldOptions {
  required?: boolean;
}

export interface IntOptions extends FieldOptions {
  default?: number;
  ge?: number;
  le?: number;
  gt?: number;
  lt?: number;
}

export interface StringOptions extends FieldOptions {
  default?: string;
  /** Minimum length, counted after trimming when `strip` is set. */
  min?: number;
  max?: number;
  /** Trim surrounding whitespace first (pydantic strip_whitespace): "   " is then too short. */
  strip?: boolean;
}

export interface CentsOptions extends FieldOptions {
  /** Bounds in cents. */
  gt?: number;
  ge?: number;
  le?: number;
}

export interface LiteralOptions<T extends string> extends FieldOptions {
  default?: T;
  /** `literal_error` (default) or `enum`, as pydantic names the two kinds. */
  type?: 'literal_error' | 'enum';
}

/** `'a', 'b' or 'c'`, as pydantic lists expected values. */
export function expectedList(values: readonly string[]): string {
  const quoted = values.map((v) => `'${v}'`);
  if (quoted.length <= 1) return quoted.join('');
  return `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1]}`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

export class Fields {
  readonly items: ValidationItem[];
  readonly #source: Readonly<Record<string, unknown>> | null;
  readonly #root: LocRoot;

  constructor(source: Readonly<Record<string, unknown>> | null, root: LocRoot, items: ValidationItem[] = []) {
    this.#source = source;
    this.#root = root;
    this.items = items;
  }

  /**
   * A JSON body that must be an object. No body at all gives `missing` at loc ['body'];
   * any other JSON value gives `model_attributes_type`; field reads then add nothing more.
   */
  static body(body: unknown, items: ValidationItem[] = []): Fields {
    if (body === undefined) {
      items.push({ type: 'missing', loc: ['body'], msg: 'Field required', input: null, ctx: {} });
      return new Fields(null, 'body', items);
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      items.push({ type: 'model_attributes_type', loc: ['body'], msg: 'Input should be a valid dictionary or object to extract fields from', input: body, ctx: {} });
      return new Fields(null, 'body', items);
    }
    return new Fields(body as Record<string, unknown>, 'body', items);
  }

  /** Query parameters; a repeated parameter counts by its last value (as FastAPI does). */
  static query(query: URLSearchParams, items: ValidationItem[] = []): Fields {
    const source: Record<string, unknown> = {};
    for (const key of new Set(query.keys())) source[key] = query.getAll(key).at(-1);
    return new Fields(source, 'query', items);
  }

  static path(params: Readonly<Record<string, string>>, items: ValidationItem[] = []): Fields {
    return new Fields(params, 'path', items);
  }

  static headers(headers: IncomingHttpHeaders, items: ValidationItem[] = []): Fields {
    const source: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(headers)) source[key] = Array.isArray(value) ? value.at(-1) : value;
    return new Fields(source, 'header', items);
  }

  /** Values arrive as text in queries, paths and headers; as JSON in bodies. */
  get #textual(): boolean {
    return this.#root !== 'body';
  }

  /** The field exists and is not null. */
  present(name: string): boolean {
    return this.#source !== null && Object.hasOwn(this.#source, name) && this.#source[name] !== null && this.#source[name] !== undefined;
  }

  raw(name: string): unknown {
    return this.#source !== null && Object.hasOwn(this.#source, name) ? this.#source[name] : undefined;
  }

  /** Adds one item; `at` is the field name (or a longer path below the root). */
  fail(at: string | (string | number)[], type: string, msg: string, input: unknown, ctx?: Record<string, unknown>): void {
    const loc = [this.#root, ...(Array.isArray(at) ? at : [at])];
    // Reference 7: each element has type, loc, msg, input and ctx (empty when the rule has no context).
    this.items.push({ type, loc, msg, input, ctx: ctx ?? {} });
  }

  /** A rule that is not a type or a bound: pydantic's `value_error`. `at` null means the whole body. */
  valueError(at: string | null, message: string, input: unknown): void {
    const loc: (string | number)[] = at === null ? [this.#root] : [this.#root, at];
    this.items.push({ type: 'value_error', loc, msg: `Value error, ${message}`, input, ctx: { error: message } });
  }

  /** Reads a field's value, or records `missing`. undefined means "nothing usable". */
  #value(name: string, options: FieldOptions): { value: unknown } | undefined {
    if (this.#source === null) return undefined;
    const value = Object.hasOwn(this.#source, name) ? this.#source[name] : undefined;
    if (value === undefined || (value === null && options.required !== true)) {
      if (options.required === true) this.fail(name, 'missing', 'Field required', this.#root === 'body' ? this.#source : null);
      return undefined;
    }
    return { value };
  }

  int(name: string, options: IntOptions = {}): number | undefined {
    const got = this.#value(name, options);
    if (got === undefined) return options.default;
    const { value } = got;
    let n: number;
    if (typeof value === 'number' && !this.#textual) {
      if (!Number.isFinite(value)) {
        this.fail(name, 'finite_number', 'Input should be a finite number', value);
        return undefined;
      }
      if (!Number.isInteger(value)) {
        this.fail(name, 'int_from_float', 'Input should be a valid integer, got a number with a fractional part', value);
        return undefined;
      }
      n = value;
    } else if (typeof value === 'string') {
      if (!/^\s*[+-]?\d+\s*$/.test(value)) {
        this.fail(name, 'int_parsing', 'Input should be a valid integer, unable to parse string as an integer', value);
        return undefined;
      }
      n = Number(value);
    } else {
      this.fail(name, 'int_type', 'Input should be a valid integer', value);
      return undefined;
    }
    if (!Number.isSafeInteger(n)) {
      this.fail(name, 'int_parsing_size', 'Unable to parse input string as an integer, exceeded maximum size', value);
      return undefined;
    }
    if (!this.#bounds(name, n, value, options)) return undefined;
    return n;
  }

  /** Checks the numeric bounds; `show` writes a bound in the message (cents as "12.50"). */
  #bounds(name: string, n: number, input: unknown, o: { ge?: number; le?: number; gt?: number; lt?: number }, show: (x: number) => string | number = (x) => x): boolean {
    if (o.gt !== undefined && !(n > o.gt)) {
      this.fail(name, 'greater_than', `Input should be greater than ${show(o.gt)}`, input, { gt: show(o.gt) });
      return false;
    }
    if (o.ge !== undefined && !(n >= o.ge)) {
      this.fail(name, 'greater_than_equal', `Input should be greater than or equal to ${show(o.ge)}`, input, { ge: show(o.ge) });
      return false;
    }
    if (o.lt !== undefined && !(n < o.lt)) {
      this.fail(name, 'less_than', `Input should be less than ${show(o.lt)}`, input, { lt: show(o.lt) });
      return false;
    }
    if (o.le !== undefined && !(n <= o.le)) {
      this.fail(name, 'less_than_equal', `Input should be less than or equal to ${show(o.le)}`, input, { le: show(o.le) });
      return false;
    }
    return true;
  }

  string(name: string, options: StringOptions = {}): string | undefined {
    const got = this.#value(name, options);
    if (got === undefined) return options.default;
    const { value } = got;
    if (typeof value !== 'string') {
      this.fail(name, 'string_type', 'Input should be a valid string', value);
      return undefined;
    }
    const text = options.strip === true ? value.trim() : value;
    const length = [...text].length;
    if (options.min !== undefined && length < options.min) {
      this.fail(name, 'string_too_short', `String should have at least ${plural(options.min, 'character')}`, value, { min_length: options.min });
      return undefined;
    }
    if (options.max !== undefined && length > options.max) {
      this.fail(name, 'string_too_long', `String should have at most ${plural(options.max, 'character')}`, value, { max_length: options.max });
      return undefined;
    }
    return text;
  }

  boolean(name: string, options: FieldOptions & { default?: boolean } = {}): boolean | undefined {
    const got = this.#value(name, options);
    if (got === undefined) return options.default;
    const { value } = got;
    if (typeof value === 'boolean') return value;
    if (this.#textual && typeof value === 'string') {
      // pydantic's lax booleans for text sources (query strings).
      const lower = value.toLowerCase();
      if (['true', '1', 'yes', 'on', 't', 'y'].includes(lower)) return true;
      if (['false', '0', 'no', 'off', 'f', 'n'].includes(lower)) return false;
      this.fail(name, 'bool_parsing', 'Input should be a valid boolean, unable to interpret input', value);
      return undefined;
    }
    this.fail(name, 'bool_type', 'Input should be a valid boolean', value);
    return undefined;
  }

  literal<T extends string>(name: string, allowed: readonly T[], options: LiteralOptions<T> = {}): T | undefined {
    const got = this.#value(name, options);
    if (got === undefined) return options.default;
    const { value } = got;
    if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
    const expected = expectedList(allowed);
    this.fail(name, options.type ?? 'literal_error', `Input should be ${expected}`, value, { expected });
    return undefined;
  }

  /**
   * An amount in BRL: a decimal string ("12.50") or a JSON number, at most two decimal places,
   * returned as integer cents (contract: wire conventions), read by the same strict wire
   * decoder as the app's (electron/shared/money.ts: "12.500", " 12.50", "+12.5" are not
   * amounts). Bounds are in cents.
   */
  cents(name: string, options: CentsOptions = {}): number | undefined {
    const got = this.#value(name, options);
    if (got === undefined) return undefined;
    const { value } = got;
    const parsed = decodeWireAmount(value, { scale: BRL_SCALE });
    const show = (c: number): string => (c === 0 ? '0' : formatCents(c));
    if (!parsed.ok) {
      switch (parsed.problem) {
        case 'wrong_type':
          this.fail(name, 'decimal_type', 'Decimal input should be an integer, float, string or Decimal object', value);
          return undefined;
        case 'not_a_number':
          this.fail(name, 'decimal_parsing', 'Input should be a valid decimal', value);
          return undefined;
        case 'too_many_decimals':
          this.fail(name, 'decimal_max_places', 'Decimal input should have no more than 2 decimal places', value, { decimal_places: 2 });
          return undefined;
        case 'negative':
          // A negative amount breaks the lower bound; without one it is a plain value error.
          if (!this.#bounds(name, -1, value, { gt: options.gt, ge: options.ge }, show)) return undefined;
          this.valueError(name, 'amount must not be negative', value);
          return undefined;
        case 'too_large':
          if (!this.#bounds(name, Number.MAX_SAFE_INTEGER, value, { le: options.le }, show)) return undefined;
          this.valueError(name, 'amount is too large', value);
          return undefined;
      }
    }
    if (!this.#bounds(name, parsed.minor, value, options, show)) return undefined;
    return parsed.minor;
  }

  /** `extra_forbidden` for a field the endpoint does not take at all. */
  forbid(name: string): void {
    if (this.#source !== null && Object.hasOwn(this.#source, name)) {
      this.fail(name, 'extra_forbidden', 'Extra inputs are not permitted', this.#source[name]);
    }
  }

  /** `extra_forbidden` for every field not in `allowed` (pydantic `extra="forbid"`). */
  forbidExtra(allowed: readonly string[]): void {
    if (this.#source === null) return;
    for (const key of Object.keys(this.#source)) if (!allowed.includes(key)) this.forbid(key);
  }

  get ok(): boolean {
    return this.items.length === 0;
  }

  /** Throws the 422 validation list when any field was wrong. */
  check(): void {
    throwIfInvalid(this.items);
  }
}

export function throwIfInvalid(items: ValidationItem[]): void {
  if (items.length > 0) throw validationError(items);
}
