import { parseCents } from '../../electron/shared/money.ts';

/**
 * The amount field as the cashier edits it, by keyboard or by the on-screen keypad. The text
 * goes to the core as typed ("12,50" or "12.50"): the core parses it and is the only judge.
 * These helpers only keep the field tidy and show what the core will most likely read.
 */

/** The core accepts at most 20 characters (handlers.ts, sale.charge). */
export const MAX_AMOUNT_CHARS = 20;

export type KeypadKey = '0' | '1' | '2' | '3' | '4' | '5' | '6' | '7' | '8' | '9' | '00' | 'separator' | 'backspace' | 'clear';

export const KEYPAD_KEYS: readonly KeypadKey[] = ['7', '8', '9', '4', '5', '6', '1', '2', '3', 'separator', '0', 'backspace'];

/** Digits of the whole part the keypad lets through: R$ 1.000.000,00 is the core's ceiling. */
const MAX_WHOLE_DIGITS = 7;

/** The decimal separator a cashier of that language expects to see on the keypad. */
export function decimalSeparator(lang: string): ',' | '.' {
  return lang === 'en' ? '.' : ',';
}

/** What typing or pasting leaves in the field: digits and separators only, at most 20 characters. */
export function sanitizeTyped(raw: string): string {
  return raw.replace(/[^\d.,]/g, '').slice(0, MAX_AMOUNT_CHARS);
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

/**
 * The cents the core will most likely read from the text, for the preview under the field,
 * or null while the text is not an amount yet. Only a preview: the core decides.
 */
export function previewCents(text: string): number | null {
  if (text.trim() === '' || hasThousandsSeparator(text)) return null;
  const parsed = parseCents(text, { decimalComma: true });
  return parsed.ok && parsed.cents > 0 ? parsed.cents : null;
}

/**
 * "2.500" is two thousand five hundred to a Brazilian and 2.50 to a parser: three or more
 * digits after the last separator are refused by the core (handlers.ts), never guessed, so
 * the field says so before Charge is pressed.
 */
export function hasThousandsSeparator(text: string): boolean {
  return /[.,]\d{3,}\s*$/.test(text);
}
