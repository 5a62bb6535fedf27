import { describe, expect, it } from 'vitest';
import { systemClock } from '../../shared/clock.ts';
import type { Core } from '../core.ts';
import { CoreError } from '../errors.ts';
import { dispatcherAs, sessionAs } from '../operators/fixtures/sign-in.ts';
import { memoryLogger } from '../log.ts';
import { waitFor, type ServiceControl } from './fixtures/service.ts';
import { coreOnSandboxForFile } from './fixtures/core.ts';

/**
 * Withdrawing a sale and never inviting a second payment (issue 8, points 4 and 5), on the
 * real terminal over its embedded sandbox: the checkout's view is the one rule both the
 * cashier screen and the customer display obey.
 */
let core: Core;
let svc: ServiceControl;
coreOnSandboxForFile('withdraw', memoryLogger(systemClock), (app) => ({ core, svc } = app), { secondCheckout: false });

const checkout = { storeId: 1, checkoutId: 1 };
const view = () => core.terminal.checkoutView(checkout);
const saleOf = async (saleId: string) => (await core.journal.sales.get(saleId))?.sale;
const settledAs = (saleId: string, status: string) =>
  waitFor(async () => ((await saleOf(saleId))?.status === status ? saleOf(saleId) : undefined), `sale ${saleId} to be ${status}`, {
    between: () => core.terminal.tick(),
  });

describe('withdrawing a sale', () => {
  it('hides its QR everywhere, journals who withdrew it, and a payment that still comes needs a person; the next QR waits for them', async () => {
    const charged = await core.charge({ ...checkout, by: 'Ana', amountCents: 1000 });
    const saleId = charged.newest?.sale_id ?? '';
    expect(charged.screen.kind).toBe('qr');

    const after = await core.terminal.withdraw({ saleId, by: 'Ana' });
    expect(after.screen).toEqual({ kind: 'settled', sale_id: saleId, status: 'withdrawn' });
    expect(after.newest?.description).toMatchObject({ key: 'sale.withdrawn', params: { by: 'Ana' }, needs_person: false });
    const entry = (await core.journal.eventsForSale(saleId)).find((e) => e.type === 'sale.withdrawn');
    expect(entry?.data).toMatchObject({ by: 'Ana', events: [{ type: 'sale.withdrawn', sale_id: saleId, by: 'Ana' }] });

    // The service has no cancel: the customer can still pay it with the printed QR.
    await svc('POST', '/_sandbox/pay', { store_id: 1, checkout_id: 1 });
    const paid = await settledAs(saleId, 'paid_late');
    expect(paid?.attention).toEqual([{ reason: 'paid_withdrawn', subject: '' }]);
    const held = await view();
    expect(held.hold).toEqual({ items: [{ sale_id: saleId, reason: 'paid_withdrawn' }] });

    // A new sale while that payment waits for a person: its QR is shown nowhere.
    const next = await core.charge({ ...checkout, by: 'Ana', amountCents: 700 });
    const nextId = next.newest?.sale_id ?? '';
    expect(next.screen).toMatchObject({ kind: 'held', sale_id: nextId, amount_cents: 700 });
    expect(next.screen).not.toHaveProperty('emv');

    await core.terminal.acknowledge({ saleId, reason: 'paid_withdrawn', subject: '', by: 'Ana' });
    const freed = await view();
    expect(freed.hold).toBeNull();
    expect(freed.screen).toMatchObject({ kind: 'qr', sale_id: nextId });

    // Only a sale still waiting for payment can be withdrawn.
    await expect(core.terminal.withdraw({ saleId, by: 'Ana' })).rejects.toSatisfy((e) => e instanceof CoreError && e.code === 'conflict');
    await core.terminal.withdraw({ saleId: nextId, by: 'Ana' });
  }, 60_000);

  it('a late payment on a displaced sale holds the newer QR; withdrawing the newer sale is the way out', async () => {
    const first = (await core.charge({ ...checkout, by: 'Ana', amountCents: 1500 })).newest?.sale_id ?? '';
    const corrected = await core.charge({ ...checkout, by: 'Ana', amountCents: 1200 });
    const newer = corrected.newest?.sale_id ?? '';
    expect(corrected.screen).toMatchObject({ kind: 'qr', sale_id: newer });
    const pixId = (await saleOf(first))?.pix_id ?? '';

    await svc('POST', '/_sandbox/pay', { late_for: pixId });
    await settledAs(first, 'paid_late');
    const held = await view();
    expect(held.hold?.items).toEqual([{ sale_id: first, reason: 'paid_late' }]);
    expect(held.screen).toMatchObject({ kind: 'held', sale_id: newer });
    expect(held.attention.find((s) => s.sale_id === first)?.description.attention[0]).toMatchObject({
      key: 'attention.paid_late',
      params: { newer_open: true, newer_paid: false },
    });

    const withdrawn = await core.terminal.withdraw({ saleId: newer, by: 'Ana' });
    expect(withdrawn.screen).toEqual({ kind: 'settled', sale_id: newer, status: 'withdrawn' });
    // Still held: the late payment itself waits for a person until acknowledged.
    expect(withdrawn.hold?.items).toEqual([{ sale_id: first, reason: 'paid_late' }]);
    await core.terminal.acknowledge({ saleId: first, reason: 'paid_late', subject: '', by: 'Ana' });
    expect((await view()).hold).toBeNull();
  }, 60_000);

  it('when the newer sale was paid too, the late payment says so instead of "if"', async () => {
    const first = (await core.charge({ ...checkout, by: 'Ana', amountCents: 2000 })).newest?.sale_id ?? '';
    const newer = (await core.charge({ ...checkout, by: 'Ana', amountCents: 2100 })).newest?.sale_id ?? '';
    const pixId = (await saleOf(first))?.pix_id ?? '';
    await svc('POST', '/_sandbox/pay', { store_id: 1, checkout_id: 1 });
    await settledAs(newer, 'paid');
    await svc('POST', '/_sandbox/pay', { late_for: pixId });
    await settledAs(first, 'paid_late');
    const late = (await view()).attention.find((s) => s.sale_id === first);
    expect(late?.description.key).toBe('sale.paid_late.newer_paid');
    expect(late?.description.attention[0]?.params).toMatchObject({ newer_paid: true, newer_open: false });
    await core.terminal.acknowledge({ saleId: first, reason: 'paid_late', subject: '', by: 'Ana' });
  }, 60_000);
});

