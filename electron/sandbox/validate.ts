/**
 * The shapes of the requests the sandbox receives, declared with valibot, and the one place
 * their issues become the entries of the 422 validation list of reference section 7 (type,
 * loc, msg, input, ctx) with the types and messages of pydantic v2 / FastAPI, which the real
 * service is built on. Every part is read with `abortEarly: false`, so one answer lists every
 * problem at once:
 *
 *   const Body = body({ amount: field.cents({ gt: 0, le: 100_000_000 }), store_id: optional(field.int(), 1) });
 *   const { body: sale } = readRequest(req, { body: Body }); // throws ApiError 422 when anything was wrong
 *
 * Null is "absent" for an optional field (reference 4.1: "A field left out or sent as null
 * keeps its value") and a type error for a required one. Valibot issues carry only a message,
 * so each message here carries the pydantic words (`say`) that `itemOf` reads back.
 */
import type { IncomingHttpHeaders } from 'node:http';
import * as v from 'valibot';
import { BRL_SCALE, formatCents } from '../shared/money.ts';
import type { WireAmountProblem } from '../shared/money.ts';
import { wireAmount } from '../shared/schema.ts';
import { validationError } from './http.ts';
import type { ValidationItem } from './http.ts';

export type { ValidationItem } from './http.ts';

export type LocRoot = 'body' | 'query' | 'path' | 'header';

/** What pydantic says of a value: an item's type, msg and ctx. */
interface Said {
  type: string;
  msg: string;
  ctx: Record<string, unknown>;
}

const SAID = 'pydantic ';

/** A valibot message that carries a pydantic item's words. */
function say(type: string, msg: string, ctx: Record<string, unknown> = {}): string {
  return SAID + JSON.stringify({ type, msg, ctx } satisfies Said);
}

function heard(message: string): Said {
  if (message.startsWith(SAID)) return JSON.parse(message.slice(SAID.length)) as Said;
  // Every schema here words its issues with say(); anything else is a rule of no known type.
  return { type: 'value_error', msg: `Value error, ${message}`, ctx: { error: message } };
}

const MISSING = say('missing', 'Field required');

/** `'a', 'b' or 'c'`, as pydantic lists expected values. */
export function expectedList(values: readonly string[]): string {
  const quoted = values.map((x) => `'${x}'`);
  if (quoted.length <= 1) return quoted.join('');
  return `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1]}`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

export interface Bounds {
  gt?: number;
  ge?: number;
  lt?: number;
  le?: number;
}

/**
 * The bounds in pydantic's order (gt, ge, lt, le); `show` writes a bound in the message (cents
 * as "12.50"). An absent bound is one no number breaks.
 */
function bounded(schema: v.GenericSchema<unknown, number>, b: Bounds, show: (x: number) => string | number = (x) => x): v.GenericSchema<unknown, number> {
  const word = (kind: keyof Bounds, type: string, text: string, bound: number | undefined): string =>
    bound === undefined ? '' : say(type, `Input should be ${text} ${show(bound)}`, { [kind]: show(bound) });
  return v.pipe(
    schema,
    v.gtValue<number, number, string>(b.gt ?? -Infinity, word('gt', 'greater_than', 'greater than', b.gt)),
    v.minValue<number, number, string>(b.ge ?? -Infinity, word('ge', 'greater_than_equal', 'greater than or equal to', b.ge)),
    v.ltValue<number, number, string>(b.lt ?? Infinity, word('lt', 'less_than', 'less than', b.lt)),
    v.maxValue<number, number, string>(b.le ?? Infinity, word('le', 'less_than_equal', 'less than or equal to', b.le)),
  );
}

/** pydantic's lax int: JSON integers and integer text; floats, other text and booleans refused with their types. */
function readInt(value: unknown): number | string {
  let n: number;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return say('finite_number', 'Input should be a finite number');
    if (!Number.isInteger(value)) return say('int_from_float', 'Input should be a valid integer, got a number with a fractional part');
    n = value;
  } else if (typeof value === 'string') {
    if (!/^\s*[+-]?\d+\s*$/.test(value)) return say('int_parsing', 'Input should be a valid integer, unable to parse string as an integer');
    n = Number(value);
  } else {
    return say('int_type', 'Input should be a valid integer');
  }
  if (!Number.isSafeInteger(n)) return say('int_parsing_size', 'Unable to parse input string as an integer, exceeded maximum size');
  return n;
}

/** What a field's own reader makes of a value: the value, or pydantic's words for the refusal. */
export type Reading<T> = { ok: true; value: T } | { ok: false; type: string; msg: string; ctx?: Record<string, unknown> };

function readingOf<I, T>(read: (value: I) => Reading<T>) {
  return v.rawTransform<I, T>(({ dataset, addIssue, NEVER }) => {
    const reading = read(dataset.value);
    if (reading.ok) return reading.value;
    addIssue({ message: say(reading.type, reading.msg, reading.ctx) });
    return NEVER;
  });
}

