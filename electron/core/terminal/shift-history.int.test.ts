import { composeCore } from '../../compose.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../shared/clock.ts';
import { loadConfig } from '../config.ts';
import { Core } from '../core.ts';
import { memoryLogger } from '../log.ts';
import { dispatcherAs } from '../operators/fixtures/sign-in.ts';
import { startCoreOnSandbox, type CoreOnSandbox } from './fixtures/core.ts';
import { serviceControl, waitFor, type ServiceControl } from './fixtures/service.ts';
import { localDayOf } from './local-day.ts';

/**
 * History that stays (issue 13, point 9): every past shift and day, paged, through the core
 * on its embedded sandbox; a closed shift's numbers frozen at its close, whatever arrives
 * later and however often the journal is replayed; and "by" is who charged.
 */
let env: CoreOnSandbox;
let core: Core;
/** The sandbox of the running core (a restarted core starts it again on the same data dir). */
let svc: ServiceControl;

beforeAll(async () => {
  env = await startCoreOnSandbox('history', memoryLogger(systemClock), { secondCheckout: false });
  core = env.core;
  svc = env.svc;
});

afterAll(async () => {
  await core.stop();
  await env.stop();
});

const DAY_S = 86_400;
const advance = (seconds: number) => svc('POST', '/_sandbox/clock/advance', { seconds });
const dispatch = () => dispatcherAs(core);

async function charge(amountCents: number, by: string): Promise<{ sale_id: string; pix_id: string; service_id: string }> {
  const sale = (await core.charge({ amountCents, by })).newest;
  if (!sale?.pix_id || !sale.service_id) throw new Error('the charge made no sale with ids');
  return { sale_id: sale.sale_id, pix_id: sale.pix_id, service_id: sale.service_id };
}

function statusOf(saleId: string, status: string): Promise<true> {
  return waitFor(async () => ((await core.journal.sales.get(saleId))?.sale.status === status ? true : undefined), `sale ${saleId} to be ${status}`, {
    between: () => core.terminal.tick(),
  });
}

async function payCheckout(saleId: string, amount?: string): Promise<void> {
  const res = await svc('POST', '/_sandbox/pay', { store_id: 1, checkout_id: 1, ...(amount === undefined ? {} : { amount }) });
  expect(res.status).toBe(200);
  await statusOf(saleId, amount === undefined ? 'paid' : 'amount_mismatch');
}

