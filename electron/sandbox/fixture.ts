/**
 * The default fixture of contract section 7, which every test may rely on. This is the ONE
 * place the initial state is built: startup without a data file, and `POST /_sandbox/reset`,
 * both call buildFixture, so a reset also resets S2's domains.
 */
import type { PayoutRecord, SandboxState, TokenRecord, WalletRecord } from './state.ts';
import { checkoutKey, storeKey } from './state.ts';

/** Contract 7: the fixture's webhook secret. */
export const FIXTURE_WEBHOOK_SECRET = 'whsec_c2FuZGJveC13ZWJob29rLXNlY3JldC0zMmJ5dGVzISE=';

export const FIXTURE_TOKENS = {
  manager: 'sandbox-manager-token',
  supervisor: 'sandbox-supervisor-token',
  cashier: 'sandbox-cashier-token',
  payout: 'sandbox-payout-token',
  otherMerchant: 'sandbox-other-merchant-token',
} as const;

/** The token the app uses when it embeds the sandbox: the manager's (every endpoint it calls). */
export const SANDBOX_APP_TOKEN: string = FIXTURE_TOKENS.manager;

const DAY_MS = 86_400_000;

function token(t: string, merchant: number, user: number, scopes: TokenRecord['scopes'], role: TokenRecord['role']): [string, TokenRecord] {
  return [t, { token: t, merchant_id: merchant, user_id: user, scopes, role, expires_at: null }];
}

function wallet(walletId: number, merchantId: number, address: string, deprecated: boolean): [string, WalletRecord] {
  return [
    String(walletId),
    {
      wallet_id: walletId,
      merchant_id: merchantId,
      address,
      // A deprecated network is what answers `Wallet network deprecated` (contract 5).
      network: deprecated ? 'ethereum' : 'polygon',
      currency: 'USDt',
      deprecated,
    },
  ];
}

function payout(serviceId: string, merchantId: number, fields: Omit<PayoutRecord, 'service_id' | 'merchant_id' | 'external_id' | 'currency'>): [string, PayoutRecord] {
  // Contract 7: pay-out external_id = "ext_" + service_id.
  return [serviceId, { service_id: serviceId, merchant_id: merchantId, external_id: `ext_${serviceId}`, currency: 'BRL', ...fields }];
}

/** The whole initial state, with dates relative to the sandbox clock's `nowMs`. */
export function buildFixture(nowMs: number): SandboxState {
  return {
    version: 1,
    seq: {},
    merchants: {
      '1': { merchant_id: 1, company_name: 'Sandbox Comercio Ltda', city: 'Sao Paulo' },
      '2': { merchant_id: 2, company_name: 'Outra Loja Ltda', city: 'Rio de Janeiro' },
    },
    tokens: Object.fromEntries([
      token(FIXTURE_TOKENS.manager, 1, 11, ['pay_in', 'pay_out'], 'manager'),
      token(FIXTURE_TOKENS.supervisor, 1, 12, ['pay_in', 'pay_out'], 'supervisor'),
      token(FIXTURE_TOKENS.cashier, 1, 13, ['pay_in'], 'cashier'),
      token(FIXTURE_TOKENS.payout, 1, 14, ['pay_out'], 'manager'),
      token(FIXTURE_TOKENS.otherMerchant, 2, 21, ['pay_in', 'pay_out'], 'manager'),
    ]),
    wallets: Object.fromEntries([
      wallet(101, 1, '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', false),
      wallet(102, 1, '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359', false),
      wallet(103, 1, '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB', true),
      wallet(201, 2, '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb', false),
    ]),
    stores: {
      [storeKey(1, 1)]: { merchant_id: 1, store_id: 1, store_name: 'Loja Centro', address: null, phone_number: null, email: null },
      [storeKey(2, 1)]: { merchant_id: 2, store_id: 1, store_name: 'Loja Outra', address: null, phone_number: null, email: null },
    },
    checkouts: {
      // Contract 7: checkout 1 "Caixa 1" on wallet 101, dynamic mode, no printed QR, ars_per_charge.
      [checkoutKey(1, 1, 1)]: { merchant_id: 1, store_id: 1, checkout_id: 1, checkout_desc: 'Caixa 1', wallet_id: 101, settlement_mode: 'ars_per_charge' },
      [checkoutKey(2, 1, 1)]: { merchant_id: 2, store_id: 1, checkout_id: 1, checkout_desc: 'Caixa 1', wallet_id: 201, settlement_mode: 'ars_per_charge' },
    },
    configs: {},
    printedQrs: {},
    printedQrByCheckout: {},
    checkoutLocations: {},
    locations: {},
    sales: {},
    newestSaleByCheckout: {},
    saleIdsByCheckout: {},
    saleIdByServiceId: {},
    gateway: { variant: 'same_emv', printed_supported: true, printed_disabled: false, printed_fallback_dynamic: false },
    webhookEndpoints: {
      '1': { url: null, secret: FIXTURE_WEBHOOK_SECRET },
      '2': { url: null, secret: FIXTURE_WEBHOOK_SECRET },
    },
    webhookEvents: {},
    webhookAttempts: [],
    idempotency: {},
    clockOffsetMs: 0,
    payouts: Object.fromEntries([
      payout('po_fixture_ok', 1, { amount_cents: 15_000, e2e_id: 'E00000000202611191200ABCDEF12345', payer_document: '12345678909', created_at: nowMs - 2 * DAY_MS }),
      payout('po_fixture_no_doc', 1, { amount_cents: 8_000, e2e_id: 'E00000000202611191300ABCDEF12346', payer_document: null, created_at: nowMs - 2 * DAY_MS }),
      payout('po_fixture_no_e2e', 1, { amount_cents: 5_000, e2e_id: null, payer_document: '12345678909', created_at: nowMs - 60_000 }),
      payout('po_fixture_old', 1, { amount_cents: 12_000, e2e_id: 'E00000000202608231200ABCDEF12347', payer_document: '12345678909', created_at: nowMs - 90 * DAY_MS }),
      payout('po_fixture_undated', 1, { amount_cents: 3_000, e2e_id: 'E00000000202611101200ABCDEF12348', payer_document: '12345678909', created_at: null }),
      payout('po_fixture_m2', 2, { amount_cents: 9_900, e2e_id: 'E00000000202611191400ABCDEF12349', payer_document: '98765432100', created_at: nowMs - 2 * DAY_MS }),
    ]),
    medClaims: {},
    settlements: {},
    refunds: {},
    pendingPool: {},
    ext: {},
  };
}
