/** Sales: create_dynamic_pix (reference 2.5, 4.5; contract 2) and their status (contract 3). */
import { v } from '../../../shared/schema.ts';
import { cents, datetime, datetimeOrNull, decodeAnswer, integer, oneOf, record, recordOrNull, text, textOrNull } from '../decode.ts';
import { centsToWire, PAY_IN, route } from './route.ts';

export interface CreateSaleInput {
  /** The sale amount in integer cents; sent as a BRL decimal string ("12.50"). */
  amount_cents: number;
  store_id?: number;
  checkout_id?: number;
  /** The merchant's own order reference, 1 to 128 characters. */
  external_id?: string;
  /** Seconds; ignored for a sale on a printed checkout (5 minutes). */
  expire?: number;
}

/** The request body on the wire (contract 2). */
export interface WireCreateDynamicPixBody {
  amount: string;
  store_id?: number;
  checkout_id?: number;
  external_id?: string;
  expire?: number;
}

/**
 * What create_dynamic_pix answers (the 201 body of contract 2): the service's charge
 * (reference 4.5: "the charge for one payer"), named apart from the lifecycle's Sale, which
 * is the terminal's record of it. amount_brl is read exactly into integer `amount_cents`.
 */
const DYNAMIC_PIX_CHARGE = v.pipe(
  record({
    pix_id: text,
    service_id: text,
    operation_id: text,
    // Reference 4.5: always branch on qr_type; a printed checkout can still answer dynamic.
    qr_type: oneOf(['printed_dynamic', 'dynamic']),
    emv: text,
    printed_dynamic_qr_data: recordOrNull({ pqr_emv: text, printed_dynamic_qr_id: text }),
    amount_brl: cents,
    external_id: textOrNull,
    store_id: integer,
    checkout_id: integer,
    created_at: datetime,
    expires_at: datetime,
  }),
  v.transform(({ amount_brl, ...charge }) => ({ ...charge, amount_cents: amount_brl })),
);
export type DynamicPixCharge = v.InferOutput<typeof DYNAMIC_PIX_CHARGE>;

export const TX_STATUS_VALUES = ['pending', 'paid', 'expired', 'refunded'] as const;
export type TxStatusValue = (typeof TX_STATUS_VALUES)[number];

/** A wire amount kept as sent: a decimal string or a finite number, else ''. */
function wireAmountText(value: unknown): string | number {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value)) ? value : '';
}

const TX_FOUND = v.pipe(
  record({
    pix_id: text,
    service_id: text,
    status: oneOf(TX_STATUS_VALUES),
    /**
     * As the service sent it (contract: a decimal string, or a number); compared in cents by
     * the lifecycle. Read leniently: a paid answer with an odd amount is still a payment to
     * record (the lifecycle flags the amount for a person); refusing the body would lose it.
     */
    amount_brl: v.pipe(v.unknown(), v.transform(wireAmountText)),
    paid_at: datetimeOrNull,
    e2e_id: textOrNull,
  }),
  v.transform((status) => ({ found: true as const, ...status })),
);

export type TxStatus =
  | v.InferOutput<typeof TX_FOUND>
  /** Contract 3: a displaced sale (forever) or an id the merchant does not own. */
  | { found: false; pix_id: string };

/** Contract 3: the detail of the 404 that is an answer, not a failure. */
export const TX_NOT_FOUND_DETAIL = 'TX not found';

export const SALE_ROUTES = {
  'sales.create': route({
    method: 'POST',
    path: '/v2/create_dynamic_pix',
    action: 'create the sale',
    access: PAY_IN,
    retry: 'idempotency_key',
    success: [201],
    assumptions: [
      'Request and 201 body as contract 2; amount sent as a BRL two-place decimal string.',
      'Idempotency-Key honoured for 24 h (contract 2); the caller stays correct if it is ignored (a repeat may displace).',
      'A replayed answer may come as 200 or 201; both are success.',
    ],
    encode: (input: CreateSaleInput) => {
      const body: WireCreateDynamicPixBody = {
        amount: centsToWire(input.amount_cents, 'sale amount'),
        store_id: input.store_id,
        checkout_id: input.checkout_id,
        external_id: input.external_id,
        expire: input.expire,
      };
      return { body };
    },
    decode: (body) => decodeAnswer(DYNAMIC_PIX_CHARGE, body),
  }),
  'sales.status': route({
    method: 'GET',
    path: '/v2/tx_status/{pix_id}',
    action: "read the sale's status",
    access: PAY_IN,
    retry: 'always',
    success: [200],
    assumptions: [
      'Body as contract 3; status one of pending, paid, expired, refunded.',
      'Contract 3: 404 `TX not found` is the answer for a displaced or foreign sale, forever; another 404 (e.g. a wrong base address) stays an error.',
    ],
    encode: (input: { pix_id: string }) => ({ params: { pix_id: input.pix_id } }),
    decode: (body): TxStatus => decodeAnswer(TX_FOUND, body),
    answer: (status, body, input): TxStatus | undefined =>
      status === 404 && body.shape === 'detail_string' && body.detail === TX_NOT_FOUND_DETAIL ? { found: false, pix_id: input.pix_id } : undefined,
  }),
} as const;
