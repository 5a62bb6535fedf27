/**
 * What every route module receives with the router: `register(router, ctx)`.
 *
 * `ctx.state` is the same object for the sandbox's whole life: a reset or a load replaces its
 * CONTENTS in place. Read records through ctx.state at request time; never keep a nested
 * record (ctx.state.sales, a SaleRecord...) across requests, it may belong to a state that
 * was reset away.
 */
import type { OffsetClock } from '../shared/clock.ts';
import type { FaultBook } from './faults.ts';
import type { SaleRecord, SandboxState } from './state.ts';
import type { SandboxTimers } from './timers.ts';
import type { WebhookApi } from './webhooks.ts';

/** Called after a sale or charge record is created (S2: quote it into sale.ext). */
export type SaleCreatedListener = (sale: SaleRecord, ctx: SandboxContext) => void;

/**
 * Called after a sale is marked paid and before its charge.done is built (S2: put it in the
 * pending pool, or make the legacy 1:1 settlement). The first listener that returns a
 * settlement id gives charge.done its `settlement_id` (contract 4: null in batched modes).
 */
export type SalePaidListener = (sale: SaleRecord, ctx: SandboxContext) => { settlement_id: number | null } | void;

export interface SandboxContext {
  readonly state: SandboxState;
  /** The sandbox clock: real time plus a forward-only offset. Domain time comes only from here. */
  readonly clock: OffsetClock;
  /** Emit webhook events: ctx.webhooks.enqueueEvent(merchantId, 'settlement.settled', payload). */
  readonly webhooks: WebhookApi;
  /** Whether the `/_sandbox/` control API is served; register control routes only when true. */
  readonly control: boolean;
  /** Marks the state dirty; the persister writes it soon (debounced) and on close. */
  persist(): void;
  /** Timers on sandbox time (they run when the clock is advanced past them). */
  readonly timers: SandboxTimers;
  readonly faults: FaultBook;
  log(line: string): void;
  /** Sale lifecycle hooks for S2 (settlement quotes, pending pool, legacy 1:1 settlements). */
  onSaleCreated(listener: SaleCreatedListener): void;
  onSalePaid(listener: SalePaidListener): void;
  /** Runs after a reset rebuilt the state: drop in-memory caches (rate-limit windows...). */
  onReset(listener: () => void): void;
  /** Runs after the clock moved forward through the control API (S2: run due windows). */
  onClockAdvance(listener: () => void): void;
  /** Framework side of the hooks: sales.ts fires them. Route modules only register listeners. */
  readonly hooks: SandboxHooks;
}

/** The framework's side of the hooks (server.ts and the sales module call these). */
export interface SandboxHooks {
  saleCreated(sale: SaleRecord): void;
  /** Returns the settlement_id a listener gave, or null. */
  salePaid(sale: SaleRecord): number | null;
  reset(): void;
  clockAdvanced(): void;
}

export function createHooks(ctx: () => SandboxContext, log: (line: string) => void): { register: Pick<SandboxContext, 'onSaleCreated' | 'onSalePaid' | 'onReset' | 'onClockAdvance'>; fire: SandboxHooks } {
  const created: SaleCreatedListener[] = [];
  const paid: SalePaidListener[] = [];
  const resets: (() => void)[] = [];
  const advances: (() => void)[] = [];
  // A listener's failure must not break the sale that triggered it.
  const safely = <T>(what: string, run: () => T): T | undefined => {
    try {
      return run();
    } catch (error) {
      log(`${what} listener failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
      return undefined;
    }
  };
  return {
    register: {
      onSaleCreated: (l) => void created.push(l),
      onSalePaid: (l) => void paid.push(l),
      onReset: (l) => void resets.push(l),
      onClockAdvance: (l) => void advances.push(l),
    },
    fire: {
      saleCreated: (sale) => {
        for (const l of created) safely('saleCreated', () => l(sale, ctx()));
      },
      salePaid: (sale) => {
        let settlementId: number | null = null;
        for (const l of paid) {
          const result = safely('salePaid', () => l(sale, ctx()));
          if (settlementId === null && result !== undefined && result.settlement_id !== null) settlementId = result.settlement_id;
        }
        return settlementId;
      },
      reset: () => {
        for (const l of resets) safely('reset', l);
      },
      clockAdvanced: () => {
        for (const l of advances) safely('clockAdvance', l);
      },
    },
  };
}
