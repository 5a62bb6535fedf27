import { describe, expect, it } from 'vitest';
import { formatCents, wireBrlCents } from '../../shared/money.ts';
import { webhookHeaders } from '../../shared/standard-webhooks.ts';
import { FIXTURE_TOKENS, FIXTURE_WEBHOOK_SECRET } from '../../sandbox/fixture.ts';
import type { JournalEntry } from '../journal/port.ts';
import type { Sale } from '../sales/lifecycle.ts';
import { childCoresPerTest, type CrashHarness } from './fixtures/child-cores.ts';
import { waitFor, type ServiceSale } from './fixtures/service.ts';
import type { CoreProcess } from './fixtures/core-child.ts';
import type { CheckoutView } from './views.ts';
import { mulberry32 } from '../../shared/prng.ts';

/**
 * "Nothing is lost or doubled across crashes": the core runs as a child process
 * (fixtures/core-process.ts, a real Core in remote mode) against a sandbox in THIS process,
 * which outlives it. The test SIGKILLs the core at chosen points of a sale, starts it again
 * on the same data dir and webhook port, and checks through the restarted core and the
 * service's own listing that every sale is in its true final state.
 */
// Random kill points, reproducible: CORE_CRASH_SEED=<n> replays a failing run.
const SEED = Number(process.env.CORE_CRASH_SEED ?? Math.floor(Math.random() * 2 ** 31));
const CREATE = { target: 'route', method: 'POST', path: '/v2/create_dynamic_pix' } as const;

const cores = childCoresPerTest();
const startCore = cores.start;
const setUp = (): Promise<CrashHarness> => cores.setUp('pos-crash-');
const setUpAndStart = async (): Promise<{ h: CrashHarness; first: CoreProcess }> => {
  const h = await setUp();
  return { h, first: await startCore(h.env) };
};

const cents = (brl: string | null): number | null => wireBrlCents(brl);

/** Every sale of the restarted core in its true final state (see reconcile); then it stops cleanly. */
async function expectTrueAndStop(core: CoreProcess, h: CrashHarness): Promise<void> {
  expect(reconcile(await core.call<Sale[]>('sales'), await h.svc.sales(1, 1))).toEqual([]);
  await core.stop();
}

/** The payer pays the checkout's printed QR: the ids of the charge.paid and charge.done webhooks it sends. */
async function payPrinted(h: CrashHarness): Promise<[string, string]> {
  return ((await h.svc('POST', '/_sandbox/pay', { store_id: 1, checkout_id: 1 })).body as { webhook_ids: [string, string] }).webhook_ids;
}

/** The service's attempts to deliver one webhook, oldest first. */
async function deliveries(h: CrashHarness, webhookId: string): Promise<Array<{ webhook_id: string; status: number | null; error: string | null }>> {
  const all = (await h.svc('GET', '/_sandbox/webhooks')).body as Array<{ webhook_id: string; status: number | null; error: string | null }>;
  return all.filter((a) => a.webhook_id === webhookId);
}

const bothJournaled = (core: CoreProcess, webhookIds: [string, string], what: string): Promise<true> =>
  waitFor(async () => ((await core.call('journaled', { webhookId: webhookIds[0] })) && (await core.call('journaled', { webhookId: webhookIds[1] })) ? true : undefined), what);

/**
 * Where the journal and the service disagree: every sale the service made is in the journal
 * once, in the state the service's facts give it, and the journal holds no sale the service
 * never made and none whose create is unresolved. Empty = every sale in its true final state.
 */
function reconcile(journal: readonly Sale[], service: readonly ServiceSale[]): string[] {
  const problems: string[] = [];
  const byPix = new Map<string, Sale>();
  for (const s of journal) {
    if (s.status === 'requested' || s.status === 'uncertain') problems.push(`sale ${s.sale_id} (${formatCents(s.amount_cents)}) is still ${s.status}`);
    if (s.pix_id === undefined) continue;
    if (byPix.has(s.pix_id)) problems.push(`two sales hold ${s.pix_id}`);
    byPix.set(s.pix_id, s);
  }
  for (const row of service) {
    const s = byPix.get(row.pix_id);
    byPix.delete(row.pix_id);
    if (!s) {
      problems.push(`the service's sale ${row.pix_id} (${row.amount_brl}) is not in the journal`);
      continue;
    }
    const expected = row.status === 'paid' ? (row.displaced ? 'paid_late' : 'paid') : row.displaced ? 'displaced' : row.status;
    // An expiry is known to the terminal only once it polls or its clock passes the grace.
    if (s.status !== expected && !(expected === 'expired' && s.status === 'pending')) problems.push(`${row.pix_id} (${row.amount_brl}) is ${s.status} in the journal, ${expected} at the service`);
    if (cents(row.amount_brl) !== s.amount_cents) problems.push(`${row.pix_id} is ${row.amount_brl} at the service, ${formatCents(s.amount_cents)} in the journal`);
    if (row.status === 'paid' && s.paid?.received_cents !== cents(row.paid_amount_brl)) problems.push(`${row.pix_id} was paid ${row.paid_amount_brl}, the journal says ${s.paid?.received_cents ?? 'nothing'}`);
    if (s.payments.length > 1) problems.push(`${row.pix_id} counts ${s.payments.length} payments`);
  }
  for (const s of byPix.values()) problems.push(`sale ${s.sale_id} holds ${s.pix_id}, which the service never made`);
  return problems;
}

