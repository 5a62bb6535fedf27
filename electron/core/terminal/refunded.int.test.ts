import { describe, expect, it } from 'vitest';
import { systemClock } from '../../shared/clock.ts';
import { FIXTURE_TOKENS } from '../../sandbox/fixture.ts';
import type { Core } from '../core.ts';
import { memoryLogger } from '../log.ts';
import { coreOnSandboxForFile } from './fixtures/core.ts';
import { waitFor, type ServiceControl } from './fixtures/service.ts';

/**
 * Refunded is not Paid (contract 3: Tx Status `refunded`). A sale paid while its webhooks
 * were lost, then refunded in full at the service, is learnt by the core's Tx Status
 * follow-up: it reads Refunded in the checkout view, the sale detail, the shift totals and
 * the CSV, and its money is counted apart: received, refunded and net (what the store kept).
 */
const log = memoryLogger(systemClock);
let core: Core;
let svc: ServiceControl;
coreOnSandboxForFile('refunded', log, (app) => ({ core, svc } = app), { secondCheckout: false });

describe('a sale refunded at the service', () => {
  it('reads Refunded everywhere, and its money is received, then refunded, and not in the net', async () => {
    await core.openShift('Marta', undefined);
    // A sale paid the ordinary way, for the totals to tell apart.
    const kept = (await core.charge({ by: 'Marta', amountCents: 1500 })).newest?.sale_id ?? '';
    expect((await svc('POST', '/_sandbox/pay', { store_id: 1, checkout_id: 1 })).status).toBe(200);
    await waitFor(async () => ((await core.terminal.saleDetail(kept))?.sale.status === 'paid' ? true : undefined), 'the first sale to be paid');

    // The second sale's charge.paid and charge.done never arrive: Tx Status is all the core learns from.
    await svc('POST', '/_sandbox/faults', { target: 'webhooks', fault: 'drop', count: 2 });
    const saleId = (await core.charge({ by: 'Marta', amountCents: 1000 })).newest?.sale_id ?? '';
    const paid = await svc('POST', '/_sandbox/pay', { store_id: 1, checkout_id: 1 });
    expect(paid.status).toBe(200);
    const refund = await fetch(`${core.status().service.baseUrl}/v2/pay_in_refunds/request`, {
      method: 'POST',
      headers: { authorization: `Bearer ${FIXTURE_TOKENS.manager}`, 'content-type': 'application/json' },
      body: JSON.stringify({ service_id: paid.body.service_id }),
    });
    expect(refund.status).toBe(201);
    expect((await svc.sales(1, 1)).find((s) => s.pix_id === paid.body.pix_id)?.status).toBe('refunded');

    const detail = await waitFor(
      async () => {
        const d = await core.terminal.saleDetail(saleId);
        return d?.sale.status === 'refunded' ? d : undefined;
      },
      'the follow-up to learn the refund from Tx Status',
      { between: async () => {
        await svc('POST', '/_sandbox/clock/advance', { seconds: 5 });
        await core.terminal.tick();
      } },
    );
    expect(detail.sale).toMatchObject({ status: 'refunded', received_cents: 1000, received_total_cents: 0, refunded_cents: 1000, description: { key: 'sale.refunded', needs_person: false } });
    expect(detail.events.some((e) => e.type === 'payment.received' && (e.data as { events: Array<{ refunded?: boolean }> }).events[0]?.refunded === true)).toBe(true);

    const view = await core.terminal.checkoutView({ storeId: 1, checkoutId: 1 });
    expect(view.recent.find((s) => s.sale_id === saleId)?.status).toBe('refunded');
    expect(view.screen).toEqual({ kind: 'settled', sale_id: saleId, status: 'refunded' });

    const report = await core.shifts.report({});
    expect(report.totals).toMatchObject({ count: 2, paid: 1, refunded: 1, received_cents: 2500, refunded_cents: 1000, net_cents: 1500 });
    // Given back in full before any settlement took it: only the kept sale waits for one.
    expect(report.settlement).toMatchObject({ received_cents: 2500, refunded_cents: 1000, settled: 0, awaiting: 1, awaiting_cents: 1500 });
    expect((await core.shifts.report({ outcome: 'refunded' })).sales.map((s) => s.sale_id)).toEqual([saleId]);
    const { csv } = await core.shifts.exportCsv(undefined);
    const [header, ...rows] = csv.split('\r\n');
    const cell = (name: string) => rows.find((line) => line.startsWith(saleId))?.split(',')[header!.split(',').indexOf(name)];
    expect(cell('status')).toBe('refunded');
    expect(cell('refunded_brl')).toBe('10.00');
  });
});
