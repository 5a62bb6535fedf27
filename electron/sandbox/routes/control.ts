/**
 * The control API of contract section 7, under /_sandbox/ and only when control is on
 * (server.ts refuses every /_sandbox/ path otherwise). No bearer token: it is the test
 * harness's and the operator's door, bound to loopback. S2 owns the mode, MED and
 * settlement-run control routes in its own modules.
 *
 * Decisions (README, "Control API"):
 * - pay through a printed QR with no pending sale answers 409: the payer's bank cannot read
 *   it (reference 3.1); paying an expired or already paid charge answers 409 too; a code that
 *   is not a valid BR Code answers 422; an unknown location 404.
 * - `late_for` pays a displaced sale (reference 4.5 rule 5): charge.paid and charge.done
 *   with its own ids; Tx Status keeps answering 404 for it.
 */
import { validateBrCode } from '../../shared/emv.ts';
import { formatCents } from '../../shared/money.ts';
import { secretBytes } from '../../shared/standard-webhooks.ts';
import type { RouteFaultKind, WebhookFaultKind } from '../faults.ts';
import { GATEWAY_FAULTS, ROUTE_FAULTS, WEBHOOK_FAULTS } from '../faults.ts';
import { detailError } from '../http.ts';
import type { Reply, Router } from '../http.ts';
import { findCheckout } from '../lookup.ts';
import { isPayable, iso, locationIdOf, newestPayableCharge, newestPrintedSale, paySale, saleStatus } from '../sales.ts';
import type { Role, SaleRecord, Scope, TokenRecord } from '../state.ts';
import { checkoutKey } from '../state.ts';
import type { SandboxContext } from '../context.ts';
import type { WebhookDispatcher } from '../webhooks.ts';
import { Fields } from '../validate.ts';
import { MAX_AMOUNT_CENTS } from './sales.ts';

/** What the control routes need beyond a domain module's context; server.ts provides it. */
export interface ControlContext extends SandboxContext {
  reset(): void;
  readonly dispatcher: WebhookDispatcher;
  readonly router: Router;
}

/** Ten years: a bound that keeps the clock's arithmetic exact. */
const MAX_ADVANCE_SEC = 10 * 365 * 86_400;

function saleRow(sale: SaleRecord, nowMs: number): Record<string, unknown> {
  return {
    pix_id: sale.pix_id,
    service_id: sale.service_id,
    amount_brl: formatCents(sale.amount_cents),
    status: saleStatus(sale, nowMs),
    displaced: sale.displaced,
    merchant_id: sale.merchant_id,
    store_id: sale.store_id,
    checkout_id: sale.checkout_id,
    external_id: sale.external_id,
    qr_type: sale.qr_type,
    printed_checkout: sale.printed_checkout,
    emv: sale.emv,
    paid_amount_brl: sale.paid_amount_cents === null ? null : formatCents(sale.paid_amount_cents),
    // What the service refunded of the charge, every refund request together (contract 5).
    refunded_brl: formatCents((sale.ext['refunded_cents'] as number | undefined) ?? 0),
    created_at: iso(sale.created_at),
    expires_at: iso(sale.expires_at),
    paid_at: iso(sale.paid_at),
    e2e_id: sale.e2e_id,
  };
}

