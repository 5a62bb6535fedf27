/**
 * THE route table of the payment service: one entry per endpoint the app uses (reference
 * 4.1–4.7, contract 2–5), with its method, path template, access rule, retry policy,
 * success statuses, request encoding and response decoding.
 *
 * Every answer the reference leaves "not shown" and the contract fixes is written here,
 * in the `assumptions` of the route that relies on it, and nowhere else in the client: a
 * real provider that answers differently is a change to this one file.
 *
 * Money: requests take integer cents and send BRL as a two-place decimal string
 * (contract, wire conventions); responses are read exactly, BRL into integer cents
 * (`*_cents`), other currencies into an exact `Amount` at the currency's scale. No float
 * ever decides a cent.
 */
import { formatCents } from '../../shared/money.ts';
import { CoreError } from '../errors.ts';
import { decodeArray, DecodeError, Fields } from './decode.ts';
import type { Amount } from './decode.ts';
import type { ParsedErrorBody } from './error-body.ts';

export type { Amount } from './decode.ts';

export type HttpMethod = 'GET' | 'POST' | 'PATCH';
export type Scope = 'pay_in' | 'pay_out';
export type Role = 'manager' | 'supervisor' | 'cashier';

/** Who may call a route (contract 1; reference 5 for administration). */
export interface Access {
  scopes: readonly Scope[];
  /** Roles allowed; 'any' when every role of a token with the scope may call it. */
  roles: readonly Role[] | 'any';
}

/**
 * When a failed attempt (network error, timeout, 5xx, 429) is sent again:
 * - `always`: a read; repeating it changes nothing.
 * - `idempotency_key`: a create the service de-duplicates by `Idempotency-Key` (contract 2);
 *   repeated only when the caller gives a key, and always with that same key.
 * - `key_sent_once`: a write that carries the caller's `Idempotency-Key` but that the client
 *   never repeats by itself: whether the service honours the key is not known (a refund:
 *   REFUND_KEYS below), so the caller's follow-up decides, or a person does.
 * - `never`: a write repeating could double (a second store, checkout or claim);
 *   a person decides after reading the error's outcome.
 */
export type RetryPolicy = 'always' | 'idempotency_key' | 'key_sent_once' | 'never';

/** Contract 2: the service keeps an Idempotency-Key 24 hours; after that the same key is a new request. */
export const IDEMPOTENCY_KEY_WINDOW_MS = 24 * 3_600_000;

/** How the service treats a refund's Idempotency-Key: what may be asked again without a person. */
export interface RefundKeyContract {
  /** The provider is known to de-duplicate refunds by Idempotency-Key. */
  readonly honoured: boolean;
  /** How long the service keeps a key (contract 2: 24 hours); after that a repeat is a new refund. */
  readonly windowMs: number;
}

/**
 * Contract 5 does not promise that a refund honours an Idempotency-Key, and contract 2 keeps
 * a key for 24 hours only. A refund whose answer was lost is asked again by itself only while
 * its key is inside that window AND the provider is known to honour refund keys; otherwise a
 * person decides (terminal/refunding.ts). A provider that documents refund keys changes
 * `honoured` here, and nothing else.
 */
export const REFUND_KEYS: RefundKeyContract = { honoured: false, windowMs: IDEMPOTENCY_KEY_WINDOW_MS };

type ParamNames<P extends string> = P extends `${string}{${infer N}}${infer Rest}` ? N | ParamNames<Rest> : never;

/** Path parameters typed from the template: `/v2/stores/{store_id}` needs `params.store_id`. */
export type PathParams<P extends string> = [ParamNames<P>] extends [never]
  ? { params?: undefined }
  : { params: { readonly [K in ParamNames<P>]: string | number } };

export type QueryValue = string | number | boolean | undefined;

export type Encoded<P extends string> = PathParams<P> & {
  query?: Readonly<Record<string, QueryValue>>;
  body?: object;
};

export interface RouteDef<P extends string, In, Out> {
  readonly method: HttpMethod;
  /** Path template; `{name}` segments are filled from `encode(...).params`. */
  readonly path: P;
  /** What the call does, as a sentence fragment: "could not <action>". */
  readonly action: string;
  readonly access: Access;
  readonly retry: RetryPolicy;
  /** Statuses that mean success; another 2xx is still decoded, and logged as unexpected. */
  readonly success: readonly number[];
  /** The answers this route relies on that the reference does not show (contract or our reading). */
  readonly assumptions: readonly string[];
  readonly encode: (input: In) => Encoded<P>;
  readonly decode: (body: unknown, status: number, input: In) => Out;
  /** A non-2xx status that is a normal answer of this route, not an error (e.g. Tx Status 404). */
  readonly answer?: (status: number, body: ParsedErrorBody, input: In) => Out | undefined;
}

function route<const P extends string, In, Out>(def: RouteDef<P, In, Out>): RouteDef<P, In, Out> {
  return def;
}

// ── Access rules (contract 1) ────────────────────────────────────────────────────────────

const ADMINISTRATION: Access = { scopes: ['pay_in'], roles: ['manager'] };
const PAY_IN: Access = { scopes: ['pay_in'], roles: 'any' };
const WALLETS: Access = { scopes: ['pay_in', 'pay_out'], roles: 'any' };
const PAY_OUT: Access = { scopes: ['pay_out'], roles: ['manager', 'supervisor'] };

// ── Currencies ───────────────────────────────────────────────────────────────────────────

