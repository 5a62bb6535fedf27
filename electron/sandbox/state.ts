/**
 * The sandbox's whole state: plain JSON-serialisable data, so persisting is one
 * JSON.stringify and a reset is "rebuild from the fixture" (fixture.ts is the one place the
 * initial state is built).
 *
 * Records are keyed for O(1) access on the hot path: sales by pix_id, the sales of a checkout
 * in `saleIdsByCheckout` (oldest first, so the newest is the last), locations by id. No
 * handler scans every sale to serve a public request.
 *
 * Times are epoch milliseconds of the sandbox clock; handlers format them on the wire.
 * Money is integer cents (electron/shared/money.ts).
 *
 * S2-OWNED PART: `payouts`, `medClaims`, `settlements`, `refunds`, `pendingPool` and `ext`
 * belong to the wallets/pay-outs/MED/refunds/settlements modules. Apart from the fixture
 * pay-outs (contract 7), this framework never reads or writes them; their value types are
 * loose on purpose so S2 can store its own records (narrow with a cast or a type guard in its
 * module). Keep them JSON-serialisable. `SaleRecord.ext` is S2's per-sale corner (a quote, the
 * settlement it joined, refunded cents...). `nextId(state, name)` gives S2 integer sequences.
 */

export type Scope = 'pay_in' | 'pay_out';
export type Role = 'manager' | 'supervisor' | 'cashier';
export type SettlementMode = 'ars_per_charge' | 'ars_batched' | 'blockchain_batched';
export type GatewayVariant = 'same_emv' | 'amount_emv';

/** Who a valid bearer token says is calling (auth.ts resolves it from a TokenRecord). */
export interface Principal {
  token: string;
  merchantId: number;
  userId: number;
  scopes: Scope[];
  role: Role;
}

export interface TokenRecord {
  token: string;
  merchant_id: number;
  user_id: number;
  scopes: Scope[];
  role: Role;
  /** Sandbox epoch ms after which the token is expired; null for never. */
  expires_at: number | null;
}

export interface MerchantRecord {
  merchant_id: number;
  /** `company_name` of the printed QR list (reference 4.4) and field 59 of its EMVs. */
  company_name: string;
  /** Field 60 of its EMVs. */
  city: string;
}

export interface WalletRecord {
  wallet_id: number;
  merchant_id: number;
  address: string;
  network: string;
  currency: string;
  /** A wallet on a deprecated network answers `Wallet network deprecated` (contract 5). */
  deprecated: boolean;
}

export interface StoreRecord {
  merchant_id: number;
  store_id: number;
  store_name: string;
  address: string | null;
  phone_number: string | null;
  email: string | null;
}

export interface CheckoutRecord {
  merchant_id: number;
  store_id: number;
  checkout_id: number;
  checkout_desc: string;
  wallet_id: number;
  /** Contract 6: set by the operator (S2's control route), never by the public API. */
  settlement_mode: SettlementMode;
}

export interface PrintedQrRecord {
  printed_dynamic_qr_id: string;
  merchant_id: number;
  store_id: number;
  checkout_id: number;
  qr_location_id: string;
  qr_emvcode: string;
  /** Epoch ms; the wire form is epoch seconds (reference 2.4). */
  created_at: number;
}

/**
 * What a scanned code's location resolves to. A checkout location (the printed QR, and the
 * `emv` of every printed sale, reference 4.5 rule 2) charges the checkout's newest sale; a
 * charge location (a standard dynamic QR) charges its one charge.
 */
export type QrLocation =
  | { kind: 'checkout'; merchant_id: number; store_id: number; checkout_id: number }
  | { kind: 'charge'; pix_id: string };

/**
 * Stored status. `expired` is never stored: a pending sale past expires_at is expired,
 * computed from the clock when read (saleStatus in sales.ts). `refunded` is set by S2's
 * refunds module when a charge is refunded in full.
 */
export type StoredSaleStatus = 'pending' | 'paid' | 'refunded';
export type QrType = 'printed_dynamic' | 'dynamic';

/** A sale (charge on a printed checkout) or a standard dynamic charge. */
export interface SaleRecord {
  pix_id: string;
  service_id: string;
  operation_id: string;
  merchant_id: number;
  store_id: number;
  checkout_id: number;
  /** The sum asked for, in cents. */
  amount_cents: number;
  /** The sum actually paid (a payer may pay another sum), in cents; null until paid. */
  paid_amount_cents: number | null;
  external_id: string | null;
  qr_type: QrType;
  /** The `emv` returned at creation. */
  emv: string;
  /** Location the `emv` resolves to. */
  location_id: string;
  printed_dynamic_qr_id: string | null;
  /** Epoch ms (sandbox clock). */
  created_at: number;
  expires_at: number;
  status: StoredSaleStatus;
  /** True for a sale made on a printed checkout (reference 2.5), whatever its qr_type. */
  printed_checkout: boolean;
  /** Reference 4.5 rule 1: replaced by a newer sale while unpaid. Tx Status answers 404 for ever. */
  displaced: boolean;
  paid_at: number | null;
  e2e_id: string | null;
  /** Creation order, for listing newest first without parsing ids. */
  seq: number;
  /** S2's per-sale data (quote, settlement, refunded cents...). */
  ext: Record<string, unknown>;
}

