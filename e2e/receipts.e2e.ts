import type { Page } from '@playwright/test';
import { decodeEscPos, saleFields, valueOf } from '../electron/core/receipts/fixtures/escpos.ts';
import { deadPrinterAddress, startPrinterEmulator, type PrinterEmulator } from '../electron/core/receipts/fixtures/printer-emulator.ts';
import { expect, openCashier, snap, test } from './fixtures.ts';

/**
 * Receipts as people use them (issue 29): a manager sets the till's printer in Settings and
 * prints a test page; after Paid the cashier presses Print receipt and the receipt reaches the
 * printer, here an emulator on loopback that records the bytes; a printer that does not
 * answer is a sentence on screen and the sale stays paid; a till without a receipt printer
 * prints the same receipt through the print dialog (the page's print, stood in for here).
 */
test.use({ timezoneId: 'UTC' });

let printer: PrinterEmulator;
test.beforeAll(async () => {
  printer = await startPrinterEmulator();
});
test.afterAll(() => printer.close());

const currentSale = (page: Page) => page.getByRole('region', { name: 'Current sale' });
const printerForm = (page: Page) => page.getByRole('form', { name: 'Receipt printer' });

/**
 * The Settings screen has read this till's printer (the form is no longer busy): typing
 * before that would be overwritten by the stored address once it arrives.
 */
async function settingsLoaded(page: Page) {
  await expect(printerForm(page)).not.toHaveAttribute('aria-busy', 'true');
}

async function setPrinter(page: Page, address: string) {
  await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Settings', exact: true }).click();
  const form = printerForm(page);
  await settingsLoaded(page);
  await form.getByLabel('This till’s printer (address:port)').fill(address);
  await form.getByRole('button', { name: 'Save settings', exact: true }).click();
  await expect(form).toContainText('Settings saved.');
}

/** en, UTC, as the receipt prints a time: 11/27/26, 8:30:05 PM, written out from its parts. */
function enUtc(iso: string): string {
  const d = new Date(iso);
  const h = d.getUTCHours() % 12 === 0 ? 12 : d.getUTCHours() % 12;
  const two = (n: number) => String(n).padStart(2, '0');
  return `${d.getUTCMonth() + 1}/${d.getUTCDate()}/${two(d.getUTCFullYear() % 100)}, ${h}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} ${d.getUTCHours() < 12 ? 'AM' : 'PM'}`;
}

test('after Paid, Print receipt reaches the till’s printer; a dead printer is a sentence and the sale stays paid; without a printer, the print dialog', async ({ page, freshApp, request }, testInfo) => {
  const payer = await openCashier(page, freshApp, request);

  // The manager sets this till's printer and proves it with a test page.
  await setPrinter(page, printer.address);
  await printerForm(page).getByRole('button', { name: 'Print test page', exact: true }).click();
  await expect(printerForm(page)).toContainText('Test page sent to the printer.');
  const testPage = decodeEscPos(await printer.job(1));
  expect(testPage.lines).toContain('Printer test page');
  expect(valueOf(testPage, 'Operator')).toBe('Ana');
  expect(testPage.cuts).toHaveLength(1);

  // A sale, paid by the customer.
  await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Cashier', exact: true }).click();
  await page.getByLabel('Amount', { exact: true }).fill('12,50');
  await page.getByLabel('Reference', { exact: true }).fill('order-2001');
  await page.getByRole('button', { name: 'Charge', exact: true }).click();
  await expect(currentSale(page).getByRole('img', { name: 'Payment QR code' })).toBeVisible();
  const paid = (await payer.payCheckout()) as { e2e_id: string; paid_at: string };
  await expect(currentSale(page)).toContainText('Paid');

  await currentSale(page).getByRole('button', { name: 'Print receipt', exact: true }).click();
  await expect(currentSale(page)).toContainText('Receipt sent to the printer.');
  const receipt = decodeEscPos(await printer.job(2));
  await snap(page, testInfo, 'receipt-printed');
  expect(receipt.lines[0]).toBe('Loja Centro');
  expect(receipt.lines).toContain('Pix payment receipt');
  expect(saleFields(receipt)).toEqual({ date: enUtc(paid.paid_at), amount: 'R$ 12.50', e2e: paid.e2e_id, reference: 'order-2001', till: '1', operator: 'Ana' });
  expect(receipt.cuts).toHaveLength(1);

  // The printer goes dead: the cashier reads why, and the sale is still paid.
  await setPrinter(page, await deadPrinterAddress());
  await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Cashier', exact: true }).click();
  await currentSale(page).getByRole('button', { name: 'Print receipt', exact: true }).click();
  await expect(currentSale(page)).toContainText('The printer did not answer: check that it is on and connected to the network, then print again. The sale is not affected.');
  await expect(currentSale(page).locator('[data-status]')).toHaveAttribute('data-status', 'paid');
  await snap(page, testInfo, 'receipt-printer-dead');
  expect(printer.jobs).toHaveLength(2);

  // A till without a receipt printer prints the same receipt through the print dialog.
  await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Settings', exact: true }).click();
  await settingsLoaded(page);
  await printerForm(page).getByLabel('This till’s printer (address:port)').fill('');
  await printerForm(page).getByRole('button', { name: 'Save settings', exact: true }).click();
  await expect(printerForm(page)).toContainText('This till has no receipt printer now.');
  await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Cashier', exact: true }).click();
  await page.evaluate(() => {
    window.print = () => {
      const sheet = document.querySelector('.receipt-sheet img');
      document.body.dataset['printed'] = sheet?.getAttribute('src')?.startsWith('data:image/svg+xml') ? 'receipt' : 'nothing';
      window.dispatchEvent(new Event('afterprint'));
    };
  });
  await currentSale(page).getByRole('button', { name: 'Print receipt', exact: true }).click();
  await expect(currentSale(page)).toContainText('This till has no receipt printer: the receipt went to the print dialog.');
  await expect(page.locator('body')).toHaveAttribute('data-printed', 'receipt');
  await expect(page.locator('.receipt-sheet')).toHaveCount(0);
  expect(printer.jobs).toHaveLength(2);
});
