import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../shared/clock.ts';
import { webhookHeaders } from '../../shared/standard-webhooks.ts';
import { FIXTURE_WEBHOOK_SECRET } from '../../sandbox/fixture.ts';
import { loadConfig } from '../config.ts';
import type { Core } from '../core.ts';
import { composeCore } from '../../compose.ts';
import { memoryLogger } from '../log.ts';
import type { Sale } from '../sales/lifecycle.ts';
import { coreOnSandboxForFile, HELD_REQUEST_TIMEOUTS, journaledSale, type CoreOnSandbox } from './fixtures/core.ts';
import { serviceControl, waitFor, type ServiceControl } from './fixtures/service.ts';

/**
 * What the terminal must survive beyond the happy paths of terminal.int.test.ts: webhooks
 * out of order, refused deliveries, creates whose outcome stays unknown, a payment that
 * overtakes its sale's 201, and a restart. The core runs on the embedded sandbox over
 * loopback HTTP; faults are injected at the service; time moves only through the sandbox
 * clock (the core shares it) and the follow-up loop is driven with `terminal.tick()`.
 */
let app: CoreOnSandbox;
let core: Core;
let svc: ServiceControl;
const log = memoryLogger(systemClock);

const CREATE = { target: 'route', method: 'POST', path: '/v2/create_dynamic_pix' } as const;
const TX_STATUS = { target: 'route', method: 'GET', path: '/v2/tx_status/:pix_id' } as const;
const OTHER_SECRET = 'whsec_' + Buffer.from('a-secret-the-terminal-does-not-know').toString('base64');

// Its held creates wait for the client's timeout: the short one (fixtures/core.ts).
coreOnSandboxForFile(
  'resilience',
  log,
  (started) => {
    app = started;
    ({ core, svc } = started);
  },
  { serviceTimeouts: HELD_REQUEST_TIMEOUTS },
);

afterEach(async () => {
  await svc('PUT', '/_sandbox/webhook', { url: core.status().webhooks.url, secret: FIXTURE_WEBHOOK_SECRET });
  await app.settle();
});

const charge = (checkoutId: number, amountCents: number) => core.terminal.charge({ storeId: 1, checkoutId, amountCents, by: 'ana' });
const saleOf = (saleId: string): Promise<Sale> => journaledSale(core, saleId);
const journaled = async (webhookId: string) => (await core.journal.webhookSeq(webhookId)) !== undefined;
const untilJournaled = (...ids: string[]) =>
  waitFor(async () => ((await Promise.all(ids.map(journaled))).every(Boolean) ? true : undefined), `webhooks ${ids.join(', ')} to be journaled`);
const pay = async (body: Record<string, unknown>): Promise<{ pix_id: string; webhook_ids: [string, string] }> => {
  const res = await svc('POST', '/_sandbox/pay', body);
  expect(res.status).toBe(200);
  return res.body;
};
/** First delivery attempts of these webhook-ids, in the order the sandbox sent them. */
const firstAttempts = async (ids: readonly string[]): Promise<string[]> => {
  const attempts = (await svc('GET', '/_sandbox/webhooks')).body as Array<{ webhook_id: string; attempt: number; duplicate: boolean }>;
  return attempts.filter((a) => ids.includes(a.webhook_id) && a.attempt === 1 && !a.duplicate).map((a) => a.webhook_id);
};

