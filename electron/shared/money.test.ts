import { describe, expect, it } from 'vitest';
import {
  MAX_SALE_CENTS,
  MAX_TYPED_AMOUNT_CHARS,
  TYPED_AMOUNT_PROBLEM_TEXT,
  centsToUnits,
  decodeWireAmount,
  formatCents,
  readTypedAmount,
  wireBrlCents,
  type TypedAmount,
  type TypedAmountProblem,
  type WireAmount,
  type WireAmountProblem,
} from './money.ts';

/**
 * ONE table of hostile text, with the answer of each reader side by side: the strict wire
 * decoder (what the service sends, BRL at scale 2) and the lenient reader of what a cashier
 * types. A number is the amount in cents; a word is the refusal. A divergence between the two
 * readers is meant to be read here, row by row, not discovered in production.
 */
const HOSTILE: ReadonlyArray<readonly [text: string, wire: number | WireAmountProblem, typed: number | TypedAmountProblem]> = [
  // The wire form itself: both read it alike.
  ['12.50', 1250, 1250],
  ['12.5', 1250, 1250],
  ['12', 1200, 1200],
  ['0.05', 5, 5],
  ['0.01', 1, 1],
  ['1000000.00', MAX_SALE_CENTS, MAX_SALE_CENTS],
  // What only a cashier may write.
  ['12,50', 'not_a_number', 1250],
  ['12,5', 'not_a_number', 1250],
  ['R$ 12,50', 'not_a_number', 1250],
  ['R$12.50', 'not_a_number', 1250],
  ['r$ 7', 'not_a_number', 700],
  ['12,50\u00a0R$', 'not_a_number', 1250],
  ['R$ 12 R$', 'not_a_number', 'not_a_number'],
  ['R$\u00a012,50', 'not_a_number', 1250],
  [' 12.50', 'not_a_number', 1250],
  ['12.50 ', 'not_a_number', 1250],
  ['\t12,50\n', 'not_a_number', 1250],
  ['12.', 'not_a_number', 1200],
  ['12,', 'not_a_number', 1200],
  ['.5', 'not_a_number', 50],
  [',50', 'not_a_number', 50],
  ['012.50', 'not_a_number', 1250],
  // More than two places: the wire refuses; a cashier's three digits are a thousands grouping.
  ['12.500', 'too_many_decimals', 'thousands_separator'],
  ['12.505', 'too_many_decimals', 'thousands_separator'],
  ['2.500', 'too_many_decimals', 'thousands_separator'],
  ['12,500', 'not_a_number', 'thousands_separator'],
  ['12.5055', 'too_many_decimals', 'too_many_decimals'],
  ['0.001', 'too_many_decimals', 'too_many_decimals'],
  ['1234.500', 'too_many_decimals', 'too_many_decimals'],
  // Thousands separators, never guessed.
  ['1,000', 'not_a_number', 'thousands_separator'],
  ['1.000,00', 'not_a_number', 'thousands_separator'],
  ['1,000.00', 'not_a_number', 'thousands_separator'],
  ['1.000.000', 'not_a_number', 'thousands_separator'],
  ['1 500', 'not_a_number', 'thousands_separator'],
  ['1 500,00', 'not_a_number', 'thousands_separator'],
  // Signs: never dropped, never rewritten.
  ['+12.5', 'not_a_number', 'not_a_number'],
  ['-5', 'negative', 'negative'],
  ['-12.50', 'negative', 'negative'],
  ['-0.00', 'negative', 'negative'],
  ['-0', 'negative', 'negative'],
  ['5-', 'not_a_number', 'negative'],
  ['\u22125', 'not_a_number', 'negative'],
  ['R$ -5,00', 'not_a_number', 'negative'],
  ['--5', 'not_a_number', 'negative'],
  // Exponents, hex, words.
  ['1e3', 'not_a_number', 'exponent'],
  ['1E3', 'not_a_number', 'exponent'],
  ['1e-3', 'not_a_number', 'exponent'],
  ['1.5e2', 'not_a_number', 'exponent'],
  ['1e+3', 'not_a_number', 'exponent'],
  ['0x10', 'not_a_number', 'not_a_number'],
  ['NaN', 'not_a_number', 'not_a_number'],
  ['Infinity', 'not_a_number', 'not_a_number'],
  ['abc', 'not_a_number', 'not_a_number'],
  ['12a', 'not_a_number', 'not_a_number'],
  ['12,50 reais', 'not_a_number', 'not_a_number'],
  ['$12', 'not_a_number', 'not_a_number'],
  ['\u0661\u0662', 'not_a_number', 'not_a_number'],
  ['\uff11\uff12', 'not_a_number', 'not_a_number'],
  ['12, 50', 'not_a_number', 'not_a_number'],
  ['.', 'not_a_number', 'not_a_number'],
  [',', 'not_a_number', 'not_a_number'],
  ['1.2.3', 'not_a_number', 'not_a_number'],
  // Nothing, zero, too much.
  ['', 'not_a_number', 'empty'],
  ['   ', 'not_a_number', 'empty'],
  ['R$', 'not_a_number', 'empty'],
  ['0', 0, 'zero'],
  ['0.00', 0, 'zero'],
  ['0,00', 'not_a_number', 'zero'],
  ['1000000.01', 100_000_001, 'too_large'],
  ['10000000', 1_000_000_000, 'too_large'],
  ['90071992547409.91', Number.MAX_SAFE_INTEGER, 'too_large'],
  ['90071992547409.92', 'too_large', 'too_large'],
  ['99999999999999999999', 'too_large', 'too_large'],
  ['1'.repeat(MAX_TYPED_AMOUNT_CHARS + 1), 'too_large', 'too_long'],
  ['0'.repeat(MAX_TYPED_AMOUNT_CHARS) + '12,50', 'not_a_number', 'too_long'],
];

