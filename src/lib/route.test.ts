import { describe, expect, it } from 'vitest';
import { parseRoute, routeHref } from './route.ts';

describe('parseRoute', () => {
  it.each([
    ['', 'cashier'],
    ['#/', 'cashier'],
    ['#/journal', 'journal'],
    ['#/settings?x=1', 'settings'],
    ['#token=abc', 'cashier'],
    ['#/constructor', 'cashier'],
    ['#/JOURNAL', 'cashier'],
  ])('%j -> %s', (hash, route) => {
    expect(parseRoute(hash)).toBe(route);
  });
  it('round-trips', () => {
    for (const r of ['cashier', 'journal', 'settings'] as const) expect(parseRoute(routeHref(r))).toBe(r);
  });
});
