/**
 * Exact money arithmetic for settlements: charge quotes, prorated refund deductions and the
 * ARS -> USDt conversion of the ARS batched mode. Amounts are scaled integers (bigint) and
 * travel in state as decimal strings ("2.279312"); nothing here touches a float until a
 * value is written to the wire as a JSON number (reference 2.7-2.9 type them as numbers).
 *
 * The sandbox's fixed rates live here and nowhere else (contract 6: a charge is quoted when
 * it is created; settlement_amount = charged_amount x rate, half-even to 2 places for ARS
 * and 6 for USDt).
 */

import type { SettlementMode } from './state.ts';

// One name for the concept: the checkout record (state.ts) holds the mode.
export type { SettlementMode };
export const SETTLEMENT_MODES: readonly SettlementMode[] = ['ars_per_charge', 'ars_batched', 'blockchain_batched'];

export type QuoteCurrency = 'ARS' | 'USDt';
export type Currency = QuoteCurrency | 'BRL';

/** Decimal places of each currency on the settlement side (contract 6). */
export const CURRENCY_SCALE: Readonly<Record<Currency, number>> = { ARS: 2, BRL: 2, USDt: 6 };

/** contract 6: currency_id 1 = ARS, 2 = BRL, 3 = USDt. */
export const CURRENCY_ID: Readonly<Record<Currency, number>> = { ARS: 1, BRL: 2, USDt: 3 };

/**
 * The sandbox's fixed rates, exact decimal strings. BRL -> ARS and BRL -> USDt quote a
 * charge; ARS -> USDt is what the ARS batched mode moves to its provider (reference 6.1:
 * "ARS batched settles in ARS, with the USDt amount moved to the provider in source_*").
 */
export const SANDBOX_RATES = {
  BRL_ARS: '247.3183',
  BRL_USDT: '0.182345',
  ARS_USDT: '0.00073733',
} as const;

/** Which currency a mode quotes in (contract 6: ARS for both ARS modes, USDt on-chain). */
export function quoteCurrencyOf(mode: SettlementMode): QuoteCurrency {
  return mode === 'blockchain_batched' ? 'USDt' : 'ARS';
}

export function isBatched(mode: SettlementMode): boolean {
  return mode !== 'ars_per_charge';
}

export interface Decimal {
  /** The value times 10^scale. */
  readonly units: bigint;
  readonly scale: number;
}

const DECIMAL_TEXT = /^(-?)(\d+)(?:\.(\d+))?$/;

/** Parses a plain decimal string ("12.5", "-0.000001"); throws on anything else. */
export function parseDecimal(text: string): Decimal {
  const m = DECIMAL_TEXT.exec(text);
  if (!m) throw new RangeError(`not a decimal: ${JSON.stringify(text)}`);
  const fraction = m[3] ?? '';
  const units = BigInt(`${m[2]}${fraction}`);
  return { units: m[1] === '-' ? -units : units, scale: fraction.length };
}

/** Units of `text` at exactly `scale` places; throws if that would lose digits. */
export function toUnits(text: string, scale: number): bigint {
  const d = parseDecimal(text);
  if (d.scale <= scale) return d.units * 10n ** BigInt(scale - d.scale);
  const factor = 10n ** BigInt(d.scale - scale);
  if (d.units % factor !== 0n) throw new RangeError(`${text} has more than ${scale} decimal places`);
  return d.units / factor;
}

/** "1234.50" from (123450n, 2); always exactly `scale` places. */
export function formatUnits(units: bigint, scale: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale);
  return `${negative ? '-' : ''}${whole}${scale > 0 ? `.${fraction}` : ''}`;
}

/**
 * numerator / denominator rounded half to even (banker's rounding), for any signs.
 * Half-even keeps sums of many quotes unbiased, which is why contract 6 asks for it.
 */
export function divideHalfEven(numerator: bigint, denominator: bigint): bigint {
  if (denominator === 0n) throw new RangeError('division by zero');
  if (denominator < 0n) return divideHalfEven(-numerator, -denominator);
  const negative = numerator < 0n;
  const n = negative ? -numerator : numerator;
  let q = n / denominator;
  const twiceRemainder = 2n * (n % denominator);
  if (twiceRemainder > denominator || (twiceRemainder === denominator && q % 2n === 1n)) q += 1n;
  return negative ? -q : q;
}

