/**
 * Pay-outs (contract 5): read-only records of the fixture (contract 7) that MED claims are
 * opened over. Every lookup takes the caller's merchant (reference 5 rule 4).
 */
import { formatCents } from '../shared/money.ts';
import type { PayoutRecord, SandboxState } from './state.ts';

/** The merchant's pay-out by service_id or by the external_id it was created with. */
export function findPayout(
  state: SandboxState,
  merchantId: number,
  by: { service_id: string } | { external_id: string },
): PayoutRecord | null {
  if ('service_id' in by) {
    const payout = Object.hasOwn(state.payouts, by.service_id) ? state.payouts[by.service_id] : undefined;
    return payout !== undefined && payout.merchant_id === merchantId ? payout : null;
  }
  return Object.values(state.payouts).find((p) => p.merchant_id === merchantId && p.external_id === by.external_id) ?? null;
}

/** Newest first; undated pay-outs last, then by service_id so pages are stable. */
export function listPayouts(state: SandboxState, merchantId: number): PayoutRecord[] {
  return Object.values(state.payouts)
    .filter((p) => p.merchant_id === merchantId)
    .sort((a, b) => (b.created_at ?? -Infinity) - (a.created_at ?? -Infinity) || a.service_id.localeCompare(b.service_id));
}

/** contract 5 wire shape; amount is a BRL decimal string. */
export function payoutView(p: PayoutRecord): Record<string, unknown> {
  return {
    service_id: p.service_id,
    external_id: p.external_id,
    amount: formatCents(p.amount_cents),
    currency: p.currency,
    e2e_id: p.e2e_id,
    payer_document: p.payer_document,
    created_at: p.created_at === null ? null : new Date(p.created_at).toISOString(),
  };
}
