import { describe, expect, it } from 'vitest';
import { isAppUrl, isPinnedSender, isPinnedUrl, trustedDevServerUrl } from './security.ts';

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

describe('trustedDevServerUrl: ELECTRON_RENDERER_URL counts in a development build only', () => {
  const dev = { ELECTRON_RENDERER_URL: 'http://localhost:5173/' };
  it.each([
    ['electron-vite dev', true, false, dev, 'http://localhost:5173/'],
    ['npm start (production build, not packaged)', false, false, dev, undefined],
    ['a packaged app', false, true, dev, undefined],
    ['a packaged app built in development mode', true, true, dev, undefined],
    ['dev build without the variable', true, false, {}, undefined],
    ['dev build pointed at another machine', true, false, { ELECTRON_RENDERER_URL: 'http://evil.example:5173/' }, undefined],
    ['dev build pointed at a look-alike name', true, false, { ELECTRON_RENDERER_URL: 'http://localhost.evil.example:5173/' }, undefined],
    ['dev build pointed at a file', true, false, { ELECTRON_RENDERER_URL: 'file:///tmp/evil/' }, undefined],
    ['dev build with garbage', true, false, { ELECTRON_RENDERER_URL: 'not a url' }, undefined],
  ])('%s', (_name, devBuild, isPackaged, env, expected) => {
    expect(trustedDevServerUrl({ devBuild, isPackaged, env })).toBe(expected);
  });
});

describe('isPinnedUrl / isPinnedSender: the store origin a connect-mode till is pinned to', () => {
  const PIN = 'https://192.168.0.10:5180';
  it.each([
    ['https://192.168.0.10:5180/', PIN, true],
    ['https://192.168.0.10:5180/display?x=1#y', PIN, true],
    ['https://192.168.0.10:5181/', PIN, false],
    ['http://192.168.0.10:5180/', PIN, false],
    ['wss://192.168.0.10:5180/bridge', PIN, false],
    ['https://192.168.0.10:5180.evil.example/', PIN, false],
    ['https://user@192.168.0.10:5180/', PIN, true],
    ['https://192.168.0.100:5180/', PIN, false],
    ['file:///opt/pix/out/renderer/index.html', PIN, false],
    ['https://192.168.0.10:5180/', null, false],
    ['not a url', PIN, false],
    [42, PIN, false],
  ])('%s (pinned %s) -> %s', (url, pin, expected) => {
    expect(isPinnedUrl(url, pin)).toBe(expected);
  });

  it('trusts a top-level frame of the pinned origin only', () => {
    expect(isPinnedSender({ url: `${PIN}/`, parent: null } as never, PIN)).toBe(true);
    expect(isPinnedSender({ url: `${PIN}/`, parent: {} } as never, PIN)).toBe(false);
    expect(isPinnedSender({ url: 'https://evil.example/', parent: null } as never, PIN)).toBe(false);
    expect(isPinnedSender(null, PIN)).toBe(false);
  });
});
