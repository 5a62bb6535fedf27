import { describe, expect, it } from 'vitest';
import { isAppUrl } from './security.ts';

const RENDERER = 'file:///opt/pix/out/renderer/';

describe('isAppUrl', () => {
  it.each([
    ['file:///opt/pix/out/renderer/index.html', undefined, true],
    ['file:///opt/pix/out/renderer/display.html#x', undefined, true],
    ['file:///opt/pix/out/renderer-evil/index.html', undefined, false],
    ['file:///opt/pix/out/renderer/../../../etc/passwd', undefined, false],
    ['file:///etc/passwd', undefined, false],
    ['https://evil.example/', undefined, false],
    ['http://localhost:5173/', undefined, false],
    ['http://localhost:5173/', 'http://localhost:5173', true],
    ['http://localhost.evil.example:5173/', 'http://localhost:5173', false],
    ['http://localhost:5174/', 'http://localhost:5173', false],
    ['javascript:alert(1)', 'http://localhost:5173', false],
    ['not a url', undefined, false],
    [42, undefined, false],
  ])('%s (dev server %s) -> %s', (url, dev, expected) => {
    expect(isAppUrl(url, RENDERER, dev)).toBe(expected);
  });
});