/** Cents (or minor units) when read, the problem when refused. */
const answer = (r: WireAmount | TypedAmount): number | string => (r.ok ? ('minor' in r ? r.minor : r.cents) : r.problem);

describe('one hostile table, two readers', () => {
  it.each(HOSTILE)('%j: wire %s, typed %s', (text, wire, typed) => {
    expect(answer(decodeWireAmount(text, { scale: 2 }))).toBe(wire);
    expect(answer(readTypedAmount(text))).toBe(typed);
  });

  it('wireBrlCents is the wire decoder at scale 2, null for every refusal', () => {
    for (const [text, wire] of HOSTILE) expect(wireBrlCents(text)).toBe(typeof wire === 'number' ? wire : null);
  });

  it('whatever the wire decoder accepts (sale-sized, above zero), the cashier reader reads the same cents', () => {
    for (const [text, wire] of HOSTILE) {
      if (typeof wire === 'number' && wire > 0 && wire <= MAX_SALE_CENTS) expect(readTypedAmount(text)).toEqual({ ok: true, cents: wire });
    }
  });
});

describe('decodeWireAmount', () => {
  it.each<[number, number | WireAmountProblem]>([
    [12.5, 1250],
    [12.05, 1205],
    [100, 10_000],
    [1e2, 10_000],
    [0, 0],
    [1.15, 115],
    [0.1 + 0.2, 'too_many_decimals'],
    [1.005, 'too_many_decimals'],
    [5e-324, 'too_many_decimals'],
    [-0, 'negative'],
    [-5, 'negative'],
    [Number.NaN, 'not_a_number'],
    [Number.POSITIVE_INFINITY, 'not_a_number'],
    [Number.NEGATIVE_INFINITY, 'not_a_number'],
    [1e21, 'too_large'],
    [1e308, 'too_large'],
    // 15 significant digits always survive a double; beyond that JSON.parse has already rounded.
    [9999999999999.99, 999_999_999_999_999],
    [90071992547409.91, 9_007_199_254_740_990],
  ])('the JSON number %d reads as %s', (input, expected) => {
    expect(answer(decodeWireAmount(input, { scale: 2 }))).toBe(expected);
  });

  it('reads every cent written as a JSON number through its shortest text, never by multiplying a float', () => {
    for (let c = 0; c < 200_000; c += 7) expect(decodeWireAmount(c / 100, { scale: 2 })).toEqual({ ok: true, minor: c });
    for (const c of [MAX_SALE_CENTS, MAX_SALE_CENTS - 1, 12_345_678_901, 999_999_999_999_999]) {
      expect(decodeWireAmount(c / 100, { scale: 2 })).toEqual({ ok: true, minor: c });
    }
  });

  it.each([null, undefined, true, {}, ['12.50'], 12n])('refuses %o as the wrong type', (input) => {
    expect(decodeWireAmount(input, { scale: 2 })).toEqual({ ok: false, problem: 'wrong_type' });
  });

  it.each<[unknown, number, number | WireAmountProblem]>([
    ['0.000001', 6, 1],
    [1e-6, 6, 1],
    [2.469136, 6, 2_469_136],
    ['12.5', 6, 12_500_000],
    ['12.50', 6, 12_500_000],
    [1e-7, 6, 'too_many_decimals'],
    ['0.0000010', 6, 'too_many_decimals'],
    ['1234.56', 2, 123_456],
    ['12', 0, 12],
    ['12.0', 0, 'too_many_decimals'],
    ['9007199254.740991', 6, Number.MAX_SAFE_INTEGER],
    ['9007199254.740992', 6, 'too_large'],
  ])('%o at scale %d reads as %s (ARS/BRL 2, USDt 6: contract 6)', (input, scale, expected) => {
    expect(answer(decodeWireAmount(input, { scale }))).toBe(expected);
  });

  it.each<[unknown, number | WireAmountProblem]>([
    ['-5.00', -500],
    [-5, -500],
    ['-0', 0],
    [-0, 0],
    ['-0.00', 0],
    ['12.50', 1250],
    ['--5', 'not_a_number'],
    ['+5', 'not_a_number'],
    ['- 5', 'not_a_number'],
    ['-5.001', 'too_many_decimals'],
  ])('a signed field reads %o as %s', (input, expected) => {
    expect(answer(decodeWireAmount(input, { scale: 2, signed: true }))).toBe(expected);
  });

  it('never answers -0', () => {
    for (const input of ['-0', -0, '-0.00']) {
      const r = decodeWireAmount(input, { scale: 2, signed: true });
      expect(r.ok && Object.is(r.minor, 0)).toBe(true);
    }
  });

  it('refuses a scale that is not a currency scale: that is our bug', () => {
    for (const scale of [-1, 1.5, 16, Number.NaN]) expect(() => decodeWireAmount('1', { scale })).toThrow(RangeError);
  });
});

