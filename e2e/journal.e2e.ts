import { readFile } from 'node:fs/promises';
import type { Page } from '@playwright/test';
import { addOperator, expect, openCashier, signIn, signOut, snap, test } from './fixtures.ts';

/**
 * A whole shift as a supervisor and a cashier live it: open the shift, ring up every kind
 * of outcome through the cashier screen (the payer acting only through the sandbox's
 * control API), then read the shift journal: totals, filters, search, integrity, CSV,
 * closing over a pending sale, and the printable end-of-shift report.
 */

const currentSale = (page: Page) => page.getByRole('region', { name: 'Current sale' });
const salesRows = (page: Page) => page.getByRole('region', { name: 'Sales of the shift' }).locator('tbody tr[data-sale-id]');

async function charge(page: Page, amount: string, reference?: string) {
  await page.getByLabel('Amount', { exact: true }).fill(amount);
  if (reference) await page.getByLabel('Reference', { exact: true }).fill(reference);
  await page.getByLabel('Amount', { exact: true }).press('Enter');
}

async function waitForQr(page: Page, money: string) {
  await expect(currentSale(page).getByTestId('sale-amount')).toHaveText(money);
  await expect(currentSale(page).getByRole('img', { name: 'Payment QR code' })).toBeVisible();
}

/** In the name of the operator signed in: the core knows who. */
async function acknowledge(page: Page, word: string) {
  const alert = page.getByRole('alert').filter({ hasText: word });
  await alert.getByRole('button', { name: 'Acknowledge' }).click();
  await expect(page.getByRole('alert').filter({ hasText: word })).toHaveCount(0);
}

