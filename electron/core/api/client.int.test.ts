/**
 * The service client against the real embedded sandbox over loopback HTTP: every endpoint,
 * the faults of contract 7 on create_dynamic_pix, retries of reads (backoff, Retry-After),
 * a refused connection, and the service's error bodies as sentences.
 *
 * Waits are injected (recorded, or turned into sandbox-clock advances), so no test waits
 * on the wall clock or asserts on it.
 */
import { createServer } from 'node:net';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox } from '../../sandbox/server.ts';
import type { Sandbox } from '../../sandbox/server.ts';
import { CoreError } from '../errors.ts';
import { memoryLogger } from '../log.ts';
import { newIdempotencyKey } from './client.ts';
import type { ServiceClient, ServiceClientOptions } from './client.ts';
import { clientRecordingWaits, failure } from './fixtures/clients.ts';
import { backoffDelay } from './retry.ts';

const MANAGER = 'sandbox-manager-token';
const CASHIER = 'sandbox-cashier-token';
const PAYOUT = 'sandbox-payout-token';

let sb: Sandbox;
const open: ServiceClient[] = [];

beforeAll(async () => {
  sb = await startSandbox({ port: 0 });
});

afterAll(async () => {
  await sb.close();
});

beforeEach(async () => {
  await ctl('POST', '/_sandbox/reset');
});

afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

/** The sandbox's control API (contract 7): test harness only, never the client under test. */
async function ctl<T = unknown>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<T> {
  const res = await request(sb.url + path, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? null : JSON.stringify(body),
  });
  const text = await res.body.text();
  if (res.statusCode >= 400) throw new Error(`${method} ${path} answered ${res.statusCode}: ${text}`);
  return JSON.parse(text) as T;
}

interface SandboxSale {
  pix_id: string;
  service_id: string;
  amount_brl: string;
  status: string;
  displaced: boolean;
}

function salesOf(checkoutId = 1): Promise<SandboxSale[]> {
  return ctl<SandboxSale[]>('GET', `/_sandbox/sales?merchant_id=1&store_id=1&checkout_id=${checkoutId}`);
}

function fault(path: string, kind: string, count = 1, method = 'POST'): Promise<unknown> {
  return ctl('POST', '/_sandbox/faults', { target: 'route', method, path, fault: kind, count });
}

type ClientOptions = Partial<Omit<ServiceClientOptions, 'retry'>> & { retry?: ServiceClientOptions['retry'] };

/** A client on the sandbox whose backoff waits are recorded, not slept. */
function makeClient(options: ClientOptions = {}) {
  const log = memoryLogger(sb.clock);
  const made = clientRecordingWaits({ baseUrl: sb.url, token: MANAGER, clock: sb.clock, log, ...options });
  open.push(made.client);
  return { ...made, log };
}

const RETRY_MSG = 'payment service call failed; retrying';
const DEFAULT_BACKOFF = { baseDelayMs: 250, maxDelayMs: 4_000, random: () => 0.5 };

