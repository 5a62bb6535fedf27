import { describe, expect, it } from 'vitest';
import { CoreError } from '../errors.ts';
import { newSession, type Caller, type Session } from '../operators/operators.ts';
import { createDispatcher, handler } from './handler.ts';
import { v } from '../../shared/schema.ts';
import { argument, fields, list, none, oneOf, text, whole, yesNo } from './arguments.ts';

const chargeSchema = fields({
  amount: text({ min: 1, max: 12, pattern: /^\d+([.,]\d{1,2})?$/, describe: 'an amount like 12,50' }),
  reference: v.optional(text({ min: 1, max: 128 })),
  checkout: v.optional(whole(1, 999)),
});
const charge = argument(chargeSchema);

describe('schema', () => {
  it('accepts what it describes and drops nothing it knows', () => {
    expect(charge.parse({ amount: '12,50', reference: 'A-1' })).toEqual({ amount: '12,50', reference: 'A-1' });
    expect(charge.parse({ amount: '3' })).toEqual({ amount: '3' });
  });

  it.each([
    [undefined, 'The argument must be an object.'],
    [[], 'The argument must be an object.'],
    [{ amount: 12.5 }, 'amount must be an amount like 12,50.'],
    [{ amount: '12.505' }, 'amount must be an amount like 12,50.'],
    [{ amount: '1', extra: true }, 'extra must be left out (it is not a known field).'],
    [{ amount: '1', checkout: 1.5 }, 'checkout must be a whole number from 1 to 999.'],
    [{ amount: '1', reference: '' }, 'reference must be text of 1 to 128 characters.'],
    [Object.create({ amount: '1' }), 'The argument must be an object.'],
  ])('refuses %j with a sentence naming the field', (input, message) => {
    expect(() => charge.parse(input)).toThrow(message);
  });

  it('refuses a prototype-polluting key instead of copying it', () => {
    const hostile = JSON.parse('{"amount":"1","__proto__":{"admin":true}}') as unknown;
    expect(() => charge.parse(hostile)).toThrow(/__proto__ must be left out/);
  });

  it('names an unknown key before any field it knows, so a `by` is refused as such', () => {
    const refund = argument(fields({ amount_cents: whole(1, 100_000_000) }));
    expect(() => refund.parse({ by: 'Mallory' })).toThrow('by must be left out (it is not a known field).');
    expect(() => refund.parse({})).toThrow('amount_cents must be a whole number from 1 to 100000000.');
    expect(() => refund.parse({ amount_cents: '5' })).toThrow('amount_cents must be a whole number from 1 to 100000000.');
    expect(refund.keys).toEqual(['amount_cents']);
  });

  it('writes paths into lists and nested objects, and bounds a list before reading its items', () => {
    const basket = argument(fields({ items: list(fields({ sku: text({ min: 1, max: 8 }), note: v.nullable(text({ max: 20 })) }), 3) }));
    expect(basket.parse({ items: [{ sku: 'A', note: null }] })).toEqual({ items: [{ sku: 'A', note: null }] });
    const refused = (input: unknown) => {
      try {
        basket.parse(input);
      } catch (err) {
        return { message: (err as CoreError).message, params: (err as CoreError).params };
      }
      return null;
    };
    expect(refused({ items: [{ sku: 'A', note: null }, { sku: 'B', note: null }, { sku: '', note: null }] })).toEqual({
      message: 'items[2].sku must be text of 1 to 8 characters.',
      params: { field: 'items[2].sku' },
    });
    expect(refused({ items: [{ sku: 'A', note: null, by: 'x' }] })?.message).toBe('items[0].by must be left out (it is not a known field).');
    expect(refused({ items: [{ sku: 'A' }] })?.message).toBe('items[0].note must be text of 0 to 20 characters.');
    expect(refused({ items: [1, 2, 3, 4] })?.message).toBe('items must be a list of at most 3 items.');
    expect(refused({ items: 'A' })?.message).toBe('items must be a list of at most 3 items.');
  });

  it('takes nothing where a call takes no argument', () => {
    const nothing = argument(none());
    expect(nothing.parse(undefined)).toBeUndefined();
    expect(nothing.parse(null)).toBeUndefined();
    expect(nothing.keys).toEqual([]);
    expect(() => nothing.parse({})).toThrow('The argument must be empty (this call takes no argument).');
  });

  it('reads a fixed set of words and true or false, nothing like them', () => {
    const mode = argument(fields({ mode: oneOf(['printed', 'dynamic']), confirm: yesNo() }));
    expect(mode.parse({ mode: 'printed', confirm: false })).toEqual({ mode: 'printed', confirm: false });
    expect(() => mode.parse({ mode: 'Printed', confirm: false })).toThrow('mode must be one of "printed", "dynamic".');
    expect(() => mode.parse({ mode: 'printed', confirm: 'yes' })).toThrow('confirm must be true or false.');
  });
});

