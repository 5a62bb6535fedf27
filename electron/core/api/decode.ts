/**
 * Reading the service's JSON answers into typed values, with the path of the first field
 * that does not fit. Each answer's shape is declared once, as a valibot schema built from
 * the field readers below (each carrying the sentence of its refusal), and its type is
 * derived from that schema. A success body that does not decode is a service fault the
 * client reports (it never hands half-typed data to the app).
 *
 * Money is read exactly from its decimal text, never by multiplying a float (contract,
 * wire conventions), by the one strict wire decoder (shared/schema.ts `wireAmount`): BRL
 * into integer cents, other currencies (ARS, USDt) into integer minor units at their scale.
 */
import { BRL_SCALE } from '../../shared/money.ts';
import { firstIssue, issuePath, v, wireAmount } from '../../shared/schema.ts';

export class DecodeError extends Error {
  override name = 'DecodeError';
  /** Where in the body, e.g. `response.settlements[3].amount`. */
  readonly path: string;
  constructor(path: string, problem: string) {
    super(`${path} ${problem}`);
    this.path = path;
  }
}

/**
 * An exact amount in a currency: `minor / 10^scale` units. `minor` is an integer, so sums
 * and comparisons of amounts with the same scale are exact.
 */
export interface Amount {
  minor: number;
  scale: number;
  /** Alpha-3 (or `USDt`) as the service names it; null when the service gives none. */
  currency: string | null;
}

/** The typed value of `body`, or a DecodeError naming the first field that does not fit. */
export function decodeAnswer<S extends v.GenericSchema>(schema: S, body: unknown, root = 'response'): v.InferOutput<S> {
  const result = firstIssue(schema, body);
  if (result.ok) return result.value;
  throw new DecodeError(issuePath(result.issue, root), result.issue.message);
}

// ── Currencies ───────────────────────────────────────────────────────────────────────────

/**
 * Decimal places an amount of each currency is read at. Contract 6: ARS quotes are rounded
 * to 2 places and USDt to 6; BRL has cents. A currency not listed, or none given, is read
 * at 6 places: wide enough for both, and the Amount carries its scale.
 */
export const CURRENCY_SCALE: Readonly<Record<string, number>> = { BRL: 2, ARS: 2, USDT: 6 };
const DEFAULT_SCALE = 6;

export function currencyScale(currency: string | null): number {
  if (currency === null) return DEFAULT_SCALE;
  return CURRENCY_SCALE[currency.toUpperCase()] ?? DEFAULT_SCALE;
}

// ── Field readers, each with the sentence of its refusal ─────────────────────────────────

/** Null and absent alike read as null (the reference's "X or null"). */
const orNull = <S extends v.GenericSchema>(schema: S) => v.nullish(schema, null);

export const text = v.string('is not a string');
/** A string or null; one message for both, as the reference writes the type. */
export const textOrNull = orNull(v.string('is not a string or null'));
export const integer = v.pipe(v.number('is not an integer'), v.safeInteger('is not an integer'));
export const flag = v.boolean('is not a boolean');

export function oneOf<const T extends readonly string[]>(allowed: T) {
  return v.picklist(allowed, `is not one of ${allowed.join(', ')}`);
}

/** One of `allowed`, or null; a value of another type is refused as "not a string or null" first. */
export function oneOfOrNull<const T extends readonly string[]>(allowed: T) {
  return orNull(v.pipe(v.string('is not a string or null'), oneOf(allowed)));
}

/** An ISO 8601 datetime kept as its text; it must parse. */
export const datetime = v.pipe(
  text,
  v.check((value) => !Number.isNaN(Date.parse(value)), 'is not a datetime'),
);
export const datetimeOrNull = orNull(datetime);

/** A BRL amount (decimal string or JSON number) as integer cents (contract, wire conventions). */
export const cents = wireAmount({ scale: BRL_SCALE }, (problem) => `is not a BRL amount (${problem})`);
export const centsOrNull = orNull(cents);

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * A JSON object with these fields. An absent field is read as undefined, so it is refused
 * by its own reader ("is not a string"), as a field of the wrong type would be.
 */
