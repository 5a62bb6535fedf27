import type { Lang } from '../../electron/core/contract.ts';
import { CHECKOUT_DESC_MAX, CLAIM_DETAILS_MAX, CLAIM_DETAILS_MIN, CLAIM_REFERENCE_MAX, DEVICE_NAME_MAX, OPERATOR_NAME_MAX } from '../../electron/shared/form-rules.ts';
import { BRL_SCALE, MAX_SALE_CENTS } from '../../electron/shared/money.ts';
import { CONFIRM_FROM_CENTS } from './amountInput.ts';

/**
 * The one place money and numbers become text for people: every screen, message and the
 * printed report go through here, so one sentence never mixes "R$1,000.00" with "R$ 1.000,00".
 * Amounts are integer minor units with their scale; they reach Intl as an exact decimal
 * string ("247318297.53"), which Intl.NumberFormat reads digit by digit (ECMA-402 2023), so
 * no amount is ever rounded through a float, whatever its size or scale.
 */

/** An amount as the service states it: integer minor units, their scale, and the currency. */
export interface Figure {
  readonly minor: number;
  readonly scale: number;
  readonly currency: string | null;
}

/** Minor units as a plain decimal string: (12345, 2) -> "123.45", (-5, 6) -> "-0.000005". */
export function decimalText(minor: number, scale: number): string {
  if (!Number.isSafeInteger(minor)) throw new RangeError(`minor units must be a safe integer, got ${String(minor)}`);
  const digits = Math.abs(minor).toString().padStart(scale + 1, '0');
  const text = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return minor < 0 ? `-${text}` : text;
}

/**
 * USDt (Tether) has no ISO 4217 code, so Intl cannot name it: it is formatted as USD shown by
 * its code, and the code is then replaced, so "USDt" sits where the language puts a currency.
 */
const UNIT_STANDS_IN: Readonly<Record<string, string>> = { USDt: 'USD', USDT: 'USD' };

const formats = new Map<string, Intl.NumberFormat>();

function numberFormat(lang: Lang, currency: string | null, scale: number): Intl.NumberFormat {
  const id = `${lang}|${currency ?? ''}|${scale}`;
  let format = formats.get(id);
  if (format) return format;
  const digits = { minimumFractionDigits: scale, maximumFractionDigits: scale };
  if (currency === null) format = new Intl.NumberFormat(lang, digits);
  // BRL is the shop's own money: "R$" in every language (es would otherwise say "BRL").
  // Any other currency by its code: "$" alone would read as reais' neighbour or as dollars.
  else format = new Intl.NumberFormat(lang, { style: 'currency', currency: UNIT_STANDS_IN[currency] ?? currency, currencyDisplay: currency === 'BRL' ? 'narrowSymbol' : 'code', ...digits });
  formats.set(id, format);
  return format;
}

/** Any amount in the language's way: "R$ 1.000.000,00", "ARS 247,318,297.53", "USDt 30.500000". */
export function formatFigure(lang: Lang, figure: Figure): string {
  const format = numberFormat(lang, figure.currency, figure.scale);
  // format() takes the exact decimal string; the DOM typings only declare number | bigint.
  const decimal = decimalText(figure.minor, figure.scale) as unknown as number;
  if (figure.currency === null || !(figure.currency in UNIT_STANDS_IN)) return format.format(decimal);
  return format
    .formatToParts(decimal)
    .map((part) => (part.type === 'currency' ? figure.currency : part.value))
    .join('');
}

/**
 * The plain decimals inside a figure line the core wrote ("1234.500000 − 0.000000") in the
 * language's way, each at its own scale; the words and signs around them are kept.
 */
export function formatDecimalsIn(lang: Lang, text: string): string {
  return text.replace(/-?\d+(?:\.(\d+))?/g, (decimal, fraction: string | undefined) => numberFormat(lang, null, fraction?.length ?? 0).format(decimal as unknown as number));
}

/** Integer cents as reais: "R$ 10,00" (pt-BR), "R$10.00" (en). */
export function formatMoney(lang: Lang, cents: number): string {
  return formatFigure(lang, { minor: cents, scale: BRL_SCALE, currency: 'BRL' });
}

/** A whole number in the language's way (counts in totals): "1.234" (pt-BR), "1,234" (en). */
export function formatCount(lang: Lang, n: number): string {
  return numberFormat(lang, null, 0).format(n);
}

/**
 * The amounts sentences name as rules ("at most {max_sale}", "{confirm_from} or more"),
 * available to every text so none writes a figure by hand in its own format.
 */
export function ruleAmounts(lang: Lang): Readonly<Record<string, string>> {
  return { max_sale: formatMoney(lang, MAX_SALE_CENTS), confirm_from: formatMoney(lang, CONFIRM_FROM_CENTS), zero_amount: formatMoney(lang, 0) };
}

/**
 * The limits sentences name ("at most {claim_details_max} characters"), from the constants the
 * rules judge by (electron/shared/form-rules.ts), written the language's way ("4.000" in
 * pt-BR): a limit changes in one place, and no text writes it by hand.
 */
export function ruleNumbers(lang: Lang): Readonly<Record<string, string>> {
  return {
    claim_details_min: formatCount(lang, CLAIM_DETAILS_MIN),
    claim_details_max: formatCount(lang, CLAIM_DETAILS_MAX),
    claim_reference_max: formatCount(lang, CLAIM_REFERENCE_MAX),
    checkout_desc_max: formatCount(lang, CHECKOUT_DESC_MAX),
    operator_name_max: formatCount(lang, OPERATOR_NAME_MAX),
    device_name_max: formatCount(lang, DEVICE_NAME_MAX),
  };
}
