import { describe, expect, it } from 'vitest';
import { systemClock } from '../../shared/clock.ts';
import { FIXTURE_TOKENS } from '../../sandbox/fixture.ts';
import type { Core } from '../core.ts';
import { memoryLogger } from '../log.ts';
import { waitFor, type ServiceControl } from './fixtures/service.ts';
import { coreOnSandboxForFile } from './fixtures/core.ts';

/**
 * What needs a person stays on the cashier's view however old it is, until a person
 * acknowledges it. The core runs on its embedded sandbox; days pass on the sandbox clock.
 */
let core: Core;
let svc: ServiceControl;
coreOnSandboxForFile('attention', memoryLogger(systemClock), (app) => ({ core, svc } = app), { secondCheckout: false });

const view = () => core.terminal.checkoutView({ storeId: 1, checkoutId: 1 });

describe('the cashier view', () => {
  it('keeps a sale that needs a person in its attention list past a day, and drops it once acknowledged', async () => {
    const saleId = (await core.terminal.charge({ storeId: 1, checkoutId: 1, amountCents: 1000, by: 'ana' })).newest?.sale_id ?? '';
    // Something this terminal did not create takes the checkout (another till, a script):
    // the service displaces our sale and Tx Status stops knowing it (contract 3).
    const other = await fetch(`${core.status().service.baseUrl}/v2/create_dynamic_pix`, {
      method: 'POST',
      headers: { authorization: `Bearer ${FIXTURE_TOKENS.manager}`, 'content-type': 'application/json' },
      body: JSON.stringify({ amount: '3.00', store_id: 1, checkout_id: 1 }),
    });
    expect(other.status).toBe(201);
    await svc('POST', '/_sandbox/clock/advance', { seconds: 5 });
    const sale = await waitFor(async () => {
      const s = (await core.journal.sales.get(saleId))?.sale;
      return s?.status === 'displaced' ? s : undefined;
    }, 'Tx Status to find the sale displaced', { between: () => core.terminal.tick() });
    expect(sale.attention).toEqual([{ reason: 'displaced_unknown', subject: '' }]);
    expect((await view()).attention.map((s) => s.sale_id)).toEqual([saleId]);

    // A day and more later, and a sale after it, it is still what needs a person here.
    await svc('POST', '/_sandbox/clock/advance', { seconds: 25 * 3600 });
    const next = (await core.terminal.charge({ storeId: 1, checkoutId: 1, amountCents: 500, by: 'ana' })).newest?.sale_id;
    const later = await view();
    expect(later.newest?.sale_id).toBe(next);
    expect(later.attention.map((s) => s.sale_id)).toEqual([saleId]);
    expect(later.attention[0]?.description).toMatchObject({ needs_person: true, attention: [{ key: 'attention.displaced_unknown' }] });

    const acked = await core.terminal.acknowledge({ saleId, reason: 'displaced_unknown', subject: '', by: 'supervisor Rui' });
    expect(acked.description.needs_person).toBe(false);
    expect((await view()).attention).toEqual([]);
    expect(await core.journal.sales.needingPerson(1, 1)).toEqual([]);
  }, 60_000);
});
