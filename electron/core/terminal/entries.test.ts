import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import type { JournalPort } from '../journal/port.ts';
import { openJournal } from '../journal/journal.ts';
import { planCharge, planCreateOutcome } from '../sales/checkout.ts';
import type { PaymentReceived, Sale } from '../sales/lifecycle.ts';
import { claimedKeys, OPERATOR_ACTIONS, paymentFact, reduceSaleRow, saleFact, saleRowKeys, type SaleRow } from './entries.ts';

/**
 * How sale facts fold into the journal's view: the real reducer and index keys, on a real
 * journal in a temp dir, fed the events the pure lifecycle plans.
 */
let dir = '';
let clock: ManualClock;
let journal: JournalPort<SaleRow>;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pos-entries-'));
  clock = new ManualClock(Date.UTC(2026, 10, 21, 13, 45));
  journal = await openJournal<SaleRow>({ dir, clock, reduceSale: reduceSaleRow, saleKeys: saleRowKeys, operatorActions: OPERATOR_ACTIONS });
});
afterEach(async () => {
  await journal.close();
  await rm(dir, { recursive: true, force: true });
});

const sales = async (): Promise<Sale[]> => (await journal.sales.byCheckout(1, 1)).map((r) => r.sale);

/** Plans and journals a charge the way the terminal does: the intent and its displacements in one entry. */
async function charge(saleId: string, amountCents: number, shiftId?: string): Promise<void> {
  const plan = planCharge(await sales(), { sale_id: saleId, idempotency_key: `key-${saleId}`, store_id: 1, checkout_id: 1, amount_cents: amountCents, requested_by: 'ana', at: clock.now() });
  if (!plan.ok) throw new Error(`charge refused: ${plan.reason}`);
  await journal.append([saleFact(plan.events, shiftId === undefined ? {} : { shift_id: shiftId })]);
}

async function created(saleId: string): Promise<void> {
  const events = planCreateOutcome(await sales(), saleId, {
    kind: 'created', pix_id: `pix_${saleId}`, service_id: `svc_${saleId}`, qr_type: 'printed_dynamic', emv: 'emv', pqr_emv: 'pqr',
    created_at: clock.now(), expires_at: clock.now() + 300_000,
  }, clock.now());
  await journal.append([saleFact(events)]);
}

describe('the shift of a sale', () => {
  it('is the shift the sale was rung up in, not the shift of the sale that displaced it', async () => {
    // Rung up before any shift was open...
    await charge('before-shift', 1000);
    await created('before-shift');
    // ...then corrected in a shift: the same entry displaces the earlier sale.
    await charge('in-shift', 1200, 'shift-1');
    const entry = (await journal.eventsForSale('before-shift')).at(-1);
    expect(entry).toMatchObject({ type: 'sale.requested', data: { shift_id: 'shift-1', sale_ids: ['in-shift', 'before-shift'] } });

    expect(await journal.sales.get('before-shift')).toEqual({ sale: expect.objectContaining({ status: 'displaced' }) });
    expect(await journal.sales.get('in-shift')).toMatchObject({ shift_id: 'shift-1' });
    expect((await journal.sales.byShift('shift-1')).map((r) => r.sale.sale_id)).toEqual(['in-shift']);
  });
});

describe('the view’s bounded indexes', () => {
  it('holds a sale as displaceable while a newer sale would displace it, and as needing a person until acknowledged', async () => {
    const displaceable = async () => (await journal.sales.displaceable(1, 1)).map((r) => r.sale.sale_id).sort();
    const needing = async () => (await journal.sales.needingPerson(1, 1)).map((r) => r.sale.sale_id);

    await charge('a', 1000);
    expect(await displaceable()).toEqual(['a']);
    await created('a');
    clock.advance(1_000);
    // b's intent displaces a provisionally: a stays displaceable until b's 201 confirms it.
    await charge('b', 1100);
    expect(await displaceable()).toEqual(['a', 'b']);
    await created('b');
    expect(await displaceable()).toEqual(['b']);
    expect(await needing()).toEqual([]);

    // Paid short: a person must see it.
    const paid: PaymentReceived = { type: 'payment.received', source: 'webhook', webhook_id: 'msg_b', pix_id: 'pix_b', service_id: 'svc_b', amount_brl: '5.00', paid_at: clock.now(), e2e_id: 'E1', at: clock.now() };
    await journal.recordWebhook('msg_b', paymentFact(paid, 'b'));
    expect(await displaceable()).toEqual([]);
    expect(await needing()).toEqual(['b']);
    expect(await journal.sales.needingPerson(1, 2)).toEqual([]);
    await journal.append([saleFact([{ type: 'sale.acknowledged', sale_id: 'b', reason: 'amount_mismatch', subject: '', by: 'Rui', at: clock.now() }], { by: 'Rui' })]);
    expect(await needing()).toEqual([]);
  });

  it('reads the checkout’s newest sales, at most the count asked, from a time on', async () => {
    for (const id of ['s1', 's2', 's3', 's4']) {
      await charge(id, 1000);
      await created(id);
      clock.advance(60_000);
    }
    const ids = (rows: SaleRow[]) => rows.map((r) => r.sale.sale_id);
    expect(ids(await journal.sales.recentOnCheckout(1, 1, 2))).toEqual(['s4', 's3']);
    expect(ids(await journal.sales.recentOnCheckout(1, 1, 10))).toEqual(['s4', 's3', 's2', 's1']);
    expect(ids(await journal.sales.recentOnCheckout(1, 1, 10, clock.now() - 150_000))).toEqual(['s4', 's3']);
    expect(await journal.sales.recentOnCheckout(1, 1, 0)).toEqual([]);
    expect(await journal.sales.recentOnCheckout(1, 2, 5)).toEqual([]);
  });
});

describe('the keys an entry claims', () => {
  it('claims the Idempotency-Key of the sale it rings up, and of none it only displaces', async () => {
    await charge('s1', 1000);
    await created('s1');
    await charge('s2', 1200);
    const [second] = await journal.eventsOfType('sale.requested').then((entries) => entries.slice(-1));
    expect(second!.data.sale_ids).toEqual(['s2', 's1']);
    expect(claimedKeys(second!)).toEqual({ idempotencyKeys: [{ key: 'key-s2', saleId: 's2' }] });
  });

  it('claims the settlement a settlement.settled announces, and nothing for a payment', async () => {
    const at = { seq: 1, prev: '0'.repeat(64), hash: '0'.repeat(64), at: 0 };
    expect(claimedKeys({ ...at, type: 'settlement.settled', data: { settlement_id: 42, webhook_id: 'wh-1' } })).toEqual({ settlementId: 42 });
    expect(claimedKeys({ ...at, type: 'settlement.settled', data: { settlement_id: '42' } })).toEqual({});
    expect(claimedKeys({ ...at, type: 'charge.paid', data: { sale_ids: ['s1'], events: [{ type: 'charge.paid', sale_id: 's1' }] } })).toEqual({});
  });
});