const LAX_TRUE = ['true', '1', 'yes', 'on', 't', 'y'];
const LAX_FALSE = ['false', '0', 'no', 'off', 'f', 'n'];

/** The field kinds of the sandbox's requests, each with pydantic's rules and words. */
export const field = {
  int(b: Bounds = {}) {
    return bounded(
      v.pipe(
        v.unknown(),
        v.rawTransform<unknown, number>(({ dataset, addIssue, NEVER }) => {
          const n = readInt(dataset.value);
          if (typeof n === 'number') return n;
          addIssue({ message: n });
          return NEVER;
        }),
      ),
      b,
    );
  },

  /** Lengths count characters; `strip` trims first (pydantic strip_whitespace: "   " is then too short). */
  string(o: { min?: number; max?: number; strip?: boolean } = {}) {
    const min = o.min ?? 0;
    const max = o.max ?? Infinity;
    return v.pipe(
      v.string(say('string_type', 'Input should be a valid string')),
      v.transform((s) => (o.strip === true ? s.trim() : s)),
      v.check((s) => [...s].length >= min, say('string_too_short', `String should have at least ${plural(min, 'character')}`, { min_length: min })),
      v.check((s) => [...s].length <= max, say('string_too_long', `String should have at most ${plural(max, 'character')}`, { max_length: max })),
    );
  },

  /** A JSON boolean, strictly. */
  boolean() {
    return v.boolean(say('bool_type', 'Input should be a valid boolean'));
  },

  /** A boolean written as text (queries): pydantic's lax words. */
  textBoolean() {
    return v.pipe(
      v.unknown(),
      v.rawTransform<unknown, boolean>(({ dataset, addIssue, NEVER }) => {
        const value = dataset.value;
        if (typeof value === 'boolean') return value;
        if (typeof value === 'string') {
          if (LAX_TRUE.includes(value.toLowerCase())) return true;
          if (LAX_FALSE.includes(value.toLowerCase())) return false;
          addIssue({ message: say('bool_parsing', 'Input should be a valid boolean, unable to interpret input') });
        } else {
          addIssue({ message: say('bool_type', 'Input should be a valid boolean') });
        }
        return NEVER;
      }),
    );
  },

  /** A number (JSON int or float), finite. */
  number(b: Bounds = {}) {
    const notNumber = say('float_type', 'Input should be a valid number');
    return bounded(v.pipe(v.number(notNumber), v.finite(notNumber)), b);
  },

  /** Text read into a value by `read`, which words a refusal as pydantic would. */
  parsed<T>(read: (text: string) => Reading<T>) {
    return v.pipe(v.string(say('string_type', 'Input should be a valid string')), readingOf(read));
  },

  /** Any JSON value read by `read`, which words a refusal as pydantic would. */
  custom<T>(read: (value: unknown) => Reading<T>) {
    return v.pipe(v.unknown(), readingOf(read));
  },

  /** Text matching `pattern` (sent exactly as returned, case unchanged). */
  pattern(pattern: RegExp) {
    return v.pipe(
      v.string(say('string_type', 'Input should be a valid string')),
      v.regex(pattern, say('string_pattern_mismatch', `String should match pattern '${pattern.source}'`, { pattern: pattern.source })),
    );
  },

  /** One of `values`: `literal_error` (default) or `enum`, as pydantic names the two kinds. */
  literal<const T extends readonly string[]>(values: T, type: 'literal_error' | 'enum' = 'literal_error') {
    const expected = expectedList(values);
    return v.picklist(values, say(type, `Input should be ${expected}`, { expected }));
  },

  /**
   * An amount in BRL: a decimal string ("12.50") or a JSON number, at most two decimal places,
   * read as integer cents by the app's strict wire decoder (shared/schema.ts wireAmount:
   * "12.500", " 12.50", "+12.5" are not amounts). Bounds are in cents.
   */
  cents(b: Bounds = {}) {
    const show = (c: number): string => (c === 0 ? '0' : formatCents(c));
    const valueError = (message: string): string => say('value_error', `Value error, ${message}`, { error: message });
    const describe = (problem: WireAmountProblem): string => {
      switch (problem) {
        case 'wrong_type':
          return say('decimal_type', 'Decimal input should be an integer, float, string or Decimal object');
        case 'not_a_number':
          return say('decimal_parsing', 'Input should be a valid decimal');
        case 'too_many_decimals':
          return say('decimal_max_places', 'Decimal input should have no more than 2 decimal places', { decimal_places: 2 });
        // A negative amount breaks the lower bound; without one it is a plain value error.
        case 'negative':
          if (b.gt !== undefined && !(-1 > b.gt)) return say('greater_than', `Input should be greater than ${show(b.gt)}`, { gt: show(b.gt) });
          if (b.ge !== undefined && !(-1 >= b.ge)) return say('greater_than_equal', `Input should be greater than or equal to ${show(b.ge)}`, { ge: show(b.ge) });
          return valueError('amount must not be negative');
        case 'too_large':
          if (b.le !== undefined) return say('less_than_equal', `Input should be less than or equal to ${show(b.le)}`, { le: show(b.le) });
          return valueError('amount is too large');
      }
    };
    return bounded(wireAmount({ scale: BRL_SCALE }, describe), b, show);
  },
};

