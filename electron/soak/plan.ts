/**
 * Every choice of a fault campaign, drawn from its seed before anything runs: which
 * checkout rings each sale up, for how much, what the payer does, which faults are armed
 * around it, when the clock jumps and after which sale the core is killed. The same seed
 * gives the same plan; only process timing differs between two runs.
 */
import { mulberry32 } from '../shared/prng.ts';

export const CHECKOUTS = 8;

/** What happens to a sale after it is rung up. */
export type Fate =
  /** The payer pays the checkout's newest sale, the amount charged. */
  | 'paid'
  /** The payer pays the checkout's newest sale another amount (a mismatch to flag). */
  | 'mismatch'
  /** Left unpaid: the next sale on its checkout displaces it (a correction), or it expires. */
  | 'unpaid'
  /** Corrected, then paid late anyway (reference 4.5 rule 5), the amount charged. */
  | 'late'
  /** Corrected, then paid late another amount. */
  | 'late_mismatch';

export type RouteFault = 'http_502' | 'http_503' | 'http_500' | 'timeout' | 'lost_response';
export type WebhookFault = 'duplicate' | 'delay' | 'drop' | 'reorder';

/** The service routes the core calls; every one gets its share of faults. */
export const CORE_ROUTES = [
  { method: 'POST', path: '/v2/create_dynamic_pix' },
  { method: 'GET', path: '/v2/tx_status/:pix_id' },
  { method: 'GET', path: '/v2/wallets' },
] as const;

export interface RouteFaultPlan {
  method: string;
  path: string;
  fault: RouteFault;
  count: number;
}

export interface WebhookFaultPlan {
  fault: WebhookFault;
  count: number;
  /** drop only: the event it drops (see pickWebhookFault). */
  event?: 'charge.paid';
  delay_seconds?: number;
}

export interface SalePlan {
  index: number;
  checkout: number;
  /** Unique in the campaign: how the driver finds its own sale again after a kill. */
  amountCents: number;
  fate: Fate;
  /** For the mismatch fates: what the payer pays instead. */
  paidCents: number;
  /** Armed just before the sale is rung up. */
  routeFault: RouteFaultPlan | null;
  /** Armed just before the payer pays (the sale's own payment, or the late one). */
  webhookFault: WebhookFaultPlan | null;
  /** Sandbox (and core) seconds to move the clock forward before the sale; 0 = none. */
  clockSeconds: number;
  /** The core is SIGKILLed this many ms after the sale begins; null = no kill here. */
  killAfterMs: number | null;
  /** A late payment of the previous sale on the checkout happens before (true) or after this sale's own payment. */
  lateFirst: boolean;
  /** Once paid, a supervisor refunds part of it; the refund route may lose its answer. Null: no refund. */
  refund: RefundPlan | null;
}

export interface RefundPlan {
  cents: number;
  /** Armed on the refund route just before the refund is asked for. */
  fault: RouteFault | null;
}

/** The refund route: every campaign arms the sandbox's ignore_key fault on it (see campaign.ts). */
export const REFUND_ROUTE = { method: 'POST', path: '/v2/pay_in_refunds/request' } as const;

export interface PlanOptions {
  sales: number;
  seed: number;
  /** Sales between two kills, drawn uniformly in [min, max]. */
  killEvery: readonly [number, number];
}

