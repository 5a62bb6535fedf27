/**
 * The route modules of the public API, one line each. A module exports
 * `register(router, ctx)`; the control API (routes/control.ts) is registered by server.ts
 * itself, only when control is on. S2 adds its modules here (wallets, payouts, med,
 * refunds, settlements); their control routes go in their own modules, guarded by ctx.control.
 */
import type { SandboxContext } from '../context.ts';
import type { Router } from '../http.ts';
import * as admin from './admin.ts';
import * as med from './med.ts';
import * as payouts from './payouts.ts';
import * as printedQrs from './printed-qrs.ts';
import * as refunds from './refunds.ts';
import * as sales from './sales.ts';
import * as settlements from './settlements.ts';
import * as wallets from './wallets.ts';

export interface RouteModule {
  register(router: Router, ctx: SandboxContext): void;
}

export const routeModules: readonly RouteModule[] = [
  admin,
  printedQrs,
  sales,
  wallets,
  payouts,
  med,
  refunds,
  settlements,
];
