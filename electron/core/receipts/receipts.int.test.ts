import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../shared/clock.ts';
import type { Core } from '../core.ts';
import { formatCents } from '../../shared/money.ts';
import { memoryLogger } from '../log.ts';
import { dispatcherAs, sessionAs } from '../operators/fixtures/sign-in.ts';
import { coreOnSandboxForFile, journaledSale, type CoreOnSandbox } from '../terminal/fixtures/core.ts';
import { waitFor } from '../terminal/fixtures/service.ts';
import { decodeEscPos, saleFields, valueOf, type Printed } from './fixtures/escpos.ts';
import { deadPrinterAddress, startPrinterEmulator, type PrinterEmulator } from './fixtures/printer-emulator.ts';
import { RECEIPT_AUTO_PRINTED, RECEIPT_PRINTED, RECEIPT_PRINTER_SET } from './receipts.ts';

/**
 * Receipts end to end in the core: a real core on its sandbox, a sale charged and paid over
 * real HTTP, the bridge's methods called as each role, and a printer emulator on loopback
 * that receives the bytes. What it received is read back as printed lines and cuts.
 */
const log = memoryLogger(systemClock);
let app: CoreOnSandbox;
let core: Core;
let printer: PrinterEmulator;
type Call = Awaited<ReturnType<typeof dispatcherAs>>;
let manager: Call;
let cashier: Call;
let supervisor: Call;

coreOnSandboxForFile(
  'receipts',
  log,
  async (started) => {
    app = started;
    core = started.core;
    await core.openShift('Marta', undefined);
    manager = await dispatcherAs(core);
    cashier = await dispatcherAs(core, await sessionAs(core, 'cashier', 'Caio'));
    supervisor = await dispatcherAs(core, await sessionAs(core, 'supervisor', 'Rui'));
  },
  { secondCheckout: false },
);
beforeAll(async () => {
  printer = await startPrinterEmulator();
});
afterAll(() => printer.close());

/** Charged by the cashier and paid at the sandbox; its journaled record. */
async function paidSale(amount: string, reference: string) {
  const charged = await cashier('sale.charge', { amount, reference });
  if (!charged.ok) throw new Error(charged.error.message);
  const saleId = (charged.result as { newest: { sale_id: string } }).newest.sale_id;
  expect((await app.svc('POST', '/_sandbox/pay', { store_id: 1, checkout_id: 1 })).status).toBe(200);
  // Paid, and the service's second webhook (charge.done) in too: nothing more is coming for it.
  await waitFor(async () => {
    const sale = (await core.journal.sales.get(saleId))?.sale;
    return sale?.status === 'paid' && sale.dones.length > 0 ? true : undefined;
  }, 'the sale to be paid and done');
  return journaledSale(core, saleId);
}

/** en, UTC: 11/27/26, 8:30:05 PM, written out here from the time's own parts. */
function enUtc(at: number): string {
  const d = new Date(at);
  const h = d.getUTCHours() % 12 === 0 ? 12 : d.getUTCHours() % 12;
  const two = (n: number) => String(n).padStart(2, '0');
  return `${d.getUTCMonth() + 1}/${d.getUTCDate()}/${two(d.getUTCFullYear() % 100)}, ${h}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} ${d.getUTCHours() < 12 ? 'AM' : 'PM'}`;
}

function expectCutOnce(printed: Printed) {
  expect(printed.cuts).toHaveLength(1);
  // Nothing is printed after the cut but the feed.
  expect(printed.lines.slice(printed.cuts[0]).every((l) => l.trim() === '')).toBe(true);
}

describe('a manager sets the till’s printer', () => {
  it('reads the address, journals it in the manager’s name, and refuses a wrong one without changing it', async () => {
    expect(await manager('office.changeStore', { storeId: 1, name: 'Loja Centro', address: 'Rua das Flores, 12', phone: '', email: '' })).toMatchObject({ ok: true });
    expect(await manager('receipt.setPrinter', { printer: printer.address })).toEqual({ ok: true, result: { store_id: 1, checkout_id: 1, printer: printer.address, every_paid_sale: false } });
    const set = await core.journal.eventsOfType(RECEIPT_PRINTER_SET);
    expect(set.at(-1)?.data).toEqual({ by: 'Marta', store_id: 1, checkout_id: 1, printer: printer.address, every_paid_sale: false });

    const wrong = await manager('receipt.setPrinter', { printer: 'printer:70000' });
    expect(wrong).toMatchObject({ ok: false, error: { code: 'invalid_argument', params: { field: 'printer', problem: 'printer_address_port' } } });
    expect(await cashier('receipt.printer', {})).toEqual({ ok: true, result: { store_id: 1, checkout_id: 1, printer: printer.address, every_paid_sale: false } });
    expect(await core.journal.eventsOfType(RECEIPT_PRINTER_SET)).toHaveLength(set.length);

    // A cashier may read it, not change it; the core says who may.
    expect(await cashier('receipt.setPrinter', { printer: '10.0.0.9' })).toMatchObject({ ok: false, error: { code: 'forbidden', params: { role: 'manager' } } });
  });

  it('prints a test page that names the store, the till and the manager', async () => {
    const before = printer.jobs.length;
    expect(await manager('receipt.testPage', { timeZone: 'UTC' })).toEqual({ ok: true, result: { printed: true, printer: printer.address, kind: 'test' } });
    const page = decodeEscPos(await printer.job(before + 1));
    expect(page.lines).toEqual(expect.arrayContaining(['Loja Centro', 'Rua das Flores, 12', 'Printer test page']));
    expect([valueOf(page, 'Till'), valueOf(page, 'Operator')]).toEqual(['1', 'Marta']);
    expectCutOnce(page);
  });
});

