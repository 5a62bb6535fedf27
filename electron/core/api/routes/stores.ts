/** Stores, their checkouts and the checkouts' settings (reference 2.1–2.3, 4.1–4.3): administration. */
import { v } from '../../../shared/schema.ts';
import { decodeAnswer, integer, list, record, text, textOrNull } from '../decode.ts';
import { ADMINISTRATION, NOT_SHOWN_CREATE_STATUS, route } from './route.ts';

// ── Stores (reference 2.1, 4.1) ──────────────────────────────────────────────────────────

const STORE = record({
  merchant_id: integer,
  store_id: integer,
  store_name: text,
  address: textOrNull,
  phone_number: textOrNull,
  email: textOrNull,
});
export type Store = v.InferOutput<typeof STORE>;

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

// ── Checkouts (reference 2.2, 4.2) ───────────────────────────────────────────────────────

const CHECKOUT_FIELDS = {
  merchant_id: integer,
  store_id: integer,
  checkout_id: integer,
  checkout_desc: text,
  wallet_id: integer,
};

/** A checkout as create and update return it (reference 4.2: without default_qr). */
const CHECKOUT_RECORD = record(CHECKOUT_FIELDS);
export type CheckoutRecord = v.InferOutput<typeof CHECKOUT_RECORD>;

/** A checkout as the list returns it. */
const CHECKOUT = v.pipe(
  record({
    ...CHECKOUT_FIELDS,
    /** As received: `printed_dynamic_qr`, `dynamic` or null. */
    default_qr: textOrNull,
  }),
  v.transform((checkout) => ({
    ...checkout,
    // Reference 2.2: only `printed_dynamic_qr` means printed mode; null or `dynamic` is dynamic.
    mode: checkout.default_qr === 'printed_dynamic_qr' ? ('printed' as const) : ('dynamic' as const),
  })),
);
export type Checkout = v.InferOutput<typeof CHECKOUT>;

export interface CreateCheckoutBody {
  checkout_desc: string;
  wallet_id: number;
}

/** Reference 4.2: omitted fields keep their value; PATCH is the only way to change the wallet. */
export interface CheckoutPatch {
  checkout_desc?: string;
  wallet_id?: number;
}

// ── Checkout configs (reference 2.3, 4.3) ────────────────────────────────────────────────

const CHECKOUT_CONFIG = record({
  merchant_id: integer,
  store_id: integer,
  checkout_id: integer,
  config_type: text,
  config_value: text,
});
export type CheckoutConfig = v.InferOutput<typeof CHECKOUT_CONFIG>;

/** Reference 4.3: `default_qr` accepts `printed_dynamic_qr` or `dynamic`; other keys are free text. */
export interface ConfigBody {
  config_type: string;
  config_value: string;
}

export const STORE_ROUTES = {
  'stores.list': route({
    method: 'GET',
    path: '/v2/stores',
    action: 'list the stores',
    access: ADMINISTRATION,
    retry: 'always',
    success: [200],
    assumptions: ['Optional fields typed string on the list (reference 2.1) may also be null; both are read.'],
    encode: (_: void) => ({}),
    decode: (body) => decodeAnswer(list(STORE), body),
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
    decode: (body) => decodeAnswer(STORE, body),
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
    decode: (body) => decodeAnswer(STORE, body),
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
    decode: (body) => decodeAnswer(list(CHECKOUT), body),
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
    decode: (body) => decodeAnswer(CHECKOUT_RECORD, body),
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
    decode: (body) => decodeAnswer(CHECKOUT_RECORD, body),
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
    decode: (body) => decodeAnswer(list(CHECKOUT_CONFIG), body),
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
    decode: (body) => decodeAnswer(CHECKOUT_CONFIG, body),
  }),
} as const;