describe('webhooks out of order', () => {
  it('takes charge.done before charge.paid: the sale is paid at once, and the payment counts once when charge.paid follows', async () => {
    const saleId = (await charge(1, 800)).newest?.sale_id ?? '';
    // No Tx Status answers: only the webhooks can tell.
    await svc('POST', '/_sandbox/faults', { ...TX_STATUS, fault: 'http_503', count: 1000 });
    await svc('POST', '/_sandbox/faults', { target: 'webhooks', fault: 'delay', event: 'charge.paid', delay_seconds: 60 });
    const { webhook_ids: [paidHook, doneHook] } = await pay({ store_id: 1, checkout_id: 1 });

    await untilJournaled(doneHook);
    expect(await journaled(paidHook)).toBe(false);
    expect(await saleOf(saleId)).toMatchObject({ status: 'paid', paid: { implied_by_done: true, received_cents: 800 }, payments: [] });

    await svc('POST', '/_sandbox/clock/advance', { seconds: 61 });
    await untilJournaled(paidHook);
    const sale = await saleOf(saleId);
    expect(sale).toMatchObject({ status: 'paid', paid: { implied_by_done: false, received_cents: 800 }, attention: [], issues: [] });
    expect(sale.payments).toHaveLength(1);
    expect(sale.dones).toHaveLength(1);
    expect([...sale.webhook_ids].sort()).toEqual([paidHook, doneHook].sort());
  });

  it('credits two sales whose webhooks cross (reorder: newest first), each once and to its own sale', async () => {
    const one = (await charge(1, 1100)).newest;
    const two = (await charge(2, 2200)).newest;
    await svc('POST', '/_sandbox/faults', { target: 'webhooks', fault: 'reorder', count: 4 });
    const paidOne = await pay({ store_id: 1, checkout_id: 1 });
    const paidTwo = await pay({ store_id: 1, checkout_id: 2 });
    const hooks = [...paidOne.webhook_ids, ...paidTwo.webhook_ids];
    await untilJournaled(...hooks);

    // The sandbox held the four events and sent them newest first.
    expect(await firstAttempts(hooks)).toEqual([...hooks].reverse());
    for (const [view, paid, cents] of [[one, paidOne, 1100], [two, paidTwo, 2200]] as const) {
      const sale = await saleOf(view?.sale_id ?? '');
      expect(sale).toMatchObject({ status: 'paid', pix_id: paid.pix_id, paid: { received_cents: cents }, attention: [] });
      expect(sale.payments).toHaveLength(1);
      expect([...sale.webhook_ids].sort()).toEqual([...paid.webhook_ids].sort());
    }
  });

  it('tells a late payment from the newest sale’s payment when their webhooks cross on one checkout', async () => {
    const first = await charge(1, 1000);
    const displacedId = first.newest?.sale_id ?? '';
    const printedEmv = first.screen.kind === 'qr' ? first.screen.emv : '';
    const newestId = (await charge(1, 1500)).newest?.sale_id ?? '';
    await svc('POST', '/_sandbox/faults', { target: 'webhooks', fault: 'reorder', count: 4 });
    // The payer scans the QR that was on screen first: it charges the newest sale (4.5 rule 2).
    const paidNewest = await pay({ emv: printedEmv });
    const paidLate = await pay({ late_for: (await saleOf(displacedId)).pix_id });
    await untilJournaled(...paidNewest.webhook_ids, ...paidLate.webhook_ids);

    expect(await firstAttempts([...paidNewest.webhook_ids, ...paidLate.webhook_ids])).toEqual([...paidNewest.webhook_ids, ...paidLate.webhook_ids].reverse());
    expect(await saleOf(newestId)).toMatchObject({ status: 'paid', pix_id: paidNewest.pix_id, paid: { received_cents: 1500 }, attention: [] });
    const late = await saleOf(displacedId);
    expect(late).toMatchObject({ status: 'paid_late', pix_id: paidLate.pix_id, paid: { received_cents: 1000 }, attention: [{ reason: 'paid_late' }] });
    expect(late.payments).toHaveLength(1);
    // A person settles it: until then the checkout shows no QR (issue 8), and later tests charge on it.
    await core.terminal.acknowledge({ saleId: displacedId, reason: 'paid_late', subject: '', by: 'Rui' });
  });
});

