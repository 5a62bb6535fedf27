/**
 * Account administration: stores (reference 4.1), checkouts (4.2) and checkout configs
 * (4.3). All of them need scope pay_in and role manager (reference 5 rule 2, contract 1).
 *
 * Decisions for what the reference leaves "not shown" (README, "Decisions"):
 * - creates answer 201, updates 200; a config upsert answers 201 when it created the row
 *   and 200 when it overwrote an existing config_type;
 * - a missing store on checkout create/update answers 404 `Store not found` and a missing
 *   checkout on update 404 `Checkout not found`, like the list and config endpoints;
 * - on create, store_name and checkout_desc are only required (section 8 asks for at least
 *   one character on update only), so an empty string is accepted on create.
 */
import { ACCESS, guard } from '../auth.ts';
import type { SandboxContext } from '../context.ts';
import { detailError } from '../http.ts';
import type { Reply, Router, SandboxRequest } from '../http.ts';
import { findCheckout, findStore, usableWallet } from '../lookup.ts';
import type { CheckoutRecord, SandboxState, StoreRecord } from '../state.ts';
import { checkoutKey, storeKey } from '../state.ts';
import { body, field, fields, optional, readRequest, valueError } from '../validate.ts';
import type { RequestParts } from '../validate.ts';

/** Reference 4.3: the values default_qr accepts. */
export const DEFAULT_QR_VALUES = ['printed_dynamic_qr', 'dynamic'] as const;

function storeBody(store: StoreRecord): Record<string, unknown> {
  return { merchant_id: store.merchant_id, store_id: store.store_id, store_name: store.store_name, address: store.address, phone_number: store.phone_number, email: store.email };
}

function checkoutBody(checkout: CheckoutRecord): Record<string, unknown> {
  return { merchant_id: checkout.merchant_id, store_id: checkout.store_id, checkout_id: checkout.checkout_id, checkout_desc: checkout.checkout_desc, wallet_id: checkout.wallet_id };
}

function storesOf(state: SandboxState, merchantId: number): StoreRecord[] {
  return Object.values(state.stores)
    .filter((s) => s.merchant_id === merchantId)
    .sort((a, b) => a.store_id - b.store_id);
}

function checkoutsOf(state: SandboxState, merchantId: number, storeId: number): CheckoutRecord[] {
  return Object.values(state.checkouts)
    .filter((c) => c.merchant_id === merchantId && c.store_id === storeId)
    .sort((a, b) => a.checkout_id - b.checkout_id);
}

/** Creates a checkout with the next id of its store, or the id asked for (reference 4.4). */
export function addCheckout(state: SandboxState, fields: Omit<CheckoutRecord, 'checkout_id' | 'settlement_mode'> & { checkout_id?: number }): CheckoutRecord {
  const checkoutId = fields.checkout_id ?? checkoutsOf(state, fields.merchant_id, fields.store_id).reduce((max, c) => Math.max(max, c.checkout_id), 0) + 1;
  // Contract 6: a new checkout starts in legacy 1:1 settlement; the operator changes it.
  const checkout: CheckoutRecord = { ...fields, checkout_id: checkoutId, settlement_mode: 'ars_per_charge' };
  state.checkouts[checkoutKey(checkout.merchant_id, checkout.store_id, checkoutId)] = checkout;
  return checkout;
}

const StorePath = fields({ store_id: field.int() });
const CheckoutPath = fields({ store_id: field.int(), checkout_id: field.int() });

const NewStoreBody = body({
  store_name: field.string(),
  address: optional(field.string()),
  phone_number: optional(field.string()),
  email: optional(field.string()),
});

// Reference 4.1: left out or null keeps the value; store_name at least 1 character.
const StoreChangeBody = body({
  store_name: optional(field.string({ min: 1 })),
  address: optional(field.string()),
  phone_number: optional(field.string()),
  email: optional(field.string()),
});

const NewCheckoutBody = body({ checkout_desc: field.string(), wallet_id: field.int() });
const CheckoutChangeBody = body({ checkout_desc: optional(field.string({ min: 1 })), wallet_id: optional(field.int()) });

// Reference 4.3: an empty config_type or config_value is a 422 string_too_short.
const ConfigBody = body(
  { config_type: field.string({ min: 1 }), config_value: field.string({ min: 1 }) },
  {
    rules: [
      {
        needs: ['config_type', 'config_value'],
        // Reference 4.3 / 7: any other default_qr value is a 422 naming the allowed values; nothing stored.
        check: (c) =>
          c.config_type === 'default_qr' && !(DEFAULT_QR_VALUES as readonly string[]).includes(c.config_value)
            ? valueError('config_value', `default_qr must be one of 'printed_dynamic_qr' or 'dynamic'`)
            : null,
      },
    ],
  },
);

/**
 * Reference 4.1 / 4.2: each of `fields` that was sent replaces the record's value; one left
 * out (or null) keeps it. Only the fields named: a body's other keys never reach the record.
 */
function patch<R extends object, K extends keyof R & string>(record: R, sent: Partial<Record<K, R[K]>>, fields: readonly K[]): void {
  for (const name of fields) {
    const value = sent[name];
    if (value !== undefined) record[name] = value as R[K];
  }
}

/** Reference 5 rule 2 first (pay_in and role manager, 401/403 before any 422), then the request's parts. */
function administered<P extends RequestParts>(req: SandboxRequest, parts: P) {
  const p = guard(req, ACCESS.administration);
  return { merchantId: p.merchantId, ...readRequest(req, parts) };
}

function storeOf(state: SandboxState, merchantId: number, storeId: number): StoreRecord {
  const store = findStore(state, merchantId, storeId);
  if (store === undefined) throw detailError(404, 'Store not found');
  return store;
}