/**
 * Decimal places an amount of each currency is read at. Contract 6: ARS quotes are rounded
 * to 2 places and USDt to 6; BRL has cents. A currency not listed, or none given, is read
 * at 6 places: wide enough for both, and the Amount carries its scale.
 */
export const CURRENCY_SCALE: Readonly<Record<string, number>> = { BRL: 2, ARS: 2, USDT: 6 };
const DEFAULT_SCALE = 6;

export function currencyScale(currency: string | null): number {
  if (currency === null) return DEFAULT_SCALE;
  return CURRENCY_SCALE[currency.toUpperCase()] ?? DEFAULT_SCALE;
}

// ── Stores (reference 2.1, 4.1) ──────────────────────────────────────────────────────────

export interface Store {
  merchant_id: number;
  store_id: number;
  store_name: string;
  address: string | null;
  phone_number: string | null;
  email: string | null;
}

export interface CreateStoreBody {
  store_name: string;
  address?: string;
  phone_number?: string;
  email?: string;
}

/** Reference 4.1: a field left out (or null) keeps its value; a field cannot be cleared. */
export interface StorePatch {
  store_name?: string;
  address?: string;
  phone_number?: string;
  email?: string;
}

function decodeStore(f: Fields): Store {
  return {
    merchant_id: f.int('merchant_id'),
    store_id: f.int('store_id'),
    store_name: f.str('store_name'),
    address: f.strOrNull('address'),
    phone_number: f.strOrNull('phone_number'),
    email: f.strOrNull('email'),
  };
}

// ── Checkouts (reference 2.2, 4.2) ───────────────────────────────────────────────────────

/** A checkout as create and update return it (reference 4.2: without default_qr). */
export interface CheckoutRecord {
  merchant_id: number;
  store_id: number;
  checkout_id: number;
  checkout_desc: string;
  wallet_id: number;
}

/** A checkout as the list returns it. */
export interface Checkout extends CheckoutRecord {
  /** As received: `printed_dynamic_qr`, `dynamic` or null. */
  default_qr: string | null;
  /** Reference 2.2: only `printed_dynamic_qr` means printed mode; null or `dynamic` is dynamic. */
  mode: 'printed' | 'dynamic';
}

export interface CreateCheckoutBody {
  checkout_desc: string;
  wallet_id: number;
}

/** Reference 4.2: omitted fields keep their value; PATCH is the only way to change the wallet. */
export interface CheckoutPatch {
  checkout_desc?: string;
  wallet_id?: number;
}

function decodeCheckoutRecord(f: Fields): CheckoutRecord {
  return {
    merchant_id: f.int('merchant_id'),
    store_id: f.int('store_id'),
    checkout_id: f.int('checkout_id'),
    checkout_desc: f.str('checkout_desc'),
    wallet_id: f.int('wallet_id'),
  };
}

function decodeCheckout(f: Fields): Checkout {
  const default_qr = f.strOrNull('default_qr');
  return { ...decodeCheckoutRecord(f), default_qr, mode: default_qr === 'printed_dynamic_qr' ? 'printed' : 'dynamic' };
}

// ── Checkout configs (reference 2.3, 4.3) ────────────────────────────────────────────────

export interface CheckoutConfig {
  merchant_id: number;
  store_id: number;
  checkout_id: number;
  config_type: string;
  config_value: string;
}

/** Reference 4.3: `default_qr` accepts `printed_dynamic_qr` or `dynamic`; other keys are free text. */
export interface ConfigBody {
  config_type: string;
  config_value: string;
}

function decodeConfig(f: Fields): CheckoutConfig {
  return {
    merchant_id: f.int('merchant_id'),
    store_id: f.int('store_id'),
    checkout_id: f.int('checkout_id'),
    config_type: f.str('config_type'),
    config_value: f.str('config_value'),
  };
}

// ── Printed dynamic QRs (reference 2.4, 4.4) ─────────────────────────────────────────────

export interface PrintedDynamicQr {
  printed_dynamic_qr_id: string;
  qr_emvcode: string;
  qr_location_id: string;
  /** The settling wallet's address, partly masked by the service. */
  address: string;
  checkout_id: number;
  merchant_id: number;
  store_id: number;
  /** Epoch seconds (reference 2.4). */
  created_at: number;
  /** Reference 4.4 rule 2: false when the checkout already had this QR (HTTP 200), true when made now (201). */
  created: boolean;
}

export interface CreatePrintedQrBody {
  checkout_id: number;
  store_id?: number;
  auto_create_checkout?: boolean;
  checkout_desc?: string;
  /** Only with auto_create_checkout; send wallet_id or address, not both (reference 4.4). */
  wallet_id?: number;
  address?: string;
}

export interface PrintedQrListQuery {
  store_id?: number;
  checkout_id?: number;
  page?: number;
  page_size?: number;
}

export interface PrintedQrPage {
  total: number;
  page: number;
  page_size: number;
  stores: {
    store_id: number;
    store_name: string | null;
    company_name: string | null;
    checkouts: {
      checkout_id: number;
      checkout_desc: string | null;
      printed_dynamic_qrs: { printed_dynamic_qr_id: string; qr_emvcode: string; address: string }[];
    }[];
  }[];
}