describe('every past shift and day, paged', () => {
  it('lists five shifts over five days newest first, 2 a page, each with its own totals, and the days they were on', async () => {
    const opened: string[] = [];
    const days: string[] = [];
    for (let d = 0; d < 5; d++) {
      const shift = await core.openShift(`op${d}`, d === 0 ? 'first day' : undefined);
      opened.push(shift.shift_id);
      days.push(localDayOf(core.clock.now(), 'UTC'));
      const sale = await charge(100 * (d + 1), `op${d}`);
      await payCheckout(sale.sale_id);
      await core.closeShift(`op${d}`, undefined, true);
      await advance(DAY_S);
    }

    const pages = [];
    let before: number | undefined;
    do {
      const page = await core.shifts.list({ limit: 2, ...(before === undefined ? {} : { before }) });
      pages.push(page.shifts);
      before = page.older ?? undefined;
    } while (before !== undefined);
    expect(pages.map((p) => p.length)).toEqual([2, 2, 1]);
    const all = pages.flat();
    expect(all.map((s) => s.shift_id)).toEqual([...opened].reverse());
    expect(all.map((s) => [s.opened_by, s.closed_by, s.totals.count, s.totals.paid, s.totals.received_cents, s.frozen])).toEqual(
      [4, 3, 2, 1, 0].map((d) => [`op${d}`, `op${d}`, 1, 1, 100 * (d + 1), true]),
    );
    expect(all.at(-1)?.note).toBe('first day');

    // A past shift's full report, as the bridge gives it.
    const third = await (await dispatch())('journal.shiftReport', { shiftId: opened[2] });
    expect(third).toMatchObject({ ok: true, result: { shift: { opened_by: 'op2' }, totals: { count: 1, received_cents: 300 } } });

    // Days: today (nothing yet) and the five before it, a week a page in the reader's zone.
    const week = await core.shifts.days({ timeZone: 'UTC' });
    expect(week.days).toHaveLength(7);
    expect(week.newer).toBeNull();
    expect(week.days.map((d) => d.totals.received_cents)).toEqual([0, 500, 400, 300, 200, 100, 0]);
    expect(week.days.slice(1, 6).map((d) => d.day)).toEqual([...days].reverse());
    const older = await core.shifts.days({ timeZone: 'UTC', through: week.older ?? '' });
    expect(older.days.every((d) => d.totals.count === 0)).toBe(true);
    // Before the first shift, with no sale on the page: nothing older to page to.
    expect(older.older).toBeNull();
    expect(older.newer).toBe(week.days[0]?.day);

    const day = await (await dispatch())('journal.dayReport', { day: days[1], timeZone: 'UTC' });
    expect(day).toMatchObject({ ok: true, result: { day: { day: days[1] }, shift: null, totals: { count: 1, paid: 1, received_cents: 200 } } });
    expect(await (await dispatch())('journal.exportDayCsv', { day: days[1], timeZone: 'UTC' })).toMatchObject({ ok: true, result: { filename: `day-${days[1]}.csv` } });
  });

  it('refuses a page or day it cannot read', async () => {
    const call = await dispatch();
    for (const [method, args] of [
      ['journal.shifts', { before: 0 }],
      ['journal.shifts', { limit: 500 }],
      ['journal.days', {}],
      ['journal.days', { timeZone: 'Mars/Olympus_Mons' }],
      ['journal.days', { timeZone: '../etc' }],
      ['journal.dayReport', { day: '2026-02-30', timeZone: 'UTC' }],
      ['journal.dayReport', { day: '23/11/2026', timeZone: 'UTC' }],
      ['journal.exportDayCsv', { day: '2026-11-23' }],
    ] as const) {
      expect(await call(method, args), `${method} ${JSON.stringify(args)}`).toMatchObject({ ok: false, error: { code: 'invalid_argument' } });
    }
  });
});

describe('a closed shift is frozen at its close', () => {
  it('keeps its totals when a payment arrives after the close, which shows after the close or in the next shift, pointing back to its sale', async () => {
    const ana = await core.openShift('Ana', undefined);
    const paid = await charge(1000, 'Ana');
    await payCheckout(paid.sale_id);
    const displaced = await charge(700, 'Ana');
    const open = await charge(900, 'Ana');
    await core.closeShift('Ana', 'end of day', true);
    const atClose = await core.shifts.report({ shiftId: ana.shift_id });
    expect(atClose.totals).toMatchObject({ count: 3, paid: 1, displaced: 1, pending: 1, received_cents: 1000 });

    // The customer pays the sale left open, after the close, with no shift open.
    await payCheckout(open.sale_id);
    const afterClose = await core.shifts.report({ shiftId: ana.shift_id });
    expect(afterClose.totals).toEqual(atClose.totals);
    expect(afterClose.sales.find((s) => s.sale_id === open.sale_id)?.status).toBe('pending');
    expect(afterClose.after_close).toEqual([expect.objectContaining({ type: 'payment.received', sale_id: open.sale_id, sale_shift_id: ana.shift_id, sale_requested_by: 'Ana', amount_cents: 900 })]);
    expect(afterClose.after_close_cents).toBe(900);
    expect(afterClose.events.map((e) => e.type).at(-1)).toBe('shift.closed');

    // In the next shift, a late payment on the displaced sale of Ana's shift.
    const bruno = await core.openShift('Bruno', undefined);
    const late = await svc('POST', '/_sandbox/pay', { late_for: displaced.pix_id });
    expect(late.status).toBe(200);
    await statusOf(displaced.sale_id, 'paid_late');
    const next = await core.shifts.report({ shiftId: bruno.shift_id });
    expect(next.totals).toMatchObject({ count: 0, received_cents: 0 });
    expect(next.carried).toContainEqual(expect.objectContaining({ type: 'payment.received', sale_id: displaced.sale_id, sale_shift_id: ana.shift_id, amount_cents: 700 }));
    expect(next.carried_cents).toBe(700);
    expect((await core.shifts.report({ shiftId: ana.shift_id })).totals).toEqual(atClose.totals);
    // The list says the same as the report.
    const listed = (await core.shifts.list({})).shifts.find((s) => s.shift_id === ana.shift_id);
    expect(listed?.totals).toEqual(atClose.totals);
    // The day, never closed, reads the sales as they stand now.
    const day = await core.shifts.dayReport({ day: localDayOf(core.clock.now(), 'UTC'), timeZone: 'UTC' });
    expect(day.totals).toMatchObject({ paid: 2, late_payments: 1, received_cents: 2600 });
    await core.closeShift('Bruno', undefined, true);

    // A replay of the same journal (a restart) gives the same numbers.
    await core.stop();
    core = await composeCore(loadConfig(env.configEnv, []), { log: memoryLogger(systemClock) });
    await core.start();
    svc = serviceControl(core.status().service.baseUrl ?? '');
    const replayed = await core.shifts.report({ shiftId: ana.shift_id });
    expect(replayed.totals).toEqual(atClose.totals);
    expect(replayed.after_close.map((p) => p.sale_id)).toEqual([open.sale_id]);
    expect((await core.shifts.report({ shiftId: bruno.shift_id })).carried_cents).toBe(700);
  });
});

