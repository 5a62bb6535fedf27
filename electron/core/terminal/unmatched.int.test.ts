import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { systemClock, type OffsetClock } from '../../shared/clock.ts';
import { FIXTURE_TOKENS } from '../../sandbox/fixture.ts';
import { startSandbox, type Sandbox } from '../../sandbox/server.ts';
import { createServiceClient, type ServiceClient } from '../api/client.ts';
import { loadConfig } from '../config.ts';
import type { Core } from '../core.ts';
import { composeCore } from '../../compose.ts';
import type { JournalPort } from '../journal/port.ts';
import { openJournal } from '../journal/journal.ts';
import { memoryLogger } from '../log.ts';
import { dispatcherAs, managerSession, sessionAs } from '../operators/fixtures/sign-in.ts';
import type { PaymentReceived, Sale } from '../sales/lifecycle.ts';
import { paymentFact, saleFact, type SaleRow } from './entries.ts';
import { startCoreOnSandbox, journaledSale, type CoreOnSandbox } from './fixtures/core.ts';
import { serviceControl, waitFor, type ServiceControl } from './fixtures/service.ts';
import { Terminal, TERMINAL_JOURNAL, type UnmatchedPayment } from './terminal.ts';

/**
 * Payments kept without a sale: none stays apart once a sale fits it, none is tied to a sale
 * its ids contradict, and a person can tie one to a sale. First the terminal alone on a real
 * journal in a temp dir (the state a crash leaves is written with the journal's own entries),
 * against a sandbox in this process; then the whole core on its embedded sandbox.
 */