export function planCampaign(options: PlanOptions): SalePlan[] {
  const random = mulberry32(options.seed);
  const int = (min: number, max: number) => min + Math.floor(random() * (max - min + 1));
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const [killMin, killMax] = options.killEvery;
  let nextKill = int(killMin, killMax);
  // Refunds draw from a stream of their own, so a seed's sales, faults and kills stay as they were.
  const refundRandom = mulberry32(options.seed ^ 0x5eed_f00d);
  const plans: SalePlan[] = [];
  for (let index = 0; index < options.sales; index++) {
    const roll = random();
    const fate: Fate = roll < 0.45 ? 'paid' : roll < 0.55 ? 'mismatch' : roll < 0.72 ? 'unpaid' : roll < 0.92 ? 'late' : 'late_mismatch';
    // Unique amounts: R$ 1,00 steps per sale plus a random tail; 10,000 sales stay under R$ 10.001.
    const amountCents = (index + 1) * 100 + int(0, 99);
    const delta = int(1, 500) * (random() < 0.5 ? -1 : 1);
    const paidCents = amountCents + delta > 0 ? amountCents + delta : amountCents + Math.abs(delta);
    const routeFault = random() < 0.12 ? pickRouteFault(pick, int) : null;
    const webhookFault = random() < 0.2 ? pickWebhookFault(pick, int) : null;
    // Mostly small steps (webhook retries and polls come due); now and then past the
    // 5-minute life of a sale, so whatever is pending expires (reference 8).
    const clockRoll = random();
    const clockSeconds = clockRoll < 0.03 ? 301 : clockRoll < 0.1 ? int(5, 40) : 0;
    let killAfterMs: number | null = null;
    if (index === nextKill) {
      // Within a few ms of the sale's start: before, inside or just after its charge.
      killAfterMs = int(0, 40);
      nextKill = index + int(killMin, killMax);
    }
    plans.push({
      index,
      checkout: (index % CHECKOUTS) + 1,
      amountCents,
      fate,
      paidCents: fate === 'mismatch' || fate === 'late_mismatch' ? paidCents : amountCents,
      routeFault,
      webhookFault,
      clockSeconds,
      killAfterMs,
      lateFirst: random() < 0.5,
      refund: planRefund(fate, amountCents, refundRandom),
    });
  }
  return plans;
}

function pickRouteFault(pick: <T>(items: readonly T[]) => T, int: (min: number, max: number) => number): RouteFaultPlan {
  const route = pick(CORE_ROUTES);
  // lost_response only where its danger lives: a create processed whose answer never came.
  const faults: RouteFault[] = route.path === '/v2/create_dynamic_pix' ? ['http_502', 'http_503', 'http_500', 'timeout', 'lost_response'] : ['http_502', 'http_503', 'http_500', 'timeout'];
  const fault = pick(faults);
  return { method: route.method, path: route.path, fault, count: fault === 'timeout' ? 1 : int(1, 3) };
}

function pickWebhookFault(pick: <T>(items: readonly T[]) => T, int: (min: number, max: number) => number): WebhookFaultPlan {
  const fault = pick<WebhookFault>(['duplicate', 'delay', 'drop', 'reorder']);
  switch (fault) {
    case 'duplicate':
      return { fault, count: int(1, 3) };
    case 'delay':
      return { fault, count: int(1, 2), delay_seconds: int(5, 90) };
    case 'reorder':
      return { fault, count: int(2, 3) };
    case 'drop':
      // Only a charge.paid: its charge.done still comes. Were both of a late payment's
      // events dropped, no client could ever learn of it (contract 3: Tx Status answers a
      // displaced sale 404 for ever), and the campaign would measure the service, not the core.
      return { fault, count: 1, event: 'charge.paid' };
  }
}

/**
 * One paid sale in five is refunded in part by a supervisor; half of those refunds lose
 * their answer one way or another (a processed request whose answer is cut, 5xx, a held
 * request), and kills land where they land.
 */
function planRefund(fate: Fate, amountCents: number, random: () => number): RefundPlan | null {
  if (fate !== 'paid' || random() >= 0.2) return null;
  const cents = 1 + Math.floor(random() * (amountCents - 1));
  const faults: RouteFault[] = ['lost_response', 'http_502', 'http_503', 'http_500', 'timeout'];
  const fault = random() < 0.5 ? (faults[Math.floor(random() * faults.length)] as RouteFault) : null;
  return { cents, fault };
}