describe('who charged', () => {
  it('is the sale’s "by" in every report, after another person acknowledged or attributed', async () => {
    const shift = await core.openShift('Ana', undefined);
    const short = await charge(1000, 'Carla');
    await payCheckout(short.sale_id, '6.00');
    const attention = (await core.journal.sales.get(short.sale_id))?.sale.attention[0];
    await core.terminal.acknowledge({ saleId: short.sale_id, reason: 'amount_mismatch', subject: attention?.subject ?? '', by: 'Bruno' });
    const tied = await charge(800, 'Carla');
    // A payment with ids this terminal does not know, tied by Rui to Carla's sale.
    await core.terminal.acceptWebhook({
      webhookId: 'msg_history_stray',
      timestampSec: Math.floor(core.clock.now() / 1000),
      payload: { event: 'charge.paid', external_id: null, paid_at: new Date(core.clock.now()).toISOString(), store_id: 1, checkout_id: 1, pix_id: 'pix_not_ours', service_id: 'svc_not_ours', amount_brl: '8.00', e2e_id: 'E000000000000000000000000history' },
    });
    const stray = core.terminal.unmatchedPayments().find((u) => u.pix_id === 'pix_not_ours');
    await core.terminal.attribute({ seq: stray?.seq ?? 0, saleId: tied.sale_id, by: 'Rui' });
    await core.closeShift('Ana', undefined, true);

    const day = localDayOf(core.clock.now(), 'UTC');
    for (const report of [await core.shifts.report({ shiftId: shift.shift_id }), await core.shifts.dayReport({ day, timeZone: 'UTC' })]) {
      const mine = report.sales.filter((s) => s.sale_id === short.sale_id || s.sale_id === tied.sale_id);
      expect(mine.map((s) => [s.requested_by, s.status])).toEqual([
        ['Carla', 'paid'],
        ['Carla', 'amount_mismatch'],
      ]);
      const byType = (type: string) => report.events.filter((e) => e.type === type && e.sale_ids.some((id) => id === short.sale_id || id === tied.sale_id)).map((e) => e.by);
      expect(byType('sale.requested')).toEqual(['Carla', 'Carla']);
      expect(byType('sale.acknowledged')).toEqual(['Bruno']);
      expect(byType('payment.attributed')).toEqual(['Rui']);
      // No event names a sale where a person belongs.
      expect(report.events.every((e) => e.by === null || !/^[0-9a-f]{8}-/.test(e.by))).toBe(true);
    }
    const { csv } = await core.shifts.exportCsv(shift.shift_id);
    const rows = csv.trim().split('\r\n').slice(1);
    expect(rows.map((r) => r.split(',')[2])).toEqual(['Carla', 'Carla']);
  });
});
