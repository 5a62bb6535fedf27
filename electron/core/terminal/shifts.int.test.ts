import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import type { Core } from '../core.ts';
import { composeCore } from '../../compose.ts';
import { CoreError } from '../errors.ts';
import { memoryLogger } from '../log.ts';
import { systemClock } from '../../shared/clock.ts';
import { dispatcherAs, sessionAs } from '../operators/fixtures/sign-in.ts';

/** Shifts, settings and the shift journal through the core, on the embedded sandbox. */
let dir = '';
let core: Core;
let sandboxUrl = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pos-shifts-'));
  core = await composeCore(loadConfig({ POS_DATA_DIR: dir }, []), { log: memoryLogger(systemClock) });
  await core.start();
  sandboxUrl = core.status().service.baseUrl ?? '';
});

afterAll(async () => {
  await core?.stop();
  await rm(dir, { recursive: true, force: true });
});

const pay = (body: object) => fetch(sandboxUrl + '/_sandbox/pay', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

async function until(probe: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await probe()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('shifts', () => {
  it('opens a shift with who and a note, and the status shows it', async () => {
    const shift = await core.openShift('Marta', 'float R$ 100');
    expect(shift).toMatchObject({ opened_by: 'Marta', note: 'float R$ 100', closed_at: null });
    expect(core.status().shift?.shift_id).toBe(shift.shift_id);
    await expect(core.openShift('Rui', undefined)).rejects.toThrow(/already open/);
  });

  it('keeps the shift sales, totals and events, filtered and searched', async () => {
    const first = await core.charge({ by: 'Marta', amountCents: 1000, externalId: 'order-1' });
    await core.charge({ by: 'Marta', amountCents: 1500, externalId: 'order-2' });
    await pay({ store_id: 1, checkout_id: 1 });
    await until(async () => (await core.shifts.report({})).totals.paid === 1, 'the payment');
    await pay({ late_for: first.newest?.pix_id });
    await until(async () => (await core.shifts.report({})).totals.late_payments === 1, 'the late payment');
    const report = await core.shifts.report({});
    expect(report.totals).toMatchObject({ count: 2, paid: 1, late_payments: 1, received_cents: 2500 });
    expect(report.sales.every((s) => s.requested_by === 'Marta')).toBe(true);
    expect((await core.shifts.report({ search: 'ORDER-1' })).sales.map((s) => s.external_id)).toEqual(['order-1']);
    expect((await core.shifts.report({ outcome: 'paid' })).sales.map((s) => s.external_id)).toEqual(['order-2']);
    expect(report.events.map((e) => e.type)).toEqual(expect.arrayContaining(['shift.opened', 'sale.requested', 'sale.created', 'payment.received']));
  });

  it('asks before closing over a pending sale, then closes with who and when', async () => {
    await core.charge({ by: 'Marta', amountCents: 700 });
    const refused = await core.closeShift('Marta', 'end of day', false).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(CoreError);
    expect((refused as CoreError).params).toMatchObject({ reason: 'pending_sale', pending: 1 });
    expect(core.status().shift).not.toBeNull();
    const closed = await core.closeShift('Marta', 'end of day', true);
    expect(closed).toMatchObject({ closed_by: 'Marta', close_note: 'end of day' });
    expect(core.status().shift).toBeNull();
  });

  it('exports the shift as CSV', async () => {
    const { filename, csv } = await core.shifts.exportCsv(undefined);
    expect(filename).toMatch(/^shift-\d{4}-\d{2}-\d{2}-[0-9a-f]{8}\.csv$/);
    const lines = csv.trim().split('\r\n');
    expect(lines).toHaveLength(4);
    expect(lines.slice(1).map((l) => l.split(',')[3]).sort()).toEqual(['paid', 'paid_late', 'pending']);
  });
});

describe('a shift’s money, and shifts opened at once', () => {
  // After 'shifts': the earlier shift is closed.
  it('counts every payment its sales received, a second one too, and payments without a sale apart', async () => {
    await core.openShift('Rui', undefined);
    const webhook = (id: string, payload: Record<string, unknown>) =>
      core.terminal.acceptWebhook({ webhookId: id, timestampSec: Math.floor(core.clock.now() / 1000), payload: { event: 'charge.paid', external_id: null, paid_at: new Date(core.clock.now()).toISOString(), store_id: 1, checkout_id: 1, ...payload } });
    const sale = (await core.charge({ by: 'Rui', amountCents: 1000 })).newest;
    await pay({ store_id: 1, checkout_id: 1 });
    await until(async () => (await core.shifts.report({})).totals.paid === 1, 'the payment');
    // The customer paid the same sale a second time (reported with that sale's ids).
    await webhook('msg_second_payment', { pix_id: sale?.pix_id, service_id: sale?.service_id, amount_brl: '10.00', e2e_id: 'E0000000000000000000000000second' });
    // And a payment for a sale this terminal does not know.
    await webhook('msg_no_sale', { pix_id: 'pix_unknown_to_us', service_id: 'svc_unknown_to_us', amount_brl: '7.00', e2e_id: 'E00000000000000000000000000nosale' });

    const report = await core.shifts.report({});
    expect(report.totals).toMatchObject({ count: 1, paid: 1, received_cents: 2000, unmatched_count: 1, unmatched_cents: 700 });
    expect(report.sales.map((s) => s.sale_id)).toEqual([sale?.sale_id]);
    expect(report.sales[0]).toMatchObject({ received_cents: 1000, received_total_cents: 2000 });

    // A person ties the stray payment to the sale: it is the sale's money now, not apart.
    const [stray] = core.terminal.unmatchedPayments().filter((u) => u.pix_id === 'pix_unknown_to_us');
    await core.terminal.attribute({ seq: stray?.seq ?? 0, saleId: sale?.sale_id ?? '', by: 'Rui' });
    expect((await core.shifts.report({})).totals).toMatchObject({ received_cents: 2700, unmatched_count: 0, unmatched_cents: 0 });
    await core.closeShift('Rui', undefined, true);
  });

  it('opens one shift when two people open one at the same moment', async () => {
    expect(core.status().shift).toBeNull();
    const [rui, lia] = await Promise.allSettled([core.openShift('Rui', undefined), core.openShift('Lia', undefined)]);
    const outcomes = [rui.status, lia.status].sort();
    expect(outcomes).toEqual(['fulfilled', 'rejected']);
    const refused = [rui, lia].find((r) => r.status === 'rejected');
    expect((refused as PromiseRejectedResult).reason).toMatchObject({ code: 'conflict', params: { reason: 'shift_open' } });
    expect(await core.journal.shifts.open()).toHaveLength(1);
  });
});

describe('money returned by fraud claims (issue 24 point 8)', () => {
  // After 'a shift’s money': a shift is open.
  it('the shift and the day show the claims that closed with money returned in them, and nothing else', async () => {
    const supervisor = await dispatcherAs(core, await sessionAs(core, 'supervisor', 'Rui'));
    const claim = async (n: number): Promise<string> => {
      const serviceId = `po_shift_claims_${n}`;
      const added = await fetch(sandboxUrl + '/_sandbox/payouts', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ service_id: serviceId, amount_cents: 9_000 + n, e2e_id: `E0000000020261120130${String(n).padStart(12, '0')}`, payer_document: '12345678909' }),
      });
      expect([200, 201]).toContain(added.status);
      const opened = await supervisor('claims.open', { serviceId, reason: 'scam', details: 'The payer says the invoice was a fake sent by e-mail.' });
      expect(opened.ok).toBe(true);
      return (opened as { ok: true; result: { med_case_id: string } }).result.med_case_id;
    };
    const advance = (id: string, body: object) =>
      fetch(`${sandboxUrl}/_sandbox/med/${id}/advance`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const [returned, refused, stillOpen] = [await claim(1), await claim(2), await claim(3)];
    await advance(returned, { status: 'closed', money_refunded: true, refunded_amount: '40.00' });
    await advance(refused, { status: 'closed', money_refunded: false });
    await advance(stillOpen, { status: 'open' });
    expect((await supervisor('claims.refresh', undefined)).ok).toBe(true);

    expect((await core.shifts.report({})).claims).toEqual({ count: 1, cents: 4000, amount_unknown: 0 });
    const today = new Date(core.clock.now()).toISOString().slice(0, 10);
    expect((await core.shifts.dayReport({ day: today, timeZone: 'UTC' })).claims).toEqual({ count: 1, cents: 4000, amount_unknown: 0 });

    // The next shift did not see that money come back.
    await core.closeShift('Rui', undefined, true);
    await core.openShift('Rui', undefined);
    expect((await core.shifts.report({})).claims).toEqual({ count: 0, cents: 0, amount_unknown: 0 });
  });
});