describe('readTypedAmount', () => {
  it('reads every amount a sale can have, as the keypad and both separators write it', () => {
    for (const cents of [1, 5, 99, 100, 1250, 99_999, 12_345_678, MAX_SALE_CENTS]) {
      const text = formatCents(cents);
      expect(readTypedAmount(text)).toEqual({ ok: true, cents });
      expect(readTypedAmount(text.replace('.', ','))).toEqual({ ok: true, cents });
      expect(readTypedAmount(`R$ ${text.replace('.', ',')}`)).toEqual({ ok: true, cents });
    }
  });
});

describe('formatCents', () => {
  it.each([
    [1250, '12.50'],
    [5, '0.05'],
    [0, '0.00'],
    [100_000_000, '1000000.00'],
    [-300, '-3.00'],
    [-5, '-0.05'],
  ])('%d -> %s', (cents, text) => {
    expect(formatCents(cents)).toBe(text);
  });

  it.each([1.5, Number.NaN, Number.MAX_SAFE_INTEGER + 2, Number.POSITIVE_INFINITY])('refuses %d', (cents) => {
    expect(() => formatCents(cents)).toThrow(RangeError);
  });

  it('round-trips with the wire decoder, signs included', () => {
    for (const cents of [0, 1, 99, 100, 1234567, 100_000_000, Number.MAX_SAFE_INTEGER]) {
      expect(decodeWireAmount(formatCents(cents), { scale: 2 })).toEqual({ ok: true, minor: cents });
    }
    for (const cents of [-1, -300, -Number.MAX_SAFE_INTEGER]) {
      expect(decodeWireAmount(formatCents(cents), { scale: 2, signed: true })).toEqual({ ok: true, minor: cents });
    }
  });
});

describe('centsToUnits', () => {
  it('gives the decimal number of the cents', () => {
    expect(centsToUnits(1250)).toBe(12.5);
    expect(centsToUnits(115)).toBe(1.15);
    expect(centsToUnits(-1)).toBe(-0.01);
  });
});

describe('TYPED_AMOUNT_PROBLEM_TEXT', () => {
  it('names the sale limit from MAX_SALE_CENTS in the core format, not a figure written by hand', () => {
    expect(TYPED_AMOUNT_PROBLEM_TEXT.too_large).toBe(`A sale is at most R$ ${formatCents(MAX_SALE_CENTS)}.`);
    expect(readTypedAmount(formatCents(MAX_SALE_CENTS))).toEqual({ ok: true, cents: MAX_SALE_CENTS });
  });

  it('writes no amount in a language format of its own', () => {
    for (const text of Object.values(TYPED_AMOUNT_PROBLEM_TEXT)) expect(text).not.toMatch(/R\$\s?\d{1,3}[.,]\d{3}/);
  });
});
