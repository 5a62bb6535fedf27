import { describe, expect, it } from 'vitest';
import { storeFormProblems, type StoreFormFields } from './storeForm.ts';

const form = (f: Partial<StoreFormFields>): StoreFormFields => ({ name: 'Loja Centro', address: '', phone: '', email: '', ...f });

describe('the Store form names each wrong field before anything is sent (issue 26)', () => {
  it.each([
    ['a name alone', form({}), {}],
    ['every field right', form({ address: 'Rua A, 1', phone: '+55 11 3456-7890', email: 'loja@example.com' }), {}],
    ['no name', form({ name: '  ' }), { name: 'error.problem.store_name_empty' }],
    ['"not-an-email"', form({ email: 'not-an-email' }), { email: 'error.problem.store_email_invalid' }],
    ['a phone of words', form({ phone: 'ask for Ana' }), { phone: 'error.problem.store_phone_invalid' }],
    ['a phone too short', form({ phone: '3456-78' }), { phone: 'error.problem.store_phone_invalid' }],
    ['all wrong at once', form({ name: '', phone: 'x', email: 'x@' }), {
      name: 'error.problem.store_name_empty',
      phone: 'error.problem.store_phone_invalid',
      email: 'error.problem.store_email_invalid',
    }],
  ])('%s', (_name, typed, expected) => {
    expect(storeFormProblems(typed)).toEqual(expected);
  });

  it('on an edit, a value left as the service has it is not judged; a changed one is', () => {
    const current = form({ phone: 'old number', email: 'old-address' });
    expect(storeFormProblems(current, current)).toEqual({});
    expect(storeFormProblems(form({ phone: 'old number', email: 'new-address' }), current)).toEqual({ email: 'error.problem.store_email_invalid' });
  });
});
