import { describe, expect, it } from 'vitest';
import { OTHER_CHECKOUT } from './devices.ts';
import { storeCheckoutProblems } from './storeCheckoutForm.ts';

describe('storeCheckoutProblems (issue 26: each wrong field named beside it)', () => {
  const picked = { store: '1', checkout: '2', otherCheckout: '', typing: false };
  it('finds nothing wrong with a store and a checkout picked from the lists', () => {
    expect(storeCheckoutProblems(picked)).toEqual({});
    expect(storeCheckoutProblems({ ...picked, checkout: OTHER_CHECKOUT, otherCheckout: '12' })).toEqual({});
  });
  it('asks to choose what was not picked', () => {
    expect(storeCheckoutProblems({ ...picked, store: '', checkout: '' })).toEqual({ store: 'devices.problem.storeMissing', checkout: 'devices.problem.checkoutMissing' });
  });
  it('names the typed number of Another checkout when it is not a whole number from 1', () => {
    expect(storeCheckoutProblems({ ...picked, checkout: OTHER_CHECKOUT, otherCheckout: '0' })).toEqual({ 'other-checkout': 'devices.problem.checkoutNumber' });
    expect(storeCheckoutProblems({ ...picked, checkout: OTHER_CHECKOUT, otherCheckout: '' })).toEqual({ 'other-checkout': 'devices.problem.checkoutNumber' });
  });
  it('asks for numbers when the lists could not be read', () => {
    expect(storeCheckoutProblems({ store: '0', checkout: '99999999999', otherCheckout: '', typing: true })).toEqual({ store: 'devices.problem.storeNumber', checkout: 'devices.problem.checkoutNumber' });
    expect(storeCheckoutProblems({ store: '3', checkout: '4', otherCheckout: '', typing: true })).toEqual({});
  });
});
