import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { composeCore } from '../../compose.ts';
import { FIXTURE_TOKENS } from '../../sandbox/fixture.ts';
import { startSandbox, type Sandbox } from '../../sandbox/server.ts';
import { systemClock } from '../../shared/clock.ts';
import { loadConfig } from '../config.ts';
import type { Core } from '../core.ts';
import { memoryLogger } from '../log.ts';
import { EXPIRY_GRACE_MS } from '../sales/checkout.ts';
import type { Sale } from '../sales/lifecycle.ts';
import { journaledSale } from './fixtures/core.ts';
import { serviceControl, type ServiceControl } from './fixtures/service.ts';

/**
 * Issue 24, point 5: a payment just before expiry is found. The core follows its sales by
 * polling only (no webhook secret, so no receiver: Tx Status is all it learns from), against
 * a standalone sandbox whose clock it shares. Time moves only through that clock, and the
 * follow-up loop is driven with `terminal.tick()` (its own timer runs too: a read that is not
 * due when the clock stands still is not made by it either).
 */
let sandbox: Sandbox;
let svc: ServiceControl;
let core: Core;
let dir: string;
const log = memoryLogger(systemClock);
const CHECKOUT = { storeId: 1, checkoutId: 1 };

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0 });
  svc = serviceControl(sandbox.url);
  // A manager printed the checkout's QR at the service beforehand (reference 4.4).
  await svc.printCheckout(1, 1);
  dir = await mkdtemp(join(tmpdir(), 'pos-expiry-'));
  core = await composeCore(loadConfig({ POS_DATA_DIR: dir, POS_LANG: 'en', POS_SERVICE_URL: sandbox.url, POS_SERVICE_TOKEN: FIXTURE_TOKENS.manager }, []), { log, remoteClock: sandbox.clock });
  await core.start();
});

afterAll(async () => {
  await core?.stop();
  await sandbox?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

afterEach(async () => {
  // Past every sale's expiry and its last read, and what needed a person seen: the next test
  // starts on an idle checkout with no payment holding its QR back.
  await advance(400);
  await freshTick();
  for (const row of await core.journal.sales.byCheckout(1, 1)) {
    for (const a of row.sale.attention) await core.terminal.acknowledge({ saleId: row.sale.sale_id, reason: a.reason, subject: a.subject, by: 'sam' });
  }
});

const charge = async (amountCents: number): Promise<string> => (await core.terminal.charge({ ...CHECKOUT, amountCents, by: 'ana' })).newest?.sale_id ?? '';
const saleOf = (saleId: string): Promise<Sale> => journaledSale(core, saleId);
const advance = async (seconds: number) => {
  expect((await svc('POST', '/_sandbox/clock/advance', { seconds })).status).toBe(200);
};
/** Moves the shared clock to `at` (epoch ms). */
const advanceTo = async (at: number) => advance((at - sandbox.clock.now()) / 1000);
/** A pass of the loop that starts after this call: one already running is waited for first. */
const freshTick = async () => {
  await core.terminal.tick();
  await core.terminal.tick();
};
/** `rounds` passes of the loop, each after `seconds` more on the shared clock. */
const passes = async (rounds: number, seconds: number) => {
  for (let round = 0; round < rounds; round++) {
    await advance(seconds);
    await freshTick();
  }
};
/** The newer sale's QR is held back while a person looks at the earlier sale's payment. */
const expectHeld = async (saleId: string, reason: string, next: string) => {
  const view = await core.terminal.checkoutView(CHECKOUT);
  expect(view.hold?.items).toContainEqual({ sale_id: saleId, reason });
  expect(view.screen).toMatchObject({ kind: 'held', sale_id: next });
};
const expiresAtOf = async (saleId: string): Promise<number> => (await saleOf(saleId)).created?.expires_at ?? 0;
const payNewest = async () => {
  const paid = await svc('POST', '/_sandbox/pay', { store_id: 1, checkout_id: 1 });
  expect(paid.status).toBe(200);
  return paid.body as { pix_id: string; late: boolean };
};

describe('polling only', () => {
  it('has no webhook receiver: Tx Status is the only way payments are learnt', () => {
    expect(core.status().webhooks.url).toBeNull();
  });

  it('the customer pays 10 s before expiry and the cashier charges the next sale right after: the payment is found, a late payment for a person', async () => {
    const first = await charge(1000);
    const expiresAt = await expiresAtOf(first);
    await advanceTo(expiresAt - 10_000);
    // The loop reads it pending now; its next read is not due until the clock moves again.
    await freshTick();
    expect((await saleOf(first)).status).toBe('pending');
    const paid = await payNewest();
    expect(paid).toMatchObject({ late: false });
    const next = await charge(1200);
    expect(await saleOf(first)).toMatchObject({ status: 'displaced', displaced_by: next });
    // The service credited the payment before the newer sale existed, so it did not displace
    // the earlier one (reference 3.1): Tx Status answers `paid` for it, not TX not found.
    await passes(3, 5);
    const found = await saleOf(first);
    expect(found).toMatchObject({ status: 'paid_late', attention: [{ reason: 'paid_late', subject: '' }], paid: { received_cents: 1000 } });
    expect(found.payments[0]?.sources).toEqual(['tx_status']);
    // The newer sale's QR is held back: the customer who paid must not be asked to pay again.
    await expectHeld(first, 'paid_late', next);
  }, 60_000);

  it('the customer pays 10 s before expiry and the cashier charges the next sale just after it: the sale stays open until its last read finds the payment, held for a person', async () => {
    const first = await charge(1000);
    const expiresAt = await expiresAtOf(first);
    // Every read answers pending and the reads space out (to every 30 s at most).
    await passes(7, 31);
    await advanceTo(expiresAt - 10_000);
    await freshTick();
    expect((await saleOf(first)).status).toBe('pending');
    await payNewest();
    await advanceTo(expiresAt + 1_000);
    const next = await charge(1200);
    // Not closed by the clock, nor by the next charge (the service cannot displace it): open, no QR of it.
    expect((await saleOf(first)).status).toBe('pending');
    expect((await core.terminal.checkoutView(CHECKOUT)).screen).toMatchObject({ kind: 'qr', sale_id: next });
    await passes(4, 31);
    const found = await saleOf(first);
    expect(found).toMatchObject({ status: 'paid', attention: [{ reason: 'paid_after_expiry', subject: '' }], paid: { received_cents: 1000 } });
    await expectHeld(first, 'paid_after_expiry', next);
  }, 60_000);

  it('an unpaid sale shows expiring, with no QR, until a read made a minute after its expiry says it expired', async () => {
    const first = await charge(1000);
    const expiresAt = await expiresAtOf(first);
    await advanceTo(expiresAt + 1_000);
    await freshTick();
    expect((await core.terminal.checkoutView(CHECKOUT)).screen).toEqual({ kind: 'expiring', sale_id: first, amount_cents: 1000, expires_at: expiresAt });
    // Tx Status says expired already, but a read this early is not the last read.
    await advanceTo(expiresAt + EXPIRY_GRACE_MS - 1_000);
    await freshTick();
    expect((await saleOf(first)).status).toBe('pending');
    await advanceTo(expiresAt + EXPIRY_GRACE_MS);
    await freshTick();
    expect(await saleOf(first)).toMatchObject({ status: 'expired', expiries: [{ source: 'tx_status' }] });
    expect((await core.terminal.checkoutView(CHECKOUT)).screen).toEqual({ kind: 'settled', sale_id: first, status: 'expired' });
  }, 60_000);
});
