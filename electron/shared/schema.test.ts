import { describe, expect, it } from 'vitest';
import { firstIssue, issuePath, v, wireAmount } from './schema.ts';

describe('wireAmount', () => {
  const brl = wireAmount({ scale: 2 }, (problem) => `is not a BRL amount (${problem})`);

  it('reads decimal text and JSON numbers into integer cents', () => {
    expect(v.parse(brl, '12.50')).toBe(1250);
    expect(v.parse(brl, 0.1)).toBe(10);
    expect(v.parse(brl, '1000000.00')).toBe(100_000_000);
  });

  it('refuses what money.ts refuses, worded by the boundary', () => {
    for (const [input, problem] of [
      ['12.505', 'too_many_decimals'],
      ['-1.00', 'negative'],
      ['1e3', 'not_a_number'],
      [null, 'wrong_type'],
    ] as const) {
      const result = firstIssue(brl, input);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.issue.message).toBe(`is not a BRL amount (${problem})`);
    }
  });

  it('takes a signed amount where asked', () => {
    const net = wireAmount({ scale: 6, signed: true }, (p) => p);
    expect(v.parse(net, '-0.000001')).toBe(-1);
  });
});

describe('issuePath', () => {
  const Body = v.object({ settlements: v.array(v.object({ amount: v.string() })) });

  it('writes object keys with dots and list places in brackets', () => {
    const result = firstIssue(Body, { settlements: [{ amount: 'x' }, { amount: 3 }] });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(issuePath(result.issue)).toBe('settlements[1].amount');
      expect(issuePath(result.issue, 'response')).toBe('response.settlements[1].amount');
    }
  });

  it('is the root alone for an issue at the root', () => {
    const result = firstIssue(Body, 'not an object');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(issuePath(result.issue, 'response')).toBe('response');
  });
});
