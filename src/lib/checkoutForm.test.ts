import { describe, expect, it } from 'vitest';
import { CHECKOUT_DESC_MAX } from '../../electron/shared/form-rules.ts';
import { checkoutFormProblems } from './checkoutForm.ts';

describe('Add checkout names each wrong field beside it (issue 26)', () => {
  it.each([
    ['all right', { description: 'Caixa 2', walletId: 102 }, {}],
    ['nothing typed or picked', { description: '', walletId: null }, { description: 'error.problem.checkout_desc_empty', wallet: 'error.problem.checkout_wallet_missing' }],
    ['a description of spaces and line breaks', { description: ' \r\n ', walletId: 102 }, { description: 'error.problem.checkout_desc_empty' }],
    ['one character too many, no wallet', { description: 'x'.repeat(CHECKOUT_DESC_MAX + 1), walletId: null }, { description: 'error.problem.checkout_desc_too_long', wallet: 'error.problem.checkout_wallet_missing' }],
    ['the most, in emoji', { description: '🧾'.repeat(CHECKOUT_DESC_MAX), walletId: 102 }, {}],
    ['wallet 0 is a wallet the service judges', { description: 'Caixa', walletId: 0 }, {}],
  ])('%s', (_name, fields, expected) => {
    expect(checkoutFormProblems(fields)).toEqual(expected);
  });
});