describe('deliveries the receiver must refuse', () => {
  it('refuses deliveries signed with another secret and journals nothing from them; polling finds the payment; the redelivery later counts once', async () => {
    const url = core.status().webhooks.url;
    const refusedBefore = core.status().webhooks.refused;
    await svc('PUT', '/_sandbox/webhook', { url, secret: OTHER_SECRET });
    const saleId = (await charge(1, 900)).newest?.sale_id ?? '';
    const { webhook_ids: hooks } = await pay({ store_id: 1, checkout_id: 1 });

    const refused = await waitFor(async () => {
      const attempts = ((await svc('GET', '/_sandbox/webhooks')).body as Array<{ webhook_id: string; status: number | null }>).filter((a) => hooks.includes(a.webhook_id));
      return attempts.length >= 2 && attempts.every((a) => a.status !== null) ? attempts : undefined;
    }, 'the refused deliveries');
    expect(refused.map((a) => a.status)).toEqual(refused.map(() => 401));
    expect(core.status().webhooks.refused).toBeGreaterThanOrEqual(refusedBefore + 2);
    for (const id of hooks) expect(await journaled(id)).toBe(false);
    expect((await saleOf(saleId)).status).toBe('pending');

    // Past the first poll: the follow-up loop asks Tx Status and finds the payment.
    await svc('POST', '/_sandbox/clock/advance', { seconds: 5 });
    const polled = await waitFor(async () => {
      const s = await saleOf(saleId);
      return s.status === 'paid' ? s : undefined;
    }, 'polling to find the payment', { between: () => core.terminal.tick() });
    expect(polled).toMatchObject({ paid: { received_cents: 900 }, payments: [{ sources: ['tx_status'], webhook_ids: [] }] });
    expect(core.status().webhooks.mode).toBe('polling');

    // The retry due 5 s after the first refusal was refused too; the next one is 30 s later.
    await waitFor(async () => {
      const attempts = ((await svc('GET', '/_sandbox/webhooks')).body as Array<{ webhook_id: string; attempt: number; status: number | null }>).filter((a) => hooks.includes(a.webhook_id) && a.attempt === 2);
      return attempts.length === 2 && attempts.every((a) => a.status === 401) ? true : undefined;
    }, 'the second refused attempts');
    // The secret is put right; the sandbox's next retry is taken, and it is the same payment.
    await svc('PUT', '/_sandbox/webhook', { url, secret: FIXTURE_WEBHOOK_SECRET });
    await svc('POST', '/_sandbox/clock/advance', { seconds: 31 });
    await untilJournaled(...hooks);
    const sale = await saleOf(saleId);
    expect(sale).toMatchObject({ status: 'paid', paid: { received_cents: 900 }, attention: [], issues: [] });
    expect(sale.payments).toHaveLength(1);
    expect([...sale.payments[0]!.sources].sort()).toEqual(['tx_status', 'webhook']);
  });

  it('refuses a stale, a future, a forged and a tampered delivery posted to its receiver, and takes the same one fresh', async () => {
    const url = core.status().webhooks.url ?? '';
    const view = await charge(1, 600);
    const saleId = view.newest?.sale_id ?? '';
    const nowSec = Math.floor(core.clock.now() / 1000);
    const payload = (amount: string) =>
      JSON.stringify({ event: 'charge.paid', pix_id: view.newest?.pix_id, service_id: view.newest?.service_id, external_id: null, amount_brl: amount, paid_at: new Date(core.clock.now()).toISOString(), e2e_id: 'E18236120202611211345s0000000001', store_id: 1, checkout_id: 1 });
    const body = payload('6.00');
    const post = async (headers: Record<string, string>) => {
      const res = await fetch(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body });
      return { status: res.status, body: (await res.json()) as { detail?: string; duplicate?: boolean } };
    };
    const refusedBefore = core.status().webhooks.refused;
    const id = 'msg_handsigned_stale_then_fresh';
    const cases = {
      stale: webhookHeaders(FIXTURE_WEBHOOK_SECRET, id, nowSec - 301, body),
      // Well past the 5 minutes: nowSec is rounded down and the clock moves on before the
      // receiver reads it, so 301 s ahead could be 300 s ahead by then (a fresh-clone run).
      future: webhookHeaders(FIXTURE_WEBHOOK_SECRET, id, nowSec + 330, body),
      forged: webhookHeaders(OTHER_SECRET, id, nowSec, body),
      tampered: webhookHeaders(FIXTURE_WEBHOOK_SECRET, id, nowSec, payload('0.60')),
    };
    const answers = Object.fromEntries(await Promise.all(Object.entries(cases).map(async ([name, headers]) => [name, await post(headers)] as const)));
    expect(answers).toMatchObject({
      stale: { status: 401, body: { detail: 'webhook-timestamp is more than 5 minutes old' } },
      future: { status: 401, body: { detail: 'webhook-timestamp is more than 5 minutes in the future' } },
      forged: { status: 401, body: { detail: 'no signature matches' } },
      tampered: { status: 401, body: { detail: 'no signature matches' } },
    });
    expect(core.status().webhooks.refused).toBe(refusedBefore + 4);
    expect(await journaled(id)).toBe(false);
    expect((await saleOf(saleId)).status).toBe('pending');

    // Only the timestamp made the difference: the same delivery, signed now, is taken.
    const fresh = await post(webhookHeaders(FIXTURE_WEBHOOK_SECRET, id, Math.floor(core.clock.now() / 1000), body));
    expect(fresh).toEqual({ status: 200, body: { received: true, duplicate: false } });
    expect(await saleOf(saleId)).toMatchObject({ status: 'paid', paid: { received_cents: 600 }, webhook_ids: [id] });
  });
});