describe('every endpoint is callable and typed', () => {
  it('administers stores, checkouts and configs', async () => {
    const { client } = makeClient();
    expect(await client.listStores()).toEqual([expect.objectContaining({ merchant_id: 1, store_id: 1, store_name: 'Loja Centro' })]);

    const store = await client.createStore({ store_name: 'Loja Norte', email: 'norte@example.com' });
    expect(store).toMatchObject({ merchant_id: 1, store_name: 'Loja Norte', email: 'norte@example.com', address: null });
    const patched = await client.patchStore(store.store_id, { phone_number: '+55 11 5555-0000' });
    // Reference 4.1: a field left out keeps its value.
    expect(patched).toMatchObject({ store_name: 'Loja Norte', email: 'norte@example.com', phone_number: '+55 11 5555-0000' });

    const checkout = await client.createCheckout(1, { checkout_desc: 'Caixa 2', wallet_id: 102 });
    expect(checkout).toEqual({ merchant_id: 1, store_id: 1, checkout_id: 2, checkout_desc: 'Caixa 2', wallet_id: 102 });
    expect(await client.patchCheckout(1, 2, { wallet_id: 101 })).toMatchObject({ checkout_desc: 'Caixa 2', wallet_id: 101 });
    const checkouts = await client.listCheckouts(1);
    expect(checkouts.map((c) => [c.checkout_id, c.mode])).toEqual([
      [1, 'dynamic'],
      [2, 'dynamic'],
    ]);

    expect(await client.listConfigs(1, 2)).toEqual([]);
    expect(await client.setConfig(1, 2, { config_type: 'note', config_value: 'back door' })).toMatchObject({ config_type: 'note', config_value: 'back door' });
    expect((await client.listConfigs(1, 2)).map((c) => c.config_type)).toEqual(['note']);
  });

  it('creates and lists printed QRs; a repeat returns the existing QR (reference 4.4 rule 2)', async () => {
    const { client } = makeClient();
    const first = await client.createPrintedQr({ checkout_id: 3, auto_create_checkout: true, checkout_desc: 'Caixa 3' });
    expect(first.created).toBe(true);
    expect(first.printed_dynamic_qr_id).toMatch(/^pqr_/);
    const again = await client.createPrintedQr({ checkout_id: 3, auto_create_checkout: true });
    expect(again.created).toBe(false);
    expect(again.printed_dynamic_qr_id).toBe(first.printed_dynamic_qr_id);

    const page = await client.listPrintedQrs({ store_id: 1 });
    expect(page.total).toBe(1);
    expect(page.stores[0]?.checkouts[0]?.printed_dynamic_qrs[0]?.qr_emvcode).toBe(first.qr_emvcode);
    expect((await client.listCheckouts(1)).find((c) => c.checkout_id === 3)?.mode).toBe('printed');
  });

  it('charges a sale on a printed checkout, reads its status, and refunds part of it', async () => {
    const { client } = makeClient();
    const qr = await client.createPrintedQr({ checkout_id: 1, auto_create_checkout: true });
    const sale = await client.createDynamicPix({ amount_cents: 1250, external_id: 'order-1042' }, { idempotencyKey: newIdempotencyKey() });
    expect(sale).toMatchObject({ qr_type: 'printed_dynamic', amount_cents: 1250, external_id: 'order-1042', store_id: 1, checkout_id: 1 });
    expect(sale.printed_dynamic_qr_data?.pqr_emv).toBe(qr.qr_emvcode);

    expect(await client.txStatus(sale.pix_id)).toMatchObject({ found: true, status: 'pending', amount_brl: '12.50', paid_at: null });
    await ctl('POST', '/_sandbox/pay', { store_id: 1, checkout_id: 1 });
    const paid = await client.txStatus(sale.pix_id);
    expect(paid).toMatchObject({ found: true, status: 'paid', amount_brl: '12.50', service_id: sale.service_id });

    const refund = await client.requestRefund({ service_id: sale.service_id, amount_cents: 250, reason: 'one item returned' });
    expect(refund).toMatchObject({ service_id: sale.service_id, refunded_cents: 250, refunded_currency: 'BRL', status: 'requested' });
    expect(refund.pay_in_refund_request_id).toMatch(/^rpir_/);
  });

  it('answers a displaced sale with {found: false}, not an error (reference 4.5 rule 4, contract 3)', async () => {
    const { client } = makeClient();
    await client.createPrintedQr({ checkout_id: 1, auto_create_checkout: true });
    const first = await client.createDynamicPix({ amount_cents: 1000 });
    const second = await client.createDynamicPix({ amount_cents: 1100 });
    expect(await client.txStatus(first.pix_id)).toEqual({ found: false, pix_id: first.pix_id });
    expect(await client.txStatus(second.pix_id)).toMatchObject({ found: true, status: 'pending', amount_brl: '11.00' });
    expect((await salesOf()).find((s) => s.pix_id === first.pix_id)?.displaced).toBe(true);
  });

  it('reads wallets, pay-outs and follows a MED claim', async () => {
    const { client } = makeClient();
    const wallets = await client.listWallets();
    expect(wallets.map((w) => [w.wallet_id, w.deprecated])).toEqual([
      [101, false],
      [102, false],
      [103, true],
    ]);

    const payouts = await client.listPayouts({ limit: 50 });
    expect(payouts.map((p) => p.service_id)).toContain('po_fixture_ok');
    const payout = await client.getPayout('po_fixture_ok');
    expect(payout).toMatchObject({ service_id: 'po_fixture_ok', external_id: 'ext_po_fixture_ok', currency: 'BRL' });
    expect(payout.amount).toMatchObject({ scale: 2, currency: 'BRL' });
    expect(payout.e2e_id).not.toBeNull();

    const opening = await client.openMedClaim({ service_id: 'po_fixture_ok', reason: 'scam', details: 'The payer was deceived by a fake seller.' });
    expect(opening.handling).toBe('tracked');
    if (opening.handling !== 'tracked') return;
    const claim = await client.getMedClaim(opening.med_case_id);
    expect(claim).toMatchObject({ med_case_id: opening.med_case_id, service_id: 'po_fixture_ok', status_id: 'dispatching', money_refunded: false, refunded_cents: null });
    expect(claim.outcome_hint).not.toBeNull();
    expect((await client.listMedClaims({ limit: 10 })).map((c) => c.med_case_id)).toEqual([opening.med_case_id]);

    // Reference 4.6: the operator-handled form of the 202.
    await ctl('PUT', '/_sandbox/payouts/po_fixture_no_doc/med', { handling: 'manual' });
    const manual = await client.openMedClaim({ payout_external_id: 'ext_po_fixture_no_doc', reason: 'coercion', details: 'The payer was forced to send it.' });
    expect(manual).toMatchObject({ handling: 'manual', med_case_id: null });
  });

  it('reads pending charges, settlements, their transactions and detail with exact amounts', async () => {
    const { client } = makeClient();
    await ctl('PUT', '/_sandbox/checkouts/1/1/mode', { mode: 'ars_batched' });
    const sale = await client.createDynamicPix({ amount_cents: 1000, external_id: 'order-7' });
    await ctl('POST', '/_sandbox/pay', { store_id: 1, checkout_id: 1 });

    const pending = await client.listPendingCharges({ checkout_id: 1 });
    expect(pending.items.map((i) => i.service_request_id)).toEqual([sale.pix_id]);
    expect(pending.items[0]?.charged_amount).toEqual({ minor: 1000, scale: 2, currency: 'BRL' });
    expect(pending.totals.settlement_amount).toEqual(pending.items[0]?.settlement_amount);

    await ctl('POST', '/_sandbox/settlements/run', {});
    const now = sb.clock.now();
    const range = { start_date: new Date(now - 86_400_000).toISOString(), end_date: new Date(now + 3_600_000).toISOString() };
    const page = await client.listSettlements(range);
    expect(page.total).toBe(1);
    const listed = page.settlements[0];
    expect(listed?.status).toBe('DONE');
    if (listed === undefined) return;

    const detail = await client.getSettlement(listed.settlement_id);
    expect(detail.charges.map((c) => c.external_id)).toEqual(['order-7']);
    expect(detail.refunds).toEqual([]);
    // Reference 6.1 for ARS batched with no refunds: amount = sum of settlement_amount, in exact minor units.
    expect(detail.amount.minor).toBe(detail.charges.reduce((sum, c) => sum + (c.settlement_amount?.minor ?? 0), 0));

    const tx = await client.listSettlementTransactions({ ...range, settlement_id: listed.settlement_id });
    expect(tx.transactions.map((t) => [t.service_request_id, t.settlement_id])).toEqual([[sale.pix_id, listed.settlement_id]]);
  });
});

