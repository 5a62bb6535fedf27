import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../shared/clock.ts';
import { FIXTURE_TOKENS } from '../../sandbox/fixture.ts';
import type { Core } from '../core.ts';
import { CoreError } from '../errors.ts';
import { memoryLogger } from '../log.ts';
import { dispatcherAs, sessionAs } from '../operators/fixtures/sign-in.ts';
import { coreOnSandboxForFile, HELD_REQUEST_TIMEOUTS, startCoreOnSandbox, type CoreOnSandbox } from './fixtures/core.ts';
import { waitFor, type ServiceControl } from './fixtures/service.ts';

/**
 * Refunds (contract 5) against the embedded sandbox over real HTTP: the supervisor's refund
 * of part, then the rest; an amount over what is left refused before anything is sent; an
 * unknown outcome asked again with the same Idempotency-Key and refunded exactly once; a
 * refund made outside the app learnt from Tx Status. The service's side is read through
 * its public API (Tx Status, and a refund request that asks one cent too much: its 422
 * names what is left), never through the app alone.
 */
const log = memoryLogger(systemClock);
let app: CoreOnSandbox;
let core: Core;
let svc: ServiceControl;
const REFUND = { target: 'route', method: 'POST', path: '/v2/pay_in_refunds/request' } as const;

coreOnSandboxForFile(
  'refunds',
  log,
  async (started) => {
    app = started;
    ({ core, svc } = started);
    await core.openShift('Marta', undefined);
  },
  // Its held refund waits for the client's timeout: the short one (fixtures/core.ts).
  { secondCheckout: false, serviceTimeouts: HELD_REQUEST_TIMEOUTS },
);
afterEach(() => app.settle());

/** A sale charged and paid by webhook (on `on`, the first app unless told); its ids at the service. */
async function paidSale(amountCents: number, on: CoreOnSandbox = app): Promise<{ saleId: string; pixId: string; serviceId: string }> {
  const saleId = (await on.core.charge({ by: 'Caio', amountCents })).newest?.sale_id ?? '';
  expect((await on.svc('POST', '/_sandbox/pay', { store_id: 1, checkout_id: 1 })).status).toBe(200);
  const sale = await waitFor(async () => {
    const d = await on.core.terminal.saleDetail(saleId);
    return d?.sale.status === 'paid' ? d.sale : undefined;
  }, 'the sale to be paid');
  return { saleId, pixId: sale.pix_id ?? '', serviceId: sale.service_id ?? '' };
}

/** Ticks the follow-up, the clock moving `seconds` between passes, until the sale's first refund reads `state`. */
function refundReaches(on: CoreOnSandbox, saleId: string, state: string, seconds: number) {
  return waitFor(
    async () => {
      const d = await on.core.terminal.saleDetail(saleId);
      return d?.sale.refunds[0]?.state === state ? d : undefined;
    },
    `the refund to be ${state}`,
    { between: async () => {
      await on.svc('POST', '/_sandbox/clock/advance', { seconds });
      await on.core.terminal.tick();
    } },
  );
}