function decodePrintedQr(f: Fields, status: number): PrintedDynamicQr {
  return {
    printed_dynamic_qr_id: f.str('printed_dynamic_qr_id'),
    qr_emvcode: f.str('qr_emvcode'),
    qr_location_id: f.str('qr_location_id'),
    address: f.str('address'),
    checkout_id: f.int('checkout_id'),
    merchant_id: f.int('merchant_id'),
    store_id: f.int('store_id'),
    created_at: f.int('created_at'),
    created: status === 201,
  };
}

function decodePrintedQrPage(f: Fields): PrintedQrPage {
  return {
    total: f.int('total'),
    page: f.int('page'),
    page_size: f.int('page_size'),
    stores: f.array('stores', (s) => ({
      store_id: s.int('store_id'),
      store_name: s.strOrNull('store_name'),
      company_name: s.strOrNull('company_name'),
      checkouts: s.array('checkouts', (c) => ({
        checkout_id: c.int('checkout_id'),
        checkout_desc: c.strOrNull('checkout_desc'),
        printed_dynamic_qrs: c.array('printed_dynamic_qrs', (q) => ({
          printed_dynamic_qr_id: q.str('printed_dynamic_qr_id'),
          qr_emvcode: q.str('qr_emvcode'),
          address: q.str('address'),
        })),
      })),
    })),
  };
}

// ── Sales: create_dynamic_pix (reference 2.5, 4.5; contract 2) ───────────────────────────

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

/** The 201 body on the wire (contract 2). */
export interface WireSale {
  pix_id: string;
  service_id: string;
  operation_id: string;
  qr_type: 'printed_dynamic' | 'dynamic';
  emv: string;
  printed_dynamic_qr_data: { pqr_emv: string; printed_dynamic_qr_id: string } | null;
  amount_brl: string | number;
  external_id: string | null;
  store_id: number;
  checkout_id: number;
  created_at: string;
  expires_at: string;
}

/**
 * What create_dynamic_pix answers: the service's charge (reference 4.5: "the charge for one
 * payer"), named apart from the lifecycle's Sale, which is the terminal's record of it.
 */
export interface DynamicPixCharge extends Omit<WireSale, 'amount_brl'> {
  /** amount_brl read exactly into integer cents. */
  amount_cents: number;
}

function decodeSale(f: Fields): DynamicPixCharge {
  const pqr = f.objectOrNull('printed_dynamic_qr_data');
  return {
    pix_id: f.str('pix_id'),
    service_id: f.str('service_id'),
    operation_id: f.str('operation_id'),
    // Reference 4.5: always branch on qr_type; a printed checkout can still answer dynamic.
    qr_type: f.oneOf('qr_type', ['printed_dynamic', 'dynamic'] as const),
    emv: f.str('emv'),
    printed_dynamic_qr_data: pqr === null ? null : { pqr_emv: pqr.str('pqr_emv'), printed_dynamic_qr_id: pqr.str('printed_dynamic_qr_id') },
    amount_cents: f.cents('amount_brl'),
    external_id: f.strOrNull('external_id'),
    store_id: f.int('store_id'),
    checkout_id: f.int('checkout_id'),
    created_at: f.datetime('created_at'),
    expires_at: f.datetime('expires_at'),
  };
}

// ── Tx Status (contract 3) ───────────────────────────────────────────────────────────────

export type TxStatusValue = 'pending' | 'paid' | 'expired' | 'refunded';

export type TxStatus =
  | {
      found: true;
      pix_id: string;
      service_id: string;
      status: TxStatusValue;
      /** As the service sent it (contract: a decimal string, or a number); compared in cents by the lifecycle. */
      amount_brl: string | number;
      paid_at: string | null;
      e2e_id: string | null;
    }
  /** Contract 3: a displaced sale (forever) or an id the merchant does not own. */
  | { found: false; pix_id: string };

function wireAmount(v: unknown): string | number {
  return typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)) ? v : '';
}

/** Contract 3: the detail of the 404 that is an answer, not a failure. */
export const TX_NOT_FOUND_DETAIL = 'TX not found';

// ── Refunds (contract 5) ─────────────────────────────────────────────────────────────────

export interface RefundRequestInput {
  service_id: string;
  /** Defaults to the rest of the charge (contract 5). */
  amount_cents?: number;
  reason?: string;
}

export interface Refund {
  pay_in_refund_request_id: string;
  service_refund_id: string;
  service_id: string;
  refunded_cents: number;
  refunded_currency: string;
  status: string;
}

// ── Wallets and pay-outs (contract 5) ────────────────────────────────────────────────────

export interface Wallet {
  wallet_id: number;
  address: string;
  network: string;
  currency: string;
  /** A deprecated network is what answers `Wallet network deprecated`. */
  deprecated: boolean;
}

export interface Payout {
  service_id: string;
  external_id: string | null;
  amount: Amount;
  currency: string;
  /** Null until the bank processed it; a tracked MED claim needs it. */
  e2e_id: string | null;
  payer_document: string | null;
  created_at: string | null;
}

export interface PageQuery {
  limit?: number;
  offset?: number;
}

function decodePayout(f: Fields): Payout {
  const currency = f.str('currency');
  return {
    service_id: f.str('service_id'),
    external_id: f.strOrNull('external_id'),
    amount: f.amount('amount', currency, currencyScale),
    currency,
    e2e_id: f.strOrNull('e2e_id'),
    payer_document: f.strOrNull('payer_document'),
    created_at: f.datetimeOrNull('created_at'),
  };
}

// ── MED claims (reference 2.6, 3.2, 4.6) ─────────────────────────────────────────────────

