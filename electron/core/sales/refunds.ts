/**
 * Refunds of a paid sale (contract 5), as pure rules over the journaled Sale: how much is
 * left to give back, and whether a supervisor's refund may be asked for. Integer cents.
 */
import type { RefundKeyContract } from '../api/routes/route.ts';
import { openRefund, refundsMadeCents, type RefundFact, type RefundRequested, type RefundUnconfirmed, type Sale, type SaleStatus } from './lifecycle.ts';

/** The sales whose charge the payer paid: the only ones with money to give back. */
export const REFUNDABLE_STATUSES: readonly SaleStatus[] = ['paid', 'amount_mismatch', 'paid_late', 'partly_refunded'];

/**
 * Not shown in contract 5: the longest reason this app sends. The sandbox keeps 255
 * characters; a longer one is refused here in words, never cut.
 */
export const REFUND_REASON_MAX = 255;

/** The charge's paid amount at the service (what a refund is measured against), or null. */
export function chargedCents(sale: Sale): number | null {
  return sale.paid?.received_cents ?? null;
}

/**
 * What a supervisor may refund now, as far as this app can know: the charge's paid amount
 * less the refunds confirmed. Zero while a refund is unanswered (it may have been made, so
 * what is left is not known), and once Tx Status said `refunded` (contract 3: nothing is left).
 */
export function refundableCents(sale: Sale): number {
  const charged = chargedCents(sale);
  if (charged === null || !REFUNDABLE_STATUSES.includes(sale.status) || sale.payments.some((p) => p.refunded)) return 0;
  if (openRefund(sale)) return 0;
  return Math.max(0, charged - refundsMadeCents(sale));
}

export type RefundRefusal =
  /** Not paid, or paid with no ids at the service to refund by. */
  | 'not_paid'
  /** A refund of this sale is still unanswered: one at a time, so what is left is known. */
  | 'refund_open'
  | 'nothing_left'
  | 'amount_invalid'
  | 'amount_too_large'
  | 'reason_too_long';

export type RefundPlan = { ok: true; event: RefundRequested } | { ok: false; reason: RefundRefusal; left_cents: number };

export interface RefundAsk {
  refund_id: string;
  idempotency_key: string;
  amount_cents: number;
  reason?: string;
  by: string;
  at: number;
}

/** Decides whether the refund may be asked for; when it may, the intent to journal. */
export function planRefund(sale: Sale, ask: RefundAsk): RefundPlan {
  const left = refundableCents(sale);
  const refuse = (reason: RefundRefusal): RefundPlan => ({ ok: false, reason, left_cents: left });
  if (sale.service_id === undefined || chargedCents(sale) === null || (!REFUNDABLE_STATUSES.includes(sale.status) && sale.status !== 'refunded')) return refuse('not_paid');
  if (openRefund(sale)) return refuse('refund_open');
  if (left === 0) return refuse('nothing_left');
  if (!Number.isSafeInteger(ask.amount_cents) || ask.amount_cents <= 0) return refuse('amount_invalid');
  if (ask.amount_cents > left) return refuse('amount_too_large');
  const reason = ask.reason?.trim() ?? '';
  if (reason.length > REFUND_REASON_MAX) return refuse('reason_too_long');
  return {
    ok: true,
    event: {
      type: 'refund.requested',
      sale_id: sale.sale_id,
      refund_id: ask.refund_id,
      idempotency_key: ask.idempotency_key,
      amount_cents: ask.amount_cents,
      ...(reason === '' ? {} : { reason }),
      requested_by: ask.by,
      at: ask.at,
    },
  };
}

/**
 * How much sooner than the service's key window (contract 2: 24 hours) this app stops asking
 * again under a key: the service's clock and ours may differ, and a request takes time to arrive.
 */
export const KEY_WINDOW_MARGIN_MS = 3_600_000;

/**
 * Whether a refund whose answer was lost may be asked again under its key without a person
 * (style: a request that could move money twice is repeated only while the service is known
 * to de-duplicate it): only when the provider honours refund keys AND the key, first sent at
 * `key_at`, is still inside its window. Otherwise the reason a person must decide.
 */
export function mayAskAgain(fact: Pick<RefundFact, 'key_at'>, now: number, keys: RefundKeyContract): true | RefundUnconfirmed['reason'] {
  if (!keys.honoured) return 'keys_not_honoured';
  return now - fact.key_at < keys.windowMs - KEY_WINDOW_MARGIN_MS ? true : 'key_expired';
}
