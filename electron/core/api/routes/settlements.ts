/**
 * Settlements (reference 2.7–2.9, 4.7): the settlements, their transactions, the charges
 * waiting for the next one, and the `settlement.settled` webhook (reference 6.1), every
 * figure read exactly at its currency's scale.
 */
import { v } from '../../../shared/schema.ts';
import { datetime, datetimeOrNull, decodeAnswer, integer, list, oneOfOrNull, record, text, textOrNull, withAmounts } from '../decode.ts';
import { PAY_IN, route } from './route.ts';

export const SETTLEMENT_STATUSES = ['CREATED', 'PROCESSING', 'DONE', 'CANCELED', 'FAILED'] as const;
export type SettlementStatus = (typeof SETTLEMENT_STATUSES)[number];

/**
 * Contract 6: batched windows recur every hour (the sandbox's default; the reference names no
 * period). The app flags a paid sale no settlement has included two windows after its payment.
 */
export const SETTLEMENT_WINDOW_MS = 60 * 60_000;

/** Contract 6: the webhook names currencies by id. */
export const CURRENCY_BY_ID: Readonly<Record<number, string>> = { 1: 'ARS', 2: 'BRL', 3: 'USDt' };

// Currency fields come first in each shape: a body without them is refused for the field its amounts depend on.
const SETTLEMENT_FIELDS = {
  currency: text,
  status: oneOfOrNull(SETTLEMENT_STATUSES),
  settlement_id: integer,
  settlement_provider_name: text,
  provider_settlement_id: textOrNull,
  external_settlement_id: textOrNull,
  address_to: text,
  address_from: text,
  settlement_message: textOrNull,
  settled_at: datetimeOrNull,
  created_at: datetime,
};
/** `amount` is net of refund deductions, in `currency`. */
const SETTLEMENT_AMOUNTS = { amount: { currency: 'currency' } } as const;

/** The charge fields the REST answers and the webhook share (2.8's first seven). */
const SETTLED_CHARGE_FIELDS = {
  charged_currency: text,
  settlement_currency: textOrNull,
  service_id: text,
  external_id: textOrNull,
  service_request_id: text,
};
const CHARGE_AMOUNTS = {
  charged_amount: { currency: 'charged_currency' },
  settlement_amount: { currency: 'settlement_currency', orNull: true },
} as const;
const CHARGE_TIMESTAMPS = { charged_timestamp: datetimeOrNull, received_timestamp: datetimeOrNull };

/** The deduction fields the REST answers and the webhook share (2.9 without pay_in_refund_request_id and created_at). */
const REFUND_DEDUCTION_FIELDS = {
  refunded_currency: textOrNull,
  deduction_currency: textOrNull,
  service_refund_id: text,
  service_id: text,
  external_id: textOrNull,
  service_request_id: textOrNull,
};
/** `deduction_amount` is in the settlement's own currency; read `deduction_currency`, never guess (contract 8). */
const REFUND_AMOUNTS = {
  refunded_amount: { currency: 'refunded_currency' },
  deduction_amount: { currency: 'deduction_currency' },
} as const;

const SETTLED_CHARGE = withAmounts({ ...SETTLED_CHARGE_FIELDS, ...CHARGE_TIMESTAMPS }, CHARGE_AMOUNTS);
export type SettledCharge = v.InferOutput<typeof SETTLED_CHARGE>;

const REFUND_DEDUCTION = withAmounts(
  { ...REFUND_DEDUCTION_FIELDS, pay_in_refund_request_id: textOrNull, created_at: datetime },
  REFUND_AMOUNTS,
);
export type RefundDeduction = v.InferOutput<typeof REFUND_DEDUCTION>;

const SETTLEMENT = withAmounts(SETTLEMENT_FIELDS, SETTLEMENT_AMOUNTS);
export type Settlement = v.InferOutput<typeof SETTLEMENT>;

const SETTLEMENT_DETAIL = withAmounts(
  { ...SETTLEMENT_FIELDS, charges: list(SETTLED_CHARGE), refunds: list(REFUND_DEDUCTION) },
  SETTLEMENT_AMOUNTS,
);
export type SettlementDetail = v.InferOutput<typeof SETTLEMENT_DETAIL>;

const PAGE_FIELDS = { total: integer, limit: integer, offset: integer };