/** An optional field: left out or null, it is `fallback` (or undefined). */
export function optional<S extends v.GenericSchema>(schema: S): v.SchemaWithPipe<readonly [v.NullishSchema<S, undefined>, v.TransformAction<v.InferOutput<S> | null | undefined, v.InferOutput<S> | undefined>]>;
export function optional<S extends v.GenericSchema, const D extends v.InferOutput<S>>(schema: S, fallback: D): v.NullishSchema<S, D>;
export function optional<S extends v.GenericSchema>(schema: S, fallback?: v.InferOutput<S>): v.GenericSchema {
  if (fallback !== undefined) return v.nullish(schema, fallback as never);
  return v.pipe(
    v.nullish(schema),
    v.transform((x) => x ?? undefined),
  );
}

/** A problem a rule finds: where (`null`: the whole part) and what pydantic says of it. */
export interface Problem {
  at: string | null;
  said: string;
}

/** pydantic's `value_error`, for a rule that is not a type or a bound. */
export function valueError(at: string | null, message: string): Problem {
  return { at, said: say('value_error', `Value error, ${message}`, { error: message }) };
}

/** Any other item a rule finds, in pydantic's words. */
export function problem(at: string | null, type: string, msg: string, ctx: Record<string, unknown> = {}): Problem {
  return { at, said: say(type, msg, ctx) };
}

/** `extra_forbidden` for every field the part does not take (pydantic `extra="forbid"`). */
export const FORBID_OTHERS = Symbol('forbid others');

/**
 * A rule over several fields, run once the fields it `needs` read without a problem (`'all'`:
 * once the whole part did), as a handler checks them after reading every field.
 */
export interface Rule<T> {
  needs: readonly string[] | 'all';
  check(value: T): Problem | readonly Problem[] | null;
}

type Step<T> = Rule<T> | typeof FORBID_OTHERS;

function fieldsOf<E extends v.ObjectEntries, T>(entries: E, steps: readonly Step<T>[], missing: Readonly<Record<string, string>>) {
  return v.pipe(
    v.looseObject(entries, (issue) => {
      const key = issue.path?.at(-1)?.key;
      return typeof key === 'string' && Object.hasOwn(missing, key) ? say('missing', missing[key] as string) : MISSING;
    }),
    v.rawCheck<v.InferOutput<v.LooseObjectSchema<E, undefined>>>(({ dataset, addIssue }) => {
      const value = dataset.value as Record<string, unknown>;
      const failed = new Set((dataset.issues ?? []).map((i) => i.path?.[0]?.key));
      const report = (p: Problem): void => {
        const path: [v.ObjectPathItem] | undefined = p.at === null ? undefined : [{ type: 'object', origin: 'value', input: value, key: p.at, value: value[p.at] }];
        addIssue({ message: p.said, path });
      };
      for (const step of steps) {
        if (step === FORBID_OTHERS) {
          for (const key of Object.keys(value)) if (!Object.hasOwn(entries, key)) report(problem(key, 'extra_forbidden', 'Extra inputs are not permitted'));
          continue;
        }
        const ready = step.needs === 'all' ? failed.size === 0 : step.needs.every((name) => !failed.has(name));
        if (!ready) continue;
        const found = step.check(value as T);
        if (found === null) continue;
        for (const p of Array.isArray(found) ? (found as readonly Problem[]) : [found as Problem]) report(p);
      }
    }),
  );
}

/** Only own properties: a field named like an Object.prototype member is never read from it. */
function ownCopy(source: object): Record<string, unknown> {
  const copy = Object.create(null) as Record<string, unknown>;
  for (const [key, value] of Object.entries(source)) copy[key] = value;
  return copy;
}

export interface PartOptions<T> {
  /** Rules over several fields, and FORBID_OTHERS, in the order their items are listed. */
  rules?: readonly Step<T>[];
  /** A `missing` message other than "Field required", by field. */
  missing?: Readonly<Record<string, string>>;
}

/**
 * A JSON body that must be an object. No body at all is `missing` at loc ['body']; any other
 * JSON value is `model_attributes_type`, and nothing more is said of its fields.
 */