const log = memoryLogger(systemClock);
const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('the terminal on its journal', () => {
  let sandbox: Sandbox;
  let client: ServiceClient;

  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0 });
    client = createServiceClient({ baseUrl: sandbox.url, token: FIXTURE_TOKENS.manager, clock: sandbox.clock, log });
  });
  afterAll(async () => {
    await client?.close();
    await sandbox?.close();
  });

  const clock = (): OffsetClock => sandbox.clock;
  const open = (dir: string) => openJournal<SaleRow>({ dir, clock: clock(), log, ...TERMINAL_JOURNAL });
  const terminalOn = (journal: JournalPort<SaleRow>) => new Terminal({ journal, client, clock: clock(), log, onChange: () => undefined, poll: { firstPollMs: 0 } });
  async function dataDir(): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'pos-unmatched-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    return dir;
  }
  /** A sale's intent and its 201, as the terminal journals them (ids given). */
  async function saleWithIds(journal: JournalPort<SaleRow>, saleId: string, amountCents: number, pixId: string, serviceId: string): Promise<void> {
    const at = clock().now();
    await journal.append([saleFact([{ type: 'sale.requested', sale_id: saleId, idempotency_key: `key-${saleId}`, store_id: 1, checkout_id: 1, seq: 1, amount_cents: amountCents, requested_by: 'ana', at: at - 10_000 }])]);
    await journal.append([
      saleFact([{ type: 'sale.created', sale_id: saleId, pix_id: pixId, service_id: serviceId, qr_type: 'dynamic', emv: 'emv-of-the-sale', pqr_emv: null, created_at: at - 10_000, expires_at: at + 290_000, at: at - 9_000 }]),
    ]);
  }

  it('re-matches at start a payment a crash left apart though its sale had learned its ids, once', async () => {
    const dir = await dataDir();
    let journal = await open(dir);
    const at = clock().now();
    const saleId = 'sale-crashed-before-rematch';
    await journal.append([saleFact([{ type: 'sale.requested', sale_id: saleId, idempotency_key: 'key-crash', store_id: 1, checkout_id: 1, seq: 1, amount_cents: 1300, requested_by: 'ana', at }])]);
    // The webhook overtook the 201: kept apart, as #recordReport journals it.
    const report: PaymentReceived = { type: 'payment.received', source: 'webhook', webhook_id: 'msg_before_201', pix_id: 'pix_crash', service_id: 'svc_crash', external_id: null, amount_brl: '13.00', paid_at: at, e2e_id: 'E00000000000000000000000000crash', at };
    await journal.recordWebhook('msg_before_201', paymentFact(report, null, { unmatched_reason: 'unknown_ids' }));
    // Then the 201 was journaled, and the process died before the re-match entry.
    await journal.append([saleFact([{ type: 'sale.created', sale_id: saleId, pix_id: 'pix_crash', service_id: 'svc_crash', qr_type: 'dynamic', emv: 'emv', pqr_emv: null, created_at: at, expires_at: at + 300_000, at }])]);
    const keptSeq = await journal.webhookSeq('msg_before_201');

    const terminal = terminalOn(journal);
    await terminal.load();
    expect(terminal.stats().unmatched).toBe(0);
    expect((await journal.sales.get(saleId))?.sale).toMatchObject({ status: 'paid', paid: { received_cents: 1300 } });
    const rematches = async () => (await journal.eventsForSale(saleId)).filter((e) => e.type === 'payment.received');
    expect(await rematches()).toMatchObject([{ data: { sale_ids: [saleId], rematch_of: keptSeq } }]);

    // Another restart finds it matched: nothing is journaled again.
    await journal.close();
    journal = await open(dir);
    cleanups.push(() => journal.close());
    const again = terminalOn(journal);
    await again.load();
    expect(again.unmatchedPayments()).toEqual([]);
    expect(await rematches()).toHaveLength(1);
  });

  it('keeps a Tx Status payment apart under its own journal seq, so a person’s attribution of it holds after a restart', async () => {
    // A sale the service made, which the journal holds with a service_id the service never gave it.
    const created = await fetch(`${sandbox.url}/v2/create_dynamic_pix`, {
      method: 'POST',
      headers: { authorization: `Bearer ${FIXTURE_TOKENS.manager}`, 'content-type': 'application/json' },
      body: JSON.stringify({ amount: '6.00', store_id: 1, checkout_id: 1 }),
    });
    expect(created.status).toBe(201);
    const sale = (await created.json()) as { pix_id: string; service_id: string; emv: string };
    expect((await serviceControl(sandbox.url)('POST', '/_sandbox/pay', { emv: sale.emv })).status).toBe(200);

    const dir = await dataDir();
    let journal = await open(dir);
    const saleId = 'sale-with-a-contradicted-id';
    await saleWithIds(journal, saleId, 600, sale.pix_id, 'svc_the_service_never_gave');
    const terminal = terminalOn(journal);
    await terminal.load();
    // Tx Status (no webhooks here) says paid, with the service's own service_id: it contradicts the sale.
    await terminal.tick();
    const [kept] = await journal.eventsOfType('payment.received');
    expect(kept).toMatchObject({ data: { sale_ids: [], unmatched_reason: 'ids_conflict', events: [{ source: 'tx_status', pix_id: sale.pix_id }] } });
    expect(terminal.unmatchedPayments()).toEqual([
      { seq: kept?.seq, at: expect.any(Number), kind: 'payment', pix_id: sale.pix_id, service_id: sale.service_id, external_id: null, amount_cents: 600, reason: 'ids_conflict' },
    ]);
    // The sale is still pending, so polling goes on; the same answer is not journaled again.
    for (let i = 0; i < 3; i++) {
      clock().advance(60_000);
      await terminal.tick();
    }
    expect(await journal.eventsOfType('payment.received')).toHaveLength(1);

    // A supervisor ties it to the sale, in their name.
    const view = await terminal.attribute({ seq: kept?.seq ?? 0, saleId, by: 'supervisor Rui' });
    expect(view).toMatchObject({ sale_id: saleId, status: 'paid', received_cents: 600 });
    expect(terminal.unmatchedPayments()).toEqual([]);
    const attributed = (await journal.eventsForSale(saleId)).filter((e) => e.type === 'payment.attributed');
    expect(attributed).toMatchObject([{ data: { by: 'supervisor Rui', rematch_of: kept?.seq, sale_ids: [saleId] } }]);

    await journal.close();
    journal = await open(dir);
    cleanups.push(() => journal.close());
    const restarted = terminalOn(journal);
    await restarted.load();
    expect(restarted.unmatchedPayments()).toEqual([]);
    const after = (await journal.sales.get(saleId))?.sale;
    expect(after).toMatchObject({ status: 'paid', payments: [{ attributed: { by: 'supervisor Rui' } }] });
    // The ids disagree: the sale shows it to a person rather than accepting it silently.
    expect(after?.issues.map((i) => i.code)).toContain('payment_ids_differ');
  });
});