describe('dispatcher', () => {
  const seen: string[] = [];
  const ran: string[] = [];
  const operators: Record<string, Caller> = {
    'op-cashier': { id: 'op-cashier', name: 'Caio', role: 'cashier' },
    'op-supervisor': { id: 'op-supervisor', name: 'Rui', role: 'supervisor' },
  };
  const dispatch = createDispatcher(
    {
      'sale.charge': handler('cashier', 'charge a sale', chargeSchema, async (a, by) => ({ received: a.amount, by: by.name })),
      'sale.fail': handler('anyone', 'fail', none(), () => {
        throw new CoreError('conflict', 'A sale is already being charged on this checkout.');
      }),
      'sale.crash': handler('anyone', 'crash', none(), () => {
        throw new TypeError('secret internal detail');
      }),
      'payment.attribute': handler('supervisor', 'tie a payment to a sale', fields({ seq: whole(1, 9) }), (_a, by) => {
        ran.push(by.name);
        return by.role;
      }),
    },
    {
      callerOf: (session) => (session.operatorId === null ? null : (operators[session.operatorId] ?? null)),
      connectionOf: (session) => session.connection,
      onUnexpected: (method) => seen.push(method),
    },
  );
  const asCashier = (): Session => ({ ...newSession(), operatorId: 'op-cashier' });

  it('runs a valid call as the operator of the session and wraps the result', async () => {
    expect(await dispatch('sale.charge', { amount: '9,99' }, asCashier())).toEqual({ ok: true, result: { received: '9,99', by: 'Caio' } });
  });

  it('refuses unknown methods and inherited names', async () => {
    for (const method of ['nope', 'toString', '__proto__', 42]) {
      const env = await dispatch(method, undefined, asCashier());
      expect(env).toMatchObject({ ok: false, error: { code: 'unknown_method' } });
    }
  });

  it('validates before the handler runs', async () => {
    expect(await dispatch('sale.charge', { amount: 'abc' }, asCashier())).toEqual({
      ok: false,
      error: { code: 'invalid_argument', message: 'amount must be an amount like 12,50.', params: { field: 'amount' } },
    });
  });

  it('refuses a role below the method’s before reading its argument, saying who may', async () => {
    expect(await dispatch('payment.attribute', { seq: 'not even valid' }, asCashier())).toEqual({
      ok: false,
      error: { code: 'forbidden', message: 'Only a supervisor or a manager can tie a payment to a sale.', params: { role: 'supervisor' } },
    });
    expect(await dispatch('payment.attribute', { seq: 1 }, newSession())).toMatchObject({ ok: false, error: { code: 'signed_out', params: { role: 'supervisor' } } });
    expect(ran).toEqual([]);
    expect(await dispatch('payment.attribute', { seq: 1 }, { ...newSession(), operatorId: 'op-supervisor' })).toEqual({ ok: true, result: 'supervisor' });
    expect(ran).toEqual(['Rui']);
  });

  it('carries a CoreError across as code and sentence', async () => {
    expect(await dispatch('sale.fail', undefined, newSession())).toEqual({
      ok: false,
      error: { code: 'conflict', message: 'A sale is already being charged on this checkout.' },
    });
  });

  it('hides an unexpected error behind a generic sentence and reports it', async () => {
    const env = await dispatch('sale.crash', null, newSession());
    expect(env).toEqual({ ok: false, error: { code: 'internal', message: expect.stringContaining('Something went wrong') } });
    expect(JSON.stringify(env)).not.toContain('secret internal detail');
    expect(seen).toContain('sale.crash');
  });
});
