/**
 * The steps both fault campaigns (campaign.ts, one core; cores.ts, several) take at the
 * payment service's control routes: the same payer, the same way of asking.
 */
import type { ServiceControl } from '../core/terminal/fixtures/service.ts';
import type { SalePlan } from './plan.ts';

/** A control request that must succeed; resolves with its body. */
export async function control(svc: ServiceControl, method: string, path: string, body: unknown): Promise<unknown> {
  const res = await svc(method, path, body);
  if (res.status < 200 || res.status > 299) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

/** What the payer counts: webhook faults armed, and payments the service refused. */
export interface PayerCounters {
  webhookFaults: number;
  delayedOrReordered: number;
  refused: number;
}

/**
 * The payer pays at the service, after arming the sale's planned webhook fault; true when
 * the service took the payment, false when it found no payable sale.
 */
export async function payAtService(svc: ServiceControl, counters: PayerCounters, body: Record<string, unknown>, plan: SalePlan): Promise<boolean> {
  if (plan.webhookFault) {
    await control(svc, 'POST', '/_sandbox/faults', { target: 'webhooks', ...plan.webhookFault });
    counters.webhookFaults += 1;
    if (plan.webhookFault.fault === 'delay' || plan.webhookFault.fault === 'reorder') counters.delayedOrReordered += plan.webhookFault.count;
  }
  const res = await svc('POST', '/_sandbox/pay', body);
  if (res.status === 200) return true;
  // 409/404: expired, already paid, not displaced (its correction never reached the service): no payment made.
  if (res.status === 409 || res.status === 404) {
    counters.refused += 1;
    return false;
  }
  throw new Error(`paying ${JSON.stringify(body)} answered ${res.status}: ${JSON.stringify(res.body)}`);
}

/** What became of the webhooks, from the sandbox's listings of its attempts and events. */
export interface WebhookTally {
  /** Webhook faults armed. */
  faults: number;
  /** Events delivered twice (same webhook-id). */
  duplicated: number;
  /** Events never sent. */
  dropped: number;
  /** Events the delay and reorder faults were armed for (they leave no mark in the listings). */
  delayedOrReordered: number;
  /** Events the sandbox gave up on after every retry (the core was down each time). */
  givenUp: number;
}

export function webhookTally(
  attempts: ReadonlyArray<{ webhook_id: string; duplicate?: boolean }>,
  events: ReadonlyArray<{ state: string }>,
  counters: Pick<PayerCounters, 'webhookFaults' | 'delayedOrReordered'>,
): WebhookTally {
  return {
    faults: counters.webhookFaults,
    duplicated: new Set(attempts.filter((a) => a.duplicate).map((a) => a.webhook_id)).size,
    dropped: events.filter((e) => e.state === 'dropped').length,
    delayedOrReordered: counters.delayedOrReordered,
    givenUp: events.filter((e) => e.state === 'failed').length,
  };
}
