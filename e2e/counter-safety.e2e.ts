import type { Page } from '@playwright/test';
import { acknowledgeAlert, expect, openCashier, openCustomerDisplay, snap, test } from './fixtures.ts';

/**
 * Issue 8, points 4 to 8, as a person at the counter meets them: a withdrawn sale, a late
 * payment that must not invite a second one, a dead link to the core, the counter at every
 * screen size, and amounts and references that are refused in words rather than rewritten.
 */

const currentSale = (page: Page) => page.getByRole('region', { name: 'Current sale' });
const amountField = (page: Page) => page.getByLabel('Amount', { exact: true });
const chargeButton = (page: Page) => page.getByRole('button', { name: 'Charge', exact: true });
const qrImage = (page: Page) => page.getByRole('img', { name: 'Payment QR code' });

async function charge(page: Page, amount: string, money: string): Promise<void> {
  await amountField(page).fill(amount);
  await amountField(page).press('Enter');
  await expect(currentSale(page).getByTestId('sale-amount')).toHaveText(money);
}

async function withdrawFromScreen(page: Page, button: string): Promise<void> {
  await currentSale(page).getByRole('button', { name: button }).click();
  const confirm = page.getByRole('alertdialog');
  await expect(confirm).toContainText('Withdraw the sale of');
  await confirm.getByRole('button', { name: 'Withdraw sale' }).click();
}

test('a late payment: the customer display says Please wait with no QR; the cashier withdraws the newer sale and acknowledges', async ({ page, freshApp, request }, testInfo) => {
  const payer = await openCashier(page, freshApp, request);
  const display = await openCustomerDisplay(page);

  await charge(page, '15.00', 'R$15.00');
  await expect(display.getByRole('img', { name: 'Payment QR code' })).toBeVisible();
  await charge(page, '12.00', 'R$12.00');
  await expect(display.getByTestId('display-amount')).toHaveText('R$12.00');
  const displaced = (await payer.sales()).find((s) => s.amount_brl === '15.00');
  await payer.payLate(displaced?.pix_id ?? '');

  const alert = page.getByRole('alert').filter({ hasText: 'Late payment' });
  await expect(alert).toContainText('do not collect twice');
  // Neither window shows the newer sale's QR while the late payment waits for a person.
  await expect(display.getByTestId('display-please-wait')).toHaveText('Please wait');
  await expect(display.getByRole('img')).toHaveCount(0);
  await expect(currentSale(page).locator('[data-screen="held"]')).toContainText('Please wait: no QR code');
  await expect(qrImage(page)).toHaveCount(0);
  await snap(display, testInfo, 'display-please-wait');
  await snap(page, testInfo, 'cashier-held');

  await withdrawFromScreen(page, 'Withdraw the newer sale');
  await expect(currentSale(page).locator('[data-status="withdrawn"]')).toContainText('Withdrawn');
  // Still Please wait: the late payment itself has not been dealt with.
  await expect(display.getByTestId('display-please-wait')).toBeVisible();

  await acknowledgeAlert(alert);
  await expect(alert).toHaveCount(0);
  await expect(display.getByText('Welcome')).toBeVisible();
  await expect(display.getByRole('img')).toHaveCount(0);
});