describe('the core on its embedded sandbox', () => {
  let app: CoreOnSandbox;
  let core: Core;
  let svc: ServiceControl;
  const CREATE = { target: 'route', method: 'POST', path: '/v2/create_dynamic_pix' } as const;

  beforeAll(async () => {
    app = await startCoreOnSandbox('unmatched-core', log);
    ({ core, svc } = app);
  });
  afterAll(() => app?.stop());
  afterEach(() => app.settle());

  const saleOf = (saleId: string): Promise<Sale> => journaledSale(core, saleId);
  /** A charge whose first create is processed with its answer lost, then answered on a retry. */
  async function chargeWithLostAnswer(amountCents: number, retryFaults: number) {
    const before = (await svc.sales(1, 1)).length;
    await svc('POST', '/_sandbox/faults', { ...CREATE, fault: 'lost_response', count: 1 });
    await svc('POST', '/_sandbox/faults', { ...CREATE, fault: 'http_502', count: retryFaults });
    let answered = false;
    const charging = core.terminal.charge({ storeId: 1, checkoutId: 1, amountCents, by: 'ana' }).finally(() => (answered = true));
    // The service made the sale; the terminal does not know its ids until a retry is answered.
    const made = await waitFor(async () => {
      const sales = await svc.sales(1, 1);
      return sales.length === before + 1 ? sales[0] : undefined;
    }, 'the sale to exist at the service', { intervalMs: 5 });
    return { made, charging, answered: () => answered };
  }
  const paymentPayload = (ids: { pix_id: string; service_id: string }, amount: string, e2e: string) => ({
    event: 'charge.paid',
    pix_id: ids.pix_id,
    service_id: ids.service_id,
    external_id: null,
    amount_brl: amount,
    paid_at: new Date(core.clock.now()).toISOString(),
    e2e_id: e2e,
    store_id: 1,
    checkout_id: 1,
  });

  it('leaves no payment apart whose webhook is journaled while its sale’s 201 is', async () => {
    const unmatchedBefore = core.status().unmatchedPayments;
    const { made, charging, answered } = await chargeWithLostAnswer(1400, 1);
    // The same payment reported under many webhook-ids, back to back, around the 201: some are
    // matched before it, some kept apart and re-matched, some journaled while it is.
    const payload = paymentPayload(made, '14.00', 'E0000000000000000000000000race01');
    let n = 0;
    const deliver = async () => {
      while (!answered() || n < 40) {
        await core.terminal.acceptWebhook({ webhookId: `msg_race_${n++}`, timestampSec: Math.floor(core.clock.now() / 1000), payload });
      }
    };
    await Promise.all([deliver(), deliver(), deliver(), charging]);
    const saleId = (await charging).newest?.sale_id ?? '';
    const sale = await saleOf(saleId);
    expect(sale).toMatchObject({ status: 'paid', pix_id: made.pix_id, paid: { received_cents: 1400 } });
    expect(sale.payments).toHaveLength(1);
    expect(core.status().unmatchedPayments).toBe(unmatchedBefore);
    expect(core.terminal.unmatchedPayments().filter((u) => u.pix_id === made.pix_id)).toEqual([]);
  }, 60_000);

  it('does not tie a kept payment to a sale whose other id it contradicts when that sale learns its ids', async () => {
    const unmatchedBefore = core.status().unmatchedPayments;
    const { made, charging } = await chargeWithLostAnswer(1500, 2);
    // Names the sale's pix_id, but a service_id the service gave no sale of ours.
    const forged = { pix_id: made.pix_id, service_id: 'svc_not_this_sale' };
    expect(await core.terminal.acceptWebhook({ webhookId: 'msg_contradicting_ids', timestampSec: Math.floor(core.clock.now() / 1000), payload: paymentPayload(forged, '15.00', 'E00000000000000000000000000forged') })).toBe('recorded');
    expect(core.status().unmatchedPayments).toBe(unmatchedBefore + 1);

    const saleId = (await charging).newest?.sale_id ?? '';
    expect(await saleOf(saleId)).toMatchObject({ status: 'pending', pix_id: made.pix_id, payments: [] });
    // Still kept for a person, never dropped from both places.
    expect(core.status().unmatchedPayments).toBe(unmatchedBefore + 1);
    expect(core.terminal.unmatchedPayments().filter((u) => u.pix_id === made.pix_id)).toMatchObject([{ service_id: 'svc_not_this_sale', amount_cents: 1500 }]);
  }, 60_000);

  it('lists payments without a sale over the bridge and lets a person tie one to a sale, for good', async () => {
    const bridgeDir = await mkdtemp(join(tmpdir(), 'pos-unmatched-bridge-'));
    cleanups.push(() => rm(bridgeDir, { recursive: true, force: true }));
    const config = loadConfig({ POS_DATA_DIR: bridgeDir, POS_LANG: 'en' }, []);
    let own = await composeCore(config, { log });
    cleanups.push(() => own.stop());
    await own.start();
    let dispatch = await dispatcherAs(own, await sessionAs(own, 'supervisor', 'supervisor Rui'));
    const s = serviceControl(own.status().service.baseUrl ?? '');
    await s.printCheckout(1, 2);

    // Our sale on checkout 1; a payment for a sale this terminal never made (checkout 2).
    const ours = (await own.terminal.charge({ storeId: 1, checkoutId: 1, amountCents: 800, by: 'ana' })).newest?.sale_id ?? '';
    const foreign = await fetch(`${own.status().service.baseUrl}/v2/create_dynamic_pix`, {
      method: 'POST',
      headers: { authorization: `Bearer ${FIXTURE_TOKENS.manager}`, 'content-type': 'application/json' },
      body: JSON.stringify({ amount: '8.00', store_id: 1, checkout_id: 2 }),
    });
    const paid = (await s('POST', '/_sandbox/pay', { store_id: 1, checkout_id: 2 })).body as { pix_id: string; webhook_ids: [string, string] };
    expect(paid.pix_id).toBe(((await foreign.json()) as { pix_id: string }).pix_id);
    await waitFor(async () => ((await Promise.all(paid.webhook_ids.map((id) => own.journal.webhookSeq(id)))).every((x) => x !== undefined) ? true : undefined), 'the webhooks to be journaled');

    const listed = await dispatch('payments.unmatched', undefined);
    expect(listed).toMatchObject({ ok: true, result: [{ kind: 'payment', pix_id: paid.pix_id, amount_cents: 800, reason: 'unknown_ids' }, { kind: 'done', pix_id: paid.pix_id, amount_cents: 800, reason: 'unknown_ids' }] });
    const [payment, done] = (listed as { result: UnmatchedPayment[] }).result;
    // One payment (its charge.paid and its charge.done are two reports of it).
    expect(own.status().unmatchedPayments).toBe(1);

    // Checked before anything runs: a bad argument, an unknown payment, an unknown sale.
    expect(await dispatch('payment.attribute', { seq: 'one', saleId: ours })).toMatchObject({ ok: false, error: { code: 'invalid_argument' } });
    // Who ties it is the supervisor signed in: a name in the call is refused, not used.
    expect(await dispatch('payment.attribute', { seq: payment?.seq, saleId: ours, by: 'Mallory' })).toMatchObject({ ok: false, error: { code: 'invalid_argument', params: { field: 'by' } } });
    expect(await dispatch('payment.attribute', { seq: 999_999, saleId: ours })).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect(await dispatch('payment.attribute', { seq: payment?.seq, saleId: 'no-such-sale' })).toMatchObject({ ok: false, error: { code: 'not_found' } });

    const attributed = await dispatch('payment.attribute', { seq: payment?.seq, saleId: ours });
    expect(attributed).toMatchObject({ ok: true, result: { sale_id: ours, status: 'paid', received_cents: 800 } });
    expect(await dispatch('payment.attribute', { seq: payment?.seq, saleId: ours })).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect(await dispatch('payment.attribute', { seq: done?.seq, saleId: ours })).toMatchObject({ ok: true });
    expect(await dispatch('payments.unmatched', undefined)).toEqual({ ok: true, result: [] });
    expect(own.status().unmatchedPayments).toBe(0);
    const entry = (await own.journal.eventsForSale(ours)).find((e) => e.type === 'payment.attributed');
    expect(entry).toMatchObject({ data: { by: 'supervisor Rui', rematch_of: payment?.seq, events: [{ type: 'payment.received', pix_id: paid.pix_id }, { type: 'payment.attributed', sale_id: ours, by: 'supervisor Rui' }] } });

    // After a restart the payments stay tied to the sale, and out of the list.
    const sale = (await own.journal.sales.get(ours))?.sale;
    await own.stop();
    own = await composeCore(config, { log });
    await own.start();
    dispatch = await dispatcherAs(own, await managerSession(own));
    expect(await dispatch('payments.unmatched', undefined)).toEqual({ ok: true, result: [] });
    expect((await own.journal.sales.get(ours))?.sale).toEqual(sale);
    expect(sale).toMatchObject({ status: 'paid', payments: [{ attributed: { by: 'supervisor Rui' } }], dones: [{ attributed: { by: 'supervisor Rui' } }] });
  }, 60_000);
});
