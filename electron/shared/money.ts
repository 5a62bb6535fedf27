/**
 * Money. Inside the app and the sandbox an amount is an integer number of minor units (cents
 * for BRL); it is compared only as an integer, never as a float. Two readers turn text into
 * that integer, and nothing else in the app parses an amount:
 *
 * `decodeWireAmount` reads what the service sends (and what the sandbox receives), strictly.
 * Contract, wire conventions: "Money in BRL is a decimal string with two places ("12.50") on
 * the wire; clients must also accept a JSON number"; contract 2's `amount`: "string or number
 * … at most two decimals". Contract 6: ARS has 2 places, USDt 6, so the caller names
 * the scale. A wire amount is exactly one of:
 *   - a string `0|[1-9][0-9]*`, optionally followed by `.` and 1 to `scale` digits: "12.50",
 *     "12.5", "12", "0.05". Nothing else: no sign ("+12.5", "-0.00"), no whitespace
 *     (" 12.50"), no exponent ("1e3"), no hex ("0x10"), no comma ("12,50"), no leading zeros
 *     ("012.50"), no bare point ("12.", ".5"), no more than `scale` places even if they are
 *     zeros ("12.500": the contract says at most two decimals, not two significant ones),
 *     not "", "NaN" or "Infinity";
 *   - a finite JSON number, read through its shortest round-trip text (`String(12.5)` is
 *     "12.5"; 1e2 is "100"; 0.1 + 0.2 is "0.30000000000000004", refused), so a number and the
 *     string that prints it always agree and no float multiplication ever decides a cent
 *     (a number of more than 15 significant digits was already rounded by JSON.parse: what
 *     it reads is the double that arrived, which is why the wire form is a string);
 *   - with `signed` (only for a net amount the reference lets go below zero), either of the
 *     above preceded by "-" (or a negative number); "-0" then reads as 0.
 * and its value in minor units is a safe integer (at most Number.MAX_SAFE_INTEGER); bounds of
 * a field (greater than 0, at most 1,000,000.00 for a sale) are the caller's, not the reader's.
 *
 * `readTypedAmount` reads what a cashier types, leniently in form but never in value: it
 * accepts a comma or a point as the decimal separator, "R$" in front and spaces around, and
 * refuses, with the reason, anything it would otherwise have to rewrite or guess (a minus
 * sign, an exponent, letters, thousands separators, more than two decimals, nothing, zero,
 * more than contract 2's R$ 1.000.000,00).
 *
 * Both are pure and run in the renderer, the core and the sandbox. Their answers to one table
 * of hostile inputs sit side by side in money.test.ts.
 */

/** Contract 2: a sale is at most 1,000,000.00 BRL. */
export const MAX_SALE_CENTS = 100_000_000;

/** Decimal places of BRL (contract, wire conventions), and of ARS; USDt has 6 (contract 6). */
export const BRL_SCALE = 2;

/** Why a wire amount was refused. */
export type WireAmountProblem =
  /** Not a string or a number (null, boolean, object, bigint...). */
  | 'wrong_type'
  /** Not a wire decimal: "", " 12.50", "+12.5", "1e3", "0x10", "12,50", "012", "12.", NaN, Infinity. */
  | 'not_a_number'
  /** Below zero, or any "-" in a field that is not `signed` ("-0.00" included). */
  | 'negative'
  /** More decimal places than the scale, zeros included ("12.500" at scale 2). */
  | 'too_many_decimals'
  /** Beyond Number.MAX_SAFE_INTEGER minor units. */
  | 'too_large';

export type WireAmount = { ok: true; minor: number } | { ok: false; problem: WireAmountProblem };

export interface WireAmountOptions {
  /** Decimal places of the currency: 2 for BRL and ARS, 6 for USDt. */
  scale: number;
  /** Accept a negative amount (a net settlement can be below zero). */
  signed?: boolean;
}

const WIRE_DECIMAL = /^(-?)(0|[1-9]\d*)(?:\.(\d+))?$/;

/** Reads one wire amount into integer minor units at `scale`, or says why it cannot. */
export function decodeWireAmount(input: unknown, options: WireAmountOptions): WireAmount {
  const { scale } = options;
  if (!Number.isSafeInteger(scale) || scale < 0 || scale > 15) throw new RangeError(`scale must be 0 to 15, got ${String(scale)}`);
  let text: string;
  if (typeof input === 'number') {
    if (!Number.isFinite(input)) return { ok: false, problem: 'not_a_number' };
    // String(-0) is "0": keep the sign the JSON text had, so -0 and "-0" read alike.
    text = (Object.is(input, -0) ? '-' : '') + expandExponent(String(input));
  } else if (typeof input === 'string') {
    text = input;
  } else {
    return { ok: false, problem: 'wrong_type' };
  }
  const m = WIRE_DECIMAL.exec(text);
  if (m === null) return { ok: false, problem: 'not_a_number' };
  const negative = m[1] === '-';
  if (negative && options.signed !== true) return { ok: false, problem: 'negative' };
  const whole = m[2] ?? '0';
  const fraction = m[3] ?? '';
  if (fraction.length > scale) return { ok: false, problem: 'too_many_decimals' };
  const digits = `${whole}${fraction.padEnd(scale, '0')}`.replace(/^0+(?=\d)/, '');
  // 16 digits parse to the nearest double: exact up to MAX_SAFE_INTEGER, unsafe beyond it.
  const minor = digits.length > 16 ? Number.POSITIVE_INFINITY : Number(digits);
  if (!Number.isSafeInteger(minor)) return { ok: false, problem: 'too_large' };
  return { ok: true, minor: negative && minor !== 0 ? -minor : minor };
}