export function register(router: Router, ctx: ControlContext): void {
  router.add('POST', '/_sandbox/pay', (req): Reply => {
    const f = Fields.body(req.body);
    const emv = f.string('emv', { min: 1 });
    const merchantId = f.int('merchant_id', { default: 1 }) as number;
    const storeId = f.int('store_id');
    const checkoutId = f.int('checkout_id');
    const amountCents = f.cents('amount', { gt: 0, le: MAX_AMOUNT_CENTS });
    const lateFor = f.string('late_for', { min: 1 });
    // Contract 7: `{emv}` or `{store_id, checkout_id}`, with an optional `late_for` naming the
    // displaced sale the payer paid just before the new one: `late_for` decides the sale then.
    const ways = [emv !== undefined, storeId !== undefined || checkoutId !== undefined].filter(Boolean).length;
    if (f.ok && (ways > 1 || (ways === 0 && lateFor === undefined))) f.valueError(null, 'send emv or {store_id, checkout_id} (with late_for for a displaced sale\'s late payment), or late_for alone', req.body);
    f.check();
    const { state } = ctx;
    const now = ctx.clock.now();
    let sale: SaleRecord | undefined;
    if (lateFor !== undefined) {
      sale = Object.hasOwn(state.sales, lateFor) ? state.sales[lateFor] : undefined;
      if (sale === undefined) throw detailError(404, 'Sale not found');
      if (!sale.displaced) throw detailError(409, 'late_for must name a displaced sale');
      if ((storeId !== undefined && storeId !== sale.store_id) || (checkoutId !== undefined && checkoutId !== sale.checkout_id)) {
        throw detailError(409, 'late_for names a sale of another checkout');
      }
      if (sale.status !== 'pending') throw detailError(409, 'Sale already paid');
    } else if (emv !== undefined) {
      const check = validateBrCode(emv, { requireLocation: true });
      if (!check.ok) throw detailError(422, `Invalid BR Code: ${check.message}`);
      const locationId = locationIdOf(check.code.locationUrl ?? '');
      const location = locationId === null || !Object.hasOwn(state.locations, locationId) ? undefined : state.locations[locationId];
      if (location === undefined) throw detailError(404, 'QR location not found');
      if (location.kind === 'checkout') {
        // Reference 4.5 rules 2 and 3: any QR of the checkout charges its newest sale.
        sale = newestPrintedSale(state, location.merchant_id, location.store_id, location.checkout_id);
        if (sale === undefined || !isPayable(sale, now)) throw detailError(409, 'No pending sale on this checkout: the printed QR cannot be read');
      } else {
        sale = state.sales[location.pix_id];
        if (sale === undefined) throw detailError(404, 'QR location not found');
        const status = saleStatus(sale, now);
        if (status === 'expired') throw detailError(409, 'Charge expired');
        if (status !== 'pending') throw detailError(409, 'Charge already paid');
      }
    } else {
      const checkout = findCheckout(state, merchantId, storeId ?? 1, checkoutId ?? 1);
      if (checkout === undefined) throw detailError(404, 'Checkout not found');
      sale = newestPayableCharge(state, checkout.merchant_id, checkout.store_id, checkout.checkout_id, now);
      if (sale === undefined) throw detailError(409, 'No pending sale on this checkout');
    }
    const paid = amountCents ?? sale.amount_cents;
    const { webhookIds } = paySale(ctx, sale, paid);
    return {
      status: 200,
      body: { pix_id: sale.pix_id, service_id: sale.service_id, amount_brl: formatCents(paid), paid_at: iso(sale.paid_at), e2e_id: sale.e2e_id, late: sale.displaced, webhook_ids: webhookIds },
    };
  });

  router.add('GET', '/_sandbox/clock', (): Reply => ({ status: 200, body: { now: iso(ctx.clock.now()), offset_ms: ctx.clock.offsetMs } }));

  router.add('POST', '/_sandbox/clock/advance', (req): Reply => {
    const f = Fields.body(req.body);
    const raw = f.raw('seconds');
    if (raw === undefined || raw === null) f.fail('seconds', 'missing', 'Field required', req.body);
    else if (typeof raw !== 'number' || !Number.isFinite(raw)) f.fail('seconds', 'float_type', 'Input should be a valid number', raw);
    else if (raw < 0) f.fail('seconds', 'greater_than_equal', 'Input should be greater than or equal to 0', raw, { ge: 0 });
    else if (raw > MAX_ADVANCE_SEC) f.fail('seconds', 'less_than_equal', `Input should be less than or equal to ${MAX_ADVANCE_SEC}`, raw, { le: MAX_ADVANCE_SEC });
    f.check();
    ctx.clock.advance(Math.round((raw as number) * 1000));
    ctx.persist();
    // What became due now runs: webhook retries, S2's windows.
    ctx.hooks.clockAdvanced();
    ctx.timers.poke();
    return { status: 200, body: { now: iso(ctx.clock.now()), offset_ms: ctx.clock.offsetMs } };
  });

  router.add('GET', '/_sandbox/webhook', (): Reply => ({ status: 200, body: ctx.state.webhookEndpoints }));

  router.add('PUT', '/_sandbox/webhook', (req): Reply => {
    const f = Fields.body(req.body);
    const url = f.string('url', { required: false, min: 1, max: 2048 });
    const secret = f.string('secret');
    const merchantId = f.int('merchant_id');
    if (!f.present('url') && f.raw('url') !== null) f.fail('url', 'missing', 'Field required (null removes the endpoint)', req.body);
    if (url !== undefined && !/^https?:\/\/[^\s]+$/i.test(url)) f.valueError('url', 'url must be an http:// or https:// address', url);
    if (secret !== undefined && secretBytes(secret) === null) f.valueError('secret', 'secret must be "whsec_" followed by base64', secret);
    if (merchantId !== undefined && ctx.state.webhookEndpoints[String(merchantId)] === undefined) f.valueError('merchant_id', 'no such merchant', merchantId);
    f.check();
    // Without merchant_id the endpoint is every merchant's (the app's one receiver).
    const targets = merchantId === undefined ? Object.keys(ctx.state.webhookEndpoints) : [String(merchantId)];
    for (const id of targets) {
      const endpoint = ctx.state.webhookEndpoints[id];
      if (endpoint === undefined) continue;
      endpoint.url = url ?? null;
      if (secret !== undefined) endpoint.secret = secret;
    }
    ctx.persist();
    return { status: 200, body: Object.fromEntries(targets.map((id) => [id, ctx.state.webhookEndpoints[id]])) };
  });

  router.add('GET', '/_sandbox/gateway', (): Reply => ({ status: 200, body: ctx.state.gateway }));

  router.add('PUT', '/_sandbox/gateway', (req): Reply => {
    const f = Fields.body(req.body);
    const variant = f.literal('variant', ['same_emv', 'amount_emv'] as const);
    const supported = f.boolean('printed_supported');
    const disabled = f.boolean('printed_disabled');
    const fallback = f.boolean('printed_fallback_dynamic');
    f.forbidExtra(['variant', 'printed_supported', 'printed_disabled', 'printed_fallback_dynamic']);
    f.check();
    const gateway = ctx.state.gateway;
    if (variant !== undefined) gateway.variant = variant;
    if (supported !== undefined) gateway.printed_supported = supported;
    if (disabled !== undefined) gateway.printed_disabled = disabled;
    if (fallback !== undefined) gateway.printed_fallback_dynamic = fallback;
    ctx.persist();
    return { status: 200, body: gateway };
  });

  // A wallet's network can become deprecated after checkouts were put on it (reference 7:
  // "the existing checkout's wallet"); this is how a test gets there.
  router.add('PUT', '/_sandbox/wallets/:wallet_id', (req): Reply => {
    const path = Fields.path(req.params);
    const walletId = path.int('wallet_id', { required: true });
    const f = Fields.body(req.body, path.items);
    const deprecated = f.boolean('deprecated', { required: true });
    f.forbidExtra(['deprecated']);
    f.check();
    const wallet = ctx.state.wallets[String(walletId)];
    if (wallet === undefined) throw detailError(404, 'Wallet not found');
    wallet.deprecated = deprecated as boolean;
    ctx.persist();
    return { status: 200, body: wallet };
  });

  // Extra tokens, e.g. one that expires (reference 7: "invalid or expired token").
  router.add('POST', '/_sandbox/tokens', (req): Reply => {
    const f = Fields.body(req.body);
    const token = f.string('token', { required: true, min: 8, max: 512 });
    const merchantId = f.int('merchant_id', { required: true });
    const userId = f.int('user_id', { default: 99 }) as number;
    const role = f.literal('role', ['manager', 'supervisor', 'cashier'] as const, { required: true });
    const raw = f.raw('scopes');
    let scopes: Scope[] = [];
    if (!Array.isArray(raw) || raw.some((x) => x !== 'pay_in' && x !== 'pay_out')) f.fail('scopes', 'list_type', "Input should be a list of 'pay_in' and 'pay_out'", raw);
    else scopes = [...new Set(raw as Scope[])];
    const expiresIn = f.int('expires_in_seconds', { ge: 1 });
    f.forbidExtra(['token', 'merchant_id', 'user_id', 'role', 'scopes', 'expires_in_seconds']);
    if (merchantId !== undefined && ctx.state.merchants[String(merchantId)] === undefined) f.valueError('merchant_id', 'no such merchant', merchantId);
    f.check();
    const record: TokenRecord = { token: token as string, merchant_id: merchantId as number, user_id: userId, scopes, role: role as Role, expires_at: expiresIn === undefined ? null : ctx.clock.now() + expiresIn * 1000 };
    ctx.state.tokens[record.token] = record;
    ctx.persist();
    return { status: 201, body: { ...record, expires_at: iso(record.expires_at) } };
  });

  router.add('GET', '/_sandbox/faults', (): Reply => ({ status: 200, body: ctx.faults.list() }));

  router.add('DELETE', '/_sandbox/faults', (): Reply => {
    const held = ctx.faults.clear();
    ctx.dispatcher.releaseHeld(held);
    return { status: 200, body: { cleared: true, released_webhooks: held } };
  });

  router.add('POST', '/_sandbox/faults', (req): Reply => {
    const f = Fields.body(req.body);
    const target = f.literal('target', ['route', 'gateway', 'webhooks', 'idempotency'] as const, { required: true });
    const count = f.int('count', { default: 1, ge: 1, le: 1000 }) as number;
    if (target === 'route' || target === 'idempotency') {
      const method = f.string('method', { required: true, min: 1 })?.toUpperCase();
      const path = f.string('path', { required: true, min: 1 });
      const fault = target === 'route' ? f.literal('fault', ROUTE_FAULTS, { required: true }) : f.literal('fault', ['ignore_key'] as const, { required: true });
      f.forbidExtra(['target', 'count', 'method', 'path', 'fault']);
      if (method !== undefined && path !== undefined) {
        const known = ctx.router.routes().some((r) => r.method === method && r.pattern === path) || ctx.router.match(method, path).kind === 'found';
        if (!known) f.valueError('path', `no route ${method} ${path}`, path);
        else if (path.startsWith('/_sandbox/')) f.valueError('path', 'control routes cannot be faulted', path);
      }
      f.check();
      const added =
        target === 'route'
          ? ctx.faults.add({ target: 'route', method: method as string, path: path as string, fault: fault as RouteFaultKind, remaining: count })
          : ctx.faults.add({ target: 'idempotency', method: method as string, path: path as string, fault: 'ignore_key', remaining: count });
      return { status: 201, body: added };
    }
    if (target === 'gateway') {
      const fault = f.literal('fault', GATEWAY_FAULTS, { required: true });
      f.forbidExtra(['target', 'count', 'fault']);
      f.check();
      return { status: 201, body: ctx.faults.add({ target: 'gateway', fault: fault as (typeof GATEWAY_FAULTS)[number], remaining: count }) };
    }
    const fault = f.literal('fault', WEBHOOK_FAULTS, { required: target === 'webhooks' });
    const event = f.string('event', { min: 1 });
    const delaySeconds = f.int('delay_seconds', { required: fault === 'delay', ge: 1, le: 86_400 }) ?? 0;
    f.forbidExtra(['target', 'count', 'fault', 'event', 'delay_seconds']);
    if (fault === 'reorder' && count < 2) f.fail('count', 'greater_than_equal', 'Input should be greater than or equal to 2', count, { ge: 2 });
    f.check();
    const added = ctx.faults.add({ target: 'webhooks', fault: fault as WebhookFaultKind, remaining: count, count, event: event ?? null, delay_seconds: delaySeconds, held: [] });
    return { status: 201, body: added };
  });

  router.add('GET', '/_sandbox/sales', (req): Reply => {
    const f = Fields.query(req.query);
    const storeId = f.int('store_id');
    const checkoutId = f.int('checkout_id');
    // Like the other control routes, a checkout named without a merchant is merchant 1's.
    const merchantId = f.int('merchant_id', storeId !== undefined || checkoutId !== undefined ? { default: 1 } : {});
    f.check();
    const { state } = ctx;
    const now = ctx.clock.now();
    let sales: SaleRecord[];
    if (merchantId !== undefined && storeId !== undefined && checkoutId !== undefined) {
      sales = (state.saleIdsByCheckout[checkoutKey(merchantId, storeId, checkoutId)] ?? []).map((id) => state.sales[id] as SaleRecord);
    } else {
      sales = Object.values(state.sales).filter(
        (s) => (merchantId === undefined || s.merchant_id === merchantId) && (storeId === undefined || s.store_id === storeId) && (checkoutId === undefined || s.checkout_id === checkoutId),
      );
    }
    // Contract 7: newest first.
    sales.sort((a, b) => b.seq - a.seq);
    return { status: 200, body: sales.map((s) => saleRow(s, now)) };
  });

  router.add('GET', '/_sandbox/webhooks', (): Reply => ({ status: 200, body: ctx.state.webhookAttempts }));

  router.add('GET', '/_sandbox/events', (): Reply => {
    const events = Object.values(ctx.state.webhookEvents).sort((a, b) => a.seq - b.seq);
    return {
      status: 200,
      body: events.map((e) => ({ webhook_id: e.webhook_id, merchant_id: e.merchant_id, event: e.event, state: e.state, attempts: e.attempts, next_attempt_at: iso(e.next_attempt_at), created_at: iso(e.created_at), payload: JSON.parse(e.body) as unknown })),
    };
  });

  router.add('POST', '/_sandbox/reset', (): Reply => {
    ctx.reset();
    return { status: 200, body: { reset: true, now: iso(ctx.clock.now()) } };
  });
}
