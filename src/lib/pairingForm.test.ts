import { describe, expect, it } from 'vitest';
import { DEVICE_NAME_MAX, RECORD_ID_MAX } from '../../electron/shared/form-rules.ts';
import { OTHER_CHECKOUT } from './devices.ts';
import { pairingFormProblems, type PairingFormFields } from './pairingForm.ts';

const RIGHT: PairingFormFields = { store: '1', checkout: '2', otherCheckout: '', name: 'Till 2', typing: false };

describe('Pair a till names each wrong field beside it (issue 26)', () => {
  it.each<[string, Partial<PairingFormFields>, Record<string, string>]>([
    ['all right, picked from the lists', {}, {}],
    ['another checkout, typed', { checkout: OTHER_CHECKOUT, otherCheckout: '7' }, {}],
    ['numbers typed where the lists could not be read', { typing: true, store: '3', checkout: '12' }, {}],
    ['the largest numbers the service has', { typing: true, store: String(RECORD_ID_MAX), checkout: String(RECORD_ID_MAX) }, {}],
    ['the longest name, with spaces around it', { name: ` ${'x'.repeat(DEVICE_NAME_MAX)} ` }, {}],
    ['nothing picked or typed', { store: '', checkout: '', name: '' }, { store: 'devices.problem.storeMissing', checkout: 'devices.problem.checkoutMissing', name: 'error.problem.device_name_empty' }],
    ['another checkout with no number', { checkout: OTHER_CHECKOUT, otherCheckout: '' }, { 'other-checkout': 'devices.problem.checkoutNumber' }],
    ['another checkout 0', { checkout: OTHER_CHECKOUT, otherCheckout: '0' }, { 'other-checkout': 'devices.problem.checkoutNumber' }],
    ['another checkout past the largest', { checkout: OTHER_CHECKOUT, otherCheckout: String(RECORD_ID_MAX + 1) }, { 'other-checkout': 'devices.problem.checkoutNumber' }],
    ['another checkout in digits of another script', { checkout: OTHER_CHECKOUT, otherCheckout: '\u0663' }, { 'other-checkout': 'devices.problem.checkoutNumber' }],
    ['another checkout written as a float or an exponent', { checkout: OTHER_CHECKOUT, otherCheckout: '1e3' }, { 'other-checkout': 'devices.problem.checkoutNumber' }],
    ['typed numbers that are not whole numbers from 1', { typing: true, store: '-1', checkout: '2.5' }, { store: 'devices.problem.storeNumber', checkout: 'devices.problem.checkoutNumber' }],
    ['a store of eleven digits', { typing: true, store: '99999999999' }, { store: 'devices.problem.storeNumber' }],
    ['a picked value that is not a number (a tampered list)', { store: '1 OR 1=1', checkout: '<b>2</b>' }, { store: 'devices.problem.storeMissing', checkout: 'devices.problem.checkoutMissing' }],
    ['a name of spaces and line breaks', { name: ' \r\n\t\u00a0' }, { name: 'error.problem.device_name_empty' }],
    ['a name one character too long', { name: 'x'.repeat(DEVICE_NAME_MAX + 1) }, { name: 'error.problem.device_name_too_long' }],
    ['a pasted page as the name', { name: 'Till '.repeat(10_000) }, { name: 'error.problem.device_name_too_long' }],
  ])('%s', (_name, change, expected) => {
    expect(pairingFormProblems({ ...RIGHT, ...change })).toEqual(expected);
  });
});