export const MED_REASONS = ['scam', 'account_takeover', 'coercion', 'credentials_stolen', 'other_fraud', 'unknown'] as const;
export type MedReason = (typeof MED_REASONS)[number];

export const MED_STATUSES = ['dispatching', 'open', 'tracking', 'under_analysis', 'analysed', 'refunding', 'closed', 'cancelled'] as const;
export type MedStatus = (typeof MED_STATUSES)[number];

/** Reference 4.6: exactly one of service_id and payout_external_id. */
export type OpenMedClaimInput = (
  | { service_id: string; payout_external_id?: undefined }
  | { payout_external_id: string; service_id?: undefined }
) & {
  reason: MedReason;
  /** 10 to 4000 characters; line breaks are collapsed by the service. */
  details: string;
  external_id?: string;
};

/** Reference 4.6: 202 in one of two forms the caller cannot choose. */
export type MedOpening =
  | { handling: 'tracked'; med_case_id: string; status_id: 'dispatching'; message: string; warning: string | null }
  | { handling: 'manual'; med_case_id: null; message: string };

export interface MedClaim {
  med_case_id: string;
  service_id: string;
  e2e_id: string;
  status_id: MedStatus;
  /** Must not be used to infer whether money came back (reference 2.6). */
  result_id: 'agreed' | 'disagreed' | null;
  reason: string;
  money_refunded: boolean;
  refunded_cents: number | null;
  external_id: string | null;
  created_at: string;
  /** Only while dispatching (reference 4.6). */
  outcome_hint: { retryable: boolean; message: string } | null;
}

function decodeMedClaim(f: Fields): MedClaim {
  const hint = f.objectOrNull('outcome_hint');
  const result = f.strOrNull('result_id');
  return {
    med_case_id: f.str('med_case_id'),
    service_id: f.str('service_id'),
    e2e_id: f.str('e2e_id'),
    status_id: f.oneOf('status_id', MED_STATUSES),
    result_id: result === null ? null : f.oneOf('result_id', ['agreed', 'disagreed'] as const),
    reason: f.str('reason'),
    money_refunded: f.bool('money_refunded'),
    refunded_cents: f.centsOrNull('refunded_amount'),
    external_id: f.strOrNull('external_id'),
    created_at: f.datetime('created_at'),
    outcome_hint: hint === null ? null : { retryable: hint.bool('retryable'), message: hint.str('message') },
  };
}

function decodeMedOpening(f: Fields): MedOpening {
  // Reference 4.6: the operator-handled form has outcome/handling `manual` and a null med_case_id.
  if (f.raw('handling') === 'manual' || f.raw('outcome') === 'manual') {
    return { handling: 'manual', med_case_id: null, message: f.str('message') };
  }
  return {
    handling: 'tracked',
    med_case_id: f.str('med_case_id'),
    status_id: f.oneOf('status_id', ['dispatching'] as const),
    message: f.str('message'),
    warning: f.strOrNull('warning'),
  };
}

// ── Settlements (reference 2.7–2.9, 4.7) ─────────────────────────────────────────────────

export const SETTLEMENT_STATUSES = ['CREATED', 'PROCESSING', 'DONE', 'CANCELED', 'FAILED'] as const;
export type SettlementStatus = (typeof SETTLEMENT_STATUSES)[number];

export interface Settlement {
  settlement_id: number;
  settlement_provider_name: string;
  provider_settlement_id: string | null;
  external_settlement_id: string | null;
  /** Net of refund deductions, in `currency`. */
  amount: Amount;
  currency: string;
  address_to: string;
  address_from: string;
  settlement_message: string | null;
  settled_at: string | null;
  created_at: string;
  status: SettlementStatus | null;
}

export interface SettledCharge {
  service_id: string;
  external_id: string | null;
  service_request_id: string;
  charged_amount: Amount;
  charged_currency: string;
  settlement_amount: Amount | null;
  settlement_currency: string | null;
  charged_timestamp: string | null;
  received_timestamp: string | null;
}

export interface RefundDeduction {
  service_refund_id: string;
  pay_in_refund_request_id: string | null;
  service_id: string;
  external_id: string | null;
  service_request_id: string | null;
  refunded_amount: Amount;
  refunded_currency: string | null;
  /** In the settlement's own currency; read `deduction_currency`, never guess (contract 8). */
  deduction_amount: Amount;
  deduction_currency: string | null;
  created_at: string;
}

export interface SettlementDetail extends Settlement {
  charges: SettledCharge[];
  refunds: RefundDeduction[];
}

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

export interface SettlementPage {
  settlements: Settlement[];
  total: number;
  limit: number;
  offset: number;
}

export interface SettlementTransaction extends SettledCharge {
  settlement_id: number;
  settlement_provider_name: string;
  settled_at: string | null;
  provider_settlement_id: string | null;
  external_settlement_id: string | null;
}

export interface SettlementTransactionPage {
  transactions: SettlementTransaction[];
  total: number;
  limit: number;
  offset: number;
}

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

export interface PendingCharge {
  service_request_id: string;
  service_id: string;
  external_id: string | null;
  charged_amount: Amount;
  charged_currency: string;
  settlement_amount: Amount;
  settlement_currency: string;
  charged_timestamp: string;
}

export interface PendingRefund {
  service_refund_id: string;
  pay_in_refund_request_id: string | null;
  service_id: string;
  external_id: string | null;
  service_request_id: string;
  refunded_amount: Amount;
  refunded_currency: string;
  deduction_amount: Amount;
  deduction_currency: string | null;
}

