/**
 * The cashier app's screens, addressed by the fragment (#/journal) so a reload stays on the
 * same screen. The token arrives in the fragment too (#token=…) and is not a route.
 */
export const ROUTES = ['cashier', 'journal', 'settings'] as const;
export type Route = (typeof ROUTES)[number];

export function parseRoute(hash: string): Route {
  const name = /^#\/([a-z]+)/.exec(hash)?.[1];
  return (ROUTES as readonly string[]).includes(name ?? '') ? (name as Route) : 'cashier';
}

export function routeHref(route: Route): string {
  return route === 'cashier' ? '#/' : `#/${route}`;
}