const SETTLEMENT_PAGE = record({ settlements: list(SETTLEMENT), ...PAGE_FIELDS });
export type SettlementPage = v.InferOutput<typeof SETTLEMENT_PAGE>;

const SETTLEMENT_TRANSACTION = withAmounts(
  {
    ...SETTLED_CHARGE_FIELDS,
    ...CHARGE_TIMESTAMPS,
    settlement_id: integer,
    settlement_provider_name: text,
    settled_at: datetimeOrNull,
    provider_settlement_id: textOrNull,
    external_settlement_id: textOrNull,
  },
  CHARGE_AMOUNTS,
);
export type SettlementTransaction = v.InferOutput<typeof SETTLEMENT_TRANSACTION>;

const SETTLEMENT_TRANSACTION_PAGE = record({ transactions: list(SETTLEMENT_TRANSACTION), ...PAGE_FIELDS });
export type SettlementTransactionPage = v.InferOutput<typeof SETTLEMENT_TRANSACTION_PAGE>;

export interface SettlementRange {
  /** ISO 8601 with a UTC offset; without one the service answers 400 (reference 4.7). */
  start_date: string;
  end_date: string;
  limit?: number;
  offset?: number;
}

export interface SettlementTransactionsQuery extends SettlementRange {
  settlement_id?: number;
}

// ── Charges waiting for settlement (reference 4.7) ───────────────────────────────────────

export interface PendingChargesQuery {
  /** Omit when exactly one checkout is enrolled in the batched program (reference 4.7). */
  checkout_id?: number;
  /**
   * Not in the reference, whose pending-charges names a checkout by checkout_id alone while
   * checkout ids are per store: the sandbox takes it, and without it checkout 1 of store 2
   * would be read as checkout 1 of store 1 (issue 24 point 3).
   */
  store_id?: number;
  from?: string;
  to?: string;
  limit?: number;
  offset?: number;
}

const PENDING_CHARGE = withAmounts(
  {
    charged_currency: text,
    settlement_currency: text,
    service_request_id: text,
    service_id: text,
    external_id: textOrNull,
    charged_timestamp: datetime,
  },
  { ...CHARGE_AMOUNTS, settlement_amount: { currency: 'settlement_currency' } },
);
export type PendingCharge = v.InferOutput<typeof PENDING_CHARGE>;

const PENDING_REFUND = withAmounts(
  { ...REFUND_DEDUCTION_FIELDS, pay_in_refund_request_id: textOrNull, service_request_id: text, refunded_currency: text },
  REFUND_AMOUNTS,
);
export type PendingRefund = v.InferOutput<typeof PENDING_REFUND>;

/** Totals over the whole filtered set, not the page, in `currency`. */
function pendingTotals(currency: string | null) {
  const inCurrency = { currency: () => currency };
  return withAmounts(
    { count: integer, refund_count: integer },
    // Reference 4.7: a negative net means no settlement runs this cycle.
    { settlement_amount: inCurrency, refund_deduction: inCurrency, net_settlement_amount: { ...inCurrency, signed: true } },
  );
}
export type PendingChargeTotals = v.InferOutput<ReturnType<typeof pendingTotals>>;

const PENDING_CHARGES = v.pipe(
  record({ items: list(PENDING_CHARGE), pending_refunds: list(PENDING_REFUND), totals: v.unknown(), limit: integer, offset: integer }),
  v.rawTransform<{ items: PendingCharge[]; pending_refunds: PendingRefund[]; totals: unknown; limit: number; offset: number }, PendingCharges>(
    ({ dataset, addIssue, NEVER }) => {
      const page = dataset.value;
      // Totals carry no currency (reference 4.7): they are in the settlement currency of the
      // items, else of the deductions; with neither on the page, read at the widest scale.
      const currency = page.items[0]?.settlement_currency ?? page.pending_refunds.find((r) => r.deduction_currency !== null)?.deduction_currency ?? null;
      const totals = v.safeParse(pendingTotals(currency), page.totals, { abortEarly: true });
      if (totals.success) return { ...page, totals: totals.output };
      const [issue] = totals.issues;
      addIssue({ message: issue.message, path: [{ type: 'object', origin: 'value', input: page, key: 'totals', value: page.totals }, ...(issue.path ?? [])] });
      return NEVER;
    },
  ),
);