describe('faults on create_dynamic_pix (contract 7)', () => {
  it.each(['http_502', 'http_503', 'http_500', 'timeout', 'lost_response'])(
    '%s: retried with the same Idempotency-Key, one sale and no double',
    async (kind) => {
      const { client, waits, log } = makeClient({ timeouts: { headersMs: 400 } });
      await fault('/v2/create_dynamic_pix', kind);
      const sale = await client.createDynamicPix({ amount_cents: 4200, external_id: `order-${kind}` }, { idempotencyKey: newIdempotencyKey() });
      expect(sale.amount_cents).toBe(4200);
      const sales = await salesOf();
      expect(sales).toHaveLength(1);
      expect(sales[0]?.pix_id).toBe(sale.pix_id);
      expect(waits).toEqual([backoffDelay(1, DEFAULT_BACKOFF)]);
      expect(log.lines.filter((l) => l.includes(RETRY_MSG))).toHaveLength(1);
    },
  );

  it('without a key a 503 is not repeated and its outcome stays unknown', async () => {
    const { client, waits } = makeClient();
    await fault('/v2/create_dynamic_pix', 'http_503');
    const err = await failure(client.createDynamicPix({ amount_cents: 4200 }));
    expect(err).toMatchObject({ httpStatus: 503, kind: 'http', code: 'service_failed', outcome: 'unknown', attempts: 1 });
    expect(err.message).toContain('may or may not have been created');
    expect(waits).toEqual([]);
    expect(await salesOf()).toHaveLength(0);
  });

  it('a lost response without a key: the sale exists although the client got no answer', async () => {
    const { client } = makeClient();
    await fault('/v2/create_dynamic_pix', 'lost_response');
    const err = await failure(client.createDynamicPix({ amount_cents: 4200 }));
    expect(err).toMatchObject({ kind: 'network', code: 'service_unreachable', outcome: 'unknown', attempts: 1, httpStatus: null });
    // This is why the outcome is "unknown": the service did create it.
    expect(await salesOf()).toHaveLength(1);
  });

  it('the journaled key, reused after a restart, returns the same sale', async () => {
    const key = newIdempotencyKey();
    const before = makeClient({ retry: { maxAttempts: 1 } });
    await fault('/v2/create_dynamic_pix', 'lost_response');
    const err = await failure(before.client.createDynamicPix({ amount_cents: 990 }, { idempotencyKey: key }));
    expect(err.outcome).toBe('unknown');
    await before.client.close();

    const after = makeClient();
    const sale = await after.client.createDynamicPix({ amount_cents: 990 }, { idempotencyKey: key });
    const sales = await salesOf();
    expect(sales).toHaveLength(1);
    expect(sales[0]?.pix_id).toBe(sale.pix_id);
  });

  it('503 printed_qr_disabled is an answer: not repeated, nothing created', async () => {
    const { client, waits } = makeClient();
    await client.createPrintedQr({ checkout_id: 1, auto_create_checkout: true });
    await ctl('PUT', '/_sandbox/gateway', { printed_disabled: true });
    const err = await failure(client.createDynamicPix({ amount_cents: 500 }, { idempotencyKey: newIdempotencyKey() }));
    expect(err).toMatchObject({ httpStatus: 503, problem: 'printed_qr_disabled', outcome: 'not_created', attempts: 1 });
    expect(err.message).toBe('Printed QRs are temporarily disabled; try again later.');
    expect(waits).toEqual([]);
    expect(await salesOf()).toHaveLength(0);
  });

  it('422 on a printed checkout without its QR tells a manager to create it', async () => {
    const { client } = makeClient();
    await client.setConfig(1, 1, { config_type: 'default_qr', config_value: 'printed_dynamic_qr' });
    const err = await failure(client.createDynamicPix({ amount_cents: 500 }, { idempotencyKey: newIdempotencyKey() }));
    expect(err).toMatchObject({ httpStatus: 422, problem: 'no_printed_qr', outcome: 'not_created', attempts: 1 });
    expect(err.message).toMatch(/manager must print the checkout's QR/);
    expect(await salesOf()).toHaveLength(0);
  });

  it('an amount that is not whole positive cents is refused before anything is sent', async () => {
    const { client } = makeClient();
    await expect(client.createDynamicPix({ amount_cents: 12.5 })).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(client.createDynamicPix({ amount_cents: 0 })).rejects.toBeInstanceOf(CoreError);
    expect(await salesOf()).toHaveLength(0);
  });
});

describe('a refund is never repeated by the client (contract 5 is silent on its key)', () => {
  /** A paid charge on printed checkout 1: its service_id. */
  async function paidCharge(): Promise<string> {
    const { client } = makeClient();
    await client.createPrintedQr({ checkout_id: 1, auto_create_checkout: true });
    const sale = await client.createDynamicPix({ amount_cents: 1000 }, { idempotencyKey: newIdempotencyKey() });
    await ctl('POST', '/_sandbox/pay', { store_id: 1, checkout_id: 1 });
    return sale.service_id;
  }

  it.each(['http_502', 'http_503', 'http_500', 'timeout', 'lost_response'])('%s: one attempt, its key sent, the outcome left to the caller', async (kind) => {
    const serviceId = await paidCharge();
    const { client, waits, log } = makeClient({ timeouts: { headersMs: 400 } });
    await fault('/v2/pay_in_refunds/request', kind, 3);
    const err = await failure(client.requestRefund({ service_id: serviceId, amount_cents: 300 }, { idempotencyKey: newIdempotencyKey() }));
    expect(err).toMatchObject({ attempts: 1, outcome: 'unknown' });
    expect(waits).toEqual([]);
    expect(log.lines.filter((l) => l.includes(RETRY_MSG))).toHaveLength(0);
    // Two of the three faults armed are left: nothing was sent again.
    expect(await ctl<{ remaining: number }[]>('GET', '/_sandbox/faults')).toMatchObject([{ remaining: 2 }]);
    await ctl('DELETE', '/_sandbox/faults');
  });
});

describe('reads are retried', () => {
  it('after plain-text 500s, with exponential backoff', async () => {
    const { client, waits, log } = makeClient();
    const sale = await client.createDynamicPix({ amount_cents: 700 });
    await fault('/v2/tx_status/:pix_id', 'http_500', 2, 'GET');
    expect(await client.txStatus(sale.pix_id)).toMatchObject({ found: true, amount_brl: '7.00' });
    expect(waits).toEqual([backoffDelay(1, DEFAULT_BACKOFF), backoffDelay(2, DEFAULT_BACKOFF)]);
    expect(waits[1]).toBeGreaterThan(waits[0] as number);
    expect(log.lines.filter((l) => l.includes(RETRY_MSG))).toHaveLength(2);
  });

  it('honouring Retry-After, within the deadline (reference 8 rate limit)', async () => {
    const warm = makeClient();
    for (let i = 0; i < 60; i++) await warm.client.listMedClaims();

    // A deadline shorter than the service's Retry-After: no retry, and the sentence says how long to wait.
    const hurried = makeClient({ timeouts: { deadlineMs: 5_000 } });
    const err = await failure(hurried.client.listMedClaims());
    expect(err).toMatchObject({ httpStatus: 429, problem: 'rate_limited', attempts: 1 });
    const retryAfterMs = err.retryAfterMs as number;
    expect(retryAfterMs).toBeGreaterThan(5_000);
    expect(err.message).toContain(`wait ${Math.ceil(retryAfterMs / 1000)} seconds`);
    expect(hurried.waits).toEqual([]);

    // With room in the deadline the client waits the Retry-After (here: moves the sandbox clock) and succeeds.
    const patient = makeClient({
      timeouts: { deadlineMs: 120_000 },
      retry: {
        sleep: async (ms) => {
          patient.waits.push(ms);
          await ctl('POST', '/_sandbox/clock/advance', { seconds: ms / 1000 });
        },
      },
    });
    expect(await patient.client.listMedClaims()).toEqual([]);
    expect(patient.waits).toEqual([retryAfterMs]);
  });

  it('a read that never gets an answer ends as a timeout after its attempts', async () => {
    const { client, waits } = makeClient({ timeouts: { headersMs: 200 }, retry: { maxAttempts: 2 } });
    await fault('/v2/wallets', 'timeout', 10, 'GET');
    const err = await failure(client.listWallets());
    expect(err).toMatchObject({ kind: 'timeout', code: 'service_timeout', problem: 'no_answer', attempts: 2, outcome: 'not_created' });
    expect(waits).toHaveLength(1);
    expect(err.message).toContain("list the merchant's wallets");
  });

  it('the per-call deadline stops a call the service holds', async () => {
    const { client } = makeClient();
    await fault('/v2/wallets', 'timeout', 10, 'GET');
    const err = await failure(client.listWallets({ deadlineMs: 300 }));
    expect(err).toMatchObject({ kind: 'timeout', code: 'service_timeout', problem: 'deadline' });
    expect(err.message).toContain('did not answer within 1 second ');
  });
});

describe('a refused connection', () => {
  async function closedPort(): Promise<number> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    return port;
  }

  it('gives service_unreachable with a sentence; a read is retried, a sale is not and was not sent', async () => {
    const port = await closedPort();
    const { client, waits } = makeClient({ baseUrl: `http://127.0.0.1:${port}` });
    const read = await failure(client.listStores());
    expect(read).toMatchObject({ code: 'service_unreachable', kind: 'network', problem: 'refused', attempts: 4, httpStatus: null });
    expect(read.message).toBe(
      'Cannot reach the payment service (the connection was refused); check the network connection and the service address in the settings, then try again. Nothing was sent.',
    );
    expect(waits).toHaveLength(3);

    const sale = await failure(client.createDynamicPix({ amount_cents: 100 }));
    expect(sale).toMatchObject({ code: 'service_unreachable', outcome: 'not_created', attempts: 1 });
  });
});

