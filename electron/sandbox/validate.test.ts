import { describe, expect, it } from 'vitest';
import { ApiError } from './http.ts';
import { expectedList, Fields } from './validate.ts';

describe('Fields (pydantic-like validation items)', () => {
  it('int: JSON integers, integer strings; floats, text and booleans are refused with their types', () => {
    const f = Fields.body({ a: 5, b: '7', c: 1.5, d: 'x', e: true, f: 1e300, g: 5.0 });
    expect([f.int('a'), f.int('b'), f.int('g')]).toEqual([5, 7, 5]);
    expect([f.int('c'), f.int('d'), f.int('e'), f.int('f')]).toEqual([undefined, undefined, undefined, undefined]);
    expect(f.items.map((i) => [i.loc[1], i.type])).toEqual([
      ['c', 'int_from_float'],
      ['d', 'int_parsing'],
      ['e', 'int_type'],
      ['f', 'int_parsing_size'],
    ]);
  });

  it('bounds give greater_than_equal / less_than_equal / greater_than / less_than with ctx', () => {
    const f = Fields.query(new URLSearchParams('p=0&s=101&g=0&l=5'));
    f.int('p', { ge: 1 });
    f.int('s', { le: 100 });
    f.int('g', { gt: 0 });
    f.int('l', { lt: 5 });
    expect(f.items).toEqual([
      { type: 'greater_than_equal', loc: ['query', 'p'], msg: 'Input should be greater than or equal to 1', input: '0', ctx: { ge: 1 } },
      { type: 'less_than_equal', loc: ['query', 's'], msg: 'Input should be less than or equal to 100', input: '101', ctx: { le: 100 } },
      { type: 'greater_than', loc: ['query', 'g'], msg: 'Input should be greater than 0', input: '0', ctx: { gt: 0 } },
      { type: 'less_than', loc: ['query', 'l'], msg: 'Input should be less than 5', input: '5', ctx: { lt: 5 } },
    ]);
  });

  it('query ints refuse floats written as text', () => {
    const f = Fields.query(new URLSearchParams('a=1.0&b=&c=+3'));
    expect([f.int('a'), f.int('b'), f.int('c')]).toEqual([undefined, undefined, 3]);
    expect(f.items.map((i) => i.type)).toEqual(['int_parsing', 'int_parsing']);
  });

  it('missing echoes the body as input; null is absent for optional fields and a type error for required ones', () => {
    const body = { x: null };
    const f = Fields.body(body);
    expect(f.string('name', { required: true })).toBeUndefined();
    expect(f.string('x')).toBeUndefined();
    expect(f.string('x', { required: true })).toBeUndefined();
    expect(f.items).toEqual([
      { type: 'missing', loc: ['body', 'name'], msg: 'Field required', input: body, ctx: {} },
      { type: 'string_type', loc: ['body', 'x'], msg: 'Input should be a valid string', input: null, ctx: {} },
    ]);
  });

  it('string lengths count characters, singular and plural messages, strip for blank', () => {
    const f = Fields.body({ a: '', b: 'ééé', c: '   ', d: 'abcd' });
    f.string('a', { min: 1 });
    expect(f.string('b', { max: 3 })).toBe('ééé');
    f.string('c', { min: 1, strip: true });
    f.string('d', { max: 2 });
    expect(f.items.map((i) => i.msg)).toEqual(['String should have at least 1 character', 'String should have at least 1 character', 'String should have at most 2 characters']);
  });

  it('cents: the decimal rules of contract 2', () => {
    const f = Fields.body({ a: '12.50', b: 12.5, c: '1.001', d: 'abc', e: false, f: '-1', g: '1000000.01', h: '0' });
    expect([f.cents('a'), f.cents('b')]).toEqual([1250, 1250]);
    for (const k of ['c', 'd', 'e', 'f', 'g', 'h']) f.cents(k, { gt: 0, le: 100_000_000 });
    expect(f.items.map((i) => [i.loc[1], i.type])).toEqual([
      ['c', 'decimal_max_places'],
      ['d', 'decimal_parsing'],
      ['e', 'decimal_type'],
      ['f', 'greater_than'],
      ['g', 'less_than_equal'],
      ['h', 'greater_than'],
    ]);
    expect(f.items.find((i) => i.loc[1] === 'g')?.msg).toBe('Input should be less than or equal to 1000000.00');
  });

  it('cents: reads amounts with the app’s strict wire decoder, so the two never disagree on a payment', () => {
    const f = Fields.body({ a: '12.500', b: '+12.5', c: ' 12.50', d: '1e3', e: '12,50', f: '-0.00', g: 0.1 + 0.2, h: '0x10' });
    for (const k of ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']) expect(f.cents(k, { gt: 0 })).toBeUndefined();
    expect(f.items.map((i) => [i.loc[1], i.type])).toEqual([
      ['a', 'decimal_max_places'],
      ['b', 'decimal_parsing'],
      ['c', 'decimal_parsing'],
      ['d', 'decimal_parsing'],
      ['e', 'decimal_parsing'],
      ['f', 'greater_than'],
      ['g', 'decimal_max_places'],
      ['h', 'decimal_parsing'],
    ]);
  });

  it('literal and enum list the expected values the pydantic way', () => {
    expect(expectedList(['a', 'b', 'c'])).toBe("'a', 'b' or 'c'");
    expect(expectedList(['a'])).toBe("'a'");
    const f = Fields.body({ r: 'nope', v: 'x' });
    expect(f.literal('r', ['scam', 'other'], { type: 'enum' })).toBeUndefined();
    f.literal('v', ['same_emv', 'amount_emv']);
    expect(f.items).toEqual([
      { type: 'enum', loc: ['body', 'r'], msg: "Input should be 'scam' or 'other'", input: 'nope', ctx: { expected: "'scam' or 'other'" } },
      { type: 'literal_error', loc: ['body', 'v'], msg: "Input should be 'same_emv' or 'amount_emv'", input: 'x', ctx: { expected: "'same_emv' or 'amount_emv'" } },
    ]);
  });

  it('booleans: strict in JSON, lax in queries', () => {
    const b = Fields.body({ a: true, b: 'true', c: 1 });
    expect([b.boolean('a'), b.boolean('b'), b.boolean('c')]).toEqual([true, undefined, undefined]);
    expect(b.items.map((i) => i.type)).toEqual(['bool_type', 'bool_type']);
    const q = Fields.query(new URLSearchParams('a=true&b=0&c=maybe'));
    expect([q.boolean('a'), q.boolean('b'), q.boolean('c')]).toEqual([true, false, undefined]);
    expect(q.items.map((i) => i.type)).toEqual(['bool_parsing']);
  });

  it('extra_forbidden, value_error, and a body that is not an object', () => {
    const f = Fields.body({ files: [], ok: 1 });
    f.forbid('files');
    f.forbidExtra(['ok', 'files']);
    f.valueError(null, 'exactly one of service_id and payout_external_id', { files: [] });
    expect(f.items).toEqual([
      { type: 'extra_forbidden', loc: ['body', 'files'], msg: 'Extra inputs are not permitted', input: [], ctx: {} },
      { type: 'value_error', loc: ['body'], msg: 'Value error, exactly one of service_id and payout_external_id', input: { files: [] }, ctx: { error: 'exactly one of service_id and payout_external_id' } },
    ]);
    const arr = Fields.body([1]);
    expect(arr.int('x', { required: true })).toBeUndefined();
    expect(arr.items).toEqual([{ type: 'model_attributes_type', loc: ['body'], msg: 'Input should be a valid dictionary or object to extract fields from', input: [1], ctx: {} }]);
  });

  it('check() throws one 422 with every item, shared across path and body', () => {
    const path = Fields.path({ store_id: 'x' });
    path.int('store_id', { required: true });
    const body = Fields.body({}, path.items);
    body.string('name', { required: true });
    try {
      body.check();
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).status).toBe(422);
      expect(((error as ApiError).body as { detail: unknown[] }).detail).toHaveLength(2);
    }
    expect(() => Fields.body({}).check()).not.toThrow();
  });

  it('never reads inherited properties', () => {
    const f = Fields.body(JSON.parse('{"__proto__": {"amount": "5.00"}}'));
    expect(f.cents('amount', { required: true })).toBeUndefined();
    expect(f.items[0]?.type).toBe('missing');
    expect(Fields.body({}).string('toString')).toBeUndefined();
  });
});
