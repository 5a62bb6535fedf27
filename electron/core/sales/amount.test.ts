import { describe, expect, it } from 'vitest';
import { compareAmount } from './amount.ts';

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
    // What the old parseCents took for a payment the strict decoder refuses (issue 13, point 3).
    [1250, '12.500', 'invalid'],
    [1250, '+12.5', 'invalid'],
    [1250, ' 12.50', 'invalid'],
    [1250, '12,50', 'invalid'],
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
