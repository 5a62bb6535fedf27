import { describe, expect, it } from 'vitest';
import { customerLangsOf, OFFICE_CUSTOMER_LANG_SET } from './customer-lang.ts';

const set = (data: Record<string, unknown>) => ({ type: OFFICE_CUSTOMER_LANG_SET, data: data as never });

describe('customerLangsOf', () => {
  it('keeps the newest choice per store, in journal order', () => {
    const langs = customerLangsOf([set({ by: 'Rui', store_id: 1, lang: 'en' }), set({ by: 'Ana', store_id: 2, lang: 'es' }), set({ by: 'Rui', store_id: 1, lang: 'pt-BR' })]);
    expect([...langs]).toEqual([
      [1, 'pt-BR'],
      [2, 'es'],
    ]);
  });

  it.each([
    ['another type', { type: 'office.printed_qr', data: { store_id: 1, lang: 'en' } }],
    ['a language that is not ours', set({ store_id: 1, lang: 'fr' })],
    ['a language written another way', set({ store_id: 1, lang: 'pt-br' })],
    ['a store id as text', set({ store_id: '1', lang: 'en' })],
    ['a store id of zero', set({ store_id: 0, lang: 'en' })],
    ['a fractional store id', set({ store_id: 1.5, lang: 'en' })],
    ['an unsafe store id', set({ store_id: 2 ** 53, lang: 'en' })],
    ['no store id', set({ lang: 'en' })],
    ['a prototype key for a language', set({ store_id: 1, lang: '__proto__' })],
  ])('reads %s as no choice', (_name, entry) => {
    expect(customerLangsOf([entry as never]).size).toBe(0);
  });
});
