import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../shared/clock.ts';
import type { Core } from '../core.ts';
import { memoryLogger } from '../log.ts';
import type { Sale } from '../sales/lifecycle.ts';
import { coreOnSandboxForFile, HELD_REQUEST_TIMEOUTS, journaledSale, type CoreOnSandbox } from './fixtures/core.ts';
import { waitFor, type ServiceControl } from './fixtures/service.ts';

/**
 * The follow-up loop and the creates it sends again: what a refusal of a retry may conclude,
 * what one held create may block, what the loop keeps in memory. The core runs on its
 * embedded sandbox; faults are injected at the service; time moves only through the sandbox
 * clock and the loop is driven with `terminal.tick()` (its own timer runs too).
 */
let app: CoreOnSandbox;
let core: Core;
let svc: ServiceControl;
const log = memoryLogger(systemClock);
const CREATE = { target: 'route', method: 'POST', path: '/v2/create_dynamic_pix' } as const;

// Its held creates wait for the client's timeout: the short one (fixtures/core.ts).
coreOnSandboxForFile(
  'follow-up',
  log,
  (started) => {
    app = started;
    ({ core, svc } = started);
  },
  { serviceTimeouts: HELD_REQUEST_TIMEOUTS },
);

afterEach(async () => {
  await svc('PUT', '/_sandbox/gateway', { printed_disabled: false });
  await app.settle();
});

const charge = (checkoutId: number, amountCents: number) => core.terminal.charge({ storeId: 1, checkoutId, amountCents, by: 'ana' });
const saleOf = (saleId: string): Promise<Sale> => journaledSale(core, saleId);
const seqOf = async (saleId: string, type: string): Promise<number | undefined> => (await core.journal.eventsForSale(saleId)).find((e) => e.type === type && (e.data.events as Array<{ sale_id?: string }>)[0]?.sale_id === saleId)?.seq;
/** How many of a sale's creates the service refused for certain, from the terminal's log. */
const refusals = (saleId: string) =>
  log.lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'sale create failed' && l.saleId === saleId && l.outcome === 'not_created').length;
/** A pass of the loop that starts after this call: one already running is waited for first. */
const freshTick = async () => {
  await core.terminal.tick();
  await core.terminal.tick();
};

describe('a refused retry of a create whose outcome was unknown', () => {
  it('keeps the sale uncertain and the earlier sale displaced: the service may have ignored the Idempotency-Key', async () => {
    const earlier = (await charge(1, 1000)).newest?.sale_id ?? '';
    // From now on every printed create is refused for certain (503 printed_qr_disabled)...
    await svc('PUT', '/_sandbox/gateway', { printed_disabled: true });
    // ...but this one's four attempts meet 502s first: it ends uncertain, as after a timeout.
    await svc('POST', '/_sandbox/faults', { ...CREATE, fault: 'http_502', count: 4 });
    const uncertain = await charge(1, 1200);
    const saleId = uncertain.newest?.sale_id ?? '';
    expect(uncertain.screen).toEqual({ kind: 'uncertain', sale_id: saleId });
    expect(await saleOf(earlier)).toMatchObject({ status: 'displaced', displaced_by: saleId });

    // The follow-up loop sends it again with the same key and the service refuses it; then,
    // its next retry due, again (which also proves the first one's outcome step is over).
    // Each retry is made due by moving the service's clock past its wait (10 s), the first
    // one too, rather than waiting for it in real time.
    let advancedFor = -1;
    await waitFor(async () => (refusals(saleId) >= 2 ? true : undefined), 'two refused retries', {
      between: async () => {
        if (refusals(saleId) > advancedFor) {
          advancedFor = refusals(saleId);
          await svc('POST', '/_sandbox/clock/advance', { seconds: 11 });
        }
        await core.terminal.tick();
      },
    });
    // Contract 2: had the key been ignored, the first attempt may exist at the service and be
    // its newest sale, so the refusal proves nothing: no `failed`, no earlier QR reinstated.
    expect(await saleOf(saleId)).toMatchObject({ status: 'uncertain' });
    expect(await saleOf(earlier)).toMatchObject({ status: 'displaced', displaced_by: saleId, reinstated_from: [] });
    const view = await core.terminal.checkoutView({ storeId: 1, checkoutId: 1 });
    expect(view.screen).toEqual({ kind: 'uncertain', sale_id: saleId });
    expect((await core.journal.eventsForSale(saleId)).map((e) => e.type)).not.toContain('sale.create_failed');
  }, 60_000);
});

