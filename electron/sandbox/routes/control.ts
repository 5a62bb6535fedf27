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
import { firstIssue } from '../../shared/schema.ts';
import { secretBytes } from '../../shared/standard-webhooks.ts';
import type { WebhookFaultKind } from '../faults.ts';
import { GATEWAY_FAULTS, ROUTE_FAULTS, WEBHOOK_FAULTS } from '../faults.ts';
import { detailError } from '../http.ts';
import type { Reply, Router } from '../http.ts';
import { findCheckout } from '../lookup.ts';
import { isPayable, iso, locationIdOf, newestPayableCharge, newestPrintedSale, paySale, saleStatus } from '../sales.ts';
import type { SaleRecord, Scope, TokenRecord } from '../state.ts';
import { checkoutKey } from '../state.ts';
import type { SandboxContext } from '../context.ts';
import type { WebhookDispatcher } from '../webhooks.ts';
import * as v from 'valibot';
import { body, field, fields, FORBID_OTHERS, optional, problem, readRequest, sentField, valueError } from '../validate.ts';
import { MAX_AMOUNT_CENTS } from './sales.ts';

/** What the control routes need beyond a domain module's context; server.ts provides it. */
export interface ControlContext extends SandboxContext {
  reset(): void;
  readonly dispatcher: WebhookDispatcher;
  readonly router: Router;
}

/** Ten years: a bound that keeps the clock's arithmetic exact. */
const MAX_ADVANCE_SEC = 10 * 365 * 86_400;

// Contract 7: `{emv}` or `{store_id, checkout_id}`, with an optional `late_for` naming the
// displaced sale the payer paid just before the new one: `late_for` decides the sale then.
const PayBody = body(
  {
    emv: optional(field.string({ min: 1 })),
    merchant_id: optional(field.int(), 1),
    store_id: optional(field.int()),
    checkout_id: optional(field.int()),
    amount: optional(field.cents({ gt: 0, le: MAX_AMOUNT_CENTS })),
    late_for: optional(field.string({ min: 1 })),
  },
  {
    rules: [
      {
        needs: 'all',
        check: (c) => {
          const ways = [c.emv !== undefined, c.store_id !== undefined || c.checkout_id !== undefined].filter(Boolean).length;
          return ways > 1 || (ways === 0 && c.late_for === undefined)
            ? valueError(null, "send emv or {store_id, checkout_id} (with late_for for a displaced sale's late payment), or late_for alone")
            : null;
        },
      },
    ],
  },
);

const AdvanceBody = body(
  { seconds: v.nullish(field.number({ ge: 0, le: MAX_ADVANCE_SEC })) },
  // Null is no number of seconds either.
  { rules: [{ needs: ['seconds'], check: (c) => (c.seconds == null ? problem('seconds', 'missing', 'Field required') : null) }] },
);

const GatewayBody = body(
  {
    variant: optional(field.literal(['same_emv', 'amount_emv'])),
    printed_supported: optional(field.boolean()),
    printed_disabled: optional(field.boolean()),
    printed_fallback_dynamic: optional(field.boolean()),
  },
  { rules: [FORBID_OTHERS] },
);

const WalletPath = fields({ wallet_id: field.int() });
const WalletBody = body({ deprecated: field.boolean() }, { rules: [FORBID_OTHERS] });

const SCOPES_MESSAGE = "Input should be a list of 'pay_in' and 'pay_out'";
const scopes = field.custom<Scope[]>((raw) =>
  Array.isArray(raw) && raw.every((x) => x === 'pay_in' || x === 'pay_out') ? { ok: true, value: [...new Set(raw as Scope[])] } : { ok: false, type: 'list_type', msg: SCOPES_MESSAGE },
);

const FAULT_TARGETS = ['route', 'gateway', 'webhooks', 'idempotency'] as const;
const faultCount = optional(field.int({ ge: 1, le: 1000 }), 1);
const routeMethod = v.pipe(field.string({ min: 1 }), v.transform((m) => m.toUpperCase()));
const GatewayFaultBody = body({ target: field.literal(FAULT_TARGETS), count: faultCount, fault: field.literal(GATEWAY_FAULTS) }, { rules: [FORBID_OTHERS] });

