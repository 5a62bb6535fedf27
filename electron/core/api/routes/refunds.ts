/** Refunds of a sale (contract 5). */
import { v } from '../../../shared/schema.ts';
import { cents, decodeAnswer, record, text } from '../decode.ts';
import { centsToWire, PAY_IN, route } from './route.ts';

export interface RefundRequestInput {
  service_id: string;
  /** Defaults to the rest of the charge (contract 5). */
  amount_cents?: number;
  reason?: string;
}

const REFUND = v.pipe(
  record({
    pay_in_refund_request_id: text,
    service_refund_id: text,
    service_id: text,
    refunded_amount: cents,
    refunded_currency: text,
    status: text,
  }),
  v.transform(({ refunded_amount, ...refund }) => ({ ...refund, refunded_cents: refunded_amount })),
);
export type Refund = v.InferOutput<typeof REFUND>;

export const REFUND_ROUTES = {
  'refunds.request': route({
    method: 'POST',
    path: '/v2/pay_in_refunds/request',
    action: 'request the refund',
    access: PAY_IN,
    retry: 'key_sent_once',
    success: [201],
    assumptions: [
      'Request and 201 body as contract 5.',
      'Contract 5 does not state Idempotency-Key support: the key journaled with the intent is sent, but the client never repeats a refund; REFUND_KEYS says whether the follow-up may ask again, else a person decides.',
    ],
    encode: (input: RefundRequestInput) => ({
      body: {
        service_id: input.service_id,
        amount: input.amount_cents === undefined ? undefined : centsToWire(input.amount_cents, 'refund amount'),
        reason: input.reason,
      },
    }),
    decode: (body) => decodeAnswer(REFUND, body),
  }),
} as const;