describe('settings', () => {
  it('are saved and survive a restart; an explicit variable wins over them', async () => {
    await core.updateSettings({ lang: 'es' });
    await core.stop();
    core = await composeCore(loadConfig({ POS_DATA_DIR: dir }, []), { log: memoryLogger(systemClock) });
    await core.start();
    expect(core.settings()).toEqual({ lang: 'es', storeId: 1, checkoutId: 1 });
    await core.stop();
    core = await composeCore(loadConfig({ POS_DATA_DIR: dir, POS_LANG: 'en' }, []), { log: memoryLogger(systemClock) });
    await core.start();
    expect(core.settings().lang).toBe('en');
  });
});

describe('amounts typed by a cashier', () => {
  it('refuses a thousands separator instead of charging cents', async () => {
    const dispatch = await dispatcherAs(core, await sessionAs(core, 'cashier'));
    for (const amount of ['2.500', '1.000', '1,350', '1.234,50']) {
      expect(await dispatch('sale.charge', { amount })).toMatchObject({ ok: false, error: { code: 'invalid_argument' } });
    }
    expect(await dispatch('sale.charge', { amount: '2,50' })).toMatchObject({ ok: true, result: { newest: { status: 'pending', amount_cents: 250 } } });
  });

  it('refuses what it would have to rewrite, naming the problem the screen words (issue 13: "-5", "1e3")', async () => {
    const dispatch = await dispatcherAs(core, await sessionAs(core, 'cashier'));
    for (const [amount, problem] of [
      ['-5', 'negative'],
      ['1e3', 'exponent'],
      ['12,50abc', 'not_a_number'],
      ['12,5055', 'too_many_decimals'],
      ['0,00', 'zero'],
      ['1000000,01', 'too_large'],
      ['1'.repeat(21), 'too_long'],
    ]) {
      expect(await dispatch('sale.charge', { amount })).toMatchObject({ ok: false, error: { code: 'invalid_argument', params: { field: 'amount', problem } } });
    }
    expect(await dispatch('sale.charge', { amount: 'R$ 3,75' })).toMatchObject({ ok: true, result: { newest: { status: 'pending', amount_cents: 375 } } });
  });
});