/** amount (units at amountScale) x rate, rounded half-even to targetScale places. */
export function multiplyHalfEven(amountUnits: bigint, amountScale: number, rate: Decimal, targetScale: number): bigint {
  const product = amountUnits * rate.units;
  const productScale = amountScale + rate.scale;
  if (productScale <= targetScale) return product * 10n ** BigInt(targetScale - productScale);
  return divideHalfEven(product, 10n ** BigInt(productScale - targetScale));
}

/** JSON number for the wire; the decimal string has at most 6 places, so it round-trips. */
export function toWireNumber(text: string): number {
  return Number(text);
}

/** A charge's quote, fixed when the charge is created (contract 6). */
export interface ChargeQuote {
  mode: SettlementMode;
  /** The BRL amount quoted ("12.50"). */
  charged_amount: string;
  /** Settlement-side currency (settlement_currency). */
  currency: QuoteCurrency;
  /** Exact decimal string at the currency's scale (settlement_amount). */
  amount: string;
  /** The rate used, kept so a reader can see where the figure came from. */
  rate: string;
}

/** Quotes a charge of `chargedCents` BRL cents for a checkout in `mode`. */
export function quoteCharge(chargedCents: bigint, mode: SettlementMode): ChargeQuote {
  if (chargedCents <= 0n) throw new RangeError('a charge is quoted only for a positive amount');
  const currency = quoteCurrencyOf(mode);
  const rateText = currency === 'ARS' ? SANDBOX_RATES.BRL_ARS : SANDBOX_RATES.BRL_USDT;
  const scale = CURRENCY_SCALE[currency];
  const units = multiplyHalfEven(chargedCents, CURRENCY_SCALE.BRL, parseDecimal(rateText), scale);
  return { mode, charged_amount: centsToBrl(chargedCents), currency, amount: formatUnits(units, scale), rate: rateText };
}

/**
 * The deduction for one refund, prorated at the charge's own rate (reference 2.9).
 * Computed on cumulative amounts: round(S x (before + now) / C) - round(S x before / C), so
 * however a charge is refunded in parts, the deductions add up to exactly its
 * settlement_amount once it is refunded in full ("a full refund cancels the charge exactly").
 */
export function prorateDeduction(
  quote: Pick<ChargeQuote, 'currency' | 'amount'>,
  chargedCents: bigint,
  refundedBeforeCents: bigint,
  refundedNowCents: bigint,
): string {
  if (refundedNowCents <= 0n) throw new RangeError('a refund is positive');
  if (refundedBeforeCents < 0n || refundedBeforeCents + refundedNowCents > chargedCents) {
    throw new RangeError('refunds cannot exceed the charge');
  }
  const scale = CURRENCY_SCALE[quote.currency];
  const settlementUnits = toUnits(quote.amount, scale);
  const upTo = (cents: bigint): bigint => divideHalfEven(settlementUnits * cents, chargedCents);
  return formatUnits(upTo(refundedBeforeCents + refundedNowCents) - upTo(refundedBeforeCents), scale);
}

/** Sums decimal strings of one currency exactly. */
export function sumAmounts(amounts: readonly string[], currency: Currency): string {
  const scale = CURRENCY_SCALE[currency];
  return formatUnits(
    amounts.reduce((total, a) => total + toUnits(a, scale), 0n),
    scale,
  );
}

export function subtractAmounts(a: string, b: string, currency: Currency): string {
  const scale = CURRENCY_SCALE[currency];
  return formatUnits(toUnits(a, scale) - toUnits(b, scale), scale);
}

/** ARS -> USDt at the sandbox rate, half-even to 6 places (ARS batched source side). */
export function arsToUsdt(ars: string): string {
  const units = multiplyHalfEven(toUnits(ars, CURRENCY_SCALE.ARS), CURRENCY_SCALE.ARS, parseDecimal(SANDBOX_RATES.ARS_USDT), CURRENCY_SCALE.USDt);
  return formatUnits(units, CURRENCY_SCALE.USDt);
}

/** BRL cents as the wire's decimal string ("12.50"), contract wire conventions. */
export function centsToBrl(cents: bigint): string {
  return formatUnits(cents, CURRENCY_SCALE.BRL);
}