describe('settlements', () => {
  it('journals a settlement once per settlement_id, whatever the webhook-ids of its deliveries, two at once included', async () => {
    const url = core.status().webhooks.url ?? '';
    const settlementId = 424_242;
    const body = JSON.stringify({
      event: 'settlement.settled', settlement_id: settlementId, provider_settlement_id: null, external_settlement_id: '0xabc', amount: 10.5, currency_id: 3,
      source_amount: 10.5, source_currency_id: 3, source_net_price: 10.5, settled_at: new Date(core.clock.now()).toISOString(), charges: [], refunds: [],
    });
    const post = async (webhookId: string) => {
      const res = await fetch(url, { method: 'POST', headers: { ...webhookHeaders(FIXTURE_WEBHOOK_SECRET, webhookId, Math.floor(core.clock.now() / 1000), body), 'content-type': 'application/json' }, body });
      return { status: res.status, body: (await res.json()) as { duplicate?: boolean } };
    };
    const ofThisSettlement = async () => (await core.journal.eventsOfType('settlement.settled')).filter((e) => e.data.settlement_id === settlementId);

    // Reference 6.1: repeated deliveries with the same settlement_id are no-ops after the first.
    const both = await Promise.all([post('msg_settlement_a'), post('msg_settlement_b')]);
    expect(both.map((r) => r.status)).toEqual([200, 200]);
    expect(both.map((r) => r.body.duplicate).sort()).toEqual([false, true]);
    expect(await post('msg_settlement_c')).toEqual({ status: 200, body: { received: true, duplicate: true } });
    expect(await ofThisSettlement()).toHaveLength(1);
  });
});