export interface PendingCharges {
  items: PendingCharge[];
  pending_refunds: PendingRefund[];
  /** Over the whole filtered set, not the page. `net_settlement_amount` may be negative. */
  totals: {
    count: number;
    settlement_amount: Amount;
    refund_count: number;
    refund_deduction: Amount;
    net_settlement_amount: Amount;
  };
  limit: number;
  offset: number;
}

function decodeSettlement(f: Fields): Settlement {
  const currency = f.str('currency');
  const status = f.strOrNull('status');
  return {
    settlement_id: f.int('settlement_id'),
    settlement_provider_name: f.str('settlement_provider_name'),
    provider_settlement_id: f.strOrNull('provider_settlement_id'),
    external_settlement_id: f.strOrNull('external_settlement_id'),
    amount: f.amount('amount', currency, currencyScale),
    currency,
    address_to: f.str('address_to'),
    address_from: f.str('address_from'),
    settlement_message: f.strOrNull('settlement_message'),
    settled_at: f.datetimeOrNull('settled_at'),
    created_at: f.datetime('created_at'),
    status: status === null ? null : f.oneOf('status', SETTLEMENT_STATUSES),
  };
}

function decodeSettledCharge(f: Fields): SettledCharge {
  const charged_currency = f.str('charged_currency');
  const settlement_currency = f.strOrNull('settlement_currency');
  return {
    service_id: f.str('service_id'),
    external_id: f.strOrNull('external_id'),
    service_request_id: f.str('service_request_id'),
    charged_amount: f.amount('charged_amount', charged_currency, currencyScale),
    charged_currency,
    settlement_amount: f.amountOrNull('settlement_amount', settlement_currency, currencyScale),
    settlement_currency,
    charged_timestamp: f.datetimeOrNull('charged_timestamp'),
    received_timestamp: f.datetimeOrNull('received_timestamp'),
  };
}

function decodeRefundDeduction(f: Fields): RefundDeduction {
  const refunded_currency = f.strOrNull('refunded_currency');
  const deduction_currency = f.strOrNull('deduction_currency');
  return {
    service_refund_id: f.str('service_refund_id'),
    pay_in_refund_request_id: f.strOrNull('pay_in_refund_request_id'),
    service_id: f.str('service_id'),
    external_id: f.strOrNull('external_id'),
    service_request_id: f.strOrNull('service_request_id'),
    refunded_amount: f.amount('refunded_amount', refunded_currency, currencyScale),
    refunded_currency,
    deduction_amount: f.amount('deduction_amount', deduction_currency, currencyScale),
    deduction_currency,
    created_at: f.datetime('created_at'),
  };
}

/**
 * Contract 6: batched windows recur every hour (the sandbox's default; the reference names no
 * period). The app flags a paid sale no settlement has included two windows after its payment.
 */
export const SETTLEMENT_WINDOW_MS = 60 * 60_000;

/** Contract 6: the webhook names currencies by id. */
export const CURRENCY_BY_ID: Readonly<Record<number, string>> = { 1: 'ARS', 2: 'BRL', 3: 'USDt' };

/** Reference 6.1: the `settlement.settled` payload, its figures exact at their currency's scale. */
export interface SettledEvent {
  settlement_id: number;
  provider_settlement_id: string | null;
  external_settlement_id: string | null;
  amount: Amount;
  currency: string;
  source_amount: Amount;
  source_currency: string;
  source_net_price: Amount;
  settled_at: string;
  /** The first seven fields of 2.8 (no timestamps in the webhook). */
  charges: Omit<SettledCharge, 'charged_timestamp' | 'received_timestamp'>[];
  /** 2.9 without pay_in_refund_request_id and created_at (absent from the webhook). */
  refunds: Omit<RefundDeduction, 'pay_in_refund_request_id' | 'created_at'>[];
}

/**
 * Decodes a `settlement.settled` payload with the same money decoder as every REST answer:
 * a figure with more places than its currency allows is refused (DecodeError), never rounded.
 */
export function decodeSettledEvent(payload: unknown): SettledEvent {
  const f = new Fields(payload, 'settlement.settled');
  const currency = currencyOfId(f, 'currency_id');
  const source_currency = currencyOfId(f, 'source_currency_id');
  return {
    settlement_id: f.int('settlement_id'),
    provider_settlement_id: f.strOrNull('provider_settlement_id'),
    external_settlement_id: f.strOrNull('external_settlement_id'),
    amount: f.amount('amount', currency, currencyScale),
    currency,
    source_amount: f.amount('source_amount', source_currency, currencyScale),
    source_currency,
    source_net_price: f.amount('source_net_price', source_currency, currencyScale),
    settled_at: f.datetime('settled_at'),
    charges: f.array('charges', (c) => {
      const charged_currency = c.str('charged_currency');
      const settlement_currency = c.strOrNull('settlement_currency');
      return {
        service_id: c.str('service_id'),
        external_id: c.strOrNull('external_id'),
        service_request_id: c.str('service_request_id'),
        charged_amount: c.amount('charged_amount', charged_currency, currencyScale),
        charged_currency,
        settlement_amount: c.amountOrNull('settlement_amount', settlement_currency, currencyScale),
        settlement_currency,
      };
    }),
    refunds: f.array('refunds', (r) => {
      const refunded_currency = r.strOrNull('refunded_currency');
      const deduction_currency = r.strOrNull('deduction_currency');
      return {
        service_refund_id: r.str('service_refund_id'),
        service_id: r.str('service_id'),
        external_id: r.strOrNull('external_id'),
        service_request_id: r.strOrNull('service_request_id'),
        refunded_amount: r.amount('refunded_amount', refunded_currency, currencyScale),
        refunded_currency,
        deduction_amount: r.amount('deduction_amount', deduction_currency, currencyScale),
        deduction_currency,
      };
    }),
  };
}

