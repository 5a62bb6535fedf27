import { describe, expect, it } from 'vitest';
import { amountProblem, decimalSeparator, MAX_AMOUNT_CHARS, needsLargeAmountConfirmation, pressKey, previewCents, readRefundAmount, referenceLength, sanitizeTyped, type KeypadKey } from './amountInput.ts';
import { LANGS } from '../../electron/core/contract.ts';
import { translate } from './i18n.ts';

const press = (keys: readonly KeypadKey[], sep: ',' | '.' = ',', start = '') => keys.reduce((text, key) => pressKey(text, key, sep), start);

describe('pressKey', () => {
  it.each<[readonly KeypadKey[], string]>([
    [['1', '2', 'separator', '5', '0'], '12,50'],
    [['separator', '5'], '0,5'],
    [['0', '0', '7'], '7'],
    [['1', 'separator', 'separator', '2'], '1,2'],
    [['1', 'separator', '2', '3', '4'], '1,23'],
    [['9', '9', '9', '9', '9', '9', '9', '9'], '9999999'],
    [['1', '2', 'backspace'], '1'],
    [['backspace'], ''],
    [['1', '2', 'clear'], ''],
    [['5', '00'], '500'],
    [['5', 'separator', '00'], '5,00'],
    [['5', 'separator', '1', '00'], '5,10'],
  ])('%j -> %s', (keys, text) => {
    expect(press(keys)).toBe(text);
  });

  it('uses the language separator but respects one already typed', () => {
    expect(press(['1', 'separator', '5'], '.')).toBe('1.5');
    expect(press(['separator', '5'], ',', '3.')).toBe('3.5');
  });
});

describe('sanitizeTyped', () => {
  // Issue 13: the field used to drop what was not a digit, so "-5" charged R$ 5,00 and "1e3"
  // R$ 13,00. What the cashier typed stays, and the reader refuses it in words.
  it.each([
    ['12,50', '12,50'],
    ['R$ 12,50', 'R$ 12,50'],
    ['12.5a', '12.5a'],
    ['-3', '-3'],
    ['1e3', '1e3'],
    ['\u202e12', '12'],
    ['12\u200b,50', '12,50'],
    ['1'.repeat(40), '1'.repeat(MAX_AMOUNT_CHARS + 1)],
  ])('%j -> %j', (raw, text) => {
    expect(sanitizeTyped(raw)).toBe(text);
  });

  it('never turns a long paste into a shorter amount the reader would accept', () => {
    expect(previewCents(sanitizeTyped(`${'0'.repeat(30)}12,50`))).toBeNull();
    expect(amountProblem(sanitizeTyped(`${'0'.repeat(30)}12,50`))).toBe('too_long');
  });
});

describe('previewCents', () => {
  it.each<[string, number | null]>([
    ['12,50', 1250],
    ['12.50', 1250],
    ['12,5', 1250],
    ['R$ 12,50', 1250],
    ['0,01', 1],
    ['0', null],
    ['', null],
    ['12,505', null],
    ['1.234,56', null],
    [',', null],
    // A thousands separator is never read as cents ("2.500" is not R$ 2,50).
    ['2.500', null],
    ['1,000', null],
    ['10.000', null],
    ['2.500 ', null],
    ['2.50', 250],
    ['-5', null],
    ['1e3', null],
  ])('%j -> %s', (text, cents) => {
    expect(previewCents(text)).toBe(cents);
  });
});

describe('amountProblem', () => {
  it.each<[string, string | null]>([
    ['12,50', null],
    ['', null],
    ['0', null], // on the way to "0,50": said by the core only if charged
    ['0,', null],
    ['-5', 'negative'],
    ['1e3', 'exponent'],
    ['12a', 'not_a_number'],
    ['2.500', 'thousands_separator'],
    ['1.000,00', 'thousands_separator'],
    ['12,5055', 'too_many_decimals'],
    ['1000000,01', 'too_large'],
  ])('%j -> %s', (text, problem) => {
    expect(amountProblem(text)).toBe(problem);
  });
});

describe('decimalSeparator', () => {
  it('is a comma in pt-BR and es, a period in en', () => {
    expect(decimalSeparator('pt-BR')).toBe(',');
    expect(decimalSeparator('es')).toBe(',');
    expect(decimalSeparator('en')).toBe('.');
  });
});

describe('needsLargeAmountConfirmation: R$ 10.000,00 or more is confirmed once (issue 8)', () => {
  it.each([
    // text, confirmed text, asks?
    ['9999,99', null, false],
    ['10000', null, true],
    ['10000,00', null, true],
    ['10.000,00', null, false], // refused as a thousands separator: never read, never confirmed
    ['R$ 12000', null, true],
    ['12000', '12000', false],
    ['12000', '1200', true], // another text asks again
    ['12000,5', '12000', true],
    ['1000000,00', null, true],
    ['1000000,01', null, false], // over the ceiling: refused, not confirmed
    ['-10000', null, false],
    ['1e4', null, false],
    ['', null, false],
  ] as const)('%s (confirmed %s) → %s', (text, confirmed, asks) => {
    expect(needsLargeAmountConfirmation(text, confirmed)).toBe(asks);
  });
});

describe('referenceLength: refused over 128 characters, never cut', () => {
  it.each([
    ['', 0, false],
    ['order-1042', 10, false],
    ['x'.repeat(128), 128, false],
    ['x'.repeat(129), 129, true],
    ['  ' + 'x'.repeat(128) + '  ', 128, false], // the core gets it trimmed
    ['y'.repeat(200), 200, true],
  ] as const)('%#: %s', (text, count, tooLong) => {
    expect(referenceLength(text)).toEqual({ count, tooLong });
  });
});

describe('a typed refund amount (issue 26)', () => {
  it.each([
    ['6.00', 600, { ok: true, cents: 600 }],
    ['R$ 6,00', 600, { ok: true, cents: 600 }],
    ['2,5', 600, { ok: true, cents: 250 }],
    ['', 600, { ok: false, key: 'refund.amountProblem.empty' }],
    ['   ', 600, { ok: false, key: 'refund.amountProblem.empty' }],
    ['-5', 600, { ok: false, key: 'refund.amountProblem.negative' }],
    ['0,00', 600, { ok: false, key: 'refund.amountProblem.zero' }],
    ['6,01', 600, { ok: false, key: 'error.problem.refund_amount_too_large' }],
    ['99999999', 600, { ok: false, key: 'error.problem.refund_amount_too_large' }],
    ['1e3', 600, { ok: false, key: 'cashier.amountProblem.exponent' }],
    ['1,234', 600, { ok: false, key: 'cashier.thousandsHint' }],
    ['abc', 600, { ok: false, key: 'cashier.amountProblem.not_a_number' }],
  ])('%j with %i left', (text, left, expected) => {
    expect(readRefundAmount(text, left)).toEqual(expected);
  });

  it('never speaks of charging, in any language', () => {
    const charge = { en: /charge/i, 'pt-BR': /cobrar/i, es: /cobrar/i } as const;
    for (const text of ['', '-5', '0', '6,01', '1e3', 'abc', '1,234']) {
      const read = readRefundAmount(text, 600);
      expect(read.ok).toBe(false);
      if (read.ok) continue;
      for (const lang of LANGS) expect(translate(lang, read.key)).not.toMatch(charge[lang]);
    }
  });
});