describe('creates whose answer is lost', () => {
  it('an uncertain create is displaced by the next charge; its late payment is kept for a person, never lost', async () => {
    const unmatchedBefore = core.status().unmatchedPayments;
    // Processed with its answer lost, then every retry held until the client gives up.
    await svc('POST', '/_sandbox/faults', { ...CREATE, fault: 'lost_response', count: 1 });
    await svc('POST', '/_sandbox/faults', { ...CREATE, fault: 'timeout', count: 2 });
    const previous = (await core.terminal.checkoutView({ storeId: 1, checkoutId: 1 })).newest?.sale_id;
    const pendingCharge = charge(1, 700);
    const uncertainId = await waitFor(async () => {
      const id = (await core.terminal.checkoutView({ storeId: 1, checkoutId: 1 })).newest?.sale_id;
      return id === previous ? undefined : id;
    }, 'the intent to be journaled');
    // A pass of the follow-up loop while the create is in flight: it must not send it twice.
    await core.terminal.tick();
    const uncertain = await pendingCharge;
    expect(uncertain.screen).toEqual({ kind: 'uncertain', sale_id: uncertainId });
    expect(await saleOf(uncertainId)).toMatchObject({ status: 'uncertain', uncertain: { reason: 'timeout' } });
    expect(await svc.faults()).toEqual([]);
    const atService = (await svc.sales(1, 1)).filter((s) => s.amount_brl === '7.00' && s.status === 'pending');
    expect(atService).toHaveLength(1);

    const corrected = await charge(1, 750);
    const newestId = corrected.newest?.sale_id ?? '';
    expect(corrected.screen).toMatchObject({ kind: 'qr', sale_id: newestId, amount_cents: 750 });
    expect(await saleOf(uncertainId)).toMatchObject({ status: 'displaced', displaced_by: newestId });
    const service = await svc.sales(1, 1);
    expect(service[0]).toMatchObject({ pix_id: corrected.newest?.pix_id, displaced: false });
    expect(service.find((s) => s.pix_id === atService[0]?.pix_id)).toMatchObject({ displaced: true });

    // The payer had paid the uncertain sale just before: its ids were never learned, so the
    // payment cannot be matched (4.5 rule 6): journaled apart and counted for a supervisor.
    const late = await pay({ late_for: atService[0]?.pix_id });
    await untilJournaled(...late.webhook_ids);
    // One payment: its charge.paid and charge.done are two reports of it.
    expect(core.status().unmatchedPayments).toBe(unmatchedBefore + 1);
    const kept = (await core.journal.eventsOfType('payment.received')).filter((e) => e.data.webhook_id === late.webhook_ids[0]);
    expect(kept).toMatchObject([{ data: { sale_ids: [], unmatched_reason: 'unknown_ids', events: [{ pix_id: late.pix_id, amount_brl: '7.00' }] } }]);
    expect((await saleOf(uncertainId)).status).toBe('displaced');

    // The corrected sale is unaffected and paid as usual.
    await pay({ store_id: 1, checkout_id: 1 });
    await waitFor(async () => ((await saleOf(newestId)).status === 'paid' ? true : undefined), 'the corrected sale to be paid');
  }, 90_000);

  it('refuses a new charge while the newest sale’s create is still being retried, so the service’s newest sale is the one on screen', async () => {
    // Four 502s: the charge ends uncertain (nothing created). The follow-up loop's retry is
    // then held by the timeout, and its next attempt creates the sale.
    await svc('POST', '/_sandbox/faults', { ...CREATE, fault: 'http_502', count: 4 });
    await svc('POST', '/_sandbox/faults', { ...CREATE, fault: 'timeout', count: 1 });
    const first = await charge(1, 500);
    const firstId = first.newest?.sale_id ?? '';
    expect(first.screen).toEqual({ kind: 'uncertain', sale_id: firstId });
    await svc('POST', '/_sandbox/clock/advance', { seconds: 11 });
    void core.terminal.tick();
    await waitFor(async () => ((await svc.faults()).length === 0 ? true : undefined), 'the retried create to be in flight');

    await expect(charge(1, 550)).rejects.toMatchObject({ code: 'conflict' });
    const created = await waitFor(async () => {
      const s = await saleOf(firstId);
      return s.status === 'pending' ? s : undefined;
    }, 'the retried create to resolve', { timeoutMs: 30_000, between: () => core.terminal.tick() });

    const second = await charge(1, 550);
    const secondId = second.newest?.sale_id ?? '';
    expect(second.screen).toMatchObject({ kind: 'qr', sale_id: secondId, amount_cents: 550 });
    expect(await saleOf(firstId)).toMatchObject({ status: 'displaced', displaced_by: secondId });
    // The service agrees: its newest sale is the one on screen; the first one is displaced.
    const service = await svc.sales(1, 1);
    expect(service[0]).toMatchObject({ pix_id: second.newest?.pix_id, amount_brl: '5.50', displaced: false });
    expect(service.find((s) => s.pix_id === created.pix_id)).toMatchObject({ amount_brl: '5.00', displaced: true });
    expect(service.filter((s) => s.amount_brl === '5.00')).toHaveLength(1);
    expect(service.filter((s) => s.amount_brl === '5.50')).toHaveLength(1);
  }, 90_000);

  it('matches a payment that arrived before its sale’s 201 once the retried create returns', async () => {
    const unmatchedBefore = core.status().unmatchedPayments;
    const countBefore = (await svc.sales(1, 1)).length;
    await svc('POST', '/_sandbox/faults', { ...CREATE, fault: 'lost_response', count: 1 });
    await svc('POST', '/_sandbox/faults', { ...CREATE, fault: 'timeout', count: 1 });
    const pendingCharge = charge(1, 1300);
    // The service made the sale; the terminal's retry is held, so it does not know its ids yet.
    await waitFor(async () => ((await svc.sales(1, 1)).length === countBefore + 1 && (await svc.faults()).length === 0 ? true : undefined), 'the sale to exist at the service');
    const paid = await pay({ store_id: 1, checkout_id: 1 });
    await untilJournaled(...paid.webhook_ids);
    // One payment: its charge.paid and charge.done are two reports of it.
    expect(core.status().unmatchedPayments).toBe(unmatchedBefore + 1);

    const view = await pendingCharge;
    const saleId = view.newest?.sale_id ?? '';
    const sale = await saleOf(saleId);
    expect(sale).toMatchObject({ status: 'paid', pix_id: paid.pix_id, paid: { received_cents: 1300 }, attention: [] });
    expect(sale.payments).toHaveLength(1);
    expect(core.status().unmatchedPayments).toBe(unmatchedBefore);
    // The re-match points at the entry that first kept the payment apart.
    const firstSeq = await core.journal.webhookSeq(paid.webhook_ids[0]);
    const rematch = (await core.journal.eventsForSale(saleId)).filter((e) => e.type === 'payment.received');
    expect(rematch).toMatchObject([{ data: { sale_ids: [saleId], rematch_of: firstSeq } }]);
    expect((await svc.sales(1, 1)).length).toBe(countBefore + 1);
  }, 60_000);
});