describe('the service’s errors reach a person as sentences, and change nothing', () => {
  it('validation lists', async () => {
    const { client } = makeClient();
    const empty = await failure(client.setConfig(1, 1, { config_type: 'default_qr', config_value: '' }));
    expect(empty).toMatchObject({ code: 'invalid_argument', httpStatus: 422, problem: 'validation', shape: 'detail_validation' });
    expect(empty.message).toContain('config_value must have at least 1 character');
    expect(await client.listConfigs(1, 1)).toEqual([]);

    const page = await failure(client.listPrintedQrs({ page_size: 1000 }));
    expect(page.message).toContain('page_size must be at most 100');

    const mode = await failure(client.setConfig(1, 1, { config_type: 'default_qr', config_value: 'printed' }));
    // Reference 7: for default_qr the service's message names the allowed values; the sentence keeps them.
    expect(mode.message).toContain('config_value');
    expect(mode.message).toContain("'printed_dynamic_qr' or 'dynamic'");
    expect(await client.listConfigs(1, 1)).toEqual([]);
  });

  it('string details', async () => {
    const { client } = makeClient();
    const missing = await failure(client.patchCheckout(1, 1, { wallet_id: 999 }));
    expect(missing).toMatchObject({ code: 'invalid_argument', httpStatus: 400, problem: 'wallet_not_found', detail: 'Wallet not found' });
    const deprecated = await failure(client.patchCheckout(1, 1, { wallet_id: 103 }));
    expect(deprecated.problem).toBe('wallet_network_deprecated');
    expect((await client.listCheckouts(1))[0]?.wallet_id).toBe(101);

    const store = await failure(client.listCheckouts(42));
    expect(store).toMatchObject({ code: 'not_found', httpStatus: 404 });
    expect(store.message).toContain('"Store not found"');

    const settlement = await failure(client.getSettlement(987_654));
    expect(settlement.code).toBe('not_found');

    const range = await failure(client.listSettlements({ start_date: '2026-11-01T00:00:00', end_date: '2026-11-02T00:00:00' }));
    expect(range).toMatchObject({ code: 'invalid_argument', httpStatus: 400 });
    expect(range.message).toContain('UTC offset');
  });

  it('credentials, scope and role', async () => {
    const bad = await failure(makeClient({ token: 'not-a-token' }).client.listWallets());
    expect(bad).toMatchObject({ httpStatus: 401, problem: 'credentials', code: 'service_rejected', attempts: 1 });
    const scope = await failure(makeClient({ token: PAYOUT }).client.listStores());
    expect(scope).toMatchObject({ httpStatus: 401, problem: 'scope' });
    expect(scope.message).toContain('pay-in permission');
    const role = await failure(makeClient({ token: CASHIER }).client.createStore({ store_name: 'Nope' }));
    expect(role).toMatchObject({ httpStatus: 403, problem: 'role' });
    expect(role.message).toContain('ask a manager');
    expect(await makeClient().client.listStores()).toHaveLength(1);
  });

  it('MED reasons', async () => {
    const { client } = makeClient();
    const opening = await client.openMedClaim({ service_id: 'po_fixture_ok', reason: 'scam', details: 'The payer was deceived by a fake seller.' });
    const twice = await failure(client.openMedClaim({ service_id: 'po_fixture_ok', reason: 'other_fraud', details: 'Trying again with another reason.' }));
    expect(twice).toMatchObject({ code: 'conflict', httpStatus: 409, reason: 'already_exists' });
    expect(twice.params).toMatchObject({ med_case_id: opening.med_case_id });
    expect(twice.message).toContain(opening.med_case_id ?? 'missing');

    const old = await failure(client.openMedClaim({ service_id: 'po_fixture_old', reason: 'scam', details: 'A claim over an old pay-out.' }));
    expect(old).toMatchObject({ reason: 'outside_window', outcome: 'not_created' });
    const noE2e = await failure(client.openMedClaim({ service_id: 'po_fixture_no_e2e', reason: 'scam', details: 'A claim over an unprocessed pay-out.' }));
    expect(noE2e.reason).toBe('e2e_not_resolved');
    expect(await client.listMedClaims()).toHaveLength(1);
  });
});