const api = (path: string, init: { method?: string; body?: unknown } = {}, on: CoreOnSandbox = app) =>
  fetch(`${on.core.status().service.baseUrl}${path}`, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${FIXTURE_TOKENS.supervisor}`, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });

const txStatus = async (pixId: string) => ((await (await api(`/v2/tx_status/${pixId}`)).json()) as { status: string }).status;

/**
 * What the service still would refund, read through its public API: a request for more than
 * the charge could ever have left is always refused (contract 5: 422) and refunds nothing;
 * its validation item names the bound (reference 7: `less_than_equal`, ctx.le).
 */
async function leftAtService(serviceId: string, on: CoreOnSandbox = app): Promise<string | null> {
  const res = await api('/v2/pay_in_refunds/request', { method: 'POST', body: { service_id: serviceId, amount: '999999.99' } }, on);
  expect(res.status).toBe(422);
  const body = (await res.json()) as { detail: { type: string; ctx?: { le?: string } }[] };
  return body.detail[0]?.type === 'less_than_equal' ? (body.detail[0].ctx?.le ?? null) : null;
}

describe('a supervisor refunds a paid sale', () => {
  it('part, then the rest: Partly refunded, then Refunded, in every view and at the service', async () => {
    const { saleId, pixId, serviceId } = await paidSale(1000);
    const supervisor = await dispatcherAs(core, await sessionAs(core, 'supervisor', 'Rui'));

    const part = await supervisor('sale.refund', { saleId, amountCents: 400, reason: 'one item returned' });
    expect(part).toMatchObject({ ok: true, result: { sale: { status: 'partly_refunded', refunded_cents: 400, received_total_cents: 600, refundable_cents: 600 } } });
    expect(await leftAtService(serviceId)).toBe('6.00');
    expect(await txStatus(pixId)).toBe('paid');

    // The intent was journaled in the supervisor's name, with its key, before the answer.
    const events = (await core.terminal.saleDetail(saleId))?.events ?? [];
    const intent = events.find((e) => e.type === 'refund.requested');
    expect(intent?.data).toMatchObject({ by: 'Rui', events: [{ amount_cents: 400, reason: 'one item returned', requested_by: 'Rui' }] });
    expect((intent?.data as { events: { idempotency_key: string }[] }).events[0]?.idempotency_key).toMatch(/^[\x21-\x7e]{1,255}$/);
    expect(events.map((e) => e.type).slice(-2)).toEqual(['refund.requested', 'refund.made']);

    let view = await core.terminal.checkoutView({ storeId: 1, checkoutId: 1 });
    expect(view.recent.find((s) => s.sale_id === saleId)?.status).toBe('partly_refunded');
    let report = await core.shifts.report({});
    expect(report.totals).toMatchObject({ partly_refunded: 1, refunded_cents: 400 });
    const netBefore = report.totals.net_cents;

    const rest = await supervisor('sale.refund', { saleId, amountCents: 600 });
    expect(rest).toMatchObject({ ok: true, result: { sale: { status: 'refunded', refunded_cents: 1000, received_total_cents: 0, refundable_cents: 0 } } });
    expect(await txStatus(pixId)).toBe('refunded');

    view = await core.terminal.checkoutView({ storeId: 1, checkoutId: 1 });
    expect(view.recent.find((s) => s.sale_id === saleId)?.status).toBe('refunded');
    report = await core.shifts.report({});
    expect(report.totals).toMatchObject({ partly_refunded: 0, refunded_cents: 1000, net_cents: netBefore - 600 });
    const [header, ...rows] = (await core.shifts.exportCsv(undefined)).csv.split('\r\n');
    const cell = (name: string) => rows.find((line) => line.startsWith(saleId))?.split(',')[header!.split(',').indexOf(name)];
    expect(cell('status')).toBe('refunded');
    expect(cell('refunded_brl')).toBe('10.00');

    // Nothing is left: a further refund is refused in words, and nothing is sent.
    expect(await supervisor('sale.refund', { saleId, amountCents: 1 })).toMatchObject({ ok: false, error: { code: 'conflict', params: { problem: 'refund_nothing_left' } } });
  });

  it('a cashier may not refund', async () => {
    const { saleId } = await paidSale(500);
    const cashier = await dispatcherAs(core, await sessionAs(core, 'cashier'));
    expect(await cashier('sale.refund', { saleId, amountCents: 100 })).toMatchObject({ ok: false, error: { code: 'forbidden', params: { role: 'supervisor' } } });
    expect((await core.terminal.saleDetail(saleId))?.sale.status).toBe('paid');
  });

  it('more than is left is refused with a sentence, and nothing reaches the service', async () => {
    const { saleId, serviceId } = await paidSale(1000);
    await core.terminal.refund({ saleId, amountCents: 300, by: 'Rui' });
    // Armed on the refund route: a request sent would consume it.
    await svc('POST', '/_sandbox/faults', { ...REFUND, fault: 'http_503', count: 1 });
    const refused = await core.terminal.refund({ saleId, amountCents: 701, by: 'Rui' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(CoreError);
    expect(refused).toMatchObject({ code: 'invalid_argument', params: { problem: 'refund_amount_too_large', left_cents: 700 } });
    expect((refused as Error).message).toBe('At most R$ 7.00 is left to refund on this sale; nothing was sent.');
    expect(await svc.faults()).toMatchObject([{ remaining: 1 }]);
    await svc('DELETE', '/_sandbox/faults');
    const detail = await core.terminal.saleDetail(saleId);
    expect(detail?.events.filter((e) => e.type === 'refund.requested')).toHaveLength(1);
    expect(detail?.sale).toMatchObject({ status: 'partly_refunded', refundable_cents: 700 });
    expect(await leftAtService(serviceId)).toBe('7.00');
  });

  it.each(['lost_response', 'http_502', 'http_503', 'http_500', 'timeout'] as const)(
    'an unknown outcome (%s), where the service ignores refund keys: never asked again by itself; a supervisor answers and the service refunds once',
    async (fault) => {
      const { saleId, serviceId } = await paidSale(1000);
      // The service ignores refund keys (contract 5 promises nothing): a repeat would be a second refund.
      await svc('POST', '/_sandbox/faults', { ...REFUND, fault, count: 1 });
      await svc('POST', '/_sandbox/faults', { target: 'idempotency', method: 'POST', path: REFUND.path, fault: 'ignore_key', count: 1000 });
      const sale = await core.terminal.refund({ saleId, amountCents: 400, by: 'Rui' });
      expect(sale.sale).toMatchObject({ status: 'paid', refundable_cents: 0, refunds: [{ amount_cents: 400, state: 'uncertain', requested_by: 'Rui' }] });
      // One at a time: while its outcome is unknown, no other refund of the sale is asked for.
      await expect(core.terminal.refund({ saleId, amountCents: 100, by: 'Rui' })).rejects.toMatchObject({ params: { problem: 'refund_open' } });
      const reached = fault === 'lost_response';
      const left = reached ? '6.00' : '10.00';

      // Two days of follow-up: the key's window passes too, and nothing is ever sent again.
      await refundReaches(app, saleId, 'unconfirmed', 8 * 3600);
      for (let i = 0; i < 6; i++) {
        await svc('POST', '/_sandbox/clock/advance', { seconds: 8 * 3600 });
        await core.terminal.tick();
      }
      const waiting = await core.terminal.saleDetail(saleId);
      expect(waiting?.sale).toMatchObject({ status: 'paid', refundable_cents: 0, refunds: [{ state: 'unconfirmed' }] });
      const item = waiting?.sale.description.attention.find((a) => a.reason === 'refund_not_confirmed');
      expect(item?.params).toMatchObject({ amount_cents: 400, service_id: serviceId, requested_by: 'Rui', why: 'keys_not_honoured' });
      // On every supervisor's list, wherever the sale was rung up.
      expect((await core.terminal.attentionEverywhere()).some((s) => s.sale_id === saleId)).toBe(true);
      expect(await leftAtService(serviceId)).toBe(left);
      // Not a plain acknowledgement: only a supervisor's answer ends it.
      await expect(core.terminal.acknowledge({ saleId, reason: 'refund_not_confirmed', subject: item?.subject ?? '', by: 'Rui' })).rejects.toMatchObject({ params: { problem: 'answer_not_acknowledge' } });

      const refundId = item?.subject ?? '';
      let answered;
      if (reached) {
        // The supervisor finds the refund at the service: It was refunded.
        answered = await core.terminal.refundWasMade({ saleId, refundId, by: 'Lia' });
        expect(answered.events.find((e) => e.type === 'refund.made')?.data).toMatchObject({ by: 'Lia', events: [{ confirmed_by: 'Lia', refunded_cents: 400 }] });
      } else {
        // Send again names its amount: another sum is refused and nothing is sent.
        await expect(core.terminal.refundSendAgain({ saleId, refundId, amountCents: 500, by: 'Lia' })).rejects.toMatchObject({ params: { problem: 'refund_amount_differs' } });
        expect(await leftAtService(serviceId)).toBe('10.00');
        answered = await core.terminal.refundSendAgain({ saleId, refundId, amountCents: 400, by: 'Lia' });
        const resent = answered.events.find((e) => e.type === 'refund.resent');
        expect(resent?.data).toMatchObject({ by: 'Lia', events: [{ by: 'Lia' }] });
        // A new key: the first attempt's is never reused once a person decided to send again.
        const keys = answered.events.filter((e) => e.type.startsWith('refund.')).flatMap((e) => (e.data as { events?: { idempotency_key?: string }[] }).events ?? []).map((x) => x.idempotency_key).filter(Boolean);
        expect(new Set(keys).size).toBe(2);
      }
      expect(answered.sale).toMatchObject({ status: 'partly_refunded', refunded_cents: 400, refundable_cents: 600, refunds: [{ state: 'made' }] });
      expect(answered.sale.description.attention).toEqual([]);
      // Exactly one refund of 4.00 at the service.
      expect(await leftAtService(serviceId)).toBe('6.00');
      // Answered once: a second answer changes nothing.
      await expect(core.terminal.refundWasMade({ saleId, refundId, by: 'Lia' })).rejects.toMatchObject({ params: { problem: 'refund_not_unconfirmed' } });
    },
  );

  it('a cashier may not answer a refund not confirmed', async () => {
    const cashier = await dispatcherAs(core, await sessionAs(core, 'cashier'));
    for (const method of ['sale.refundWasMade', 'sale.refundSendAgain'] as const) {
      const answer = await cashier(method, { saleId: 'any', refundId: 'any', amountCents: 100 });
      expect(answer, method).toMatchObject({ ok: false, error: { code: 'forbidden', params: { role: 'supervisor' } } });
    }
  });

  it('a refund made outside the app is learnt from Tx Status when the app asks for what it thought was left', async () => {
    const { saleId, pixId, serviceId } = await paidSale(800);
    const outside = await api('/v2/pay_in_refunds/request', { method: 'POST', body: { service_id: serviceId } });
    expect(outside.status).toBe(201);
    expect(await txStatus(pixId)).toBe('refunded');

    const refused = await core.terminal.refund({ saleId, amountCents: 800, by: 'Rui' }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'conflict', params: { problem: 'refund_less_left' } });
    const detail = await core.terminal.saleDetail(saleId);
    expect(detail?.sale).toMatchObject({ status: 'refunded', refunded_cents: 800, received_total_cents: 0, refundable_cents: 0, refunds: [{ state: 'refused', error_code: 'refund_less_left' }] });
    expect(detail?.events.find((e) => e.type === 'refund.refused')?.data).toMatchObject({ events: [{ error: { status: 422 } }] });
  });

  it('a refund of an earlier shift’s sale is money given back in the shift it was made in; the closed shift stays as closed', async () => {
    const { saleId } = await paidSale(900);
    const closed = await core.closeShift('Marta', undefined, true);
    const frozen = (await core.shifts.report({ shiftId: closed.shift_id })).totals;
    await core.openShift('Marta', undefined);

    await core.terminal.refund({ saleId, amountCents: 250, by: 'Rui' });
    const now = await core.shifts.report({});
    expect(now.sales.map((s) => s.sale_id)).not.toContain(saleId);
    expect(now.carried_refunds_cents).toBe(250);
    expect(now.carried).toEqual([expect.objectContaining({ type: 'refund.made', sale_id: saleId, amount_cents: 250, sale_shift_id: closed.shift_id })]);
    expect(now.carried_cents).toBe(0);
    expect((await core.shifts.report({ shiftId: closed.shift_id })).totals).toEqual(frozen);
  });
});

describe('a provider known to honour refund keys (REFUND_KEYS.honoured)', () => {
  let keyed: CoreOnSandbox;
  beforeAll(async () => {
    keyed = await startCoreOnSandbox('refund-keys', log, { secondCheckout: false, refundKeys: { honoured: true, windowMs: 24 * 3_600_000 } });
    await keyed.core.openShift('Marta', undefined);
  }, 60_000);
  afterAll(() => keyed?.stop());
  afterEach(() => keyed.settle());

  it.each(['lost_response', 'http_502'] as const)('an unknown outcome (%s) is asked again with the same key inside its window and refunded exactly once', async (fault) => {
    const { saleId, serviceId } = await paidSale(1000, keyed);
    await keyed.svc('POST', '/_sandbox/faults', { ...REFUND, fault, count: 3 });
    const sale = await keyed.core.terminal.refund({ saleId, amountCents: 400, by: 'Rui' });
    expect(sale.sale).toMatchObject({ refunds: [{ state: 'uncertain' }] });
    const settled = await refundReaches(keyed, saleId, 'made', 11);
    expect(settled.sale).toMatchObject({ status: 'partly_refunded', refunded_cents: 400, refundable_cents: 600 });
    expect(settled.events.filter((e) => e.type === 'refund.requested')).toHaveLength(1);
    expect(await leftAtService(serviceId, keyed)).toBe('6.00');
  });

  it('past the key’s window it is not asked again: Refund not confirmed, for a supervisor', async () => {
    const { saleId, serviceId } = await paidSale(1000, keyed);
    // Every attempt fails without an answer, for longer than the service keeps the key.
    await keyed.svc('POST', '/_sandbox/faults', { ...REFUND, fault: 'http_502', count: 1000 });
    await keyed.core.terminal.refund({ saleId, amountCents: 400, by: 'Rui' });
    const waiting = await refundReaches(keyed, saleId, 'unconfirmed', 3 * 3600);
    expect(waiting.sale.description.attention).toMatchObject([{ reason: 'refund_not_confirmed', params: { why: 'key_expired' } }]);
    // It was asked again while the key was good (more than the first attempt), never after.
    const used = 1000 - ((await keyed.svc.faults()) as { remaining: number }[])[0]!.remaining;
    expect(used).toBeGreaterThan(1);
    for (let i = 0; i < 3; i++) {
      await keyed.svc('POST', '/_sandbox/clock/advance', { seconds: 3 * 3600 });
      await keyed.core.terminal.tick();
    }
    expect(1000 - ((await keyed.svc.faults()) as { remaining: number }[])[0]!.remaining).toBe(used);
    await keyed.svc('DELETE', '/_sandbox/faults');
    expect(await leftAtService(serviceId, keyed)).toBe('10.00');
  });
});