/** The webhook faults' body; `fault` may be left out only when the target itself is wrong. */
function webhookFaultBody<F extends v.GenericSchema<unknown, WebhookFaultKind | undefined>>(fault: F) {
  return body(
    {
      target: field.literal(FAULT_TARGETS),
      count: faultCount,
      fault,
      event: optional(field.string({ min: 1 })),
      delay_seconds: optional(field.int({ ge: 1, le: 86_400 })),
    },
    {
      rules: [
        { needs: ['fault', 'delay_seconds'], check: (c) => (c.fault === 'delay' && c.delay_seconds === undefined ? problem('delay_seconds', 'missing', 'Field required') : null) },
        FORBID_OTHERS,
        { needs: ['fault', 'count'], check: (c) => (c.fault === 'reorder' && (c.count ?? 1) < 2 ? problem('count', 'greater_than_equal', 'Input should be greater than or equal to 2', { ge: 2 }) : null) },
      ],
    },
  );
}
const WebhookFaultBody = webhookFaultBody(field.literal(WEBHOOK_FAULTS));
const UnknownTargetFaultBody = webhookFaultBody(optional(field.literal(WEBHOOK_FAULTS)));

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
  const noSuchMerchant = (known: Readonly<Record<string, unknown>>) => (c: { merchant_id?: number }) =>
    c.merchant_id !== undefined && known[String(c.merchant_id)] === undefined ? valueError('merchant_id', 'no such merchant') : null;

  const WebhookBody = body(
    { url: v.nullable(field.string({ min: 1, max: 2048 })), secret: optional(field.string()), merchant_id: optional(field.int()) },
    {
      missing: { url: 'Field required (null removes the endpoint)' },
      rules: [
        { needs: ['url'], check: (c) => (c.url !== null && !/^https?:\/\/[^\s]+$/i.test(c.url) ? valueError('url', 'url must be an http:// or https:// address') : null) },
        { needs: ['secret'], check: (c) => (c.secret !== undefined && secretBytes(c.secret) === null ? valueError('secret', 'secret must be "whsec_" followed by base64') : null) },
        { needs: ['merchant_id'], check: (c) => noSuchMerchant(ctx.state.webhookEndpoints)(c) },
      ],
    },
  );

  const TokenBody = body(
    {
      token: field.string({ min: 8, max: 512 }),
      merchant_id: field.int(),
      user_id: optional(field.int(), 99),
      role: field.literal(['manager', 'supervisor', 'cashier']),
      scopes: v.optional(scopes),
      expires_in_seconds: optional(field.int({ ge: 1 })),
    },
    {
      rules: [
        { needs: [], check: (c) => (c.scopes === undefined ? problem('scopes', 'list_type', SCOPES_MESSAGE) : null) },
        FORBID_OTHERS,
        { needs: ['merchant_id'], check: (c) => noSuchMerchant(ctx.state.merchants)(c) },
      ],
    },
  );

  /** A fault on a route (or on its Idempotency-Key): the route must exist and not be a control one. */
  const routeFaultBody = <const F extends readonly string[]>(faults: F) =>
    body(
      { target: field.literal(FAULT_TARGETS), count: faultCount, method: routeMethod, path: field.string({ min: 1 }), fault: field.literal(faults) },
      {
        rules: [
          FORBID_OTHERS,
          {
            needs: ['method', 'path'],
            check: ({ method, path }) => {
              const known = ctx.router.routes().some((r) => r.method === method && r.pattern === path) || ctx.router.match(method, path).kind === 'found';
              if (!known) return valueError('path', `no route ${method} ${path}`);
              return path.startsWith('/_sandbox/') ? valueError('path', 'control routes cannot be faulted') : null;
            },
          },
        ],
      },
    );
  const RouteFaultBody = routeFaultBody(ROUTE_FAULTS);
  const KeyFaultBody = routeFaultBody(['ignore_key']);

  const SalesQuery = fields({ store_id: optional(field.int()), checkout_id: optional(field.int()), merchant_id: optional(field.int()) });

  router.add('POST', '/_sandbox/pay', (req): Reply => {
    const { emv, merchant_id: merchantId, store_id: storeId, checkout_id: checkoutId, amount: amountCents, late_for: lateFor } = readRequest(req, { body: PayBody }).body;
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
    const { seconds } = readRequest(req, { body: AdvanceBody }).body;
    ctx.clock.advance(Math.round((seconds ?? 0) * 1000));
    ctx.persist();
    // What became due now runs: webhook retries, S2's windows.
    ctx.hooks.clockAdvanced();
    ctx.timers.poke();
    return { status: 200, body: { now: iso(ctx.clock.now()), offset_ms: ctx.clock.offsetMs } };
  });

  router.add('GET', '/_sandbox/webhook', (): Reply => ({ status: 200, body: ctx.state.webhookEndpoints }));

  router.add('PUT', '/_sandbox/webhook', (req): Reply => {
    const { url, secret, merchant_id: merchantId } = readRequest(req, { body: WebhookBody }).body;
    // Without merchant_id the endpoint is every merchant's (the app's one receiver).
    const targets = merchantId === undefined ? Object.keys(ctx.state.webhookEndpoints) : [String(merchantId)];
    for (const id of targets) {
      const endpoint = ctx.state.webhookEndpoints[id];
      if (endpoint === undefined) continue;
      endpoint.url = url;
      if (secret !== undefined) endpoint.secret = secret;
    }
    ctx.persist();
    return { status: 200, body: Object.fromEntries(targets.map((id) => [id, ctx.state.webhookEndpoints[id]])) };
  });

  router.add('GET', '/_sandbox/gateway', (): Reply => ({ status: 200, body: ctx.state.gateway }));

  router.add('PUT', '/_sandbox/gateway', (req): Reply => {
    const { variant, printed_supported: supported, printed_disabled: disabled, printed_fallback_dynamic: fallback } = readRequest(req, { body: GatewayBody }).body;
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
    const { path, body: sent } = readRequest(req, { path: WalletPath, body: WalletBody });
    const wallet = ctx.state.wallets[String(path.wallet_id)];
    if (wallet === undefined) throw detailError(404, 'Wallet not found');
    wallet.deprecated = sent.deprecated;
    ctx.persist();
    return { status: 200, body: wallet };
  });

  // Extra tokens, e.g. one that expires (reference 7: "invalid or expired token").
  router.add('POST', '/_sandbox/tokens', (req): Reply => {
    const sent = readRequest(req, { body: TokenBody }).body;
    const expiresIn = sent.expires_in_seconds;
    const record: TokenRecord = {
      token: sent.token,
      merchant_id: sent.merchant_id,
      user_id: sent.user_id,
      scopes: sent.scopes ?? [],
      role: sent.role,
      expires_at: expiresIn === undefined ? null : ctx.clock.now() + expiresIn * 1000,
    };
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
    // The target decides the rest of the body; a wrong one is read as a webhook fault's.
    const target = firstIssue(field.literal(FAULT_TARGETS), sentField(req.body, 'target'));
    switch (target.ok ? target.value : null) {
      case 'route': {
        const { method, path, fault, count } = readRequest(req, { body: RouteFaultBody }).body;
        return { status: 201, body: ctx.faults.add({ target: 'route', method, path, fault, remaining: count }) };
      }
      case 'idempotency': {
        const { method, path, count } = readRequest(req, { body: KeyFaultBody }).body;
        return { status: 201, body: ctx.faults.add({ target: 'idempotency', method, path, fault: 'ignore_key', remaining: count }) };
      }
      case 'gateway': {
        const { fault, count } = readRequest(req, { body: GatewayFaultBody }).body;
        return { status: 201, body: ctx.faults.add({ target: 'gateway', fault, remaining: count }) };
      }
      case 'webhooks': {
        const { fault, count, event, delay_seconds: delaySeconds } = readRequest(req, { body: WebhookFaultBody }).body;
        return { status: 201, body: ctx.faults.add({ target: 'webhooks', fault, remaining: count, count, event: event ?? null, delay_seconds: delaySeconds ?? 0, held: [] }) };
      }
      default:
        readRequest(req, { body: UnknownTargetFaultBody });
        throw new Error('unreachable: a fault without a known target is always refused');
    }
  });

  router.add('GET', '/_sandbox/sales', (req): Reply => {
    const asked = readRequest(req, { query: SalesQuery }).query;
    const { store_id: storeId, checkout_id: checkoutId } = asked;
    // Like the other control routes, a checkout named without a merchant is merchant 1's.
    const merchantId = asked.merchant_id ?? (storeId !== undefined || checkoutId !== undefined ? 1 : undefined);
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