export interface PendingCharges {
  items: PendingCharge[];
  pending_refunds: PendingRefund[];
  /** Over the whole filtered set, not the page. `net_settlement_amount` may be negative. */
  totals: PendingChargeTotals;
  limit: number;
  offset: number;
}

// ── The settlement.settled webhook (reference 6.1) ───────────────────────────────────────

/** A currency named by its id (contract 6), read into its name. */
const currencyId = v.pipe(
  integer,
  v.check((id) => CURRENCY_BY_ID[id] !== undefined, `is not a known currency id (${Object.keys(CURRENCY_BY_ID).join(', ')})`),
  v.transform((id) => CURRENCY_BY_ID[id] ?? ''),
);

const SETTLED_EVENT = v.pipe(
  withAmounts(
    {
      currency_id: currencyId,
      source_currency_id: currencyId,
      settlement_id: integer,
      provider_settlement_id: textOrNull,
      external_settlement_id: textOrNull,
      settled_at: datetime,
      /** The first seven fields of 2.8 (no timestamps in the webhook). */
      charges: list(withAmounts(SETTLED_CHARGE_FIELDS, CHARGE_AMOUNTS)),
      /** 2.9 without pay_in_refund_request_id and created_at (absent from the webhook). */
      refunds: list(withAmounts(REFUND_DEDUCTION_FIELDS, REFUND_AMOUNTS)),
    },
    {
      amount: { currency: 'currency_id' },
      source_amount: { currency: 'source_currency_id' },
      source_net_price: { currency: 'source_currency_id' },
    },
  ),
  v.transform(({ currency_id, source_currency_id, ...event }) => ({ ...event, currency: currency_id, source_currency: source_currency_id })),
);

/** Reference 6.1: the `settlement.settled` payload, its figures exact at their currency's scale. */
export type SettledEvent = v.InferOutput<typeof SETTLED_EVENT>;

/**
 * Decodes a `settlement.settled` payload with the same money decoder as every REST answer:
 * a figure with more places than its currency allows is refused (DecodeError), never rounded.
 */
export function decodeSettledEvent(payload: unknown): SettledEvent {
  return decodeAnswer(SETTLED_EVENT, payload, 'settlement.settled');
}

export const SETTLEMENT_ROUTES = {
  'settlements.list': route({
    method: 'GET',
    path: '/v1/settlements',
    action: 'list the settlements',
    access: PAY_IN,
    retry: 'always',
    success: [200],
    assumptions: ['Settlement reads take pay_in, any role (contract 1).'],
    encode: (query: SettlementRange) => ({ query: { ...query } }),
    decode: (body) => decodeAnswer(SETTLEMENT_PAGE, body),
  }),
  'settlements.transactions': route({
    method: 'GET',
    path: '/v1/settlements/transactions',
    action: 'list the settled transactions',
    access: PAY_IN,
    retry: 'always',
    success: [200],
    assumptions: ['Settlement reads take pay_in, any role (contract 1).'],
    encode: (query: SettlementTransactionsQuery) => ({ query: { ...query } }),
    decode: (body) => decodeAnswer(SETTLEMENT_TRANSACTION_PAGE, body),
  }),
  'settlements.pendingCharges': route({
    method: 'GET',
    path: '/v1/settlements/pending-charges',
    action: 'list the charges waiting for settlement',
    access: PAY_IN,
    retry: 'always',
    success: [200],
    assumptions: [
      'Settlement reads take pay_in, any role (contract 1).',
      'Totals carry no currency: read in the items’ settlement currency.',
      'A store_id narrows the checkout (checkout ids are per store); the reference does not show it, the sandbox takes it.',
    ],
    encode: (query: PendingChargesQuery) => ({ query: { ...query } }),
    decode: (body): PendingCharges => decodeAnswer(PENDING_CHARGES, body),
  }),
  'settlements.get': route({
    method: 'GET',
    path: '/v1/settlements/{settlement_id}',
    action: 'read the settlement',
    access: PAY_IN,
    retry: 'always',
    success: [200],
    assumptions: ['The not-found status of `Settlement not found` is not shown (reference 4.7): 404 assumed.'],
    encode: (input: { settlement_id: number }) => ({ params: { settlement_id: input.settlement_id } }),
    decode: (body) => decodeAnswer(SETTLEMENT_DETAIL, body),
  }),
} as const;
