import { describe, expect, it } from 'vitest';
import {
  arsToUsdt,
  divideHalfEven,
  formatUnits,
  multiplyHalfEven,
  parseDecimal,
  prorateDeduction,
  quoteCharge,
  sumAmounts,
  subtractAmounts,
  toUnits,
} from './quotes.ts';

describe('divideHalfEven', () => {
  it.each([
    [5n, 2n, 2n],
    [7n, 2n, 4n],
    [-5n, 2n, -2n],
    [-7n, 2n, -4n],
    [1n, 3n, 0n],
    [2n, 3n, 1n],
    [15n, 10n, 2n],
    [25n, 10n, 2n],
    [35n, 10n, 4n],
    [26n, 10n, 3n],
    [24n, 10n, 2n],
    [5n, -2n, -2n],
    [0n, 7n, 0n],
  ])('%s / %s -> %s', (n, d, q) => {
    expect(divideHalfEven(n, d)).toBe(q);
  });

  it('refuses a zero divisor', () => {
    expect(() => divideHalfEven(1n, 0n)).toThrow(RangeError);
  });
});

describe('decimal text', () => {
  it.each([
    ['12.50', 2, 1250n],
    ['12.5', 2, 1250n],
    ['12', 2, 1200n],
    ['0.000001', 6, 1n],
    ['-3.10', 2, -310n],
  ])('toUnits(%s, %s) = %s', (text, scale, units) => {
    expect(toUnits(text, scale)).toBe(units);
  });

  it.each(['', '1.', '.5', '1e3', '1,50', ' 1', 'NaN', '+1'])('parseDecimal refuses %j', (text) => {
    expect(() => parseDecimal(text)).toThrow(RangeError);
  });

  it('refuses to drop digits', () => {
    expect(() => toUnits('1.234', 2)).toThrow(RangeError);
  });

  it.each([
    [0n, 2, '0.00'],
    [5n, 2, '0.05'],
    [-5n, 6, '-0.000005'],
    [123456n, 2, '1234.56'],
    [7n, 0, '7'],
  ])('formatUnits(%s, %s) = %s', (units, scale, text) => {
    expect(formatUnits(units, scale)).toBe(text);
  });

  it('multiplies up when the product has fewer places than the target', () => {
    expect(multiplyHalfEven(1250n, 2, parseDecimal('2'), 6)).toBe(25_000_000n);
  });
});

describe('quoteCharge (contract 6: half-even, 2 places ARS, 6 places USDt)', () => {
  it.each([
    // BRL x 0.182345: 12.50 -> 2.2793125, an exact half after an even digit stays down
    [1250n, 'blockchain_batched', 'USDt', '2.279312'],
    // 0.10 -> 0.0182345: half after 4 (even) rounds down
    [10n, 'blockchain_batched', 'USDt', '0.018234'],
    // 0.30 -> 0.0547035: half after 3 (odd) rounds up
    [30n, 'blockchain_batched', 'USDt', '0.054704'],
    // BRL x 247.3183: 12.50 -> 3091.47875, above half rounds up
    [1250n, 'ars_batched', 'ARS', '3091.48'],
    // 50.00 -> 12365.915: half after 1 (odd) rounds up
    [5000n, 'ars_batched', 'ARS', '12365.92'],
    // 150.00 -> 37097.745: half after 4 (even) rounds down
    [15000n, 'ars_per_charge', 'ARS', '37097.74'],
    [1n, 'ars_per_charge', 'ARS', '2.47'],
  ] as const)('%s cents in %s -> %s %s', (cents, mode, currency, amount) => {
    const quote = quoteCharge(cents, mode);
    expect(quote).toMatchObject({ mode, currency, amount });
  });

  it('refuses a non-positive charge', () => {
    expect(() => quoteCharge(0n, 'ars_batched')).toThrow(RangeError);
  });
});

describe('prorateDeduction (reference 2.9: at the charge own rate, a full refund cancels it)', () => {
  it('a full refund deducts exactly the settlement amount', () => {
    const quote = quoteCharge(1250n, 'blockchain_batched');
    expect(prorateDeduction(quote, 1250n, 0n, 1250n)).toBe(quote.amount);
  });

  it('parts add up to the whole however the charge is split', () => {
    for (const mode of ['ars_batched', 'blockchain_batched'] as const) {
      for (const [charged, parts] of [
        [1000n, [333n, 333n, 334n]],
        [1250n, [1n, 1n, 1248n]],
        [999n, [500n, 499n]],
        [7n, [1n, 1n, 1n, 1n, 1n, 1n, 1n]],
      ] as const) {
        const quote = quoteCharge(charged, mode);
        let before = 0n;
        const deductions: string[] = [];
        for (const part of parts) {
          deductions.push(prorateDeduction(quote, charged, before, part));
          before += part;
        }
        expect(sumAmounts(deductions, quote.currency)).toBe(quote.amount);
      }
    }
  });

  it('prorates a partial refund at the charge rate with half-even rounding', () => {
    const quote = quoteCharge(1000n, 'ars_batched'); // 2473.18 ARS
    expect(quote.amount).toBe('2473.18');
    // 2473.18 x 333 / 1000 = 823.56894 -> 823.57
    expect(prorateDeduction(quote, 1000n, 0n, 333n)).toBe('823.57');
    // 2473.18 x 666 / 1000 = 1647.13788 -> 1647.14; minus 823.57
    expect(prorateDeduction(quote, 1000n, 333n, 333n)).toBe('823.57');
    expect(prorateDeduction(quote, 1000n, 666n, 334n)).toBe('826.04');
  });

  it.each([
    [0n, 0n],
    [0n, 1251n],
    [1000n, 251n],
    [-1n, 10n],
  ])('refuses before=%s now=%s on a 12.50 charge', (before, now) => {
    expect(() => prorateDeduction(quoteCharge(1250n, 'ars_batched'), 1250n, before, now)).toThrow(RangeError);
  });
});

describe('sums and conversion', () => {
  it('sums and subtracts exactly, without float drift', () => {
    expect(sumAmounts(['0.1', '0.2'], 'ARS')).toBe('0.30');
    expect(sumAmounts([], 'USDt')).toBe('0.000000');
    expect(subtractAmounts('1.000000', '1.000001', 'USDt')).toBe('-0.000001');
  });

  it('converts ARS to USDt at the fixed rate, half-even to 6 places', () => {
    expect(arsToUsdt('100.00')).toBe('0.073733');
    // 3091.48 x 0.00073733 = 2.2794409... -> 2.279441
    expect(arsToUsdt('3091.48')).toBe('2.279441');
  });
});