function currencyOfId(f: Fields, key: string): string {
  const id = f.int(key);
  const currency = CURRENCY_BY_ID[id];
  if (currency === undefined) throw new DecodeError(`${f.path}.${key}`, `is not a known currency id (${Object.keys(CURRENCY_BY_ID).join(', ')})`);
  return currency;
}

function decodePendingCharges(f: Fields): PendingCharges {
  const items = f.array('items', (i): PendingCharge => {
    const charged_currency = i.str('charged_currency');
    const settlement_currency = i.str('settlement_currency');
    return {
      service_request_id: i.str('service_request_id'),
      service_id: i.str('service_id'),
      external_id: i.strOrNull('external_id'),
      charged_amount: i.amount('charged_amount', charged_currency, currencyScale),
      charged_currency,
      settlement_amount: i.amount('settlement_amount', settlement_currency, currencyScale),
      settlement_currency,
      charged_timestamp: i.datetime('charged_timestamp'),
    };
  });
  const pending_refunds = f.array('pending_refunds', (r): PendingRefund => {
    const refunded_currency = r.str('refunded_currency');
    const deduction_currency = r.strOrNull('deduction_currency');
    return {
      service_refund_id: r.str('service_refund_id'),
      pay_in_refund_request_id: r.strOrNull('pay_in_refund_request_id'),
      service_id: r.str('service_id'),
      external_id: r.strOrNull('external_id'),
      service_request_id: r.str('service_request_id'),
      refunded_amount: r.amount('refunded_amount', refunded_currency, currencyScale),
      refunded_currency,
      deduction_amount: r.amount('deduction_amount', deduction_currency, currencyScale),
      deduction_currency,
    };
  });
  // Totals carry no currency (reference 4.7): they are in the settlement currency of the
  // items, else of the deductions; with neither on the page, read at the widest scale.
  const totalsCurrency = items[0]?.settlement_currency ?? pending_refunds.find((r) => r.deduction_currency !== null)?.deduction_currency ?? null;
  const t = f.object('totals');
  return {
    items,
    pending_refunds,
    totals: {
      count: t.int('count'),
      settlement_amount: t.amount('settlement_amount', totalsCurrency, currencyScale),
      refund_count: t.int('refund_count'),
      refund_deduction: t.amount('refund_deduction', totalsCurrency, currencyScale),
      // Reference 4.7: negative means no settlement runs this cycle.
      net_settlement_amount: t.amount('net_settlement_amount', totalsCurrency, currencyScale, true),
    },
    limit: f.int('limit'),
    offset: f.int('offset'),
  };
}

// ── Input checks made before anything is sent ────────────────────────────────────────────

/** An amount the app asks the service to charge or refund: whole cents, above zero. */
function centsToWire(cents: number, field: string): string {
  if (!Number.isSafeInteger(cents) || cents <= 0) {
    throw new CoreError('invalid_argument', `The ${field} must be a positive amount in whole cents; nothing was sent to the payment service.`, { field });
  }
  return formatCents(cents);
}

function obj(body: unknown, path = 'response'): Fields {
  return new Fields(body, path);
}

// ── The table ────────────────────────────────────────────────────────────────────────────

const NOT_SHOWN_CREATE_STATUS = 'Success status of create/update is not shown (reference 4.5): any of 200 or 201 is success.';