describe('restart on the same data dir', () => {
  it('keeps every sale’s state and resumes following the open one', async () => {
    const restartDir = await mkdtemp(join(tmpdir(), 'pos-restart-'));
    const config = loadConfig({ POS_DATA_DIR: restartDir, POS_LANG: 'en' }, []);
    let first: Core | null = await composeCore(config, { log });
    let second: Core | null = null;
    try {
      await first.start();
      const s = serviceControl(first.status().service.baseUrl ?? '');
      const t = first.terminal;
      const sale = async (c: Core, id: string) => (await c.journal.sales.get(id))?.sale;
      const until = (c: Core, id: string, status: string) =>
        waitFor(async () => ((await sale(c, id))?.status === status ? true : undefined), `sale ${id} to be ${status}`, { between: () => c.terminal.tick() });

      const paidId = (await t.charge({ storeId: 1, checkoutId: 1, amountCents: 300, by: 'ana' })).newest?.sale_id ?? '';
      await s('POST', '/_sandbox/pay', { store_id: 1, checkout_id: 1 });
      await until(first, paidId, 'paid');

      const mismatchId = (await t.charge({ storeId: 1, checkoutId: 1, amountCents: 400, by: 'ana' })).newest?.sale_id ?? '';
      await s('POST', '/_sandbox/pay', { store_id: 1, checkout_id: 1, amount: '1.00' });
      await until(first, mismatchId, 'amount_mismatch');
      await t.acknowledge({ saleId: mismatchId, reason: 'amount_mismatch', subject: '', by: 'supervisor Rui' });

      const lateId = (await t.charge({ storeId: 1, checkoutId: 1, amountCents: 500, by: 'ana' })).newest?.sale_id ?? '';
      const openId = (await t.charge({ storeId: 1, checkoutId: 1, amountCents: 600, by: 'ana' })).newest?.sale_id ?? '';
      await s('POST', '/_sandbox/pay', { late_for: (await sale(first, lateId))?.pix_id });
      await until(first, lateId, 'paid_late');

      // The open sale is paid while its webhooks are lost: only Tx Status can tell.
      await s('POST', '/_sandbox/faults', { target: 'webhooks', fault: 'drop', count: 2 });
      await s('POST', '/_sandbox/pay', { store_id: 1, checkout_id: 1 });
      const before = await Promise.all([paidId, mismatchId, lateId, openId].map((id) => sale(first!, id)));
      expect(before.map((x) => x?.status)).toEqual(['paid', 'amount_mismatch', 'paid_late', 'pending']);
      await first.stop();
      first = null;

      second = await composeCore(config, { log });
      await second.start();
      const after = await Promise.all([paidId, mismatchId, lateId, openId].map((id) => sale(second!, id)));
      expect(after).toEqual(before);
      expect(after[1]?.attention).toEqual([]);
      expect(after[2]?.attention).toEqual([{ reason: 'paid_late', subject: '' }]);

      const s2 = serviceControl(second.status().service.baseUrl ?? '');
      await s2('POST', '/_sandbox/clock/advance', { seconds: 5 });
      await until(second, openId, 'paid');
      expect(await sale(second, openId)).toMatchObject({ paid: { received_cents: 600 }, payments: [{ sources: ['tx_status'] }] });
      expect(await second.verifyJournal()).toMatchObject({ ok: true });
    } finally {
      await first?.stop();
      await second?.stop();
      await rm(restartDir, { recursive: true, force: true });
    }
  }, 60_000);
});

it('keeps the journal chain intact and no secret in the log', async () => {
  expect(await core.verifyJournal()).toMatchObject({ ok: true });
  const text = log.lines.join('\n');
  expect(text).not.toContain('sandbox-manager-token');
  expect(text).not.toContain(FIXTURE_WEBHOOK_SECRET);
  expect(text).not.toContain(OTHER_SECRET);
});