/** Moves the sandbox clock to its next webhook retry, if one is waiting (contract 4's schedule). */
async function advanceToNextDelivery(h: CrashHarness): Promise<void> {
  const events = (await h.svc('GET', '/_sandbox/events')).body as Array<{ state: string; next_attempt_at: string | null }>;
  const now = h.sandbox.clock.now();
  const waits = events.filter((e) => e.state === 'pending' && e.next_attempt_at !== null).map((e) => Date.parse(e.next_attempt_at as string) - now);
  const next = Math.min(...waits);
  if (waits.length > 0 && next > 0) await h.svc('POST', '/_sandbox/clock/advance', { seconds: (next + 100) / 1000 });
}

/** Runs the core's follow-up loop and the service's retries until the journal agrees with the service. */
async function settle(h: CrashHarness, core: CoreProcess, where: string): Promise<Sale[]> {
  const deadline = performance.now() + 40_000;
  for (;;) {
    await core.call('tick');
    const sales = await core.call<Sale[]>('sales');
    const problems = reconcile(sales, await h.svc.sales(1, 1));
    if (problems.length === 0) return sales;
    if (performance.now() > deadline) throw new Error(`${where}: the journal never agreed with the service:\n${problems.join('\n')}`);
    await advanceToNextDelivery(h);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const saleWith = async (core: CoreProcess, saleId: string, status: string) =>
  waitFor(async () => {
    const sale = (await core.call<Sale[]>('sales')).find((s) => s.sale_id === saleId);
    return sale?.status === status ? sale : undefined;
  }, `sale ${saleId} to be ${status}`, { between: () => core.call('tick') });

const journaledOnce = async (core: CoreProcess, saleId: string, webhookId: string) =>
  (await core.call<JournalEntry[]>('events', { saleId })).filter((e) => e.data.webhook_id === webhookId).length;

describe('SIGKILL at each point of a sale, then a restart on the same data dir', () => {
  it('(a) before create: killed while the create is held at the service, the restarted core sends it again under the same key, and one sale exists', async () => {
    const { h, first } = await setUpAndStart();
    await h.svc('POST', '/_sandbox/faults', { ...CREATE, fault: 'timeout', count: 1 });
    const charging = first.call('charge', { amountCents: 1234 }).then(
      () => 'answered',
      () => 'killed',
    );
    // The create reached the service (and so its intent is journaled) and is held unanswered.
    await waitFor(async () => ((await h.svc.faults()).length === 0 ? true : undefined), 'the create to be held at the service');
    await first.kill();
    expect(await charging).toBe('killed');
    expect(await h.svc.sales(1, 1)).toEqual([]);

    const core = await startCore(h.env);
    const sale = await waitFor(async () => {
      const [s] = await core.call<Sale[]>('sales');
      return s?.status === 'pending' ? s : undefined;
    }, 'the resumed create', { between: () => core.call('tick') });
    const service = await h.svc.sales(1, 1);
    expect(service).toHaveLength(1);
    expect(service[0]).toMatchObject({ pix_id: sale.pix_id, amount_brl: '12.34', displaced: false });
    expect((await core.call<JournalEntry[]>('events', { saleId: sale.sale_id })).map((e) => e.type)).toEqual(['sale.requested', 'sale.created']);
    // The sale exists under the key its intent was journaled with: the service replays it.
    const again = await fetch(`${h.sandbox.url}/v2/create_dynamic_pix`, {
      method: 'POST',
      headers: { authorization: `Bearer ${FIXTURE_TOKENS.manager}`, 'content-type': 'application/json', 'idempotency-key': sale.idempotency_key },
      body: JSON.stringify({ amount: '12.34', store_id: 1, checkout_id: 1 }),
    });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toMatchObject({ pix_id: sale.pix_id });
    await expectTrueAndStop(core, h);
  }, 90_000);

  it('(b) after create: killed once the service made the sale but before its answer arrived, the restart gets the same sale back, no second one', async () => {
    const { h, first } = await setUpAndStart();
    // Made and its answer lost; the retry is held, so the core never learns the sale's ids.
    await h.svc('POST', '/_sandbox/faults', { ...CREATE, fault: 'lost_response', count: 1 });
    await h.svc('POST', '/_sandbox/faults', { ...CREATE, fault: 'timeout', count: 1 });
    const charging = first.call('charge', { amountCents: 2345 }).catch(() => 'killed');
    await waitFor(async () => ((await h.svc.sales(1, 1)).length === 1 && (await h.svc.faults()).length === 0 ? true : undefined), 'the sale to be made and the retry held');
    expect((await first.call<Sale[]>('sales')).map((s) => s.status)).toEqual(['requested']);
    await first.kill();
    expect(await charging).toBe('killed');

    const core = await startCore(h.env);
    const [made] = await h.svc.sales(1, 1);
    const sale = await waitFor(async () => {
      const [s] = await core.call<Sale[]>('sales');
      return s?.status === 'pending' ? s : undefined;
    }, 'the resumed create', { between: () => core.call('tick') });
    expect(sale.pix_id).toBe(made?.pix_id);
    expect(await h.svc.sales(1, 1)).toHaveLength(1);
    expect(await core.call<Sale[]>('sales')).toHaveLength(1);
    await expectTrueAndStop(core, h);
  }, 90_000);

  it('(c) before the webhook is journaled: paid while the core is down, the delivery retried after the restart is journaled once', async () => {
    const { h, first } = await setUpAndStart();
    const view = await first.call<CheckoutView>('charge', { amountCents: 3456 });
    const saleId = view.newest?.sale_id ?? '';
    await first.kill();

    const [paidHook, doneHook] = await payPrinted(h);
    const failed = await waitFor(async () => {
      const attempts = await deliveries(h, paidHook);
      return attempts.length > 0 && attempts.every((a) => a.error !== null) ? attempts : undefined;
    }, 'the delivery to the dead core to fail');
    expect(failed[0]).toMatchObject({ status: null, error: 'ECONNREFUSED' });

    const core = await startCore(h.env);
    // Contract 4: the next attempt comes 5 s (sandbox time) after the failure.
    await h.svc('POST', '/_sandbox/clock/advance', { seconds: 6 });
    await bothJournaled(core, [paidHook, doneHook], 'the redelivered webhooks to be journaled');
    const sale = await saleWith(core, saleId, 'paid');
    expect(sale).toMatchObject({ paid: { received_cents: 3456 }, attention: [], issues: [] });
    expect(sale.payments).toHaveLength(1);
    expect(await journaledOnce(core, saleId, paidHook)).toBe(1);
    expect(await journaledOnce(core, saleId, doneHook)).toBe(1);
    const delivered = await deliveries(h, paidHook);
    expect(delivered.at(-1)?.status).toBe(200);
    await expectTrueAndStop(core, h);
  }, 90_000);

  it('(d) after the webhook is journaled: still paid after the restart, and a redelivery is a duplicate', async () => {
    const { h, first } = await setUpAndStart();
    const saleId = (await first.call<CheckoutView>('charge', { amountCents: 4567 })).newest?.sale_id ?? '';
    const [paidHook, doneHook] = await payPrinted(h);
    await bothJournaled(first, [paidHook, doneHook], 'the webhooks to be journaled');
    const before = await first.call<Sale[]>('sales');
    expect(before).toMatchObject([{ sale_id: saleId, status: 'paid', paid: { received_cents: 4567 } }]);
    const eventsBefore = await first.call<JournalEntry[]>('events', { saleId });
    await first.kill();

    const core = await startCore(h.env);
    expect(await core.call<Sale[]>('sales')).toEqual(before);
    // The service delivers charge.paid again: same webhook-id, same body, signed now.
    const events = (await h.svc('GET', '/_sandbox/events')).body as Array<{ webhook_id: string; payload: unknown }>;
    const body = JSON.stringify(events.find((e) => e.webhook_id === paidHook)?.payload);
    const res = await fetch(core.webhookUrl, {
      method: 'POST',
      headers: { ...webhookHeaders(FIXTURE_WEBHOOK_SECRET, paidHook, Math.floor(h.sandbox.clock.now() / 1000), body), 'content-type': 'application/json' },
      body,
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ received: true, duplicate: true });
    expect(await core.call<JournalEntry[]>('events', { saleId })).toEqual(eventsBefore);
    expect(await core.call<Sale[]>('sales')).toEqual(before);
    expect(reconcile(before, await h.svc.sales(1, 1))).toEqual([]);
    await core.stop();
  }, 90_000);
});

const ROUNDS = 5;
const STEPS = ['charge', 'correct', 'pay', 'late pay'] as const;

describe('SIGKILL at random points', () => {
  it(`survives ${ROUNDS} kills at random points of charge, correct, pay, late pay, on one data dir`, async () => {
    console.log(`core crash loop: seed ${SEED} (CORE_CRASH_SEED=${SEED} replays it)`);
    const random = mulberry32(SEED);
    const h = await setUp();
    let core = await startCore(h.env);
    const serviceSale = async (amountCents: number) => (await h.svc.sales(1, 1)).filter((s) => cents(s.amount_brl) === amountCents);

    for (let round = 0; round < ROUNDS; round++) {
      // Amounts unique to the round: how the script finds its own sales again.
      const charged = 1000 + round * 100 + 1;
      const corrected = charged + 50;
      const killStep = Math.floor(random() * STEPS.length);
      // Each step takes a few milliseconds (a journal fsync, a loopback request): a kill
      // within 12 ms of its start lands before, inside or just after it.
      const killDelayMs = Math.floor(random() * 12);
      const where = `round ${round}: SIGKILL ${killDelayMs} ms after "${STEPS[killStep]}" began (seed ${SEED})`;

      const victim = core;
      let arm!: () => void;
      const armed = new Promise<void>((resolve) => (arm = resolve));
      const killed = armed.then(() => new Promise((r) => setTimeout(r, killDelayMs))).then(() => victim.kill());
      const steps: Array<() => Promise<unknown>> = [
        () => victim.call('charge', { amountCents: charged }),
        () => victim.call('charge', { amountCents: corrected }),
        // The payer scans the printed QR: it charges the newest sale (4.5 rule 2).
        () => h.svc('POST', '/_sandbox/pay', { store_id: 1, checkout_id: 1 }),
        // The first sale's late payment (4.5 rule 5); it may land while the core is down.
        async () => h.svc('POST', '/_sandbox/pay', { late_for: (await serviceSale(charged))[0]?.pix_id ?? 'none' }),
      ];
      for (let i = 0; i < steps.length; i++) {
        if (i === killStep) arm();
        try {
          await steps[i]!();
        } catch {
          break; // a step through the core fails once its process is gone
        }
      }
      arm();
      await killed;

      core = await startCore(h.env);
      const found = (await core.call<Sale[]>('sales')).filter((s) => s.amount_cents === charged || s.amount_cents === corrected);
      const atService = [...(await serviceSale(charged)), ...(await serviceSale(corrected))];
      console.log(`${where}; journal after restart: ${found.map((s) => `${formatCents(s.amount_cents)} ${s.status}`).join(', ') || 'nothing'}; service: ${atService.map((s) => `${s.amount_brl} ${s.status}${s.displaced ? ' displaced' : ''}`).join(', ') || 'nothing'}`);
      await settle(h, core, where);
      // Finish the script where the kill cut it short, as the cashier and the payer would.
      const journalHas = async (amountCents: number) => (await core.call<Sale[]>('sales')).some((s) => s.amount_cents === amountCents);
      if (!(await journalHas(charged))) await core.call('charge', { amountCents: charged });
      if (!(await journalHas(corrected))) await core.call('charge', { amountCents: corrected });
      if ((await serviceSale(corrected))[0]?.status !== 'paid') await h.svc('POST', '/_sandbox/pay', { store_id: 1, checkout_id: 1 });
      const first = (await serviceSale(charged))[0];
      if (first?.status !== 'paid') await h.svc('POST', '/_sandbox/pay', { late_for: first?.pix_id });
      const sales = await settle(h, core, where);

      // The script's true outcome, whatever the kill interrupted: one sale per amount on
      // each side, the corrected one paid, the first one paid late and kept for a person.
      expect(await serviceSale(charged), where).toMatchObject([{ status: 'paid', displaced: true }]);
      expect(await serviceSale(corrected), where).toMatchObject([{ status: 'paid', displaced: false }]);
      expect(sales.filter((s) => s.amount_cents === charged), where).toMatchObject([{ status: 'paid_late', paid: { received_cents: charged }, attention: [{ reason: 'paid_late' }] }]);
      expect(sales.filter((s) => s.amount_cents === corrected), where).toMatchObject([{ status: 'paid', paid: { received_cents: corrected }, attention: [] }]);
      expect(sales, where).toHaveLength(2 * (round + 1));
      expect(await h.svc.sales(1, 1), where).toHaveLength(2 * (round + 1));
    }
    expect(await core.call('verify')).toMatchObject({ ok: true });
    expect((await core.call<{ unmatchedPayments: number }>('status')).unmatchedPayments).toBe(0);
    await core.stop();
  }, 240_000);
});
