/**
 * BRL amounts as the service sends them, read into integer cents.
 *
 * Contract, wire conventions: money in BRL is a decimal string with two places ("12.50"),
 * clients also accept a JSON number, and amounts are compared in integer cents, never as
 * floats. This is the sales core's own reader, kept here so the core has no dependency;
 * electron/shared/money.ts is expected to take its place once the two are unified.
 */

/** Contract 2: a sale is at most 1,000,000.00 BRL. */
export const MAX_SALE_CENTS = 100_000_000;

/** Plain decimal: digits, then optionally a point and one or two digits. No sign, no exponent, no spaces. */
const DECIMAL_BRL = /^(\d+)(?:\.(\d{1,2}))?$/;

/**
 * Reads a BRL amount into integer cents, or null when it cannot be read exactly.
 *
 * The input is `unknown` because it comes straight from a webhook body: a boolean, null or
 * object must give null, not throw. A number is read through its shortest round-trip text
 * (`String(12.5)` is "12.5"), so a number and the string that prints it read alike and no
 * float multiplication ever decides a cent; `1e21`, `NaN` and `12.505` are refused.
 */
export function amountToCents(amount: unknown): number | null {
  let text: string;
  if (typeof amount === 'string') text = amount;
  else if (typeof amount === 'number') {
    if (!Number.isFinite(amount)) return null;
    // -0 prints as "0"; a negative number keeps its sign and is refused below.
    text = Object.is(amount, -0) ? '0' : String(amount);
  } else return null;

  const m = DECIMAL_BRL.exec(text);
  if (!m) return null;
  const whole = m[1] ?? '';
  const fraction = (m[2] ?? '').padEnd(2, '0');
  // Leading zeros are harmless ("007.00"); drop them before the length guard.
  const digits = `${whole}${fraction}`.replace(/^0+(?=\d)/, '');
  // Beyond 15 digits the integer is no longer exact in a double.
  if (digits.length > 15) return null;
  return Number(digits);
}

export type AmountComparison = 'equal' | 'over' | 'under' | 'invalid';

/**
 * Compares a received `amount_brl` with the sale's expected amount, in integer cents
 * (reference 4.5 rule 6: check that amount_brl equals the expected sale amount).
 *
 * `invalid` means a person must look: the amount could not be read exactly, or it is zero
 * (a Pix payment is never for nothing). The expected amount is our own data, so a bad one
 * is a programming error and throws.
 */
export function compareAmount(expectedCents: number, amountBrl: unknown): AmountComparison {
  if (!Number.isSafeInteger(expectedCents) || expectedCents <= 0) {
    throw new RangeError(`expected amount must be a positive integer number of cents, got ${String(expectedCents)}`);
  }
  const received = amountToCents(amountBrl);
  if (received === null || received === 0) return 'invalid';
  if (received === expectedCents) return 'equal';
  return received > expectedCents ? 'over' : 'under';
}