describe('a create held by the service', () => {
  it('does not stall the other checkouts: a sale on another checkout expires while the retry is still held, and one create is sent at a time', async () => {
    const other = (await charge(2, 700)).newest?.sale_id ?? '';
    // Most of the other sale's life passes first: the held create below is answered within its
    // own 5 minutes (a later answer would be a sale for a customer gone: late-create.int.test.ts).
    await svc('POST', '/_sandbox/clock/advance', { seconds: 250 });
    await freshTick();
    // Four 502s: the charge ends uncertain. The loop's retry is then held unanswered until the
    // client's timeout, and its next attempt creates the sale.
    await svc('POST', '/_sandbox/faults', { ...CREATE, fault: 'http_502', count: 4 });
    await svc('POST', '/_sandbox/faults', { ...CREATE, fault: 'timeout', count: 1 });
    const held = (await charge(1, 900)).newest?.sale_id ?? '';
    // The loop's retry is due 10 s after the charge: the service's clock moves past it.
    await svc('POST', '/_sandbox/clock/advance', { seconds: 11 });
    void core.terminal.tick();
    await waitFor(async () => ((await svc.faults()).length === 0 ? true : undefined), 'the retried create to be held');
    // While it is held, a charge on its checkout waits (one create in flight per checkout).
    await expect(charge(1, 950)).rejects.toMatchObject({ code: 'conflict' });

    // The other checkout's sale is past its expiry; the loop runs while the create is held.
    await svc('POST', '/_sandbox/clock/advance', { seconds: 150 });
    await freshTick();
    expect(await saleOf(other)).toMatchObject({ status: 'expired' });

    const created = await waitFor(async () => {
      const s = await saleOf(held);
      return s.status === 'pending' ? s : undefined;
    }, 'the held create to be answered', { timeoutMs: 30_000 });
    // The expiry was journaled before the held create's answer: nothing waited for it.
    expect(await seqOf(other, 'sale.expired')).toBeLessThan((await seqOf(held, 'sale.created')) ?? 0);
    expect((await svc.sales(1, 1)).filter((s) => s.amount_brl === '9.00')).toMatchObject([{ pix_id: created.pix_id }]);
  }, 60_000);
});

describe('what the loop keeps per sale', () => {
  it('drops the poll schedule of a sale paid by webhook and of a displaced sale', async () => {
    const followed = () => core.terminal.stats().followed;
    const base = followed();
    const paid = (await charge(1, 1100)).newest?.sale_id ?? '';
    // Past the first poll: Tx Status says pending, the next poll is scheduled.
    await svc('POST', '/_sandbox/clock/advance', { seconds: 5 });
    await freshTick();
    expect(followed()).toBe(base + 1);
    await svc('POST', '/_sandbox/pay', { store_id: 1, checkout_id: 1 });
    await waitFor(async () => ((await saleOf(paid)).status === 'paid' ? true : undefined), 'the webhook to pay the sale');
    await freshTick();
    expect(followed()).toBe(base);

    const displaced = (await charge(1, 1200)).newest?.sale_id ?? '';
    await svc('POST', '/_sandbox/clock/advance', { seconds: 5 });
    await freshTick();
    expect(followed()).toBe(base + 1);
    const newest = (await charge(1, 1250)).newest?.sale_id ?? '';
    expect(await saleOf(displaced)).toMatchObject({ status: 'displaced', displaced_by: newest });
    await svc('POST', '/_sandbox/pay', { store_id: 1, checkout_id: 1 });
    await waitFor(async () => ((await saleOf(newest)).status === 'paid' ? true : undefined), 'the webhook to pay the newest sale');
    await freshTick();
    // Neither the displaced sale (read once at most, then left to webhooks) nor the paid one is followed.
    expect(followed()).toBe(base);
  }, 60_000);
});