export interface GatewayConfig {
  /** Contract 7: `same_emv` (a sale's emv is the printed QR's) or `amount_emv`. */
  variant: GatewayVariant;
  /** Reference 4.4 rule 6: false means the gateway cannot make printed QRs. */
  printed_supported: boolean;
  /** Reference 7: true answers 503 `printed_qr_disabled`. */
  printed_disabled: boolean;
  /** Contract 2: sales on a printed checkout come back as `qr_type: dynamic`. */
  printed_fallback_dynamic: boolean;
}

export interface WebhookEndpoint {
  url: string | null;
  secret: string;
}

export type WebhookEventState =
  /** Waiting for its next attempt (next_attempt_at). */
  | 'pending'
  /** An attempt is on the wire. */
  | 'in_flight'
  | 'delivered'
  /** Every attempt of the schedule failed. */
  | 'failed'
  /** A webhook fault dropped it: never sent. */
  | 'dropped'
  /** A reorder fault holds it until the fault's count is reached. */
  | 'held'
  /** The merchant had no endpoint when the event happened. */
  | 'no_endpoint';

export interface WebhookEventRecord {
  webhook_id: string;
  merchant_id: number;
  event: string;
  /** The exact bytes sent on every attempt: signed per attempt, identical on retries. */
  body: string;
  created_at: number;
  /** Attempts made so far. */
  attempts: number;
  next_attempt_at: number | null;
  state: WebhookEventState;
  /** Extra copies still to send after the first answered attempt (duplicate fault). */
  duplicates: number;
  seq: number;
}

/** One row of `GET /_sandbox/webhooks` (contract 7). */
export interface WebhookAttemptRecord {
  webhook_id: string;
  event: string;
  attempt: number;
  url: string;
  /** HTTP status answered, or null (no answer in 10 s, connection refused...). */
  status: number | null;
  /** ISO 8601, sandbox time, when the attempt started. */
  at: string;
  error: string | null;
  /** True for the extra copy sent by a duplicate fault. */
  duplicate: boolean;
}

export interface IdempotencyRecord {
  body_hash: string;
  status: number;
  body: unknown;
  expires_at: number;
}

/** A pay-out (contract 5). Fixture data of contract 7; S2's modules own the behaviour. */
export interface PayoutRecord {
  service_id: string;
  merchant_id: number;
  external_id: string | null;
  amount_cents: number;
  currency: string;
  e2e_id: string | null;
  payer_document: string | null;
  /** Epoch ms; null for the undated fixture pay-out. */
  created_at: number | null;
}

export interface SandboxState {
  version: 1;
  /** Integer sequences by name (store ids are per merchant, so they are derived, not here). */
  seq: Record<string, number>;
  merchants: Record<string, MerchantRecord>;
  tokens: Record<string, TokenRecord>;
  wallets: Record<string, WalletRecord>;
  /** Key: storeKey(m, s). */
  stores: Record<string, StoreRecord>;
  /** Key: checkoutKey(m, s, c). */
  checkouts: Record<string, CheckoutRecord>;
  /** Key: checkoutKey; value: config_type -> config_value (reference 2.3: unique per checkout). */
  configs: Record<string, Record<string, string>>;
  /** Key: printed_dynamic_qr_id. */
  printedQrs: Record<string, PrintedQrRecord>;
  /** Key: checkoutKey -> printed_dynamic_qr_id (one printed QR per checkout, reference 4.4 rule 2). */
  printedQrByCheckout: Record<string, string>;
  /** Key: checkoutKey -> the checkout location id shared by its printed QR and its sales. */
  checkoutLocations: Record<string, string>;
  /** Key: location id. */
  locations: Record<string, QrLocation>;
  /** Key: pix_id. */
  sales: Record<string, SaleRecord>;
  /**
   * Key: checkoutKey -> pix_id of the checkout's newest sale made on it as a printed checkout
   * (reference 4.5 rule 3: the one a payment is credited to, whichever checkout QR is scanned).
   */
  newestSaleByCheckout: Record<string, string>;
  /** Key: checkoutKey -> pix_ids, oldest first. */
  saleIdsByCheckout: Record<string, string[]>;
  /** Key: service_id -> pix_id (S2's refunds and settlements look charges up by service_id). */
  saleIdByServiceId: Record<string, string>;
  gateway: GatewayConfig;
  /** Key: merchant_id -> its one configured endpoint (contract 4). */
  webhookEndpoints: Record<string, WebhookEndpoint>;
  /** Key: webhook_id. The outbox: what is still to deliver survives a restart. */
  webhookEvents: Record<string, WebhookEventRecord>;
  webhookAttempts: WebhookAttemptRecord[];
  /** Key: `${merchant_id}:${Idempotency-Key}` (contract 2). */
  idempotency: Record<string, IdempotencyRecord>;
  /** The sandbox clock's offset when last saved, so a restart never moves it backwards. */
  clockOffsetMs: number;

  // ---- S2-owned (see the header comment) ----
  payouts: Record<string, PayoutRecord>;
  medClaims: Record<string, unknown>;
  settlements: Record<string, unknown>;
  refunds: Record<string, unknown>;
  pendingPool: Record<string, unknown>;
  ext: Record<string, unknown>;
}

export function storeKey(merchantId: number, storeId: number): string {
  return `${merchantId}/${storeId}`;
}

export function checkoutKey(merchantId: number, storeId: number, checkoutId: number): string {
  return `${merchantId}/${storeId}/${checkoutId}`;
}

/** Next value of a named integer sequence (starts at 1). */
export function nextId(state: SandboxState, name: string): number {
  const next = (state.seq[name] ?? 0) + 1;
  state.seq[name] = next;
  return next;
}