export function body<E extends v.ObjectEntries>(entries: E, options: PartOptions<v.InferOutput<v.LooseObjectSchema<E, undefined>>> = {}) {
  return v.pipe(
    v.unknown(),
    v.rawTransform<unknown, Record<string, unknown>>(({ dataset, addIssue, NEVER }) => {
      const value = dataset.value;
      if (value === undefined) addIssue({ message: MISSING });
      else if (value === null || typeof value !== 'object' || Array.isArray(value)) addIssue({ message: say('model_attributes_type', 'Input should be a valid dictionary or object to extract fields from') });
      else return ownCopy(value);
      return NEVER;
    }),
    fieldsOf(entries, options.rules ?? [], options.missing ?? {}),
  );
}

/** Path parameters, query parameters or headers: text values by name. */
export function fields<E extends v.ObjectEntries>(entries: E, options: PartOptions<v.InferOutput<v.LooseObjectSchema<E, undefined>>> = {}) {
  return fieldsOf(entries, options.rules ?? [], options.missing ?? {});
}

type Part = v.GenericSchema<unknown, unknown>;

export interface RequestParts {
  path?: Part;
  query?: Part;
  header?: Part;
  body?: Part;
}

/** What a request's parts are read from (a SandboxRequest, or a part of one). */
export interface RequestSource {
  params?: Readonly<Record<string, string>>;
  query?: URLSearchParams;
  headers?: IncomingHttpHeaders;
  body?: unknown;
}

/** The order of the 422 list: path, query and headers before the body. */
const ROOTS = ['path', 'query', 'header', 'body'] as const;

function sourceOf(req: RequestSource, root: LocRoot): unknown {
  switch (root) {
    case 'path':
      return ownCopy(req.params ?? {});
    case 'query': {
      // A repeated parameter counts by its last value (as FastAPI does).
      const out = Object.create(null) as Record<string, unknown>;
      const query = req.query ?? new URLSearchParams();
      for (const key of new Set(query.keys())) out[key] = query.getAll(key).at(-1);
      return out;
    }
    case 'header': {
      const out = Object.create(null) as Record<string, unknown>;
      for (const [key, value] of Object.entries(req.headers ?? {})) out[key] = Array.isArray(value) ? value.at(-1) : value;
      return out;
    }
    case 'body':
      return req.body;
  }
}

/** One valibot issue as the item pydantic would list. `source` is the part as received. */
export function itemOf(issue: v.BaseIssue<unknown>, root: LocRoot, source: unknown): ValidationItem {
  const { type, msg, ctx } = heard(issue.message);
  const path = issue.path ?? [];
  const loc: (string | number)[] = [root, ...path.map((p) => p.key as string | number)];
  let input: unknown = path.length === 0 ? source : path[path.length - 1]?.value;
  // A missing field echoes the body it is missing from; elsewhere (and for no body at all) null.
  if (type === 'missing') input = root === 'body' && path.length > 0 ? source : null;
  // Reference 7: each element has type, loc, msg, input and ctx (empty when the rule has no context).
  return { type, loc, msg, input, ctx };
}

type Read<P extends RequestParts> = { [K in keyof P]: P[K] extends Part ? v.InferOutput<P[K]> : never };

/** Reads one part: its value, or the 422 items of everything wrong with it. */
export function readPart<S extends Part>(schema: S, root: LocRoot, source: unknown): { ok: true; value: v.InferOutput<S> } | { ok: false; items: ValidationItem[] } {
  const result = v.safeParse(schema, source, { abortEarly: false });
  if (result.success) return { ok: true, value: result.output };
  return { ok: false, items: result.issues.map((issue) => itemOf(issue, root, source)) };
}

/** Reads every part of a request; throws the 422 validation list when anything was wrong. */
export function readRequest<P extends RequestParts>(req: RequestSource, parts: P): Read<P> {
  const items: ValidationItem[] = [];
  const out: Record<string, unknown> = {};
  for (const root of ROOTS) {
    const schema = parts[root];
    if (schema === undefined) continue;
    const read = readPart(schema, root, sourceOf(req, root));
    if (read.ok) out[root] = read.value;
    else items.push(...read.items);
  }
  if (items.length > 0) throw validationError(items);
  return out as Read<P>;
}

/** A field of a body as it was sent (a body already read as an object), for a later problem's input. */
export function sentField(sent: unknown, name: string): unknown {
  return typeof sent === 'object' && sent !== null && Object.hasOwn(sent, name) ? (sent as Record<string, unknown>)[name] : undefined;
}

/** A problem found after reading (it needed the state), as the 422 list of one item. */
export function refuse(root: LocRoot, found: Problem, input: unknown): never {
  const { type, msg, ctx } = heard(found.said);
  throw validationError([{ type, loc: found.at === null ? [root] : [root, found.at], msg, input, ctx }]);
}
