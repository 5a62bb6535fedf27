/**
 * Pay-in refunds (contract 5): how much of a charge can still be refunded, the refund record,
 * and the settlement deduction it brings in the batched modes (reference 2.9: prorated at
 * the charge's own rate, so a full refund cancels the charge exactly).
 */
import { centsToBrl, isBatched, prorateDeduction, type ChargeQuote } from './quotes.ts';
import type { Deduction } from './settlement.ts';

export interface RefundRecord {
  pay_in_refund_request_id: string;
  service_refund_id: string;
  merchantId: number;
  service_id: string;
  pix_id: string;
  refunded_cents: number;
  reason: string | null;
  /** contract 5: a refund request is `requested`; the sandbox does not move it further. */
  status: 'requested';
  created_at: number;
  /** The settlement deduction, for a charge in a batched mode; null in legacy 1:1. */
  deduction: Deduction | null;
}

/** The charge as a refund sees it. */
export interface RefundableCharge {
  merchantId: number;
  storeId: number;
  checkoutId: number;
  pix_id: string;
  service_id: string;
  external_id: string | null;
  /** Cents actually paid; null while unpaid (nothing to refund). */
  paid_cents: number | null;
  /** The quote the charge settles at, null if it has none. */
  quote: ChargeQuote | null;
}

export type RefundPlan =
  | { ok: true; record: RefundRecord; fullyRefunded: boolean }
  /** Nothing left, or the amount asked is more than is left (contract 5: 422). */
  | { ok: false; leftCents: number };

/**
 * Plans a refund of `requestedCents` (null: the rest of the charge, contract 5) given what
 * was refunded before. The caller stores the record.
 */
export function planRefund(input: {
  charge: RefundableCharge;
  refundedBeforeCents: number;
  requestedCents: number | null;
  reason: string | null;
  now: number;
  ids: { requestId: string; refundId: string };
}): RefundPlan {
  const { charge } = input;
  const paid = charge.paid_cents ?? 0;
  const leftCents = paid - input.refundedBeforeCents;
  const cents = input.requestedCents ?? leftCents;
  if (leftCents <= 0 || cents > leftCents || cents <= 0) return { ok: false, leftCents: Math.max(0, leftCents) };
  const quote = charge.quote;
  const deduction: Deduction | null =
    quote !== null && isBatched(quote.mode)
      ? {
          merchantId: charge.merchantId,
          storeId: charge.storeId,
          checkoutId: charge.checkoutId,
          mode: quote.mode,
          service_refund_id: input.ids.refundId,
          pay_in_refund_request_id: input.ids.requestId,
          service_id: charge.service_id,
          external_id: charge.external_id,
          service_request_id: charge.pix_id,
          refunded_amount: centsToBrl(BigInt(cents)),
          refunded_currency: 'BRL',
          // reference 2.9: at the charge's own rate, prorated over what was paid
          deduction_amount: prorateDeduction(quote, BigInt(paid), BigInt(input.refundedBeforeCents), BigInt(cents)),
          deduction_currency: quote.currency,
          requested_at: input.now,
          attached_at: null,
        }
      : null;
  return {
    ok: true,
    fullyRefunded: cents === leftCents,
    record: {
      pay_in_refund_request_id: input.ids.requestId,
      service_refund_id: input.ids.refundId,
      merchantId: charge.merchantId,
      service_id: charge.service_id,
      pix_id: charge.pix_id,
      refunded_cents: cents,
      reason: input.reason,
      status: 'requested',
      created_at: input.now,
      deduction,
    },
  };
}

/** contract 5 response body of `POST /v2/pay_in_refunds/request`. */
export function refundView(r: RefundRecord): Record<string, unknown> {
  return {
    pay_in_refund_request_id: r.pay_in_refund_request_id,
    service_refund_id: r.service_refund_id,
    service_id: r.service_id,
    refunded_amount: centsToBrl(BigInt(r.refunded_cents)),
    refunded_currency: 'BRL',
    status: r.status,
  };
}