test('withdraw a pending sale: confirmed by name, no QR anywhere, Withdrawn; a payment that still comes needs a person', async ({ page, freshApp, request }, testInfo) => {
  const payer = await openCashier(page, freshApp, request);
  const display = await openCustomerDisplay(page);
  await charge(page, '10.00', 'R$10.00');
  await expect(qrImage(page)).toBeVisible();

  // Keeping the sale is the default answer: nothing changes.
  await currentSale(page).getByRole('button', { name: 'Withdraw sale' }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Keep the sale' }).click();
  await expect(qrImage(page)).toBeVisible();

  await withdrawFromScreen(page, 'Withdraw sale');
  await expect(currentSale(page).locator('[data-status="withdrawn"]')).toContainText('Withdrawn');
  await expect(qrImage(page)).toHaveCount(0);
  await expect(display.getByRole('img')).toHaveCount(0);
  await expect(page.getByRole('region', { name: 'Recent sales' })).toContainText('Withdrawn');
  await snap(page, testInfo, 'withdrawn');

  // The service has no cancel: the printed QR still pays it. Never silently Paid.
  await payer.payCheckout();
  const alert = page.getByRole('alert').filter({ hasText: 'withdrew' });
  await expect(alert).toContainText('do not collect it again');
  await expect(display.getByTestId('display-please-wait')).toBeVisible();
  await acknowledgeAlert(alert);
  await expect(alert).toHaveCount(0);
});

test('a dead link looks dead: grey QR, Not connected — do not take payment, no Charge; back by itself', async ({ page, freshApp, request }, testInfo) => {
  let down = false;
  const open = new Set<{ close: () => Promise<void> }>();
  await page.routeWebSocket(/\/bridge$/, (ws) => {
    // While the core is "down" every connection is refused; afterwards they pass through.
    if (down) {
      void ws.close();
      return;
    }
    ws.connectToServer();
    open.add(ws);
  });
  await openCashier(page, freshApp, request);
  await charge(page, '8.00', 'R$8.00');
  await expect(qrImage(page)).toBeVisible();

  down = true;
  for (const ws of open) await ws.close();
  open.clear();
  await expect(page.getByTestId('offline')).toContainText('Not connected — do not take payment');
  await expect(currentSale(page).locator('.sale-offline')).toBeVisible();
  await expect(chargeButton(page)).toHaveAttribute('aria-disabled', 'true');
  await snap(page, testInfo, 'offline');

  down = false;
  await expect(page.getByTestId('offline')).toHaveCount(0, { timeout: 20_000 });
  await expect(currentSale(page).locator('.sale-offline')).toHaveCount(0);
  await expect(qrImage(page)).toBeVisible();
  await expect(chargeButton(page)).toHaveAttribute('aria-disabled', 'false');
});

test('amounts of R$ 10.000,00 and more are confirmed once; a pasted amount goes through the same rules; a long reference is refused, not cut', async ({ page, freshApp, request }) => {
  await openCashier(page, freshApp, request);
  // Issue 26: Charge with no amount says so under the field instead of doing nothing silently.
  await chargeButton(page).click();
  await expect(page.locator('#amount-preview')).toContainText('Type the amount to charge, like 12.50.');
  await expect(qrImage(page)).toHaveCount(0);
  await amountField(page).fill('12000');
  await expect(page.locator('#amount-preview')).not.toContainText('Type the amount to charge');
  await amountField(page).press('Enter');
  await expect(page.getByTestId('large-confirm')).toContainText('press Charge again to confirm');
  await expect(qrImage(page)).toHaveCount(0);
  await chargeButton(page).click();
  await expect(currentSale(page).getByTestId('sale-amount')).toHaveText('R$12,000.00');

  // A paste is read like typing: "-5" is refused with a sentence, never charged as R$ 5,00.
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.evaluate(() => navigator.clipboard.writeText('-5'));
  await amountField(page).fill('');
  await amountField(page).press('ControlOrMeta+V');
  await expect(amountField(page)).toHaveValue('-5');
  await expect(page.locator('#amount-preview')).toContainText('cannot be negative');

  await amountField(page).fill('7.00');
  const long = 'x'.repeat(129);
  await page.getByLabel('Reference').fill(long);
  await expect(page.getByLabel('Reference')).toHaveValue(long);
  await expect(page.locator('#reference-help')).toContainText('The reference has 129 characters; at most 128 are allowed.');
  await expect(chargeButton(page)).toHaveAttribute('aria-disabled', 'true');
});

/**
 * Another till (or a script) takes the checkout with the manager's token: the service
 * displaces our pending sale, and the app's poll finds it gone (an alert that needs a person
 * but takes no money, so the checkout may still show a QR).
 */
async function displacedByAnotherTill(baseUrl: string, request: import('@playwright/test').APIRequestContext): Promise<void> {
  const res = await request.post(`${baseUrl}/v2/create_dynamic_pix`, {
    headers: { authorization: 'Bearer sandbox-manager-token' },
    data: { amount: '3.00', store_id: 1, checkout_id: 1 },
  });
  expect(res.status()).toBe(201);
}

const SIZES = [
  { width: 1024, height: 768 },
  { width: 1280, height: 800 },
  { width: 1366, height: 768 },
  { width: 800, height: 1280 },
];

test('the counter at every size: with three alerts the current sale and Charge stay in view; a phone has no horizontal scroll', async ({ page, freshApp, request }, testInfo) => {
  test.setTimeout(120_000);
  const payer = await openCashier(page, freshApp, request);
  for (const [i, amount] of ['4.00', '5.00', '6.00'].entries()) {
    await charge(page, amount, `R$${amount}`);
    await displacedByAnotherTill(payer.baseUrl, request);
    await payer.advanceClock(10);
    await expect(page.getByRole('region', { name: /^Needs a person/ }).getByRole('alert')).toHaveCount(i + 1, { timeout: 20_000 });
  }
  // The current sale, with the longest reference the service takes: it wraps.
  await amountField(page).fill('7.00');
  await page.getByLabel('Reference').fill('R'.repeat(128));
  await amountField(page).press('Enter');
  await expect(qrImage(page)).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Needs a person (3)' })).toBeVisible();

  const inView = async (name: string, target: import('@playwright/test').Locator, size: { width: number; height: number }) => {
    const box = await target.boundingBox();
    expect(box, `${name} at ${size.width}×${size.height}`).not.toBeNull();
    if (!box) return;
    expect(box.y, `${name} top at ${size.width}×${size.height}`).toBeGreaterThanOrEqual(0);
    expect(box.y + box.height, `${name} bottom at ${size.width}×${size.height}`).toBeLessThanOrEqual(size.height);
    expect(box.x + box.width, `${name} right at ${size.width}×${size.height}`).toBeLessThanOrEqual(size.width);
  };
  for (const size of SIZES) {
    await page.setViewportSize(size);
    await page.evaluate(() => window.scrollTo(0, 0));
    const sale = currentSale(page);
    await inView('the amount', sale.getByTestId('sale-amount'), size);
    await inView('the QR', qrImage(page), size);
    await inView('the state', sale.getByText('Waiting for payment'), size);
    await inView('the countdown', sale.getByRole('timer'), size);
    await inView('Charge', chargeButton(page), size);
    await snap(page, testInfo, `counter-${size.width}x${size.height}-three-alerts`);
  }

  await page.setViewportSize({ width: 390, height: 844 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  await snap(page, testInfo, 'counter-390-phone');
});
