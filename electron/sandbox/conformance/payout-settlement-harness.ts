/**
 * The pay-out, MED, refund and settlement conformance files on top of fixtures/sandbox.ts: one
 * sandbox started in-process on 127.0.0.1 port 0 with a loopback webhook receiver, driven
 * only through HTTP with global fetch, plus the few domain steps those files repeat (a paid
 * charge, a settlement mode, signed deliveries, exact decimal figures).
 */
import { decodeWireAmount } from '../../shared/money.ts';
import { verifyWebhook } from '../../shared/standard-webhooks.ts';
import { useSandbox } from './fixtures/sandbox.ts';
import { FIXTURE_WEBHOOK_SECRET, TOKENS, waitFor, type Receiver, type Res } from './harness.ts';

export { TOKENS };
export type Answer = Res;

export interface Delivery {
  webhookId: string;
  event: string;
  payload: Record<string, unknown>;
  /** The Standard Webhooks signature checks out against the fixture secret (contract 4). */
  signatureValid: boolean;
}

export interface Harness {
  /** A public endpoint with a bearer token (null: none). */
  api(method: string, path: string, token: string | null, body?: unknown): Promise<Res>;
  /** A control route, full path (no token). */
  control(method: string, path: string, body?: unknown): Promise<Res>;
  /** Back to the fixture; the receiver stays the webhook endpoint and forgets what it got. */
  reset(): Promise<void>;
  advance(seconds: number): Promise<void>;
  /** Sandbox time, epoch ms. */
  now(): Promise<number>;
  /** Every event the sandbox enqueued, oldest first (GET /_sandbox/events). */
  events(): Promise<{ webhook_id: string; event: string; merchant_id: number; payload: Record<string, unknown> }[]>;
  /** Waits (bounded, real time, never asserted on) until `predicate` holds over the deliveries. */
  waitForDeliveries(predicate: (d: Delivery[]) => boolean): Promise<Delivery[]>;
}

function delivered(receiver: Receiver): Delivery[] {
  return receiver.deliveries.map((d) => {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(d.headers)) if (typeof v === 'string') headers[k] = v;
    // The sandbox signs with its own clock, which tests move forward: no freshness window here.
    const verdict = verifyWebhook(FIXTURE_WEBHOOK_SECRET, headers, d.body, Math.floor(Date.now() / 1000), 10 * 365 * 86_400);
    const payload = (d.json ?? {}) as Record<string, unknown>;
    return { webhookId: headers['webhook-id'] ?? '', event: String(payload['event']), payload, signatureValid: verdict.ok };
  });
}

/**
 * The harness of a test file: the fixture's sandbox with its receiver as every merchant's
 * webhook endpoint from the start, reset before each test.
 */
export function useHarness(): Harness {
  const fixture = useSandbox({ receiver: true, sandbox: (receiver) => ({ host: '127.0.0.1', webhook: { url: receiver.url, secret: FIXTURE_WEBHOOK_SECRET } }) });
  const { api: client, receiver } = fixture;
  return {
    api: (method, path, token, body) => client.call(method, path, { token, body }),
    control: (method, path, body) => client.call(method, path, { token: null, body }),
    reset: () => fixture.reset(),
    async advance(seconds) {
      const r = await client.advance(seconds);
      if (r.status !== 200) throw new Error(`advance failed: ${r.status} ${r.text}`);
    },
    async now() {
      return Date.parse(String((await client.control('GET', '/clock')).body.now));
    },
    async events() {
      return (await client.control('GET', '/events')).body;
    },
    waitForDeliveries: (predicate) =>
      waitFor(() => {
        const all = delivered(receiver);
        return predicate(all) ? all : undefined;
      }, 'webhook deliveries'),
  };
}

/** A charge made with create_dynamic_pix and (unless `pay: false`) paid by the payer. */
export async function paidCharge(
  h: Harness,
  amount: string,
  options: { externalId?: string; storeId?: number; checkoutId?: number; token?: string; pay?: boolean } = {},
): Promise<{ pix_id: string; service_id: string; external_id: string | null }> {
  const body: Record<string, unknown> = { amount, store_id: options.storeId ?? 1, checkout_id: options.checkoutId ?? 1 };
  if (options.externalId !== undefined) body['external_id'] = options.externalId;
  const created = await h.api('POST', '/v2/create_dynamic_pix', options.token ?? TOKENS.cashier, body);
  if (created.status !== 201) throw new Error(`create_dynamic_pix: ${created.status} ${created.text}`);
  if (options.pay !== false) {
    const paid = await h.control('POST', '/_sandbox/pay', { emv: created.body.emv });
    if (paid.status !== 200) throw new Error(`pay: ${paid.status} ${paid.text}`);
  }
  return { pix_id: created.body.pix_id, service_id: created.body.service_id, external_id: created.body.external_id };
}

/**
 * contract 1: pay-outs and MED need role manager or supervisor; no fixture token has pay_out
 * without one of them, so the control API adds one (gone again at the next reset).
 */
export const PAYOUT_CASHIER_TOKEN = 'payout-cashier-token';
export async function addPayoutCashierToken(h: Harness): Promise<void> {
  const r = await h.control('POST', '/_sandbox/tokens', { token: PAYOUT_CASHIER_TOKEN, merchant_id: 1, scopes: ['pay_in', 'pay_out'], role: 'cashier' });
  if (r.status !== 201) throw new Error(`token: ${r.status} ${r.text}`);
}

/** contract 7: the operator puts a checkout in a settlement mode. */
export async function setMode(h: Harness, mode: string, storeId = 1, checkoutId = 1, merchantId?: number): Promise<void> {
  const r = await h.control('PUT', `/_sandbox/checkouts/${storeId}/${checkoutId}/mode`, merchantId === undefined ? { mode } : { mode, merchant_id: merchantId });
  if (r.status !== 200) throw new Error(`mode: ${r.status} ${r.text}`);
}

/** Another checkout in store 1 of merchant 1, on wallet 102; returns its id. */
export async function addCheckout(h: Harness): Promise<number> {
  const r = await h.api('POST', '/v2/stores/1/checkouts', TOKENS.manager, { checkout_desc: 'Caixa extra', wallet_id: 102 });
  if (r.status !== 201) throw new Error(`checkout: ${r.status} ${r.text}`);
  return r.body.checkout_id;
}

/**
 * A wire amount as integer units at `scale` places, for exact checks in tests: read by the
 * app's strict wire decoder, so an amount the sandbox writes with too many places fails here
 * instead of being rounded or cut into a passing value.
 */
export function units(value: number | string, scale: number): bigint {
  const decoded = decodeWireAmount(value, { scale, signed: true });
  if (!decoded.ok) throw new Error(`${JSON.stringify(value)} is not a wire amount at scale ${scale} (${decoded.problem})`);
  return BigInt(decoded.minor);
}

/** An ISO query value, percent-encoded (a literal `+` would decode to a space). */
export function q(ms: number): string {
  return encodeURIComponent(new Date(ms).toISOString());
}