export const ROUTES = {
  'stores.list': route({
    method: 'GET',
    path: '/v2/stores',
    action: 'list the stores',
    access: ADMINISTRATION,
    retry: 'always',
    success: [200],
    assumptions: ['Optional fields typed string on the list (reference 2.1) may also be null; both are read.'],
    encode: (_: void) => ({}),
    decode: (body) => decodeArray(body, 'response', decodeStore),
  }),
  'stores.create': route({
    method: 'POST',
    path: '/v2/stores',
    action: 'create the store',
    access: ADMINISTRATION,
    retry: 'never',
    success: [200, 201],
    assumptions: [NOT_SHOWN_CREATE_STATUS, 'No Idempotency-Key support: a repeat would create a second store.'],
    encode: (body: CreateStoreBody) => ({ body }),
    decode: (body) => decodeStore(obj(body)),
  }),
  'stores.patch': route({
    method: 'PATCH',
    path: '/v2/stores/{store_id}',
    action: 'update the store',
    access: ADMINISTRATION,
    // Not repeated automatically: the issue allows retries for reads and keyed creates only.
    retry: 'never',
    success: [200],
    assumptions: [NOT_SHOWN_CREATE_STATUS, 'The not-found status of update is not shown (reference 7): 404 assumed.'],
    encode: (input: { store_id: number; patch: StorePatch }) => ({ params: { store_id: input.store_id }, body: input.patch }),
    decode: (body) => decodeStore(obj(body)),
  }),
  'checkouts.list': route({
    method: 'GET',
    path: '/v2/stores/{store_id}/checkouts',
    action: "list the store's checkouts",
    access: ADMINISTRATION,
    retry: 'always',
    success: [200],
    assumptions: [],
    encode: (input: { store_id: number }) => ({ params: { store_id: input.store_id } }),
    decode: (body) => decodeArray(body, 'response', decodeCheckout),
  }),
  'checkouts.create': route({
    method: 'POST',
    path: '/v2/stores/{store_id}/checkouts',
    action: 'create the checkout',
    access: ADMINISTRATION,
    retry: 'never',
    success: [200, 201],
    assumptions: [NOT_SHOWN_CREATE_STATUS, 'The not-found status for a missing store on create is not shown (reference 7): 404 assumed.'],
    encode: (input: { store_id: number; checkout: CreateCheckoutBody }) => ({ params: { store_id: input.store_id }, body: input.checkout }),
    decode: (body) => decodeCheckoutRecord(obj(body)),
  }),
  'checkouts.patch': route({
    method: 'PATCH',
    path: '/v2/stores/{store_id}/checkouts/{checkout_id}',
    action: 'update the checkout',
    access: ADMINISTRATION,
    retry: 'never',
    success: [200],
    assumptions: [NOT_SHOWN_CREATE_STATUS],
    encode: (input: { store_id: number; checkout_id: number; patch: CheckoutPatch }) => ({
      params: { store_id: input.store_id, checkout_id: input.checkout_id },
      body: input.patch,
    }),
    decode: (body) => decodeCheckoutRecord(obj(body)),
  }),
  'configs.list': route({
    method: 'GET',
    path: '/v2/stores/{store_id}/checkouts/{checkout_id}/configs',
    action: "read the checkout's settings",
    access: ADMINISTRATION,
    retry: 'always',
    success: [200],
    assumptions: [],
    encode: (input: { store_id: number; checkout_id: number }) => ({ params: { store_id: input.store_id, checkout_id: input.checkout_id } }),
    decode: (body) => decodeArray(body, 'response', decodeConfig),
  }),
  'configs.set': route({
    method: 'POST',
    path: '/v2/stores/{store_id}/checkouts/{checkout_id}/configs',
    action: "change the checkout's settings",
    access: ADMINISTRATION,
    retry: 'never',
    success: [200, 201],
    assumptions: [NOT_SHOWN_CREATE_STATUS],
    encode: (input: { store_id: number; checkout_id: number; config: ConfigBody }) => ({
      params: { store_id: input.store_id, checkout_id: input.checkout_id },
      body: input.config,
    }),
    decode: (body) => decodeConfig(obj(body)),
  }),
  'printedQrs.create': route({
    method: 'POST',
    path: '/v2/printed_dynamic_qrs',
    action: "create the checkout's printed QR",
    access: ADMINISTRATION,
    retry: 'never',
    success: [200, 201],
    assumptions: [
      'Access is administration (contract 1; reference 5 leaves it open).',
      'Statuses of `Checkout not found for this merchant` and the other unlisted details are not shown (reference 7): read by body shape only.',
    ],
    encode: (body: CreatePrintedQrBody) => ({ body }),
    decode: (body, status) => decodePrintedQr(obj(body), status),
  }),
  'printedQrs.list': route({
    method: 'GET',
    path: '/v2/printed_dynamic_qrs',
    action: 'list the printed QRs',
    access: ADMINISTRATION,
    retry: 'always',
    success: [200],
    assumptions: ['Access is administration (contract 1).'],
    encode: (query: PrintedQrListQuery) => ({ query: { ...query } }),
    decode: (body) => decodePrintedQrPage(obj(body)),
  }),
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
    decode: (body) => decodeSale(obj(body)),
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
    decode: (body): TxStatus => {
      const f = obj(body);
      return {
        found: true,
        pix_id: f.str('pix_id'),
        service_id: f.str('service_id'),
        status: f.oneOf('status', ['pending', 'paid', 'expired', 'refunded'] as const),
        // Read leniently: a paid answer with an odd amount is still a payment to record (the
        // lifecycle flags the amount for a person); refusing the body would lose it.
        amount_brl: wireAmount(f.raw('amount_brl')),
        paid_at: f.datetimeOrNull('paid_at'),
        e2e_id: f.strOrNull('e2e_id'),
      };
    },
    answer: (status, body, input): TxStatus | undefined =>
      status === 404 && body.shape === 'detail_string' && body.detail === TX_NOT_FOUND_DETAIL ? { found: false, pix_id: input.pix_id } : undefined,
  }),
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
    decode: (body): Refund => {
      const f = obj(body);
      return {
        pay_in_refund_request_id: f.str('pay_in_refund_request_id'),
        service_refund_id: f.str('service_refund_id'),
        service_id: f.str('service_id'),
        refunded_cents: f.cents('refunded_amount'),
        refunded_currency: f.str('refunded_currency'),
        status: f.str('status'),
      };
    },
  }),
  'wallets.list': route({
    method: 'GET',
    path: '/v2/wallets',
    action: "list the merchant's wallets",
    access: WALLETS,
    retry: 'always',
    success: [200],
    assumptions: ['Wallet record as contract 5 (reference 2.5b shows only wallet_id).'],
    encode: (_: void) => ({}),
    decode: (body) =>
      decodeArray(body, 'response', (f): Wallet => ({
        wallet_id: f.int('wallet_id'),
        address: f.str('address'),
        network: f.str('network'),
        currency: f.str('currency'),
        deprecated: f.bool('deprecated'),
      })),
  }),
  'payouts.list': route({
    method: 'GET',
    path: '/v2/payouts',
    action: 'list the pay-outs',
    access: PAY_OUT,
    retry: 'always',
    success: [200],
    assumptions: ['Pay-out record as contract 5; the list answers a JSON array of them.'],
    encode: (query: PageQuery) => ({ query: { ...query } }),
    decode: (body) => decodeArray(body, 'response', decodePayout),
  }),
  'payouts.get': route({
    method: 'GET',
    path: '/v2/payouts/{service_id}',
    action: 'read the pay-out',
    access: PAY_OUT,
    retry: 'always',
    success: [200],
    assumptions: ['Pay-out record as contract 5.'],
    encode: (input: { service_id: string }) => ({ params: { service_id: input.service_id } }),
    decode: (body) => decodePayout(obj(body)),
  }),
  'meds.open': route({
    method: 'POST',
    path: '/v2/payout_meds',
    action: 'open the fraud-recovery (MED) claim',
    access: PAY_OUT,
    // Reference 4.6: claim_not_confirmed warns that a repeat may open a second claim.
    retry: 'never',
    success: [202],
    assumptions: ['Access is pay_out with manager or supervisor (contract 1).'],
    encode: (input: OpenMedClaimInput) => ({ body: input }),
    decode: (body) => decodeMedOpening(obj(body)),
  }),
  'meds.get': route({
    method: 'GET',
    path: '/v2/payout_meds/{med_case_id}',
    action: 'read the MED claim',
    access: PAY_OUT,
    retry: 'always',
    success: [200],
    assumptions: [],
    encode: (input: { med_case_id: string }) => ({ params: { med_case_id: input.med_case_id } }),
    decode: (body) => decodeMedClaim(obj(body)),
  }),
  'meds.list': route({
    method: 'GET',
    path: '/v2/payout_meds',
    action: 'list the MED claims',
    access: PAY_OUT,
    retry: 'always',
    success: [200],
    assumptions: [],
    encode: (query: { limit?: number }) => ({ query: { ...query } }),
    decode: (body) => decodeArray(body, 'response', decodeMedClaim),
  }),
  'settlements.list': route({
    method: 'GET',
    path: '/v1/settlements',
    action: 'list the settlements',
    access: PAY_IN,
    retry: 'always',
    success: [200],
    assumptions: ['Settlement reads take pay_in, any role (contract 1).'],
    encode: (query: SettlementRange) => ({ query: { ...query } }),
    decode: (body): SettlementPage => {
      const f = obj(body);
      return { settlements: f.array('settlements', decodeSettlement), total: f.int('total'), limit: f.int('limit'), offset: f.int('offset') };
    },
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
    decode: (body): SettlementTransactionPage => {
      const f = obj(body);
      return {
        transactions: f.array('transactions', (t) => ({
          ...decodeSettledCharge(t),
          settlement_id: t.int('settlement_id'),
          settlement_provider_name: t.str('settlement_provider_name'),
          settled_at: t.datetimeOrNull('settled_at'),
          provider_settlement_id: t.strOrNull('provider_settlement_id'),
          external_settlement_id: t.strOrNull('external_settlement_id'),
        })),
        total: f.int('total'),
        limit: f.int('limit'),
        offset: f.int('offset'),
      };
    },
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
    decode: (body) => decodePendingCharges(obj(body)),
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
    decode: (body): SettlementDetail => {
      const f = obj(body);
      return { ...decodeSettlement(f), charges: f.array('charges', decodeSettledCharge), refunds: f.array('refunds', decodeRefundDeduction) };
    },
  }),
} as const;