export function record<const E extends v.ObjectEntries>(entries: E) {
  const keys = Object.keys(entries);
  return v.pipe(
    v.custom<Record<string, unknown>>(isObject, 'is not an object'),
    v.transform((obj) => Object.fromEntries(keys.map((key) => [key, Object.hasOwn(obj, key) ? obj[key] : undefined]))),
    v.object(entries),
  );
}

export function recordOrNull<const E extends v.ObjectEntries>(entries: E) {
  return orNull(record(entries));
}

export function list<S extends v.GenericSchema>(item: S) {
  return v.array(item, 'is not an array');
}

// ── Amounts in a currency named by a sibling field ───────────────────────────────────────

const amountSchemas = new Map<string, v.GenericSchema<unknown, number>>();

/** The wire reader at one scale (built once per scale and sign). */
function amountAt(scale: number, signed: boolean): v.GenericSchema<unknown, number> {
  const key = `${scale}${signed ? '±' : ''}`;
  let schema = amountSchemas.get(key);
  if (schema === undefined) {
    schema = wireAmount({ scale, signed }, (problem) => `is not an amount with at most ${scale} decimals (${problem})`);
    amountSchemas.set(key, schema);
  }
  return schema;
}

/** An exact amount in `currency`, read at that currency's scale; `signed` for a net amount that may be below zero. */
function readAmount(value: unknown, currency: string | null, signed = false): { ok: true; amount: Amount } | { ok: false; message: string } {
  const scale = currencyScale(currency);
  const read = firstIssue(amountAt(scale, signed), value);
  return read.ok ? { ok: true, amount: { minor: read.value, scale, currency } } : { ok: false, message: read.issue.message };
}

export interface AmountField<R> {
  /** The sibling field that names the currency, or how to find it. */
  currency: (keyof R & string) | ((row: R) => string | null);
  /** A net amount, which may be below zero. */
  signed?: boolean;
  /** Null and absent read as null. */
  orNull?: boolean;
}

type Row<E extends v.ObjectEntries> = v.InferOutput<v.ObjectSchema<E, undefined>>;
/** One object type, so editors show its fields rather than the operations that made it. */
type Flat<T> = { [K in keyof T]: T[K] } & {};
type AmountsOf<S> = { -readonly [K in keyof S]: S[K] extends { orNull: true } ? Amount | null : Amount };

/**
 * A JSON object whose amount fields (the keys of `amounts`) are read at the scale of the
 * currency another field of the same object names: the object is read first, then each
 * amount, so a refusal still names the amount's own path.
 */
export function withAmounts<const E extends v.ObjectEntries, const S extends Record<string, AmountField<Row<E>>>>(
  entries: E,
  amounts: S,
) {
  type Out = Flat<Omit<Row<E>, keyof S> & AmountsOf<S>>;
  const raw = Object.fromEntries(Object.keys(amounts).map((key) => [key, v.unknown()]));
  // Typed by `Out` below: the entries with each amount read.
  const rows: v.GenericSchema<unknown, Record<string, unknown>> = record({ ...entries, ...raw });
  return v.pipe(
    rows,
    v.rawTransform<Record<string, unknown>, Out>(({ dataset, addIssue, NEVER }) => {
      const row = dataset.value;
      const out: Record<string, unknown> = { ...row };
      for (const [key, field] of Object.entries(amounts)) {
        const value = row[key];
        if (field.orNull === true && (value === null || value === undefined)) {
          out[key] = null;
          continue;
        }
        const currency = typeof field.currency === 'function' ? field.currency(row as Row<E>) : (row[field.currency] as string | null);
        const read = readAmount(value, currency, field.signed);
        if (!read.ok) {
          addIssue({ message: read.message, path: [{ type: 'object', origin: 'value', input: row, key, value }] });
          return NEVER;
        }
        out[key] = read.amount;
      }
      return out as Out;
    }),
  );
}