test('the shift journal shows the whole shift with correct totals, exports CSV and prints', async ({ page, freshApp, request }, testInfo) => {
  test.setTimeout(120_000);
  const payer = await openCashier(page, freshApp, request);

  // ── The supervisor opens the shift ──────────────────────────────────────────────────
  await page.getByRole('link', { name: 'Shift journal', exact: true }).click();
  await expect(page.getByTestId('shift-state')).toHaveText(/No shift is open/);
  await page.getByLabel('Opening note').fill('Morning till, R$ 100 float');
  await page.getByRole('button', { name: 'Open shift' }).click();
  await expect(page.getByTestId('shift-state')).toHaveText(/Shift open/);
  await expect(page.getByTestId('shift-facts')).toContainText('Opened by Ana');
  await expect(page.getByTestId('shift-facts')).toContainText('Note: Morning till, R$ 100 float');
  await expect(page.getByTestId('shift-line')).toContainText('Shift open since');
  await snap(page, testInfo, '01-shift-opened');

  // ── The cashier's day: Ana adds Carla, who signs in at the till ─────────────────────
  const carla = { name: 'Carla', pin: '1357', role: 'Cashier' } as const;
  await addOperator(page, carla);
  await signOut(page);
  await signIn(page, carla);
  await page.getByRole('link', { name: 'Cashier', exact: true }).click();

  // Paid.
  await charge(page, '12,50', 'A-1');
  await waitForQr(page, 'R$12.50');
  await payer.payCheckout();
  await expect(currentSale(page)).toContainText('R$12.50 received.');

  // Corrected twice, paid on the newest: two displaced sales.
  await charge(page, '10,00');
  await waitForQr(page, 'R$10.00');
  await charge(page, '11,00');
  await waitForQr(page, 'R$11.00');
  await charge(page, '12,00');
  await waitForQr(page, 'R$12.00');
  await payer.payCheckout();
  await expect(currentSale(page)).toContainText('R$12.00 received.');

  // A late payment on a displaced sale, acknowledged by Carla.
  await charge(page, '10,00', 'C-late');
  await waitForQr(page, 'R$10.00');
  await charge(page, '12,00', 'C-new');
  await waitForQr(page, 'R$12.00');
  const late = (await payer.sales()).find((s) => s.external_id === 'C-late');
  expect(late?.displaced).toBe(true);
  await payer.payLate(late?.pix_id as string);
  await acknowledge(page, 'Late payment');

  // An amount mismatch (this charge displaces the open R$ 12,00), acknowledged by Carla.
  await charge(page, '20,00', 'D-short');
  await waitForQr(page, 'R$20.00');
  await payer.payCheckout('15.00');
  await expect(currentSale(page)).toContainText('Amount mismatch');
  await acknowledge(page, 'Amount mismatch');

  // A sale nobody pays.
  await charge(page, '5,00');
  await waitForQr(page, 'R$5.00');
  // A minute past its expiry: the read then made says it expired (issue 24, point 5).
  await payer.advanceClock(361);
  await expect(currentSale(page)).toContainText('Expired', { timeout: 30_000 });

  // And one still waiting when the shift ends.
  await charge(page, '9,00', 'F-open');
  await waitForQr(page, 'R$9.00');

  // ── The supervisor reads the journal ────────────────────────────────────────────────
  await signOut(page);
  await signIn(page);
  await page.getByRole('link', { name: 'Shift journal', exact: true }).click();
  // 9 sales: 1 paid + 3 (two displaced, one paid) + 2 (late, displaced) + 1 mismatch + 1 expired + 1 pending.
  await expect(page.getByTestId('total-count')).toHaveText('9');
  // 12,50 + 12,00 + 10,00 (late) + 15,00 (short) = 49,50 actually received.
  await expect(page.getByTestId('total-received_cents')).toHaveText('R$49.50');
  await expect(page.getByTestId('total-paid')).toHaveText('2');
  await expect(page.getByTestId('total-mismatches')).toHaveText('1');
  await expect(page.getByTestId('total-late_payments')).toHaveText('1');
  await expect(page.getByTestId('total-displaced')).toHaveText('3');
  await expect(page.getByTestId('total-expired')).toHaveText('1');
  await expect(page.getByTestId('total-pending')).toHaveText('1');
  await expect(salesRows(page)).toHaveCount(9);
  const lateRow = salesRows(page).filter({ hasText: 'Late payment' });
  await expect(lateRow).toContainText('Acknowledged by Carla');
  await expect(lateRow).toContainText(late?.pix_id as string);
  await expect(salesRows(page).filter({ hasText: 'Amount mismatch' })).toContainText('Acknowledged by Carla');
  await snap(page, testInfo, '02-journal-whole-shift');

  // Filters by outcome; the totals stay those of the whole shift.
  await page.getByLabel('Outcome').selectOption({ label: 'Displaced' });
  await expect(salesRows(page)).toHaveCount(3);
  await expect(salesRows(page).filter({ hasNotText: 'Displaced' })).toHaveCount(0);
  await expect(page.getByTestId('total-count')).toHaveText('9');
  await snap(page, testInfo, '03-journal-filter-displaced');
  await page.getByLabel('Outcome').selectOption({ label: 'All outcomes' });
  await expect(salesRows(page)).toHaveCount(9);

  // Search by external_id, by pix_id and by service_id.
  const search = page.getByRole('searchbox', { name: 'Search' });
  await search.fill('A-1');
  await expect(salesRows(page)).toHaveCount(1);
  await expect(salesRows(page)).toContainText('Paid');
  await search.fill(late?.pix_id as string);
  await expect(salesRows(page)).toHaveCount(1);
  await expect(salesRows(page)).toContainText('Late payment');
  const short = (await payer.sales()).find((s) => s.external_id === 'D-short');
  await search.fill(short?.service_id as string);
  await expect(salesRows(page)).toHaveCount(1);
  await expect(salesRows(page)).toContainText('Amount mismatch');
  await snap(page, testInfo, '04-journal-search');
  await search.fill('');
  await expect(salesRows(page)).toHaveCount(9);

  // Events carry who did what.
  const events = page.getByRole('region', { name: 'Events' });
  await expect(events).toContainText('Ana');
  await expect(events).toContainText('Carla');

  // The journal's hash chain is intact.
  await page.getByRole('button', { name: 'Check integrity' }).click();
  await expect(page.getByTestId('integrity-result')).toContainText(/Journal intact: \d+ entries checked\./);

  // CSV export: one line per sale of the shift, who acknowledged what.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
  expect(download.suggestedFilename()).toMatch(/^shift-.*\.csv$/);
  const csvPath = testInfo.outputPath(download.suggestedFilename());
  await download.saveAs(csvPath);
  await testInfo.attach('shift.csv', { path: csvPath, contentType: 'text/csv' });
  const csv = (await readFile(csvPath, 'utf8')).replace(/^\uFEFF/, '');
  const lines = csv.trim().split(/\r\n/);
  expect(lines[0]).toContain('status');
  expect(lines).toHaveLength(1 + 9);
  const statuses = lines.slice(1).map((l) => l.split(',')[3]);
  expect(statuses.sort()).toEqual(['amount_mismatch', 'displaced', 'displaced', 'displaced', 'expired', 'paid', 'paid', 'paid_late', 'pending']);
  expect(csv).toContain('A-1');
  expect(csv).toContain('Carla');

  // ── Closing over a pending sale asks first ──────────────────────────────────────────
  await page.getByLabel('Closing note').fill('End of the morning');
  await page.getByRole('button', { name: 'Close shift' }).click();
  const question = page.getByRole('alertdialog', { name: 'A sale is still waiting for payment' });
  await expect(question).toContainText('Sales still waiting for payment: 1.');
  await snap(page, testInfo, '05-close-asks-first');
  await question.getByRole('button', { name: 'Keep the shift open' }).click();
  await expect(question).toHaveCount(0);
  await expect(page.getByTestId('shift-state')).toHaveText(/Shift open/);

  await page.getByRole('button', { name: 'Close shift' }).click();
  await question.getByRole('button', { name: 'Close anyway' }).click();
  await expect(page.getByTestId('shift-state')).toHaveText(/Shift closed/);
  await expect(page.getByTestId('shift-facts')).toContainText('Closed by Ana');
  await expect(page.getByTestId('shift-facts')).toContainText('Note: End of the morning');
  await expect(page.getByTestId('shift-line')).toContainText('No shift open');
  await expect(page.getByTestId('total-count')).toHaveText('9');

  // ── The printable end-of-shift report ───────────────────────────────────────────────
  await page.evaluate(() => {
    const w = window as unknown as { printed: number };
    w.printed = 0;
    window.print = () => {
      w.printed++;
    };
  });
  await page.getByRole('button', { name: 'Print end-of-shift report' }).click();
  await expect.poll(() => page.evaluate(() => (window as unknown as { printed: number }).printed)).toBe(1);
  await page.emulateMedia({ media: 'print' });
  await expect(page.getByRole('heading', { name: 'End-of-shift report' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Export CSV' })).toBeHidden();
  await snap(page, testInfo, '06-end-of-shift-report-print');
  await page.emulateMedia({ media: 'screen' });
  await expect(page.getByRole('heading', { name: 'End-of-shift report' })).toBeHidden();
});

test('a supervisor ties a payment without a sale to a sale, picked from a list, in their name', async ({ page, freshApp, request }, testInfo) => {
  const payer = await openCashier(page, freshApp, request);
  await charge(page, '8,00', 'G-1');
  await waitForQr(page, 'R$8.00');

  // A payment for a sale this terminal never made: a second checkout of the store, set up and
  // charged straight at the service (contract 7's manager token), then paid by the payer.
  const manager = { authorization: 'Bearer sandbox-manager-token' };
  expect((await request.post(`${payer.baseUrl}/v2/printed_dynamic_qrs`, { headers: manager, data: { store_id: 1, checkout_id: 2, auto_create_checkout: true } })).ok()).toBe(true);
  expect((await request.post(`${payer.baseUrl}/v2/create_dynamic_pix`, { headers: manager, data: { amount: '8.00', store_id: 1, checkout_id: 2 } })).status()).toBe(201);
  expect((await request.post(`${payer.baseUrl}/_sandbox/pay`, { data: { store_id: 1, checkout_id: 2 } })).status()).toBe(200);

  await page.getByRole('link', { name: 'Shift journal', exact: true }).click();
  const unmatched = page.getByRole('region', { name: 'Unmatched payments' });
  const rows = unmatched.locator('tbody tr[data-seq]');
  await expect(rows).toHaveCount(2);
  await expect(rows.filter({ hasText: 'Payment confirmed by the service' })).toHaveCount(1);
  const payment = rows.filter({ hasText: 'Payment' }).filter({ hasNotText: 'Payment confirmed by the service' });
  await expect(payment).toContainText('R$8.00');
  await snap(page, testInfo, '07-unmatched-payments');

  // The sale is chosen from a list as a person knows it (amount, time, reference), never a typed id.
  await expect(payment.getByLabel('Sale id')).toHaveCount(0);
  const picker = payment.getByLabel('Sale', { exact: true });
  await expect(picker.locator('option').filter({ hasText: 'R$8.00' }).filter({ hasText: 'G-1' })).toHaveCount(1);
  await picker.selectOption({ label: (await picker.locator('option').filter({ hasText: 'G-1' }).textContent()) ?? '' });
  await payment.getByRole('button', { name: 'Attribute' }).click();
  await expect(rows).toHaveCount(1);
  await expect(rows).toContainText('Payment confirmed by the service');
  await expect(salesRows(page).filter({ hasText: 'G-1' })).toContainText('Paid');
  const events = page.getByRole('region', { name: 'Events' });
  // Event types are worded; the journaled type stays on the cell for whoever needs it.
  const attributed = events.locator('tr').filter({ has: page.locator('[data-type="payment.attributed"]') });
  await expect(attributed).toContainText('Payment attributed to a sale');
  // In the name of the supervisor signed in: here the till's manager, Ana.
  await expect(attributed).toContainText('Ana');
});

test('a supervisor opens a past shift and a past day: the shift as it was at its close, a later payment after it', async ({ page, freshApp, request }, testInfo) => {
  test.setTimeout(120_000);
  const payer = await openCashier(page, freshApp, request);
  const toJournal = () => page.getByRole('link', { name: 'Shift journal', exact: true }).click();
  const toCashier = () => page.getByRole('link', { name: 'Cashier', exact: true }).click();
  const openShift = async () => {
    await page.getByRole('button', { name: 'Open shift' }).click();
    await expect(page.getByTestId('shift-state')).toHaveText(/Shift open/);
  };

  // ── Ana's shift: one sale paid, one still waiting when she closes ───────────────────
  await toJournal();
  await openShift();
  await toCashier();
  await charge(page, '12,50', 'A-1');
  await waitForQr(page, 'R$12.50');
  await payer.payCheckout();
  await expect(currentSale(page)).toContainText('R$12.50 received.');
  await charge(page, '9,00', 'A-2');
  await waitForQr(page, 'R$9.00');
  await toJournal();
  await page.getByRole('button', { name: 'Close shift' }).click();
  await page.getByRole('alertdialog', { name: 'A sale is still waiting for payment' }).getByRole('button', { name: 'Close anyway' }).click();
  await expect(page.getByTestId('shift-state')).toHaveText(/Shift closed/);

  // The customer pays A-2 after the close: it shows after the close, the totals stay.
  await payer.payCheckout();
  const afterClose = page.getByRole('region', { name: 'After the close' });
  await expect(afterClose.locator('tbody tr[data-sale-id]')).toHaveCount(1);
  await expect(afterClose).toContainText('R$9.00');
  await expect(afterClose).toContainText('by Ana');
  await expect(page.getByRole('heading', { name: 'Totals at the close' })).toBeVisible();
  await expect(page.getByTestId('total-received_cents')).toHaveText('R$12.50');
  await expect(page.getByTestId('total-pending')).toHaveText('1');

  // ── The next day, Bruno's shift ─────────────────────────────────────────────────────
  // Moving the service's clock a day does not lock the till: its idle time is real time.
  await payer.advanceClock(86_400);
  await expect(page.getByTestId('signed-in')).toContainText('Ana');
  const bruno = { name: 'Bruno', pin: '5791', role: 'Supervisor' } as const;
  await addOperator(page, bruno);
  await signOut(page);
  await signIn(page, bruno);
  await toJournal();
  await openShift();
  await toCashier();
  await charge(page, '5,00', 'B-1');
  await waitForQr(page, 'R$5.00');
  await payer.payCheckout();
  await expect(currentSale(page)).toContainText('R$5.00 received.');
  await toJournal();
  await expect(page.getByTestId('total-count')).toHaveText('1');

  // ── The supervisor opens Ana's shift from the history ───────────────────────────────
  const history = page.getByRole('region', { name: 'History' });
  const shifts = history.locator('tbody tr[data-shift-id]');
  await expect(shifts).toHaveCount(2);
  await expect(shifts.first()).toContainText('Bruno');
  await expect(shifts.nth(1)).toContainText('Ana');
  await expect(shifts.nth(1)).toContainText('R$12.50');
  await shifts.nth(1).getByRole('button', { name: /^Show the shift opened by Ana/ }).click();
  const showing = page.getByTestId('report-showing');
  await expect(showing).toContainText('Past shift: opened by Ana');
  await expect(showing).toContainText('as they were at the close');
  await expect(page.getByTestId('total-count')).toHaveText('2');
  await expect(page.getByTestId('total-paid')).toHaveText('1');
  await expect(page.getByTestId('total-pending')).toHaveText('1');
  await expect(page.getByTestId('total-received_cents')).toHaveText('R$12.50');
  await expect(salesRows(page)).toHaveCount(2);
  // Case-sensitive: a string would also find a row whose sale id has "a-2" in it (ca-21ac…).
  await expect(salesRows(page).filter({ hasText: /A-2/ })).toHaveAttribute('data-status', 'pending');
  await expect(page.getByRole('columnheader', { name: 'Charged by' })).toBeVisible();
  await expect(salesRows(page).getByTestId('charged-by')).toHaveText(['Ana', 'Ana']);
  await expect(afterClose).toContainText('R$9.00');
  await snap(page, testInfo, '08-past-shift-frozen');

  // ── And Ana's day: the day's sales as they stand now ────────────────────────────────
  await history.getByRole('button', { name: 'Days' }).click();
  await expect(history.locator('tbody tr[data-day]')).toHaveCount(7);
  const anasDay = history.locator('tbody tr[data-count="2"]');
  await expect(anasDay).toHaveCount(1);
  await anasDay.getByRole('button', { name: /^Show / }).click();
  await expect(showing).toContainText(/^Day /);
  const daySales = page.getByRole('region', { name: 'Sales of the day' }).locator('tbody tr[data-sale-id]');
  await expect(daySales).toHaveCount(2);
  await expect(page.getByTestId('total-paid')).toHaveText('2');
  await expect(page.getByTestId('total-received_cents')).toHaveText('R$21.50');
  await snap(page, testInfo, '09-past-day');
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
  expect(download.suggestedFilename()).toMatch(/^day-\d{4}-\d{2}-\d{2}\.csv$/);

  // Back to the current shift.
  await page.getByRole('button', { name: 'Back to the current shift' }).click();
  await expect(showing).toHaveCount(0);
  await expect(page.getByTestId('total-count')).toHaveText('1');
});
