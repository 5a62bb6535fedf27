import { describe, expect, it } from 'vitest';
import { amountToCents, compareAmount } from './amount.ts';

describe('amountToCents', () => {
  it.each([
    ['12.50', 1250],
    ['12.5', 1250],
    ['12', 1200],
    ['0.01', 1],
    ['0.29', 29],
    ['007.00', 700],
    ['1000000.00', 100_000_000],
    [12.5, 1250],
    [12.34, 1234],
    [0.29, 29], // 0.29 * 100 is 28.999999999999996 in floats: never multiplied here
    [1.005, null], // three decimals, whatever the float does with it
    [10, 1000],
    [0, 0],
    [-0, 0],
  ] as const)('%j -> %j', (input, cents) => {
    expect(amountToCents(input)).toBe(cents);
  });

  it.each([
    ['12.505'],
    ['12.500'],
    ['1e3'],
    ['-1.00'],
    ['+1.00'],
    [' 12.50'],
    ['12.50 '],
    ['12,50'],
    ['12.'],
    ['.50'],
    [''],
    ['R$ 12,50'],
    ['0x10'],
    ['Infinity'],
    ['NaN'],
    ['١٢.٥٠'], // digits of another script
    ['9999999999999999.99'], // beyond exact integers
    [-1],
    [12.505],
    [1e21],
    [1e-7],
    [Number.NaN],
    [Number.POSITIVE_INFINITY],
    [null],
    [undefined],
    [true],
    [{ amount: '12.50' }],
    [['12.50']],
  ])('%j is refused', (input) => {
    expect(amountToCents(input)).toBeNull();
  });
});

describe('compareAmount', () => {
  it.each([
    [1250, '12.50', 'equal'],
    [1250, '12.5', 'equal'],
    [1250, 12.5, 'equal'],
    [1250, '12.51', 'over'],
    [1250, 12.49, 'under'],
    [1250, '1e3', 'invalid'],
    [1250, '12.505', 'invalid'],
    [1250, '-12.50', 'invalid'],
    [1250, '0.00', 'invalid'], // a Pix payment is never for nothing
    [1250, null, 'invalid'],
  ] as const)('expected %i, received %j: %s', (expected, received, result) => {
    expect(compareAmount(expected, received)).toBe(result);
  });

  it('refuses an expected amount that is not a positive whole number of cents: that is our bug', () => {
    expect(() => compareAmount(12.5, '12.50')).toThrow(RangeError);
    expect(() => compareAmount(0, '0.01')).toThrow(RangeError);
    expect(() => compareAmount(-100, '1.00')).toThrow(RangeError);
  });
});