describe('Print receipt after Paid', () => {
  it('reaches the printer with every field and the cut, and the sale stays as it was', async () => {
    const sale = await paidSale('12,50', 'order-77');
    const eventsBefore = await core.journal.eventsForSale(sale.sale_id);
    const before = printer.jobs.length;

    expect(await cashier('receipt.print', { saleId: sale.sale_id, timeZone: 'UTC' })).toEqual({ ok: true, result: { printed: true, printer: printer.address, kind: 'sale' } });
    const receipt = decodeEscPos(await printer.job(before + 1));
    expect(receipt.lines.slice(0, 2)).toEqual(['Loja Centro', 'Rua das Flores, 12']);
    expect(receipt.lines).toContain('Pix payment receipt');
    const e2e = sale.paid?.e2e_id;
    expect(e2e).toMatch(/^E\w+/);
    expect(saleFields(receipt)).toEqual({ date: enUtc(sale.paid?.paid_at ?? 0), amount: 'R$ 12.50', e2e, reference: 'order-77', till: '1', operator: 'Caio' });
    expectCutOnce(receipt);

    // Printing wrote no sale fact; the print itself is journaled in the cashier's name.
    expect(await core.journal.eventsForSale(sale.sale_id)).toEqual(eventsBefore);
    expect((await core.journal.eventsOfType(RECEIPT_PRINTED)).at(-1)?.data).toMatchObject({ by: 'Caio', kind: 'sale', of_sale: sale.sale_id, printer: printer.address });
  });

  it('prints a refund’s own receipt, in the supervisor’s name', async () => {
    const sale = await paidSale('20,00', 'order-78');
    const refunded = await supervisor('sale.refund', { saleId: sale.sale_id, amountCents: 750 });
    expect(refunded).toMatchObject({ ok: true });
    const refundId = (await journaledSale(core, sale.sale_id)).refunds?.[0]?.refund_id ?? '';
    const before = printer.jobs.length;

    expect(await cashier('receipt.printRefund', { saleId: sale.sale_id, refundId, timeZone: 'UTC' })).toMatchObject({ ok: true, result: { kind: 'refund' } });
    const receipt = decodeEscPos(await printer.job(before + 1));
    expect(receipt.lines).toContain('Pix refund receipt');
    expect([valueOf(receipt, 'Refunded'), valueOf(receipt, 'Sale amount'), valueOf(receipt, 'Operator'), valueOf(receipt, 'Reference')]).toEqual(['R$ 7.50', 'R$ 20.00', 'Rui', 'order-78']);
    expectCutOnce(receipt);
  });

  it('is refused for a sale not paid, with a sentence', async () => {
    const charged = await cashier('sale.charge', { amount: '3,00' });
    const saleId = charged.ok ? (charged.result as { newest: { sale_id: string } }).newest.sale_id : '';
    expect(await cashier('receipt.print', { saleId })).toMatchObject({ ok: false, error: { code: 'conflict', params: { problem: 'receipt_not_paid' } } });
    await app.settle();
  });
});

describe('a till that prints every paid sale', () => {
  it('prints each sale paid after it was set, once, with no one pressing anything', async () => {
    const before = printer.jobs.length;
    // Paid before the setting: never printed by itself.
    await paidSale('1,00', 'before-setting');
    expect(await manager('receipt.setPrinter', { printer: printer.address, everyPaidSale: true })).toMatchObject({ ok: true, result: { every_paid_sale: true } });
    expect((await core.journal.eventsOfType(RECEIPT_PRINTER_SET)).at(-1)?.data).toMatchObject({ by: 'Marta', every_paid_sale: true });

    const sale = await paidSale('4,20', 'order-auto');
    const receipt = decodeEscPos(await printer.job(before + 1));
    expect([valueOf(receipt, 'Amount'), valueOf(receipt, 'Reference'), valueOf(receipt, 'Operator')]).toEqual(['R$ 4.20', 'order-auto', 'Caio']);
    expectCutOnce(receipt);
    // Once: later changes of the checkout print nothing more, and the sale paid before was never printed.
    await app.settle();
    await core.receipts.checkoutsChanged([{ storeId: 1, checkoutId: 1 }]);
    expect(printer.jobs).toHaveLength(before + 1);
    expect((await core.journal.eventsOfType(RECEIPT_AUTO_PRINTED)).map((e) => e.data['of_sale'])).toEqual([sale.sale_id]);

    expect(await manager('receipt.setPrinter', { printer: printer.address, everyPaidSale: false })).toMatchObject({ ok: true, result: { every_paid_sale: false } });
  });
});

