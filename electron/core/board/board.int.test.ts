import { describe, expect, it } from 'vitest';
import { systemClock } from '../../shared/clock.ts';
import type { Core, PushEvents } from '../core.ts';
import { createCoreDispatcher } from '../handlers.ts';
import { memoryLogger } from '../log.ts';
import { sessionAs } from '../operators/fixtures/sign-in.ts';
import { routedPush } from '../routing.ts';
import { journaledSale, coreOnSandboxForFile } from '../terminal/fixtures/core.ts';
import { waitFor, type ServiceControl } from '../terminal/fixtures/service.ts';
import { localDayOf } from '../terminal/local-day.ts';
import { floorBoard, type BoardCheckout, type BoardReads, type FloorBoard, type KnownCheckout } from './board.ts';

/**
 * The floor board on a real core and its embedded sandbox: sales rung up, corrected, paid
 * late and paid through the service, the board read from the journal as the bridge serves it.
 */
let core: Core;
let svc: ServiceControl;
coreOnSandboxForFile('board', memoryLogger(systemClock), (app) => ({ core, svc } = app));

const ZONE = 'America/Sao_Paulo';
const reads = (): BoardReads => ({ sales: core.journal.sales, checkoutView: (c) => core.terminal.checkoutView(c) });
const KNOWN: KnownCheckout[] = [
  { storeId: 1, checkoutId: 2, storeName: 'Centro', checkoutDesc: 'Caixa 2', tills: ['Till 2'], storeComputer: false },
  { storeId: 1, checkoutId: 1, storeName: 'Centro', checkoutDesc: 'Caixa 1', tills: [], storeComputer: true },
];
const board = () => floorBoard(reads(), KNOWN, core.clock.now(), ZONE);
const row = (b: FloorBoard, checkoutId: number): BoardCheckout => {
  const found = b.checkouts.find((c) => c.checkout_id === checkoutId);
  if (!found) throw new Error(`checkout ${checkoutId} is not on the board`);
  return found;
};
const charge = async (checkoutId: number, amountCents: number, by: string) => (await core.terminal.charge({ storeId: 1, checkoutId, amountCents, by })).newest?.sale_id ?? '';
const statusOf = async (saleId: string, status: string) =>
  waitFor(async () => ((await journaledSale(core, saleId)).status === status ? true : undefined), `sale ${saleId} to be ${status}`, { between: () => core.terminal.tick() });

