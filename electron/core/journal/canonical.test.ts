import { describe, expect, it } from 'vitest';
import { canonicalJson, entryHash, sha256Hex } from './canonical.ts';

describe('canonicalJson', () => {
  it('is the same text whatever order the keys were written in', () => {
    const a = { b: 1, a: { d: [3, { y: 1, x: 2 }], c: 'é' } };
    const b = { a: { c: 'é', d: [3, { x: 2, y: 1 }] }, b: 1 };
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    expect(canonicalJson(a)).toBe('{"a":{"c":"é","d":[3,{"x":2,"y":1}]},"b":1}');
  });

  it('reads back to the same value with JSON.parse', () => {
    const value = { s: 'line\nbreak "quoted" \u2028 \u0000', n: -12.5, big: 1e21, tiny: 5e-324, t: true, f: false, z: null, arr: [[], {}] };
    expect(JSON.parse(canonicalJson(value))).toEqual(value);
  });

  it('sorts keys by code unit, so digits, capitals and non-ASCII have one fixed place', () => {
    expect(canonicalJson({ b: 1, B: 2, '10': 3, '2': 4, ä: 5, a: 6 })).toBe('{"10":3,"2":4,"B":2,"a":6,"b":1,"ä":5}');
  });

  it('drops undefined members as JSON does, and writes -0 as 0', () => {
    expect(canonicalJson({ a: undefined, b: { c: undefined }, d: -0 })).toBe('{"b":{},"d":0}');
  });

  it('keeps a "__proto__" key that JSON.parse made an own property', () => {
    const parsed: unknown = JSON.parse('{"__proto__":{"x":1},"a":1}');
    expect(canonicalJson(parsed)).toBe('{"__proto__":{"x":1},"a":1}');
  });

  const refused: [string, unknown][] = [
    ['NaN', { a: Number.NaN }],
    ['Infinity', { a: Number.POSITIVE_INFINITY }],
    ['-Infinity', [Number.NEGATIVE_INFINITY]],
    ['undefined in an array', [1, undefined]],
    ['a hole in an array', Object.assign(new Array<number>(3), { 0: 1, 2: 3 })],
    ['a Date (JSON would make it a string)', { at: new Date(0) }],
    ['a Map (JSON would make it {})', { m: new Map([[1, 2]]) }],
    ['a class instance', { x: new (class Money { cents = 1 })() }],
    ['a bigint', { n: 10n }],
    ['a function', { f: () => 1 }],
    ['a symbol', { s: Symbol('x') }],
    ['undefined itself', undefined],
  ];
  it.each(refused)('refuses %s', (_name, value) => {
    expect(() => canonicalJson(value)).toThrow(TypeError);
  });

  it('refuses cycles and absurd nesting, but not shared references', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(/circular/);
    let deep: unknown = 1;
    for (let i = 0; i < 100; i++) deep = [deep];
    expect(() => canonicalJson(deep)).toThrow(/deeply/);
    const shared = { x: 1 };
    expect(canonicalJson({ a: shared, b: shared })).toBe('{"a":{"x":1},"b":{"x":1}}');
  });
});

describe('entryHash', () => {
  it('is sha256 over the canonical JSON of {at, data, prev, seq, type}', () => {
    const data = { sale_id: 's1', amount_cents: 1250 };
    const prev = 'ab'.repeat(32);
    const expected = sha256Hex(canonicalJson({ type: 'sale.created', seq: 7, prev, data, at: 1_763_732_700_000 }));
    expect(entryHash(7, prev, 1_763_732_700_000, 'sale.created', canonicalJson(data))).toBe(expected);
  });

  it('changes when any hashed field changes', () => {
    const base = entryHash(1, '0'.repeat(64), 1, 't', '{}');
    expect(entryHash(2, '0'.repeat(64), 1, 't', '{}')).not.toBe(base);
    expect(entryHash(1, '1'.repeat(64), 1, 't', '{}')).not.toBe(base);
    expect(entryHash(1, '0'.repeat(64), 2, 't', '{}')).not.toBe(base);
    expect(entryHash(1, '0'.repeat(64), 1, 'u', '{}')).not.toBe(base);
    expect(entryHash(1, '0'.repeat(64), 1, 't', '{"a":1}')).not.toBe(base);
  });
});
