import type { ChargeDone, PaymentReceived } from '../sales/lifecycle.ts';

/**
 * Reads a verified webhook payload (contract 4) into the lifecycle's payment reports.
 * Lenient on purpose: a payment whose payload is odd (no ids, an unreadable amount) is
 * still a payment report, kept for a person, never dropped. Pure.
 */
export type WebhookFact =
  | { kind: 'payment'; report: PaymentReceived }
  | { kind: 'done'; report: ChargeDone }
  | { kind: 'settlement'; settlementId: number | null }
  | { kind: 'other'; event: string };

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.length > 0 && v.length <= 200 ? v : undefined;
}

function amount(v: unknown): string | number {
  return typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)) ? v : '';
}

/** ISO 8601 with an offset (contract, wire conventions) to epoch ms; null when unreadable. */
export function isoToMs(v: unknown): number | null {
  if (typeof v !== 'string' || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(v)) return null;
  const ms = Date.parse(v);
  return Number.isFinite(ms) ? ms : null;
}

/** What charge.paid and charge.done both say of their charge (contract 4). */
function chargeFacts(payload: Record<string, unknown>, webhookId: string) {
  return {
    webhook_id: webhookId,
    ...optional('pix_id', str(payload.pix_id)),
    ...optional('service_id', str(payload.service_id)),
    external_id: str(payload.external_id) ?? null,
    amount_brl: amount(payload.amount_brl),
  };
}

export function readWebhook(payload: Record<string, unknown> & { event: string }, webhookId: string, at: number): WebhookFact {
  switch (payload.event) {
    case 'charge.paid': {
      const report: PaymentReceived = {
        type: 'payment.received',
        source: 'webhook',
        ...chargeFacts(payload, webhookId),
        paid_at: isoToMs(payload.paid_at),
        e2e_id: str(payload.e2e_id) ?? null,
        at,
      };
      return { kind: 'payment', report };
    }
    case 'charge.done': {
      const settlement = payload.settlement_id;
      const report: ChargeDone = {
        type: 'charge.done',
        ...chargeFacts(payload, webhookId),
        settlement_id: typeof settlement === 'number' && Number.isSafeInteger(settlement) ? settlement : null,
        at,
      };
      return { kind: 'done', report };
    }
    case 'settlement.settled': {
      const id = payload.settlement_id;
      return { kind: 'settlement', settlementId: typeof id === 'number' && Number.isSafeInteger(id) ? id : null };
    }
    default:
      return { kind: 'other', event: payload.event.slice(0, 100) };
  }
}

function optional<K extends string>(key: K, value: string | undefined): { [P in K]?: string } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: string };
}
