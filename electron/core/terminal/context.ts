import type { Clock } from '../../shared/clock.ts';
import type { ServiceClient } from '../api/client.ts';
import type { JournalPort } from '../journal/port.ts';
import type { Logger } from '../log.ts';
import type { Sale } from '../sales/lifecycle.ts';
import type { SaleRow } from './entries.ts';

/**
 * What the terminal's parts (charging, payment intake, settlement intake, follow-up) share:
 * one journal, one client, one clock, one set of locks, one place to say which checkouts
 * changed. The parts never hold state of each other's.
 */
export interface CheckoutKey {
  storeId: number;
  checkoutId: number;
}

export interface TerminalStats {
  lastWebhookAt: number | null;
  lastPaymentSource: 'webhook' | 'tx_status' | null;
  lastPaymentAt: number | null;
  unmatched: number;
  polls: number;
  pollErrors: number;
  /** Sales with a Tx Status schedule: never more than the open sales. */
  followed: number;
}

export interface TerminalContext {
  readonly journal: JournalPort<SaleRow>;
  readonly client: ServiceClient;
  readonly clock: Clock;
  readonly log: Logger;
  readonly locks: Locks;
  /** Called with the checkouts whose sales changed; the core pushes their views. */
  readonly onChange: (checkouts: readonly CheckoutKey[]) => void;
  readonly stats: TerminalStats;
}

/** Lock keys beside the checkouts' `store/checkout` ones. */
export const UNMATCHED_LOCK = 'unmatched';
export const SETTLEMENTS_LOCK = 'settlements';

/**
 * The checkout's newest sales a decision reads besides the displaceable ones: the newest
 * gives the next seq; a few more in case the clock was stepped back between two charges.
 */
const PLANNING_RECENT = 4;

export const keyOf = (k: CheckoutKey): string => `${k.storeId}/${k.checkoutId}`;
export const checkoutOf = (s: Sale): CheckoutKey => ({ storeId: s.store_id, checkoutId: s.checkout_id });
export const uniqueSales = (sales: readonly Sale[]): Sale[] => [...new Map(sales.map((s) => [s.sale_id, s])).values()];
export const salesOf = (rows: readonly (SaleRow | undefined)[]): Sale[] => rows.filter((r): r is SaleRow => r !== undefined).map((r) => r.sale);

/** Serializes the read-plan-journal steps that share a key (a checkout, the unmatched list). */
export class Locks {
  readonly #tails = new Map<string, Promise<unknown>>();

  async exclusive<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const run = previous.then(work, work);
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.#tails.set(key, settled);
    try {
      return await run;
    } finally {
      if (this.#tails.get(key) === settled) this.#tails.delete(key);
    }
  }

  /** Resolves once every step under way has ended. */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.#tails.values()]);
  }
}

/**
 * The checkout's sales its decisions read: the newest few (the next seq, the sale every QR
 * charges) and every displaceable one however old (open at the service, or displaced only
 * provisionally), so no open sale is ever forgotten. An open sale is itself the checkout's
 * newest non-refused sale (a later charge would have displaced it), so planCharge,
 * openSales and newestSaleFor decide on this set as on the whole checkout.
 */
export async function planningSales(journal: JournalPort<SaleRow>, checkout: CheckoutKey): Promise<Sale[]> {
  const { storeId, checkoutId } = checkout;
  const [recent, open] = await Promise.all([journal.sales.recentOnCheckout(storeId, checkoutId, PLANNING_RECENT), journal.sales.displaceable(storeId, checkoutId)]);
  return uniqueSales(salesOf([...recent, ...open]));
}