describe('whose sale a late payment is about (issue 24 point 7)', () => {
  const charge = async (amountCents: number) => (await core.charge({ ...checkout, by: 'Ana', amountCents })).newest?.sale_id ?? '';
  const payLate = async (saleId: string) => {
    await svc('POST', '/_sandbox/pay', { late_for: (await saleOf(saleId))?.pix_id });
    return settledAs(saleId, 'paid_late');
  };
  const described = async (saleId: string) => (await core.terminal.saleDetail(saleId))?.sale.description;
  /** The next customer is charged and pays the printed QR. */
  const nextCustomerPays = async () => {
    const nextCustomer = await charge(3000);
    await svc('POST', '/_sandbox/pay', { store_id: 1, checkout_id: 1 });
    await settledAs(nextCustomer, 'paid');
  };

  it('a correction withdrawn ends the chain: the next customer’s paid sale does not make the late payment "paid twice"', async () => {
    const first = await charge(1000);
    const correction = await charge(1200);
    await core.terminal.withdraw({ saleId: correction, by: 'Ana' });
    await nextCustomerPays();
    await payLate(first);
    for (const d of [await described(first), (await view()).attention.find((s) => s.sale_id === first)?.description]) {
      expect(d?.key).toBe('sale.paid_late');
      expect(d?.attention[0]?.params).toMatchObject({ newer_paid: false, newer_open: false, newer_known: true });
    }
    await core.terminal.acknowledge({ saleId: first, reason: 'paid_late', subject: '', by: 'Ana' });
  }, 60_000);

  it('a sale withdrawn, then paid after the next customer’s sale displaced it, is a payment on a withdrawn sale', async () => {
    const first = await charge(1000);
    await core.terminal.withdraw({ saleId: first, by: 'Ana' });
    await nextCustomerPays();
    await payLate(first);
    const d = await described(first);
    expect(d?.key).toBe('sale.paid_withdrawn');
    expect(d?.attention[0]).toMatchObject({ reason: 'paid_late', key: 'attention.paid_withdrawn', params: { withdrawn_by: 'Ana', newer_paid: false } });
    await core.terminal.acknowledge({ saleId: first, reason: 'paid_late', subject: '', by: 'Ana' });
  }, 60_000);

  it('after two corrections the chain is read to its end: its last sale paid means paid twice, the next customer’s open sale does not count', async () => {
    const first = await charge(1000);
    await charge(1200);
    const last = await charge(1300);
    await svc('POST', '/_sandbox/pay', { store_id: 1, checkout_id: 1 });
    await settledAs(last, 'paid');
    await charge(4000);
    await payLate(first);
    for (const d of [await described(first), (await core.terminal.attentionEverywhere()).find((s) => s.sale_id === first)?.description]) {
      expect(d?.key).toBe('sale.paid_late.newer_paid');
      expect(d?.attention[0]?.params).toMatchObject({ newer_paid: true, newer_open: false, newer_known: true });
    }
    await core.terminal.acknowledge({ saleId: first, reason: 'paid_late', subject: '', by: 'Ana' });
  }, 60_000);
});

describe('over the bridge', () => {
  it('sale.withdraw takes the sale only: who withdrew is the cashier signed in on that connection, never a typed name', async () => {
    const dispatch = await dispatcherAs(core, await sessionAs(core, 'cashier', 'Ana'));
    const saleId = (await core.charge({ ...checkout, by: 'Ana', amountCents: 300 })).newest?.sale_id ?? '';
    expect(await dispatch('sale.withdraw', { saleId, by: 'Somebody else' })).toMatchObject({ ok: false, error: { code: 'invalid_argument' } });
    expect(await dispatch('sale.withdraw', { saleId })).toMatchObject({ ok: true, result: { screen: { kind: 'settled', status: 'withdrawn' } } });
    expect((await saleOf(saleId))?.withdrawn?.by).toBe('Ana');
  });

  it('a reference over 128 characters is refused with a sentence, never cut, and nothing is charged', async () => {
    const dispatch = await dispatcherAs(core);
    const before = (await view()).newest?.sale_id;
    const refused = await dispatch('sale.charge', { amount: '5,00', reference: 'R'.repeat(129) });
    expect(refused).toMatchObject({ ok: false, error: { code: 'invalid_argument', message: 'reference must be a reference of 1 to 128 characters.', params: { field: 'reference' } } });
    expect((await view()).newest?.sale_id).toBe(before);
    const taken = await dispatch('sale.charge', { amount: '5,00', reference: 'R'.repeat(128) });
    expect(taken).toMatchObject({ ok: true, result: { newest: { external_id: 'R'.repeat(128) } } });
  });
});
