import { describe, expect, it } from 'vitest';
import { ApiError } from './http.ts';
import type { ValidationItem } from './http.ts';
import { body, expectedList, field, fields, FORBID_OTHERS, optional, readPart, readRequest, valueError } from './validate.ts';
import type { LocRoot } from './validate.ts';

/** Reads `source` as one part and answers the value and the items, as a handler would see them. */
function read(schema: Parameters<typeof readPart>[0], root: LocRoot, source: unknown): { value: Record<string, unknown>; items: ValidationItem[] } {
  const answer = readPart(schema, root, source);
  return answer.ok ? { value: answer.value as Record<string, unknown>, items: [] } : { value: {}, items: answer.items };
}

const query = (text: string): Record<string, string | undefined> => {
  const params = new URLSearchParams(text);
  const out: Record<string, string | undefined> = {};
  for (const key of new Set(params.keys())) out[key] = params.getAll(key).at(-1);
  return out;
};

describe('request shapes (pydantic-like validation items)', () => {
  it('int: JSON integers, integer strings; floats, text and booleans are refused with their types', () => {
    const ok = read(body({ a: field.int(), b: field.int(), g: field.int() }), 'body', { a: 5, b: '7', g: 5.0 });
    expect([ok.value.a, ok.value.b, ok.value.g]).toEqual([5, 7, 5]);
    const f = read(body({ c: field.int(), d: field.int(), e: field.int(), f: field.int() }), 'body', { c: 1.5, d: 'x', e: true, f: 1e300 });
    expect(f.items.map((i) => [i.loc[1], i.type])).toEqual([
      ['c', 'int_from_float'],
      ['d', 'int_parsing'],
      ['e', 'int_type'],
      ['f', 'int_parsing_size'],
    ]);
  });

  it('bounds give greater_than_equal / less_than_equal / greater_than / less_than with ctx', () => {
    const schema = fields({ p: field.int({ ge: 1 }), s: field.int({ le: 100 }), g: field.int({ gt: 0 }), l: field.int({ lt: 5 }) });
    expect(read(schema, 'query', query('p=0&s=101&g=0&l=5')).items).toEqual([
      { type: 'greater_than_equal', loc: ['query', 'p'], msg: 'Input should be greater than or equal to 1', input: '0', ctx: { ge: 1 } },
      { type: 'less_than_equal', loc: ['query', 's'], msg: 'Input should be less than or equal to 100', input: '101', ctx: { le: 100 } },
      { type: 'greater_than', loc: ['query', 'g'], msg: 'Input should be greater than 0', input: '0', ctx: { gt: 0 } },
      { type: 'less_than', loc: ['query', 'l'], msg: 'Input should be less than 5', input: '5', ctx: { lt: 5 } },
    ]);
  });

  it('query ints refuse floats written as text', () => {
    const f = read(fields({ a: optional(field.int()), b: optional(field.int()), c: optional(field.int()) }), 'query', query('a=1.0&b=&c=+3'));
    expect(f.items.map((i) => i.type)).toEqual(['int_parsing', 'int_parsing']);
    expect(read(fields({ c: optional(field.int()) }), 'query', query('c=+3')).value.c).toBe(3);
  });

  it('query parameters count by their last value', () => {
    expect(readRequest({ query: new URLSearchParams('limit=x&limit=7') }, { query: fields({ limit: field.int() }) }).query.limit).toBe(7);
  });

  it('missing echoes the body as input; null is absent for optional fields and a type error for required ones', () => {
    const source = { x: null };
    const absent = read(body({ x: optional(field.string()) }), 'body', source);
    expect(absent.items).toEqual([]);
    expect(absent.value.x).toBeUndefined();
    const f = read(body({ name: field.string(), x: field.string() }), 'body', source);
    expect(f.items).toEqual([
      { type: 'missing', loc: ['body', 'name'], msg: 'Field required', input: source, ctx: {} },
      { type: 'string_type', loc: ['body', 'x'], msg: 'Input should be a valid string', input: null, ctx: {} },
    ]);
  });

  it('string lengths count characters, singular and plural messages, strip for blank', () => {
    const schema = body({ a: field.string({ min: 1 }), c: field.string({ min: 1, strip: true }), d: field.string({ max: 2 }) });
    expect(read(body({ b: field.string({ max: 3 }) }), 'body', { b: 'ééé' }).value.b).toBe('ééé');
    const f = read(schema, 'body', { a: '', c: '   ', d: 'abcd' });
    expect(f.items.map((i) => i.msg)).toEqual(['String should have at least 1 character', 'String should have at least 1 character', 'String should have at most 2 characters']);
  });

  it('cents: the decimal rules of contract 2', () => {
    const ok = read(body({ a: field.cents(), b: field.cents() }), 'body', { a: '12.50', b: 12.5 });
    expect([ok.value.a, ok.value.b]).toEqual([1250, 1250]);
    const bounded = field.cents({ gt: 0, le: 100_000_000 });
    const f = read(body({ c: bounded, d: bounded, e: bounded, f: bounded, g: bounded, h: bounded }), 'body', { c: '1.001', d: 'abc', e: false, f: '-1', g: '1000000.01', h: '0' });
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
    const c = field.cents({ gt: 0 });
    const f = read(body({ a: c, b: c, c, d: c, e: c, f: c, g: c, h: c }), 'body', { a: '12.500', b: '+12.5', c: ' 12.50', d: '1e3', e: '12,50', f: '-0.00', g: 0.1 + 0.2, h: '0x10' });
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
    const f = read(body({ r: field.literal(['scam', 'other'], 'enum'), v: field.literal(['same_emv', 'amount_emv']) }), 'body', { r: 'nope', v: 'x' });
    expect(f.items).toEqual([
      { type: 'enum', loc: ['body', 'r'], msg: "Input should be 'scam' or 'other'", input: 'nope', ctx: { expected: "'scam' or 'other'" } },
      { type: 'literal_error', loc: ['body', 'v'], msg: "Input should be 'same_emv' or 'amount_emv'", input: 'x', ctx: { expected: "'same_emv' or 'amount_emv'" } },
    ]);
  });

  it('booleans: strict in JSON, lax in queries', () => {
    expect(read(body({ a: field.boolean() }), 'body', { a: true }).value.a).toBe(true);
    const b = read(body({ a: field.boolean(), b: field.boolean(), c: field.boolean() }), 'body', { a: true, b: 'true', c: 1 });
    expect(b.items.map((i) => i.type)).toEqual(['bool_type', 'bool_type']);
    const ok = read(fields({ a: field.textBoolean(), b: field.textBoolean() }), 'query', query('a=true&b=0'));
    expect([ok.value.a, ok.value.b]).toEqual([true, false]);
    const q = read(fields({ a: field.textBoolean(), b: field.textBoolean(), c: field.textBoolean() }), 'query', query('a=true&b=0&c=maybe'));
    expect(q.items.map((i) => i.type)).toEqual(['bool_parsing']);
  });

  it('extra_forbidden, value_error, and a body that is not an object', () => {
    const source = { files: [], ok: 1 };
    const schema = body({ ok: optional(field.int()) }, { rules: [FORBID_OTHERS, { needs: [], check: () => valueError(null, 'exactly one of service_id and payout_external_id') }] });
    expect(read(schema, 'body', source).items).toEqual([
      { type: 'extra_forbidden', loc: ['body', 'files'], msg: 'Extra inputs are not permitted', input: [], ctx: {} },
      { type: 'value_error', loc: ['body'], msg: 'Value error, exactly one of service_id and payout_external_id', input: { files: [], ok: 1 }, ctx: { error: 'exactly one of service_id and payout_external_id' } },
    ]);
    expect(read(body({ x: field.int() }), 'body', [1]).items).toEqual([{ type: 'model_attributes_type', loc: ['body'], msg: 'Input should be a valid dictionary or object to extract fields from', input: [1], ctx: {} }]);
  });

  it('readRequest throws one 422 with every item, shared across path and body', () => {
    try {
      readRequest({ params: { store_id: 'x' }, body: {} }, { path: fields({ store_id: field.int() }), body: body({ name: field.string() }) });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).status).toBe(422);
      expect(((error as ApiError).body as { detail: unknown[] }).detail).toHaveLength(2);
    }
    expect(() => readRequest({ body: {} }, { body: body({}) })).not.toThrow();
  });

  it('never reads inherited properties', () => {
    const f = read(body({ amount: field.cents() }), 'body', JSON.parse('{"__proto__": {"amount": "5.00"}}'));
    expect(f.items[0]?.type).toBe('missing');
    const own = read(body({ toString: optional(field.string()) }), 'body', {});
    expect(own.items).toEqual([]);
    expect(Object.getOwnPropertyDescriptor(own.value, 'toString')?.value).toBeUndefined();
  });
});