describe('the floor board', () => {
  it('says what each poster charges now, follows a correction and a late payment, and the last outcome of each checkout', async () => {
    const empty = await board();
    expect(empty).toMatchObject({ time_zone: ZONE, day: localDayOf(core.clock.now(), ZONE) });
    // By store, then checkout, whatever order they were named in.
    expect(empty.checkouts.map((c) => [c.store_id, c.checkout_id, c.checkout_desc, c.store_computer])).toEqual([
      [1, 1, 'Caixa 1', true],
      [1, 2, 'Caixa 2', false],
    ]);
    expect(row(empty, 2)).toMatchObject({ charge: null, last: null, attention: [], displacements: [], held: false, tills: ['Till 2'] });

    const first = await charge(1, 1000, 'Ana');
    const pending = row(await board(), 1);
    expect(pending.charge).toMatchObject({ sale_id: first, state: 'qr', amount_cents: 1000, requested_by: 'Ana' });
    expect(pending.charge?.expires_at).toBeGreaterThan(core.clock.now());

    // The cashier typed the wrong amount: a new sale on the checkout corrects it (reference 3.1).
    const corrected = await charge(1, 1250, 'Rui');
    const afterCorrection = row(await board(), 1);
    expect(afterCorrection.charge).toMatchObject({ sale_id: corrected, state: 'qr', amount_cents: 1250, requested_by: 'Rui' });
    expect(afterCorrection.displacements).toEqual([{ sale_id: first, amount_cents: 1000, corrected_cents: 1250, by: 'Rui', at: (await journaledSale(core, corrected)).requested_at, status: 'displaced' }]);
    expect(afterCorrection.last).toMatchObject({ sale_id: first, status: 'displaced' });

    // The customer had scanned the first QR and pays it late: a person must settle it, the poster charges nothing meanwhile.
    const pixId = (await journaledSale(core, first)).pix_id;
    expect((await svc('POST', '/_sandbox/pay', { late_for: pixId })).status).toBe(200);
    await statusOf(first, 'paid_late');
    const late = row(await board(), 1);
    expect(late).toMatchObject({ held: true, charge: { sale_id: corrected, state: 'held', amount_cents: 1250 } });
    expect(late.attention.map((s) => s.sale_id)).toEqual([first]);
    expect(late.displacements).toMatchObject([{ sale_id: first, amount_cents: 1000, corrected_cents: 1250, status: 'paid_late' }]);

    // Checkout 2 rings up a sale and its customer pays it: no charge left, the last outcome is paid.
    const other = await charge(2, 500, 'Caio');
    expect((await svc('POST', '/_sandbox/pay', { store_id: 1, checkout_id: 2 })).status).toBe(200);
    await statusOf(other, 'paid');
    const paid = row(await board(), 2);
    expect(paid).toMatchObject({ charge: null, last: { sale_id: other, status: 'paid', amount_cents: 500, requested_by: 'Caio' }, attention: [], displacements: [] });
  }, 60_000);

  it('counts displacements by the reader’s day: the next day starts empty, what needs a person stays', async () => {
    const before = row(await board(), 1);
    expect(before.displacements.length).toBeGreaterThan(0);
    await svc('POST', '/_sandbox/clock/advance', { seconds: 25 * 3600 });
    const next = await board();
    expect(next.day).not.toBe(localDayOf(core.clock.now() - 25 * 3_600_000, ZONE));
    expect(row(next, 1).displacements).toEqual([]);
    expect(row(next, 1).attention.map((s) => s.sale_id)).toEqual(before.attention.map((s) => s.sale_id));
  }, 60_000);

  it('is served to supervisors and managers only, and pushed to the sessions that opened it until they leave', async () => {
    const dispatch = createCoreDispatcher(core);
    const supervisor = await sessionAs(core, 'supervisor', 'Bia');
    const other = await sessionAs(core, 'supervisor', 'Leo');
    const cashier = await sessionAs(core, 'cashier', 'Duda');
    expect(await dispatch('board.view', { timeZone: ZONE }, cashier)).toMatchObject({ ok: false, error: { code: 'forbidden', params: { role: 'supervisor' } } });
    expect(await dispatch('board.view', { timeZone: 'Mars/Olympus' }, supervisor)).toMatchObject({ ok: false, error: { code: 'invalid_argument', message: 'That time zone is not known.' } });
    const opened = await dispatch('board.view', { timeZone: ZONE }, supervisor);
    expect(opened).toMatchObject({ ok: true, result: { time_zone: ZONE } });
    // Every checkout the service has is there, named as the back office names it.
    const listed = opened.ok ? (opened.result as FloorBoard).checkouts.map((c) => c.checkout_id) : [];
    expect(listed).toEqual(expect.arrayContaining([1, 2]));

    const pushed: PushEvents['board.changed'][] = [];
    const off = core.events.on('board.changed', (b) => pushed.push(b));
    try {
      const sale = await charge(2, 777, 'Caio');
      const seen = await waitFor(async () => pushed.find((b) => row(b, 2).charge?.sale_id === sale), 'the board to be pushed with the new sale');
      expect(row(seen, 2).charge).toMatchObject({ state: 'qr', amount_cents: 777, requested_by: 'Caio' });
      expect(routedPush(core, supervisor, 'board.changed', seen)).toBe(seen);
      // Another supervisor without the board open, and the same supervisor in another time zone, hear nothing.
      expect(routedPush(core, other, 'board.changed', seen)).toBeUndefined();
      expect(routedPush(core, supervisor, 'board.changed', { ...seen, time_zone: 'Europe/Lisbon' })).toBeUndefined();
      expect(await dispatch('board.leave', undefined, supervisor)).toMatchObject({ ok: true });
      expect(routedPush(core, supervisor, 'board.changed', seen)).toBeUndefined();
      // A supervisor who signs out with the board open hears no more of it: it is a supervisor's, not the connection's.
      expect(await dispatch('board.view', { timeZone: ZONE }, other)).toMatchObject({ ok: true });
      expect(routedPush(core, other, 'board.changed', seen)).toBe(seen);
      await core.operators.signOut(other, 'by_hand');
      expect(routedPush(core, other, 'board.changed', seen)).toBeUndefined();
    } finally {
      off();
    }
  }, 60_000);
});
