import { describe, expect, it } from 'vitest';
import { centsToUnits, formatCents, parseCents } from './money.ts';

describe('parseCents', () => {
  it.each([
    ['12.50', 1250],
    ['12.5', 1250],
    ['12', 1200],
    ['0.01', 1],
    ['.5', 50],
    ['+3', 300],
    [' 7.00 ', 700],
    ['12.500', 1250],
    ['007.05', 705],
    ['0', 0],
    ['-0', 0],
    ['1000000.00', 100_000_000],
    ['9999999999999.99', 999_999_999_999_999],
    [12.5, 1250],
    [12, 1200],
    [0.1, 10],
    [1e2, 10_000],
    [19.99, 1999],
    [1.15, 115],
    [4.35, 435],
  ] as const)('%j -> %d cents', (input, cents) => {
    expect(parseCents(input)).toEqual({ ok: true, cents });
  });

  it('accepts a decimal comma only when asked', () => {
    expect(parseCents('12,50', { decimalComma: true })).toEqual({ ok: true, cents: 1250 });
    expect(parseCents('12,50')).toEqual({ ok: false, problem: 'not_a_number' });
  });

  it.each([
    ['12.505', 'too_many_decimals'],
    ['0.001', 'too_many_decimals'],
    [0.1 + 0.2, 'too_many_decimals'],
    [1e-7, 'too_many_decimals'],
    ['-1', 'negative'],
    ['-0.01', 'negative'],
    [-5, 'negative'],
    ['', 'not_a_number'],
    ['  ', 'not_a_number'],
    ['.', 'not_a_number'],
    ['-', 'not_a_number'],
    ['abc', 'not_a_number'],
    ['1e3', 'not_a_number'],
    ['NaN', 'not_a_number'],
    ['Infinity', 'not_a_number'],
    ['1.2.3', 'not_a_number'],
    ['1,000.00', 'not_a_number'],
    ['0x10', 'not_a_number'],
    ['１２', 'not_a_number'],
    ['12.50\n1', 'not_a_number'],
    [Number.NaN, 'not_a_number'],
    [Number.POSITIVE_INFINITY, 'not_a_number'],
    ['99999999999999', 'too_large'],
    [1e21, 'too_large'],
    [null, 'wrong_type'],
    [undefined, 'wrong_type'],
    [true, 'wrong_type'],
    [{}, 'wrong_type'],
    [['12.50'], 'wrong_type'],
  ] as const)('%j is refused as %s', (input, problem) => {
    expect(parseCents(input)).toEqual({ ok: false, problem });
  });

  it('refuses a bigint (JSON never carries one; a caller must convert on purpose)', () => {
    expect(parseCents(12n)).toEqual({ ok: false, problem: 'wrong_type' });
  });

  it('never yields a non-integer, whatever the input', () => {
    for (let c = 0; c < 2000; c += 7) {
      const r = parseCents(c / 100);
      expect(r).toEqual({ ok: true, cents: c });
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

  it('round-trips with parseCents', () => {
    for (const cents of [0, 1, 99, 100, 1234567, 100_000_000]) expect(parseCents(formatCents(cents))).toEqual({ ok: true, cents });
  });
});

describe('centsToUnits', () => {
  it('gives the decimal number of the cents', () => {
    expect(centsToUnits(1250)).toBe(12.5);
    expect(centsToUnits(115)).toBe(1.15);
    expect(centsToUnits(-1)).toBe(-0.01);
  });
});