export type Routes = typeof ROUTES;
export type RouteName = keyof Routes;
export type RouteInput<K extends RouteName> = Parameters<Routes[K]['encode']>[0];
export type RouteResult<K extends RouteName> = ReturnType<Routes[K]['decode']>;

/** The facts about a route the error descriptions use (no codecs). */
export interface RouteInfo {
  name: RouteName;
  method: HttpMethod;
  path: string;
  action: string;
  access: Access;
  retry: RetryPolicy;
}

export function routeInfo(name: RouteName): RouteInfo {
  const r = ROUTES[name];
  return { name, method: r.method, path: r.path, action: r.action, access: r.access, retry: r.retry };
}

/** Whether a failed call of this route can have changed something at the service. */
export function isWrite(name: RouteName): boolean {
  return ROUTES[name].method !== 'GET';
}

/**
 * Fills a path template. Integer ids must be positive safe integers (reference 4: `*_id`
 * path parameters that are integers are integers); string ids must be non-empty and are
 * percent-encoded, so an id can never change which route is called.
 */
export function buildPath(template: string, params: Readonly<Record<string, string | number>> | undefined): string {
  return template.replace(/\{([a-z_]+)\}/g, (_whole, name: string) => {
    const value = params?.[name];
    if (typeof value === 'number') {
      if (!Number.isSafeInteger(value) || value <= 0) {
        throw new CoreError('invalid_argument', `${name} must be a positive whole number; nothing was sent to the payment service.`, { field: name });
      }
      return String(value);
    }
    if (typeof value !== 'string' || value.trim() === '') {
      throw new CoreError('invalid_argument', `${name} is missing; nothing was sent to the payment service.`, { field: name });
    }
    return encodeURIComponent(value);
  });
}

/** The query string of the defined values, in a stable order; '' when there are none. */
export function buildQuery(query: Readonly<Record<string, QueryValue>> | undefined): string {
  if (query === undefined) return '';
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined) search.append(key, String(value));
  }
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}
