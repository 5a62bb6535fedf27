import { describe, expect, it } from 'vitest';
import { frontOrder } from './front.ts';

describe('frontOrder: which core a balancer without health checks tries, in turn', () => {
  it.each([
    [2, 0, [0, 1]],
    [2, 1, [1, 0]],
    [2, 2, [0, 1]],
    [3, 4, [1, 2, 0]],
    [1, 7, [0]],
    // A turn counter gone negative or huge still starts somewhere on the ring.
    [3, -1, [2, 0, 1]],
    [2, Number.MAX_SAFE_INTEGER, [1, 0]],
  ])('%i targets, connection %i: %j', (count, n, order) => {
    expect(frontOrder(count, n)).toEqual(order);
  });

  it('tries every target once, none twice', () => {
    for (let n = 0; n < 10; n++) expect([...frontOrder(5, n)].sort()).toEqual([0, 1, 2, 3, 4]);
  });

  it('with no targets, or a count that is not a whole number, tries none', () => {
    expect(frontOrder(0, 3)).toEqual([]);
    expect(frontOrder(-2, 0)).toEqual([]);
    expect(frontOrder(Number.NaN, 0)).toEqual([]);
    expect(frontOrder(1.5, 0)).toEqual([]);
  });
});