describe('the pool', () => {
  it('keeps idle connections alive between calls and never opens more than its cap', async () => {
    const sequential = makeClient();
    for (let i = 0; i < 10; i++) await sequential.client.listWallets();
    // Keep-alive: the connections outlive the calls (without it none would stay connected),
    // and ten sequential calls reuse them instead of opening ten.
    const idle = sequential.client.stats();
    expect(idle.connected).toBeGreaterThanOrEqual(1);
    expect(idle.connected).toBeLessThanOrEqual(2);
    expect(idle.running).toBe(0);

    const capped = makeClient({ connections: 2 });
    const results = await Promise.all(Array.from({ length: 12 }, () => capped.client.listWallets()));
    expect(results.every((wallets) => wallets.length === 3)).toBe(true);
    expect(capped.client.stats().connected).toBeGreaterThan(0);
    expect(capped.client.stats().connected).toBeLessThanOrEqual(2);
  });

  it('refuses calls once closed', async () => {
    const { client } = makeClient();
    await client.close();
    await expect(client.listStores()).rejects.toMatchObject({ code: 'not_ready' });
  });

  it('never logs the token, while logging every failure as its sentence', async () => {
    const { client, log } = makeClient({ timeouts: { headersMs: 300 } });
    await fault('/v2/create_dynamic_pix', 'timeout');
    await client.createDynamicPix({ amount_cents: 300 }, { idempotencyKey: newIdempotencyKey() });
    await failure(client.setConfig(1, 1, { config_type: 'default_qr', config_value: '' }));
    const text = log.lines.join('\n');
    expect(log.lines.length).toBeGreaterThanOrEqual(3);
    expect(text).not.toContain(MANAGER);
    expect(text).not.toMatch(/bearer/i);
    expect(text).toContain('config_value must have at least 1 character');
  });
});
