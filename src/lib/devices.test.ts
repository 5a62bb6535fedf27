import { describe, expect, it } from 'vitest';
import { credentialProtocols } from './bridge.ts';
import { checkoutAfterListing, formatPairingCode, OTHER_CHECKOUT, pickedId } from './devices.ts';

describe('formatPairingCode', () => {
  it('groups the 8 digits 4+4, as read aloud', () => {
    expect(formatPairingCode('12345678')).toBe('1234 5678');
    expect(formatPairingCode('0001')).toBe('0001');
  });
});

describe('credentialProtocols', () => {
  it('offers the store token, a device credential, or nothing (an unpaired device)', () => {
    expect(credentialProtocols({ kind: 'token', value: 'abc' }, null)).toEqual(['pos.bridge.v1', 'pos.token.abc']);
    expect(credentialProtocols({ kind: 'device', value: 'cred' }, 'k')).toEqual(['pos.bridge.v1', 'pos.device.cred', 'pos.resume.k']);
    expect(credentialProtocols(null, null)).toEqual(['pos.bridge.v1']);
  });
});

describe('pickedId (issue 26: store and checkout picked from lists)', () => {
  it.each([
    ['a listed checkout', '3', '', 3],
    ['a listed checkout, whatever was typed before', '3', '9', 3],
    ['another checkout typed', OTHER_CHECKOUT, '12', 12],
    ['another checkout typed with spaces', OTHER_CHECKOUT, ' 7 ', 7],
    ['nothing chosen', '', '', null],
    ['another checkout, nothing typed', OTHER_CHECKOUT, '', null],
    ['zero', OTHER_CHECKOUT, '0', null],
    ['negative', OTHER_CHECKOUT, '-2', null],
    ['a fraction', OTHER_CHECKOUT, '1.5', null],
    ['an exponent', OTHER_CHECKOUT, '1e3', null],
    ['beyond the service’s ids', OTHER_CHECKOUT, '2147483648', null],
    ['eleven digits', OTHER_CHECKOUT, '99999999999', null],
    ['other digits', OTHER_CHECKOUT, '١٢', null],
  ])('%s', (_name, choice, typed, expected) => {
    expect(pickedId(choice, typed)).toBe(expected);
  });
});

describe('checkoutAfterListing (the checkout chosen once the store’s checkouts are listed)', () => {
  const choice = (checkout: string, otherCheckout = '') => ({ store: '1', checkout, otherCheckout });
  it('keeps a listed checkout and Another checkout as chosen', () => {
    expect(checkoutAfterListing(choice('2'), [1, 2], false)).toEqual(choice('2'));
    expect(checkoutAfterListing(choice(OTHER_CHECKOUT, '9'), [1, 2], true)).toEqual(choice(OTHER_CHECKOUT, '9'));
  });
  it('takes the first listed, or Another checkout when none is listed, for a checkout the store does not list', () => {
    expect(checkoutAfterListing(choice('7'), [3, 4], false)).toEqual(choice('3'));
    expect(checkoutAfterListing(choice('7'), [], false)).toEqual(choice(OTHER_CHECKOUT));
  });
  it('keeps a form’s own unlisted checkout as Another checkout with its number (Settings)', () => {
    expect(checkoutAfterListing(choice('7'), [3, 4], true)).toEqual(choice(OTHER_CHECKOUT, '7'));
    expect(checkoutAfterListing(choice(''), [3, 4], true)).toEqual(choice('3'));
  });
});
