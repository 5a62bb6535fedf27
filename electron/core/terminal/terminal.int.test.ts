import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import type { Core } from '../core.ts';
import { composeCore } from '../../compose.ts';
import { memoryLogger } from '../log.ts';
import { systemClock } from '../../shared/clock.ts';
import { readTypedAmount } from '../../shared/money.ts';
import { HELD_REQUEST_TIMEOUTS } from './fixtures/core.ts';
import type { CheckoutView } from './views.ts';

/**
 * The terminal through the core, against the embedded sandbox over loopback HTTP, driven
 * the way the app is: charges through the core, payments only as a payer would (the
 * sandbox's control API), faults injected at the service.
 */
let dir = '';
let core: Core;
let control = '';
const pushed: CheckoutView[] = [];
const log = memoryLogger(systemClock);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pos-terminal-'));
  // Its held create waits for the client's timeout: the short one (fixtures/core.ts).
  core = await composeCore(loadConfig({ POS_DATA_DIR: dir, POS_LANG: 'en' }, []), { log, serviceTimeouts: HELD_REQUEST_TIMEOUTS });
  await core.start();
  core.events.on('checkout.changed', (v) => pushed.push(v));
  control = core.status().service.baseUrl ?? '';
});

afterAll(async () => {
  await core?.stop();
  await rm(dir, { recursive: true, force: true });
});

