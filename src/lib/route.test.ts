import { describe, expect, it } from 'vitest';
import { parseRoute, routeHref, routesFor } from './route.ts';

describe('parseRoute', () => {
  it.each([
    ['', 'cashier'],
    ['#/', 'cashier'],
    ['#/journal', 'journal'],
    ['#/settings?x=1', 'settings'],
    ['#/stores', 'stores'],
    ['#/claims', 'claims'],
    ['#token=abc', 'cashier'],
    ['#/constructor', 'cashier'],
    ['#/JOURNAL', 'cashier'],
    ['#/devices', 'devices'],
    ['#/board', 'board'],
  ])('%j -> %s', (hash, route) => {
    expect(parseRoute(hash)).toBe(route);
  });
  it('round-trips', () => {
    for (const r of ['cashier', 'journal', 'settings'] as const) expect(parseRoute(routeHref(r))).toBe(r);
  });
});

describe('routesFor', () => {
  it('shows each role only the screens it may use', () => {
    expect(routesFor(null)).toEqual([]);
    expect(routesFor('cashier')).toEqual(['cashier']);
    expect(routesFor('supervisor')).toEqual(['cashier', 'board', 'journal', 'settlements', 'claims']);
    expect(routesFor('manager')).toEqual(['cashier', 'board', 'journal', 'settlements', 'claims', 'settings', 'operators', 'devices', 'stores']);
  });
});