/**
 * A BRL wire amount (`amount_brl`, `refunded_amount`...) in cents, or null when it is not one.
 * For the journal's readers, which keep an unreadable amount as "unknown" and show it.
 */
export function wireBrlCents(input: unknown): number | null {
  const decoded = decodeWireAmount(input, { scale: BRL_SCALE });
  return decoded.ok ? decoded.minor : null;
}

/** Writes "1e-7" or "1.5e+21" (as String(number) may) as a plain decimal numeral. */
function expandExponent(text: string): string {
  const m = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/i.exec(text);
  if (m === null) return text;
  const sign = m[1] ?? '';
  const digits = (m[2] ?? '') + (m[3] ?? '');
  const point = (m[2] ?? '').length + Number(m[4]);
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return sign + digits + '0'.repeat(point - digits.length);
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** Why what a cashier typed is not an amount to charge. */
export type TypedAmountProblem =
  /** Nothing but spaces (or "R$"). */
  | 'empty'
  /** Longer than MAX_TYPED_AMOUNT_CHARS: cut, it would be a different number. */
  | 'too_long'
  /** A minus sign anywhere: "-5" is not R$ 5,00. */
  | 'negative'
  /** "1e3" is not R$ 13,00, nor R$ 1.000,00 to every cashier. */
  | 'exponent'
  /** Letters or signs other than digits, one separator, "R$" in front and spaces around. */
  | 'not_a_number'
  /** "2.500", "1.000,00", "1 500": a grouping of thousands is never guessed. */
  | 'thousands_separator'
  /** Four or more digits after the separator. */
  | 'too_many_decimals'
  /** Nothing to charge: contract 2, a sale's amount is greater than 0. */
  | 'zero'
  /** More than MAX_SALE_CENTS (contract 2). */
  | 'too_large';

export type TypedAmount = { ok: true; cents: number } | { ok: false; problem: TypedAmountProblem };

/** The core accepts an amount of at most 20 characters (handlers.ts, sale.charge). */
export const MAX_TYPED_AMOUNT_CHARS = 20;

/**
 * Each refusal in English, for the core's error message and logs (the screen translates the
 * code, and writes the limit in its language through src/lib/format.ts). Amounts here come
 * from integer cents through formatCents, the core's one format ("R$ 1000000.00").
 */
export const TYPED_AMOUNT_PROBLEM_TEXT: Readonly<Record<TypedAmountProblem, string>> = {
  empty: 'Type the amount to charge, like 12,50.',
  too_long: `An amount has at most ${MAX_TYPED_AMOUNT_CHARS} characters.`,
  negative: 'An amount to charge cannot be negative: type it without a minus sign.',
  exponent: 'Type the amount in plain digits, like 1000,00, not with an exponent.',
  not_a_number: 'Type only digits and one decimal separator, like 12,50.',
  thousands_separator: 'Type the amount without a thousands separator, like 1500 or 1500,00.',
  too_many_decimals: 'An amount has at most two decimal places, like 12,50.',
  zero: 'The amount to charge must be more than zero.',
  too_large: `A sale is at most R$ ${formatCents(MAX_SALE_CENTS)}.`,
};

/**
 * Reads what a cashier typed into integer cents. Accepts "12,50", "12.50", "12,5", "12,",
 * ",50", "R$ 12,50", "12,50 R$" and spaces around; refuses with the reason whatever it would
 * have to rewrite to read. Exactly three digits after a separator ("2.500") is a thousands
 * separator to a Brazilian and 2.50 to a parser, so it is refused as ambiguous, never guessed.
 */
export function readTypedAmount(typed: string): TypedAmount {
  if (typed.length > MAX_TYPED_AMOUNT_CHARS) return { ok: false, problem: 'too_long' };
  // "R$" in front, as pt-BR prints it, or behind, as es may ("12,50 R$").
  const text = typed.trim().replace(/^R\$|R\$$/i, '').trim();
  if (text === '') return { ok: false, problem: 'empty' };
  if (/\d[.,]?\d*\s*e\s*[-+\u2212]?\d/i.test(text)) return { ok: false, problem: 'exponent' };
  // Hyphen-minus, the minus sign and the dashes a keyboard or a paste may bring.
  if (/[-\u2212\u2012-\u2015]/.test(text)) return { ok: false, problem: 'negative' };
  if (/[^\d.,\s]/.test(text)) return { ok: false, problem: 'not_a_number' };
  if (/\s/.test(text)) return { ok: false, problem: /\d\s+\d/.test(text) ? 'thousands_separator' : 'not_a_number' };
  const separators = text.match(/[.,]/g)?.length ?? 0;
  if (separators > 1) return { ok: false, problem: /^\d{1,3}(?:[.,]\d{3})+(?:[.,]\d{0,2})?$/.test(text) ? 'thousands_separator' : 'not_a_number' };
  const [whole = '', fraction = ''] = text.split(/[.,]/);
  if (whole === '' && fraction === '') return { ok: false, problem: 'not_a_number' };
  if (fraction.length === 3 && /^[1-9]\d{0,2}$/.test(whole)) return { ok: false, problem: 'thousands_separator' };
  if (fraction.length > 2) return { ok: false, problem: 'too_many_decimals' };
  const wholeDigits = whole.replace(/^0+/, '');
  if (wholeDigits.length > 7) return { ok: false, problem: 'too_large' };
  const cents = Number(wholeDigits || '0') * 100 + Number(fraction.padEnd(2, '0'));
  if (cents === 0) return { ok: false, problem: 'zero' };
  if (cents > MAX_SALE_CENTS) return { ok: false, problem: 'too_large' };
  return { ok: true, cents };
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