afterEach(async () => {
  await sandbox('DELETE', '/_sandbox/faults');
  // Settle the checkout between tests: expire whatever is still pending.
  await sandbox('POST', '/_sandbox/clock/advance', { seconds: 400 });
  await core.terminal.tick();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- control API answers are asserted field by field
async function sandbox(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(control + path, { method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** What a cashier typed, read as the app reads it (never by multiplying a float). */
function typedCents(amount: string): number {
  const typed = readTypedAmount(amount);
  if (!typed.ok) throw new Error(`${amount} is not an amount (${typed.problem})`);
  return typed.cents;
}

const charge = (amount: string, reference?: string) =>
  core.terminal.charge({ storeId: 1, checkoutId: 1, amountCents: typedCents(amount), by: 'ana', ...(reference ? { externalId: reference } : {}) });

async function until<T>(probe: () => Promise<T | undefined>, what: string, ticks = false): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const v = await probe();
    if (v !== undefined) return v;
    if (ticks) await core.terminal.tick();
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const view = () => core.terminal.checkoutView({ storeId: 1, checkoutId: 1 });
const saleOf = async (saleId: string) => (await core.terminal.saleDetail(saleId))?.sale;

describe('terminal on a printed checkout', () => {
  it('rings up a sale, shows its printed QR and gets it paid by webhook', async () => {
    const v = await charge('12.50', 'order-1');
    expect(v.screen).toMatchObject({ kind: 'qr', amount_cents: 1250, printed: true });
    const saleId = v.newest?.sale_id ?? '';
    const paid = await sandbox('POST', '/_sandbox/pay', { store_id: 1, checkout_id: 1 });
    expect(paid.status).toBe(200);
    const sale = await until(async () => ((await saleOf(saleId))?.status === 'paid' ? saleOf(saleId) : undefined), 'the sale to be paid');
    expect(sale).toMatchObject({ status: 'paid', received_cents: 1250, pix_id: paid.body.pix_id, external_id: 'order-1' });
    expect(core.status().webhooks.mode).toBe('webhooks');
  });

  it('pushes the checkout’s view only when it changed: the charge.done after a payment adds no push', async () => {
    pushed.length = 0;
    const v = await charge('8.00');
    const saleId = v.newest?.sale_id ?? '';
    await sandbox('POST', '/_sandbox/pay', { store_id: 1, checkout_id: 1 });
    const types = async () => ((await core.terminal.saleDetail(saleId))?.events ?? []).map((e) => e.type);
    await until(async () => ((await types()).includes('charge.done') ? true : undefined), 'the charge.done');
    expect(await types()).toContain('payment.received');
    const seen = pushed.map((p) => JSON.stringify({ ...p, now: 0 }));
    // Requested (before its create answered), its QR, paid; never the same view twice running.
    expect(seen.length).toBeGreaterThanOrEqual(3);
    expect(seen.filter((text, i) => i > 0 && text === seen[i - 1])).toEqual([]);
    expect(pushed.at(-1)?.newest).toMatchObject({ sale_id: saleId, status: 'paid' });
  });

  it('marks the earlier sale displaced at once and shows only the newest QR; a payment goes to the newest', async () => {
    pushed.length = 0;
    const first = await charge('10.00');
    const firstId = first.newest?.sale_id ?? '';
    const firstEmv = first.screen.kind === 'qr' ? first.screen.emv : '';
    const second = await charge('12.00');
    const secondId = second.newest?.sale_id ?? '';
    // The first view pushed after the second charge was journaled, before its create answered.
    const atOnce = pushed.find((p) => p.recent.some((s) => s.sale_id === secondId));
    expect(atOnce?.recent.find((s) => s.sale_id === firstId)?.status).toBe('displaced');
    expect(second.screen).toMatchObject({ kind: 'qr', sale_id: secondId, amount_cents: 1200 });
    expect(second.recent.find((s) => s.sale_id === firstId)).toMatchObject({ status: 'displaced', displaced_by: secondId });
    // Reference 4.5 rule 2: the printed QR charges the newest sale, whatever was on screen.
    const paid = await sandbox('POST', '/_sandbox/pay', { emv: firstEmv });
    expect(paid.body.pix_id).toBe(second.newest?.pix_id);
    await until(async () => ((await saleOf(secondId))?.status === 'paid' ? true : undefined), 'the newest sale to be paid');
    expect((await saleOf(firstId))?.status).toBe('displaced');
  });

  it('records a late payment on a displaced sale and says not to collect twice', async () => {
    const first = await charge('10.00');
    const firstPix = first.newest?.pix_id ?? '';
    const second = await charge('15.00');
    const late = await sandbox('POST', '/_sandbox/pay', { late_for: firstPix });
    expect(late.status).toBe(200);
    const sale = await until(async () => {
      const s = await saleOf(first.newest?.sale_id ?? '');
      return s?.status === 'paid_late' ? s : undefined;
    }, 'the late payment');
    expect(sale.description).toMatchObject({ key: 'sale.paid_late.newer_open', needs_person: true });
    expect((await saleOf(second.newest?.sale_id ?? ''))?.status).toBe('pending');
    expect((await view()).attention.map((s) => s.sale_id)).toContain(sale.sale_id);
    // Issue 8: the newer sale's QR is held until a person settles the late payment.
    expect((await view()).screen).toMatchObject({ kind: 'held', sale_id: second.newest?.sale_id });
    await core.terminal.acknowledge({ saleId: sale.sale_id, reason: 'paid_late', subject: '', by: 'supervisor Rui' });
    expect((await view()).screen).toMatchObject({ kind: 'qr', sale_id: second.newest?.sale_id });
  });

  it('after two corrections, a late payment on the first sale still says not to collect twice', async () => {
    const first = await charge('10.00');
    await charge('12.00');
    const third = await charge('13.00');
    await sandbox('POST', '/_sandbox/pay', { late_for: first.newest?.pix_id });
    const sale = await until(async () => {
      const s = await saleOf(first.newest?.sale_id ?? '');
      return s?.status === 'paid_late' ? s : undefined;
    }, 'the late payment');
    // The sale that displaced it is displaced too, but the checkout's newest is still open.
    expect(sale.description.key).toBe('sale.paid_late.newer_open');
    expect(sale.description.attention[0]?.params).toMatchObject({ newer_open: true });
    expect((await view()).screen).toMatchObject({ kind: 'held', sale_id: third.newest?.sale_id });
    await core.terminal.acknowledge({ saleId: sale.sale_id, reason: 'paid_late', subject: '', by: 'supervisor Rui' });
    expect((await view()).screen).toMatchObject({ kind: 'qr', sale_id: third.newest?.sale_id });
  });

  it('flags an amount mismatch, and a person acknowledges it', async () => {
    const v = await charge('20.00');
    const saleId = v.newest?.sale_id ?? '';
    await sandbox('POST', '/_sandbox/pay', { store_id: 1, checkout_id: 1, amount: '2.00' });
    const sale = await until(async () => {
      const s = await saleOf(saleId);
      return s?.status === 'amount_mismatch' ? s : undefined;
    }, 'the mismatch');
    expect(sale).toMatchObject({ amount_cents: 2000, received_cents: 200 });
    const item = sale.description.attention[0];
    expect(item?.reason).toBe('amount_mismatch');
    const acked = await core.terminal.acknowledge({ saleId, reason: 'amount_mismatch', subject: item?.subject ?? '', by: 'supervisor Rui' });
    expect(acked.description.needs_person).toBe(false);
    const events = (await core.terminal.saleDetail(saleId))?.events ?? [];
    expect(events.at(-1)).toMatchObject({ type: 'sale.acknowledged', data: { by: 'supervisor Rui' } });
  });

  it('counts a duplicated webhook once', async () => {
    const v = await charge('7.00');
    await sandbox('POST', '/_sandbox/faults', { target: 'webhooks', fault: 'duplicate', count: 2 });
    await sandbox('POST', '/_sandbox/pay', { store_id: 1, checkout_id: 1 });
    const saleId = v.newest?.sale_id ?? '';
    await until(async () => ((await saleOf(saleId))?.status === 'paid' ? true : undefined), 'the payment');
    const deliveries = (await sandbox('GET', '/_sandbox/webhooks')).body as Array<{ duplicate?: boolean; status: number }>;
    expect(deliveries.filter((d) => d.duplicate).length).toBeGreaterThan(0);
    const events = (await core.terminal.saleDetail(saleId))?.events ?? [];
    expect(events.filter((e) => e.type === 'payment.received')).toHaveLength(1);
  });

  it('recovers a dropped webhook by polling Tx Status', async () => {
    const v = await charge('9.00');
    await sandbox('POST', '/_sandbox/faults', { target: 'webhooks', fault: 'drop', count: 2 });
    await sandbox('POST', '/_sandbox/pay', { store_id: 1, checkout_id: 1 });
    const saleId = v.newest?.sale_id ?? '';
    // Move time past the first poll; the follow-up loop finds the payment.
    await sandbox('POST', '/_sandbox/clock/advance', { seconds: 5 });
    const sale = await until(async () => ((await saleOf(saleId))?.status === 'paid' ? saleOf(saleId) : undefined), 'polling to find the payment', true);
    expect(sale?.received_cents).toBe(900);
    expect(core.status().webhooks.mode).toBe('polling');
  });

  it.each(['http_502', 'http_503', 'http_500', 'timeout', 'lost_response'])('a %s on create leaves exactly one sale', async (fault) => {
    const before = (await sandbox('GET', '/_sandbox/sales?store_id=1&checkout_id=1')).body.length as number;
    await sandbox('POST', '/_sandbox/faults', { target: 'route', method: 'POST', path: '/v2/create_dynamic_pix', fault, count: 1 });
    const v = await charge('3.00');
    expect(v.screen).toMatchObject({ kind: 'qr', amount_cents: 300 });
    const after = (await sandbox('GET', '/_sandbox/sales?store_id=1&checkout_id=1')).body as Array<{ pix_id: string }>;
    expect(after.length).toBe(before + 1);
    expect(after[0]?.pix_id).toBe(v.newest?.pix_id);
  }, 60_000);

  it('expires a pending sale when the service says so, a minute after its expiry', async () => {
    const v = await charge('4.00');
    await sandbox('POST', '/_sandbox/clock/advance', { seconds: 330 });
    const saleId = v.newest?.sale_id ?? '';
    // Past expires_at: no QR, and not closed before a read made a minute after it (issue 24).
    await until(async () => ((await view()).screen.kind === 'expiring' ? true : undefined), 'the sale to show expiring', true);
    expect((await saleOf(saleId))?.status).toBe('pending');
    await sandbox('POST', '/_sandbox/clock/advance', { seconds: 31 });
    const sale = await until(async () => ((await saleOf(saleId))?.status === 'expired' ? saleOf(saleId) : undefined), 'expiry', true);
    expect(sale?.status).toBe('expired');
    expect((await view()).screen.kind).toBe('settled');
  });

  it('keeps the journal chain intact', async () => {
    expect(await core.verifyJournal()).toMatchObject({ ok: true });
    expect(log.lines.join('\n')).not.toContain('sandbox-manager-token');
  });
});
