/**
 * Money in BRL. Inside the app and the sandbox an amount is an integer number of cents;
 * on the wire it is a decimal string with two places ("12.50") and a JSON number must be
 * accepted too (contract, wire conventions). Amounts are compared only in integer cents,
 * never as floats, so parsing works on the decimal text and never multiplies a float.
 *
 * Pure: runs in the renderer, the core and the sandbox.
 */

export type AmountProblem =
  /** Not a string or number (null, boolean, object...). */
  | 'wrong_type'
  /** Not a decimal numeral: empty, letters, NaN, Infinity, "1e3" as a string, "1.2.3". */
  | 'not_a_number'
  /** Below zero. */
  | 'negative'
  /** More than two significant decimal places ("12.505"). */
  | 'too_many_decimals'
  /** Larger than the safe integer range in cents. */
  | 'too_large';

export type ParsedCents = { ok: true; cents: number } | { ok: false; problem: AmountProblem };

export interface ParseCentsOptions {
  /** Accept a comma as the decimal separator ("12,50"), as a Brazilian cashier types it. */
  decimalComma?: boolean;
}

/** Digits of the integer part beyond which cents would leave the safe integer range. */
const MAX_INTEGER_DIGITS = 13;

/**
 * Parses an amount to integer cents exactly.
 * Accepts "12.50", "12.5", "12", ".5", "+3", " 7.00 ", "12.500" (trailing zeros beyond two
 * places change nothing), optionally "12,50", and a finite JSON number (12.5, 1e2).
 * Rejects more than two significant decimals, negatives, NaN/Infinity, exponents written in
 * a string, thousands separators and anything that is not a numeral.
 */
export function parseCents(input: unknown, options: ParseCentsOptions = {}): ParsedCents {
  let text: string;
  if (typeof input === 'number') {
    if (!Number.isFinite(input)) return { ok: false, problem: 'not_a_number' };
    // String(n) is the shortest text that round-trips to n, so 12.5 -> "12.5" and
    // 0.1 + 0.2 -> "0.30000000000000004" (rejected below as too many decimals).
    text = expandExponent(String(input));
  } else if (typeof input === 'string') {
    text = input.trim();
    if (options.decimalComma === true) text = text.replace(',', '.');
  } else {
    return { ok: false, problem: 'wrong_type' };
  }
  const m = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(text);
  if (m === null) return { ok: false, problem: 'not_a_number' };
  const sign = m[1] ?? '';
  const whole = m[2] ?? '';
  const fraction = m[3] ?? '';
  if (whole === '' && fraction === '') return { ok: false, problem: 'not_a_number' };
  const significantFraction = fraction.replace(/0+$/, '');
  if (significantFraction.length > 2) return { ok: false, problem: 'too_many_decimals' };
  const wholeDigits = whole.replace(/^0+/, '');
  if (wholeDigits.length > MAX_INTEGER_DIGITS) return { ok: false, problem: 'too_large' };
  const cents = Number(wholeDigits === '' ? '0' : wholeDigits) * 100 + Number(significantFraction.padEnd(2, '0'));
  if (sign === '-' && cents !== 0) return { ok: false, problem: 'negative' };
  return { ok: true, cents };
}

/** Writes "1e-7" or "1.5e+21" (as String(number) may) as a plain decimal numeral. */
export function expandExponent(text: string): string {
  const m = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/i.exec(text);
  if (m === null) return text;
  const sign = m[1] ?? '';
  const digits = (m[2] ?? '') + (m[3] ?? '');
  const point = (m[2] ?? '').length + Number(m[4]);
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return sign + digits + '0'.repeat(point - digits.length);
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** Formats integer cents as the wire form: 1250 -> "12.50", 5 -> "0.05", -300 -> "-3.00". */
export function formatCents(cents: number): string {
  if (!Number.isSafeInteger(cents)) throw new RangeError(`cents must be a safe integer, got ${String(cents)}`);
  const negative = cents < 0;
  const abs = Math.abs(cents);
  const whole = Math.floor(abs / 100);
  const fraction = String(abs % 100).padStart(2, '0');
  return `${negative ? '-' : ''}${whole}.${fraction}`;
}

/** Cents as a JSON number in currency units (for fields the reference types as number). */
export function centsToUnits(cents: number): number {
  if (!Number.isSafeInteger(cents)) throw new RangeError(`cents must be a safe integer, got ${String(cents)}`);
  return Number(formatCents(cents));
}
