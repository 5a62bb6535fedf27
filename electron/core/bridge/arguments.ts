import { CoreError } from '../errors.ts';
import { firstIssue, issuePath, v } from '../../shared/schema.ts';

/**
 * The rules every renderer-supplied argument is read with, before any handler runs (the
 * renderer is untrusted input). Shapes are valibot schemas; each rule's issue message is
 * what the value must be ("a whole number from 1 to 999"), and `readArgument` below writes
 * the one sentence a refusal says: `<path> must be <what>.`
 */

/** No argument: undefined or null. */
export function none() {
  return v.pipe(
    v.nullish(v.never('empty (this call takes no argument)')),
    v.transform((): void => undefined),
  );
}

/** Text within a length (and a pattern); every way of missing it is refused with the same words. */
export function text(opts: { min?: number; max: number; pattern?: RegExp; describe?: string }) {
  const what = opts.describe ?? `text of ${opts.min ?? 0} to ${opts.max} characters`;
  const sized = v.pipe(v.string(what), v.minLength(opts.min ?? 0, what), v.maxLength(opts.max, what));
  return opts.pattern ? v.pipe(sized, v.regex(opts.pattern, what)) : sized;
}

/** A safe integer in a range: never a float, NaN or a numeric string. */
export function whole(min: number, max: number) {
  const what = `a whole number from ${min} to ${max}`;
  return v.pipe(v.number(what), v.safeInteger(what), v.minValue(min, what), v.maxValue(max, what));
}

export function yesNo() {
  return v.boolean('true or false');
}

export function oneOf<const L extends readonly string[]>(values: L) {
  return v.picklist(values, `one of ${values.map((x) => JSON.stringify(x)).join(', ')}`);
}

/** A list bounded in length before any item is read, so a huge one costs nothing. */
export function list<S extends v.GenericSchema>(item: S, max: number) {
  const what = `a list of at most ${max} items`;
  return v.pipe(
    v.custom<unknown[]>((input) => Array.isArray(input) && input.length <= max, what),
    v.array(item),
  );
}

function isPlainObject(input: unknown): input is Record<string, unknown> {
  return typeof input === 'object' && input !== null && !Array.isArray(input) && Object.getPrototypeOf(input) === Object.prototype;
}

/**
 * A plain object with exactly these fields. An unknown key is refused before any field is
 * read (a `by` or `__proto__` is named as such, whatever else is wrong); a missing field is
 * judged by its own rule, as an absent value ("amount_cents must be a whole number…"); a
 * field left out stays out of the result.
 */
export function fields<const E extends v.ObjectEntries>(entries: E) {
  const keys = Object.keys(entries);
  return v.pipe(
    v.custom<Record<string, unknown>>(isPlainObject, 'an object'),
    v.rawCheck<Record<string, unknown>>(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      const input = dataset.value;
      const unknown = Object.keys(input).find((key) => !Object.hasOwn(entries, key));
      if (unknown === undefined) return;
      addIssue({
        message: 'left out (it is not a known field)',
        path: [{ type: 'object', origin: 'key', input, key: unknown, value: input[unknown] }],
      });
    }),
    v.transform((input: Record<string, unknown>) => Object.fromEntries(keys.map((key) => [key, input[key]]))),
    v.strictObject(entries),
    v.transform((read) => Object.fromEntries(Object.entries(read).filter(([, value]) => value !== undefined)) as typeof read),
  );
}

/** A bridge method's argument: its schema, the fields it takes, and its reader. */
export interface Argument<A> {
  readonly schema: v.GenericSchema<unknown, A>;
  /** Readable by tests: which fields a bridge method takes (none may name a person). */
  readonly keys: readonly string[];
  /** The typed value, or CoreError('invalid_argument') naming the field and what it must be. */
  parse(input: unknown): A;
}

function keysOf(schema: v.GenericSchema): readonly string[] {
  const pipe = 'pipe' in schema && Array.isArray(schema.pipe) ? (schema.pipe as { type?: string; entries?: object }[]) : [];
  const shape = pipe.find((item) => item.type === 'strict_object');
  return shape?.entries ? Object.keys(shape.entries) : [];
}

export function argument<S extends v.GenericSchema>(schema: S): Argument<v.InferOutput<S>> {
  return { schema, keys: keysOf(schema), parse: (input) => readArgument(schema, input) };
}

/** The one place a refused argument's sentence is written. */
export function readArgument<S extends v.GenericSchema>(schema: S, input: unknown): v.InferOutput<S> {
  const read = firstIssue(schema, input);
  if (read.ok) return read.value;
  const path = issuePath(read.issue);
  throw new CoreError('invalid_argument', `${path || 'The argument'} must be ${read.issue.message}.`, { field: path || null });
}
