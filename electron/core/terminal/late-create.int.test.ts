import { describe, expect, it } from 'vitest';
import { systemClock } from '../../shared/clock.ts';
import type { Core } from '../core.ts';
import { memoryLogger } from '../log.ts';
import { APP_WITHDRAWER } from '../sales/checkout.ts';
import { coreOnSandboxForFile } from './fixtures/core.ts';
import { waitFor, type ServiceControl } from './fixtures/service.ts';

/**
 * A create whose first attempt never reached the service, resent by the follow-up after the
 * sale's 5-minute life (the core down, the service unreachable): the service makes a NEW
 * sale then, payable by the printed QR, for a customer who has long gone. The app journals
 * its ids (a payment must reach it) and withdraws it in the same entry: its QR is never
 * shown, and a payment of it is a payment of a withdrawn sale, for a person.
 */
const log = memoryLogger(systemClock);
let core: Core;
let svc: ServiceControl;
const CREATE = { target: 'route', method: 'POST', path: '/v2/create_dynamic_pix' } as const;
coreOnSandboxForFile('late-create', log, (app) => ({ core, svc } = app), { secondCheckout: false });

describe('a create resent after its sale’s life made a new sale', () => {
  it('is withdrawn at once: no QR on either screen, and its payment goes to a person', async () => {
    // Never processed: every attempt of the charge and of the follow-up's resends answers 503.
    await svc('POST', '/_sandbox/faults', { ...CREATE, fault: 'http_503', count: 1000 });
    const view = await core.terminal.charge({ storeId: 1, checkoutId: 1, amountCents: 2345, by: 'ana' });
    const saleId = view.newest?.sale_id ?? '';
    expect(view.newest?.status).toBe('uncertain');
    // Ten minutes pass with the service unreachable; then it answers again.
    await svc('POST', '/_sandbox/clock/advance', { seconds: 600 });
    await core.terminal.tick();
    await svc('DELETE', '/_sandbox/faults');
    const sale = await waitFor(
      async () => {
        const d = await core.terminal.saleDetail(saleId);
        return d?.sale.pix_id ? d.sale : undefined;
      },
      'the resent create to learn the sale’s ids',
      { between: () => core.terminal.tick() },
    );
    expect(sale.status).toBe('withdrawn');
    const detail = await core.terminal.saleDetail(saleId);
    const entry = detail?.events.find((e) => e.type === 'sale.created');
    // One entry holds the 201 and the withdrawal: a crash between them cannot show its QR.
    expect((entry?.data as { events: { type: string; by?: string }[] }).events.map((e) => e.type)).toEqual(['sale.created', 'sale.withdrawn']);
    expect((entry?.data as { events: { by?: string }[] }).events[1]?.by).toBe(APP_WITHDRAWER);
    const screen = (await core.terminal.checkoutView({ storeId: 1, checkoutId: 1 })).screen;
    expect(screen.kind).not.toBe('qr');
    expect(JSON.stringify(screen)).not.toContain('000201');

    // The service's sale is payable all the same: a payer scanning the poster pays it.
    const paid = await svc('POST', '/_sandbox/pay', { store_id: 1, checkout_id: 1 });
    expect(paid.status).toBe(200);
    const after = await waitFor(
      async () => {
        const d = await core.terminal.saleDetail(saleId);
        return d?.sale.status === 'paid_late' ? d.sale : undefined;
      },
      'the payment to reach the withdrawn sale',
      { between: () => core.terminal.tick() },
    );
    expect(after.description.attention.map((a) => a.reason)).toEqual(['paid_withdrawn']);
  });
});
