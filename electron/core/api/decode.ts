/**
 * Reading the service's JSON answers into typed values, with the path of the first field
 * that does not fit. A success body that does not decode is a service fault the client
 * reports (it never hands half-typed data to the app).
 *
 * Money is read exactly from its decimal text, never by multiplying a float (contract,
 * wire conventions), by the one strict wire decoder (electron/shared/money.ts): BRL into
 * integer cents, other currencies (ARS, USDt) into integer minor units at their scale.
 */
import { BRL_SCALE, decodeWireAmount } from '../../shared/money.ts';

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
    const decoded = decodeWireAmount(this.#obj[key], { scale: BRL_SCALE });
    if (!decoded.ok) throw new DecodeError(this.#at(key), `is not a BRL amount (${decoded.problem})`);
    return decoded.minor;
  }

  centsOrNull(key: string): number | null {
    const v = this.#obj[key];
    if (v === null || v === undefined) return null;
    return this.cents(key);
  }

  /** An amount in `currency`, read exactly at that currency's scale; `signed` for a net amount that may be below zero. */
  amount(key: string, currency: string | null, scaleOf: (currency: string | null) => number, signed = false): Amount {
    const scale = scaleOf(currency);
    const decoded = decodeWireAmount(this.#obj[key], { scale, signed });
    if (!decoded.ok) throw new DecodeError(this.#at(key), `is not an amount with at most ${scale} decimals (${decoded.problem})`);
    return { minor: decoded.minor, scale, currency };
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
