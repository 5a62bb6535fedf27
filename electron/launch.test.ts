import { describe, expect, it } from 'vitest';
import { electronUnavailable, sandboxHelp } from './launch.ts';

describe('electronUnavailable: a sentence where the installer leaves a bare error', () => {
  it.each([
    ['TypeError: fetch failed', /cannot reach its download server/],
    ['Error: getaddrinfo ENOTFOUND github.com', /cannot reach its download server/],
    ['RequestError: connect ETIMEDOUT 140.82.121.4:443', /cannot reach its download server/],
    ['Error: EACCES: permission denied, mkdir \'/usr/lib/node_modules/electron/dist\'', /its installer failed: Error: EACCES/],
    ['', /failed without saying why/],
  ])('%j', (output, expected) => {
    const sentence = electronUnavailable(output);
    expect(sentence).toMatch(expected);
    expect(sentence).toMatch(/starting the browser shell instead\.$/);
    expect(sentence).not.toMatch(/TypeError/);
  });
});

describe('sandboxHelp', () => {
  it('names the embedded sandbox and how to pay as the customer, on this checkout', () => {
    const help = sandboxHelp({ mode: 'sandbox', baseUrl: 'http://127.0.0.1:41234' }, { storeId: 1, checkoutId: 2 }) ?? '';
    expect(help).toContain('http://127.0.0.1:41234');
    expect(help).toContain(`curl -X POST http://127.0.0.1:41234/_sandbox/pay -H 'content-type: application/json' -d '{"store_id":1,"checkout_id":2}'`);
  });

  it('says nothing for a real service', () => {
    expect(sandboxHelp({ mode: 'remote', baseUrl: 'https://pix.example' }, { storeId: 1, checkoutId: 1 })).toBe(null);
  });
});
