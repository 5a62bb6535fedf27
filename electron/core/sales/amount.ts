/**
 * A received BRL amount judged against the sale's expected one. Reading the amount is
 * electron/shared/money.ts's job (the one strict wire decoder); this module only compares.
 */
import { wireBrlCents } from '../../shared/money.ts';

export { MAX_SALE_CENTS } from '../../shared/money.ts';

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
  const received = wireBrlCents(amountBrl);
  if (received === null || received === 0) return 'invalid';
  if (received === expectedCents) return 'equal';
  return received > expectedCents ? 'over' : 'under';
}
