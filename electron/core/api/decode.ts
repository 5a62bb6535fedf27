/**
 * Reading the service's JSON answers into typed values, with the path of the first field
 * that does not fit. A success body that does not decode is a service fault the client
 * reports (it never hands half-typed data to the app).
 *
 * Money is read exactly from its decimal text, never by multiplying a float (contract,
 * wire conventions): BRL through electron/shared/money.ts into integer cents, other
 * currencies (ARS, USDt) into integer minor units at the currency's scale.
 */
import { expandExponent, parseCents } from '../../shared/money.ts';

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

/** Digits beyond which an integer is no longer exact in a double. */
const MAX_DIGITS = 15;

/**
 * Parses a decimal (JSON number or decimal string) into integer minor units at `scale`,
 * exactly. Returns null when it is not a plain decimal, has more significant decimals
 * than `scale`, is negative without `allowNegative`, or is too large.
 */
export function parseMinorUnits(input: unknown, scale: number, allowNegative = false): number | null {
  let text: string;
  if (typeof input === 'number') {
    if (!Number.isFinite(input)) return null;
    text = Object.is(input, -0) ? '0' : expandExponent(String(input));
  } else if (typeof input === 'string') {
    text = input.trim();
  } else {
    return null;
  }
  const m = /^(-?)(\d*)(?:\.(\d*))?$/.exec(text);
  if (m === null) return null;
  const negative = m[1] === '-';
  const whole = (m[2] ?? '').replace(/^0+/, '');
  const fraction = (m[3] ?? '').replace(/0+$/, '');
  if ((m[2] ?? '') === '' && (m[3] ?? '') === '') return null;
  if (fraction.length > scale) return null;
  if (whole.length + scale > MAX_DIGITS) return null;
  const minor = Number((whole === '' ? '0' : whole) + fraction.padEnd(scale, '0'));
  if (!Number.isSafeInteger(minor)) return null;
  if (negative && minor !== 0) return allowNegative ? -minor : null;
  return minor;
}

type Json = Record<string, unknown>;

/** A cursor over one JSON object: each getter checks the field's type or throws DecodeError. */
export class Fields {
  readonly #obj: Json;
  readonly path: string;
  constructor(value: unknown, path: string) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new DecodeError(path, 'is not an object');
    this.#obj = value as Json;
    this.path = path;
  }

  #at(key: string): string {
    return `${this.path}.${key}`;
  }

  has(key: string): boolean {
    return Object.hasOwn(this.#obj, key) && this.#obj[key] !== undefined;
  }

  raw(key: string): unknown {
    return this.#obj[key];
  }

  str(key: string): string {
    const v = this.#obj[key];
    if (typeof v !== 'string') throw new DecodeError(this.#at(key), 'is not a string');
    return v;
  }

  /** A string, or null when the field is null or absent (the reference's "string or null"). */
  strOrNull(key: string): string | null {
    const v = this.#obj[key];
    if (v === null || v === undefined) return null;
    if (typeof v !== 'string') throw new DecodeError(this.#at(key), 'is not a string or null');
    return v;
  }

  oneOf<T extends string>(key: string, allowed: readonly T[]): T {
    const v = this.#obj[key];
    if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) {
      throw new DecodeError(this.#at(key), `is not one of ${allowed.join(', ')}`);
    }
    return v as T;
  }

  int(key: string): number {
    const v = this.#obj[key];
    if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw new DecodeError(this.#at(key), 'is not an integer');
    return v;
  }

  intOrNull(key: string): number | null {
    const v = this.#obj[key];
    if (v === null || v === undefined) return null;
    return this.int(key);
  }

  bool(key: string): boolean {
    const v = this.#obj[key];
    if (typeof v !== 'boolean') throw new DecodeError(this.#at(key), 'is not a boolean');
    return v;
  }

  /** An ISO 8601 datetime kept as its text; it must parse. */
  datetime(key: string): string {
    const v = this.str(key);
    if (Number.isNaN(Date.parse(v))) throw new DecodeError(this.#at(key), 'is not a datetime');
    return v;
  }

  datetimeOrNull(key: string): string | null {
    const v = this.#obj[key];
    if (v === null || v === undefined) return null;
    return this.datetime(key);
  }

  /** A BRL amount (decimal string or JSON number) as integer cents (contract, wire conventions). */
  cents(key: string): number {
    const parsed = parseCents(this.#obj[key]);
    if (!parsed.ok) throw new DecodeError(this.#at(key), `is not a BRL amount (${parsed.problem})`);
    return parsed.cents;
  }

  centsOrNull(key: string): number | null {
    const v = this.#obj[key];
    if (v === null || v === undefined) return null;
    return this.cents(key);
  }

  /** An amount in `currency`, read exactly at that currency's scale. */
  amount(key: string, currency: string | null, scaleOf: (currency: string | null) => number, allowNegative = false): Amount {
    const scale = scaleOf(currency);
    const minor = parseMinorUnits(this.#obj[key], scale, allowNegative);
    if (minor === null) throw new DecodeError(this.#at(key), `is not an amount with at most ${scale} decimals`);
    return { minor, scale, currency };
  }

  amountOrNull(key: string, currency: string | null, scaleOf: (currency: string | null) => number): Amount | null {
    const v = this.#obj[key];
    if (v === null || v === undefined) return null;
    return this.amount(key, currency, scaleOf);
  }

  object(key: string): Fields {
    return new Fields(this.#obj[key], this.#at(key));
  }

  objectOrNull(key: string): Fields | null {
    const v = this.#obj[key];
    if (v === null || v === undefined) return null;
    return this.object(key);
  }

  array<T>(key: string, item: (f: Fields) => T): T[] {
    return decodeArray(this.#obj[key], this.#at(key), item);
  }
}

export function decodeArray<T>(value: unknown, path: string, item: (f: Fields) => T): T[] {
  if (!Array.isArray(value)) throw new DecodeError(path, 'is not an array');
  return value.map((v, i) => item(new Fields(v, `${path}[${i}]`)));
}
