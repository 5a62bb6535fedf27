import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../shared/prng.ts';
import { canonical, sameCanonical } from './order.ts';

const LEAVES: readonly unknown[] = [undefined, null, 0, -0, 1, 250, Number.NaN, Infinity, '', 'a', 'b', true, false];
const KEYS = ['a', 'b', 'c', 'sale_id', 'at'];

/** A value like a sale's parts: nested records and lists, with absent members, NaN and -0 among the leaves. */
function value(r: () => number, depth: number): unknown {
  const roll = r();
  if (depth === 0 || roll < 0.45) return LEAVES[Math.floor(r() * LEAVES.length)];
  if (roll < 0.7) return Array.from({ length: Math.floor(r() * 3) }, () => value(r, depth - 1));
  const out: Record<string, unknown> = {};
  for (const key of KEYS) if (r() < 0.5) out[key] = value(r, depth - 1);
  return out;
}

/** The same value with every record's members written in another order. */
function reordered(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(reordered);
  return Object.fromEntries(Object.entries(v).reverse().map(([k, x]) => [k, reordered(x)]));
}

/** A value close to `v`: one leaf somewhere changed, or the value itself. */
function nudged(r: () => number, v: unknown): unknown {
  if (v === null || typeof v !== 'object' || r() < 0.2) return r() < 0.5 ? v : LEAVES[Math.floor(r() * LEAVES.length)];
  if (Array.isArray(v)) {
    const i = Math.floor(r() * (v.length + 1));
    return i === v.length ? [...v, null] : v.map((x, j) => (j === i ? nudged(r, x) : x));
  }
  const keys = Object.keys(v);
  const key = KEYS[Math.floor(r() * KEYS.length)]!;
  return keys.includes(key) || r() < 0.5 ? { ...v, [key]: nudged(r, (v as Record<string, unknown>)[key]) } : v;
}

describe('sameCanonical', () => {
  it('answers what comparing the two canonical texts answers', () => {
    for (const seed of [1, 7, 42, 2026, 99991]) {
      const r = mulberry32(seed);
      for (let n = 0; n < 2_000; n++) {
        const a = value(r, 4);
        for (const b of [value(r, 4), reordered(a), nudged(r, a), nudged(r, reordered(a))]) {
          expect(sameCanonical(a, b), `seed ${seed}: ${canonical(a)} vs ${canonical(b)}`).toBe(canonical(a) === canonical(b));
        }
      }
    }
  });

  it('takes absent members, member order, -0 and NaN as the text does', () => {
    expect(sameCanonical({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(sameCanonical({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(true);
    expect(sameCanonical([undefined], [null])).toBe(true);
    expect(sameCanonical(-0, 0)).toBe(true);
    expect(sameCanonical(Number.NaN, null)).toBe(true);
    expect(sameCanonical({ a: 1 }, { a: 1, b: null })).toBe(false);
    expect(sameCanonical([], {})).toBe(false);
    expect(sameCanonical('1', 1)).toBe(false);
  });
});
