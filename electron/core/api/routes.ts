/**
 * THE route table of the payment service: one entry per endpoint the app uses (reference
 * 4.1–4.7, contract 2–5), with its method, path template, access rule, retry policy,
 * success statuses, request encoding and response decoding. Each resource family declares
 * its routes, its answers' shapes and their types in its own module under routes/; this
 * file only puts them together.
 *
 * Every answer the reference leaves "not shown" and the contract fixes is written in the
 * `assumptions` of the route that relies on it, and nowhere else in the client: a real
 * provider that answers differently is a change to that route's family module alone.
 *
 * Money: requests take integer cents and send BRL as a two-place decimal string
 * (contract, wire conventions); responses are read exactly, BRL into integer cents
 * (`*_cents`), other currencies into an exact `Amount` at the currency's scale. No float
 * ever decides a cent.
 */
import { PAYOUT_ROUTES } from './routes/payouts.ts';
import { PRINTED_QR_ROUTES } from './routes/printed-qrs.ts';
import { REFUND_ROUTES } from './routes/refunds.ts';
import type { Access, HttpMethod, RetryPolicy } from './routes/route.ts';
import { SALE_ROUTES } from './routes/sales.ts';
import { SETTLEMENT_ROUTES } from './routes/settlements.ts';
import { STORE_ROUTES } from './routes/stores.ts';
import { WALLET_ROUTES } from './routes/wallets.ts';

export const ROUTES = {
  ...STORE_ROUTES,
  ...PRINTED_QR_ROUTES,
  ...SALE_ROUTES,
  ...REFUND_ROUTES,
  ...WALLET_ROUTES,
  ...PAYOUT_ROUTES,
  ...SETTLEMENT_ROUTES,
} as const;

export type Routes = typeof ROUTES;
export type RouteName = keyof Routes;
export type RouteInput<K extends RouteName> = Parameters<Routes[K]['encode']>[0];
export type RouteResult<K extends RouteName> = ReturnType<Routes[K]['decode']>;

/** The facts about a route the error descriptions use (no codecs). */
export interface RouteInfo {
  name: RouteName;
  method: HttpMethod;
  path: string;
  action: string;
  access: Access;
  retry: RetryPolicy;
}

export function routeInfo(name: RouteName): RouteInfo {
  const r = ROUTES[name];
  return { name, method: r.method, path: r.path, action: r.action, access: r.access, retry: r.retry };
}

/** Whether a failed call of this route can have changed something at the service. */
export function isWrite(name: RouteName): boolean {
  return ROUTES[name].method !== 'GET';
}