describe('the end-of-shift report', () => {
  it('prints the same way, with the shift’s totals as the Shift journal has them, for a supervisor', async () => {
    const before = printer.jobs.length;
    expect(await cashier('receipt.printShift', {})).toMatchObject({ ok: false, error: { code: 'forbidden', params: { role: 'supervisor' } } });
    expect(await supervisor('receipt.printShift', { timeZone: 'UTC' })).toMatchObject({ ok: true, result: { kind: 'shift', printer: printer.address } });
    const printed = decodeEscPos(await printer.job(before + 1));
    const report = await core.shifts.report({});
    const { totals, shift } = report;
    expect(printed.lines).toContain('End-of-shift report');
    const money = (cents: number) => `R$ ${formatCents(cents)}`;
    expect({
      shift: valueOf(printed, 'Shift'),
      opened: valueOf(printed, 'Opened'),
      closed: valueOf(printed, 'Closed'),
      sales: valueOf(printed, 'Sales'),
      paid: valueOf(printed, 'Paid'),
      received: valueOf(printed, 'Received'),
      refunded: valueOf(printed, 'Refunded'),
      net: valueOf(printed, 'Net'),
      by: valueOf(printed, 'Printed by'),
    }).toEqual({
      shift: shift?.shift_id,
      opened: enUtc(shift?.opened_at ?? 0),
      closed: 'still open',
      sales: String(totals.count),
      paid: String(totals.paid),
      received: money(totals.received_cents),
      refunded: money(totals.refunded_cents),
      net: money(totals.net_cents),
      by: 'Rui',
    });
    // This file's sales so far: 12.50, 20.00 (7.50 of it refunded since), 1.00 and 4.20 were received.
    expect(totals.received_cents).toBe(1250 + 2000 + 100 + 420);
    expectCutOnce(printed);
  });
});

describe('a printer that does not answer', () => {
  it('is a sentence on screen; the sale stays paid and nothing is journaled as printed', async () => {
    const sale = await paidSale('9,90', 'order-79');
    expect(await manager('receipt.setPrinter', { printer: await deadPrinterAddress() })).toMatchObject({ ok: true });
    const printed = (await core.journal.eventsOfType(RECEIPT_PRINTED)).length;
    const eventsBefore = await core.journal.eventsForSale(sale.sale_id);

    const answer = await cashier('receipt.print', { saleId: sale.sale_id });
    expect(answer).toMatchObject({ ok: false, error: { code: 'conflict', params: { problem: 'printer_unreachable', reason: 'refused' } } });
    expect(answer.ok ? '' : answer.error.message).toMatch(/^The printer at 127\.0\.0\.1:\d+ refused the connection: check that it is on and that the address is right, then print again\./);

    expect((await journaledSale(core, sale.sale_id)).status).toBe('paid');
    expect(await core.journal.eventsForSale(sale.sale_id)).toEqual(eventsBefore);
    expect(await core.journal.eventsOfType(RECEIPT_PRINTED)).toHaveLength(printed);
  });

  it('without a printer set, says a manager sets one; the screen can still draw the receipt for the print dialog', async () => {
    expect(await manager('receipt.setPrinter', { printer: '' })).toEqual({ ok: true, result: { store_id: 1, checkout_id: 1, printer: null, every_paid_sale: false } });
    expect(await manager('receipt.testPage', {})).toMatchObject({ ok: false, error: { code: 'conflict', params: { problem: 'printer_not_set' } } });

    const sale = await paidSale('6,60', 'order-dialog');
    expect(await cashier('receipt.print', { saleId: sale.sale_id })).toMatchObject({ ok: false, error: { params: { problem: 'printer_not_set' } } });
    const sheet = await cashier('receipt.sheet', { saleId: sale.sale_id, timeZone: 'UTC' });
    if (!sheet.ok) throw new Error(sheet.error.message);
    const svg = (sheet.result as { svg: string }).svg;
    // One tspan a character: what the sheet draws, read back.
    const drawn = [...svg.matchAll(/<tspan[^>]*>([^<]*)<\/tspan>/g)].map((m) => m[1]).join('');
    for (const text of ['Pix payment receipt', 'R$ 6.60', 'order-dialog', sale.paid?.e2e_id ?? 'no e2e id']) expect(drawn).toContain(text.replace(/ /g, '&#xa0;'));
  });
});
