import { MAX_TYPED_AMOUNT_CHARS, readTypedAmount, type TypedAmountProblem } from '../../electron/shared/money.ts';
import type { TextKey } from './i18n.ts';

/**
 * The amount field as the cashier edits it, by keyboard or by the on-screen keypad. The text
 * goes to the core as typed ("12,50", "R$ 12,50"): the core reads it with the same reader as
 * the preview here (electron/shared/money.ts, readTypedAmount), and is the only judge. The
 * field never drops a character a cashier typed: "-5" stays "-5" and is refused in words,
 * never charged as R$ 5,00.
 */

export const MAX_AMOUNT_CHARS = MAX_TYPED_AMOUNT_CHARS;

export type KeypadKey = '0' | '1' | '2' | '3' | '4' | '5' | '6' | '7' | '8' | '9' | '00' | 'separator' | 'backspace' | 'clear';

export const KEYPAD_KEYS: readonly KeypadKey[] = ['7', '8', '9', '4', '5', '6', '1', '2', '3', 'separator', '0', 'backspace'];

/** Digits of the whole part the keypad lets through: R$ 1.000.000,00 is the core's ceiling. */
const MAX_WHOLE_DIGITS = 7;

/** The decimal separator a cashier of that language expects to see on the keypad. */
export function decimalSeparator(lang: string): ',' | '.' {
  return lang === 'en' ? '.' : ',';
}

/**
 * What typing or pasting leaves in the field: the text as typed, without invisible control
 * and format characters (a pasted bidi override would show the digits reversed). A paste
 * longer than an amount keeps one character too many, so the reader says "too long" instead
 * of reading a cut number.
 */
export function sanitizeTyped(raw: string): string {
  return raw.replace(/[\p{Cc}\p{Cf}]/gu, '').slice(0, MAX_AMOUNT_CHARS + 1);
}

function split(text: string): { whole: string; sep: string | null; fraction: string } {
  const i = text.search(/[.,]/);
  if (i < 0) return { whole: text, sep: null, fraction: '' };
  return { whole: text.slice(0, i), sep: text.charAt(i), fraction: text.slice(i + 1) };
}

/**
 * One press of the on-screen keypad. Unlike typing, the keypad never builds an amount the
 * core would refuse: one separator, two decimal places, no leading zeros.
 */
export function pressKey(text: string, key: KeypadKey, separator: ',' | '.'): string {
  if (key === 'clear') return '';
  if (key === 'backspace') return text.slice(0, -1);
  if (key === 'separator') {
    const { whole, sep } = split(text);
    if (sep !== null) return text;
    return (whole === '' ? '0' : whole) + separator;
  }
  let out = text;
  for (const digit of key) {
    const parts = split(out);
    if (parts.sep !== null) {
      if (parts.fraction.length >= 2) break;
      out += digit;
    } else if (parts.whole === '0') {
      // "0" followed by a digit means that digit: no leading zeros.
      out = digit;
    } else if (parts.whole.length >= MAX_WHOLE_DIGITS) {
      break;
    } else {
      out += digit;
    }
  }
  return out.slice(0, MAX_AMOUNT_CHARS);
}

/** The cents the core will read from the text, for the preview under the field, or null. */
export function previewCents(text: string): number | null {
  const typed = readTypedAmount(text);
  return typed.ok ? typed.cents : null;
}

/**
 * What is wrong with the text, said under the field while the cashier types, before Charge is
 * pressed; null while it is an amount, or not yet one ("" or "0" on the way to "0,50"). The
 * core refuses the same text for the same reason when Charge is pressed.
 */
export function amountProblem(text: string): TypedAmountProblem | null {
  const typed = readTypedAmount(text);
  return typed.ok || typed.problem === 'empty' || typed.problem === 'zero' ? null : typed.problem;
}

/** The sentence of each refusal, on the field and in the core's answer (errorText.ts). */
export const AMOUNT_PROBLEM_TEXT: Readonly<Record<TypedAmountProblem, TextKey>> = {
  empty: 'cashier.amountProblem.empty',
  too_long: 'cashier.amountProblem.too_long',
  negative: 'cashier.amountProblem.negative',
  exponent: 'cashier.amountProblem.exponent',
  not_a_number: 'cashier.amountProblem.not_a_number',
  thousands_separator: 'cashier.thousandsHint',
  too_many_decimals: 'cashier.amountProblem.too_many_decimals',
  zero: 'cashier.amountProblem.zero',
  too_large: 'cashier.amountProblem.too_large',
};

/** From R$ 10.000,00 on, a sale is asked to be confirmed once before it is charged (issue 8). */
export const CONFIRM_FROM_CENTS = 1_000_000;

/**
 * Whether pressing Charge on `text` must first ask the cashier to confirm it: an amount of
 * R$ 10.000,00 or more that was not confirmed for this very text (`confirmedText`: the text
 * the cashier already confirmed, if any). Any change to the text asks again.
 */
export function needsLargeAmountConfirmation(text: string, confirmedText: string | null): boolean {
  const cents = previewCents(text);
  return cents !== null && cents >= CONFIRM_FROM_CENTS && confirmedText !== text;
}

/** The service's limit on `external_id` (contract 2): the core refuses longer ones too. */
export const MAX_REFERENCE_CHARS = 128;

/** How many characters too long the reference is: refused with a sentence, never cut. */
export function referenceLength(text: string): { count: number; tooLong: boolean } {
  const count = text.trim().length;
  return { count, tooLong: count > MAX_REFERENCE_CHARS };
}

/**
 * The refund form's sentence for each refusal of a typed amount: the charge's words where
 * they fit any amount, a refund's where the charge's speak of charging (issue 26: a refund
 * was told "An amount to charge cannot be negative").
 */
export const REFUND_AMOUNT_PROBLEM_TEXT: Readonly<Record<TypedAmountProblem, TextKey>> = {
  ...AMOUNT_PROBLEM_TEXT,
  empty: 'refund.amountProblem.empty',
  negative: 'refund.amountProblem.negative',
  zero: 'refund.amountProblem.zero',
  too_large: 'error.problem.refund_amount_too_large',
};

/**
 * What a typed refund amount is, or why it is refused, before the confirmation: the same
 * reader as the core (readTypedAmount), and never more than is left on the sale (the core
 * refuses that too, refund_amount_too_large).
 */
export function readRefundAmount(text: string, leftCents: number): { ok: true; cents: number } | { ok: false; key: TextKey } {
  const typed = readTypedAmount(text);
  if (!typed.ok) return { ok: false, key: REFUND_AMOUNT_PROBLEM_TEXT[typed.problem] };
  // The core's own sentence for it, so the person reads one wording whoever refuses first.
  if (typed.cents > leftCents) return { ok: false, key: 'error.problem.refund_amount_too_large' };
  return { ok: true, cents: typed.cents };
}