function checkoutOf(state: SandboxState, merchantId: number, storeId: number, checkoutId: number): CheckoutRecord {
  const checkout = findCheckout(state, merchantId, storeId, checkoutId);
  if (checkout === undefined) throw detailError(404, 'Checkout not found');
  return checkout;
}

export function register(router: Router, ctx: SandboxContext): void {
  // ---- 4.1 Stores ----
  router.add('GET', '/v2/stores', (req): Reply => {
    const p = guard(req, ACCESS.administration);
    // Reference 2.1: on the list the optional fields are typed string, so null reads "".
    const body = storesOf(ctx.state, p.merchantId).map((s) => ({ ...storeBody(s), address: s.address ?? '', phone_number: s.phone_number ?? '', email: s.email ?? '' }));
    return { status: 200, body };
  });

  router.add('POST', '/v2/stores', (req): Reply => {
    const { merchantId, body: sent } = administered(req, { body: NewStoreBody });
    const { state } = ctx;
    const storeId = storesOf(state, merchantId).reduce((max, s) => Math.max(max, s.store_id), 0) + 1;
    const store: StoreRecord = { merchant_id: merchantId, store_id: storeId, store_name: sent.store_name, address: sent.address ?? null, phone_number: sent.phone_number ?? null, email: sent.email ?? null };
    state.stores[storeKey(merchantId, storeId)] = store;
    ctx.persist();
    return { status: 201, body: storeBody(store) };
  });

  router.add('PATCH', '/v2/stores/:store_id', (req): Reply => {
    const { merchantId, path, body: sent } = administered(req, { path: StorePath, body: StoreChangeBody });
    const store = storeOf(ctx.state, merchantId, path.store_id);
    patch(store, sent, ['store_name', 'address', 'phone_number', 'email']);
    ctx.persist();
    return { status: 200, body: storeBody(store) };
  });

  // ---- 4.2 Checkouts ----
  router.add('GET', '/v2/stores/:store_id/checkouts', (req): Reply => {
    const { merchantId, path } = administered(req, { path: StorePath });
    const storeId = path.store_id;
    storeOf(ctx.state, merchantId, storeId);
    const body = checkoutsOf(ctx.state, merchantId, storeId).map((c) => ({
      ...checkoutBody(c),
      default_qr: ctx.state.configs[checkoutKey(c.merchant_id, c.store_id, c.checkout_id)]?.default_qr ?? null,
    }));
    return { status: 200, body };
  });

  router.add('POST', '/v2/stores/:store_id/checkouts', (req): Reply => {
    const { merchantId, path, body: sent } = administered(req, { path: StorePath, body: NewCheckoutBody });
    const { state } = ctx;
    storeOf(state, merchantId, path.store_id);
    // Reference 4.2: the wallet must be the merchant's (prevents cross-merchant assignment).
    usableWallet(state, merchantId, sent.wallet_id);
    const checkout = addCheckout(state, { merchant_id: merchantId, store_id: path.store_id, checkout_desc: sent.checkout_desc, wallet_id: sent.wallet_id });
    ctx.persist();
    return { status: 201, body: checkoutBody(checkout) };
  });

  router.add('PATCH', '/v2/stores/:store_id/checkouts/:checkout_id', (req): Reply => {
    const { merchantId, path, body: sent } = administered(req, { path: CheckoutPath, body: CheckoutChangeBody });
    const { state } = ctx;
    storeOf(state, merchantId, path.store_id);
    const checkout = checkoutOf(state, merchantId, path.store_id, path.checkout_id);
    // Reference 4.2: PATCH is the only way to move a checkout to another wallet; what is
    // paid afterwards settles to the new wallet (read from the checkout at settle time).
    if (sent.wallet_id !== undefined) usableWallet(state, merchantId, sent.wallet_id);
    patch(checkout, sent, ['checkout_desc', 'wallet_id']);
    ctx.persist();
    return { status: 200, body: checkoutBody(checkout) };
  });

  // ---- 4.3 Checkout configs ----
  router.add('POST', '/v2/stores/:store_id/checkouts/:checkout_id/configs', (req): Reply => {
    const { merchantId, path, body: sent } = administered(req, { path: CheckoutPath, body: ConfigBody });
    const { state } = ctx;
    const checkout = checkoutOf(state, merchantId, path.store_id, path.checkout_id);
    const key = checkoutKey(checkout.merchant_id, checkout.store_id, checkout.checkout_id);
    const configs = (state.configs[key] ??= {});
    const existed = Object.hasOwn(configs, sent.config_type);
    // Reference 2.3: (merchant, store, checkout, config_type) is unique: setting it overwrites.
    configs[sent.config_type] = sent.config_value;
    ctx.persist();
    return {
      status: existed ? 200 : 201,
      body: { merchant_id: checkout.merchant_id, store_id: checkout.store_id, checkout_id: checkout.checkout_id, config_type: sent.config_type, config_value: sent.config_value },
    };
  });

  router.add('GET', '/v2/stores/:store_id/checkouts/:checkout_id/configs', (req): Reply => {
    const { merchantId, path } = administered(req, { path: CheckoutPath });
    const checkout = checkoutOf(ctx.state, merchantId, path.store_id, path.checkout_id);
    const configs = ctx.state.configs[checkoutKey(checkout.merchant_id, checkout.store_id, checkout.checkout_id)] ?? {};
    // Reference 4.3: ordered by config_type.
    const body = Object.keys(configs)
      .sort()
      .map((type) => ({ merchant_id: checkout.merchant_id, store_id: checkout.store_id, checkout_id: checkout.checkout_id, config_type: type, config_value: configs[type] }));
    return { status: 200, body };
  });
}
