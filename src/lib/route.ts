import { mayUse, type Role } from '../../electron/core/contract.ts';

/**
 * The cashier app's screens, addressed by the fragment (#/journal) so a reload stays on the
 * same screen. The token arrives in the fragment too (#token=…) and is not a route.
 */
export const ROUTES = ['cashier', 'board', 'journal', 'settlements', 'claims', 'settings', 'operators', 'devices', 'stores'] as const;
export type Route = (typeof ROUTES)[number];

/**
 * The least role each screen is for: navigation shows a screen only to those, and the core
 * refuses its calls to anyone else (handlers.ts) whatever the screen shows.
 */
export const ROUTE_ROLE: Record<Route, Role> = { cashier: 'cashier', board: 'supervisor', journal: 'supervisor', settings: 'manager', operators: 'manager', devices: 'manager', stores: 'manager', claims: 'supervisor', settlements: 'supervisor' };

export function routesFor(role: Role | null): Route[] {
  return ROUTES.filter((r) => mayUse(role, ROUTE_ROLE[r]));
}

export function parseRoute(hash: string): Route {
  const name = /^#\/([a-z]+)/.exec(hash)?.[1];
  return (ROUTES as readonly string[]).includes(name ?? '') ? (name as Route) : 'cashier';
}

export function routeHref(route: Route): string {
  return route === 'cashier' ? '#/' : `#/${route}`;
}
