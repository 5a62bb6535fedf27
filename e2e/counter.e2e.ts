import type { Page } from '@playwright/test';
import { expect, openCashier, snap, startApp, test } from './fixtures.ts';

/**
 * The charge form at a busy counter: double presses, typing while a charge is on its way,
 * a connection lost in the middle of a charge, a thousands separator, Escape from anywhere,
 * and refusals in the cashier's language. Each test has an app of its own.
 */

const currentSale = (page: Page) => page.getByRole('region', { name: 'Current sale' });
const amountField = (page: Page) => page.getByLabel('Amount', { exact: true });
const chargeErrors = (page: Page) => page.locator('.charge-form [role="alert"]');

async function waitForQr(page: Page, money: string): Promise<string> {
  const panel = currentSale(page);
  await expect(panel.getByTestId('sale-amount')).toHaveText(money);
  await expect(panel.getByRole('img', { name: 'Payment QR code' })).toBeVisible();
  return (await panel.locator('[data-sale-id]').getAttribute('data-sale-id')) as string;
}

interface Sent {
  id: number;
  method: string;
  args: Record<string, unknown> | undefined;
}

/**
 * Stands between the page and the cashier app's bridge (the browser shell's WebSocket), as a
 * flaky network would: it can hold the answer to one call, or cut the connection the moment
 * a call leaves the page (the app still gets it) and keep the next connection silent until
 * released. Everything else passes through untouched.
 */
async function bridgeBetween(page: Page) {
  const proxy = {
    sent: [] as Sent[],
    /** The next call of this method has its answer held until release(). */
    holdAnswerTo: null as string | null,
    /** The next call of this method cuts the connection before anything comes back. */
    cutOn: null as string | null,
    held: [] as (() => void)[],
    silent: false,
    release() {
      proxy.silent = false;
      for (const deliver of proxy.held.splice(0)) deliver();
    },
    charges(): string[] {
      return proxy.sent.filter((m) => m.method === 'sale.charge').map((m) => String(m.args?.['amount']));
    },
  };
  await page.routeWebSocket(/\/bridge$/, (ws) => {
    const server = ws.connectToServer();
    const heldIds = new Set<number>();
    let cut = false;
    // The page side may close; the app side keeps running what it was sent.
    ws.onClose(() => undefined);
    ws.onMessage((message) => {
      const msg = JSON.parse(String(message)) as Sent;
      proxy.sent.push(msg);
      if (proxy.cutOn === msg.method) {
        proxy.cutOn = null;
        cut = true;
        proxy.silent = true;
        void ws.close();
        server.send(message);
        return;
      }
      if (proxy.holdAnswerTo === msg.method) {
        proxy.holdAnswerTo = null;
        heldIds.add(msg.id);
      }
      server.send(message);
    });
    server.onMessage((message) => {
      if (cut) return;
      const msg = JSON.parse(String(message)) as { type: string; id?: number };
      const deliver = () => ws.send(message);
      if (proxy.silent || (msg.type === 'reply' && msg.id !== undefined && heldIds.has(msg.id))) proxy.held.push(deliver);
      else deliver();
    });
  });
  return proxy;
}

test('a second Enter or a double click after a charge sends nothing and shows no error', async ({ page, freshApp, request }, testInfo) => {
  const proxy = await bridgeBetween(page);
  await openCashier(page, freshApp, request);

  await amountField(page).fill('10,00');
  await amountField(page).press('Enter');
  await waitForQr(page, 'R$10.00');
  await expect(amountField(page)).toHaveValue('');
  // The cashier's finger is still on Enter, or the mouse double-clicked.
  await amountField(page).press('Enter');
  await page.getByRole('button', { name: 'Charge', exact: true }).dblclick();

  // A real charge after them: whatever they sent has been answered by the time this is shown.
  await amountField(page).fill('5');
  await amountField(page).press('Enter');
  await waitForQr(page, 'R$5.00');
  expect(proxy.charges()).toEqual(['10,00', '5']);
  await expect(chargeErrors(page)).toHaveCount(0);
  await snap(page, testInfo, '01-no-empty-charge');
});

test('an amount typed while a charge is on its way stays when the charge succeeds', async ({ page, freshApp, request }, testInfo) => {
  const proxy = await bridgeBetween(page);
  await openCashier(page, freshApp, request);

  proxy.holdAnswerTo = 'sale.charge';
  await amountField(page).fill('10,00');
  await page.getByLabel('Reference', { exact: true }).fill('A-1');
  await amountField(page).press('Enter');
  await expect.poll(() => proxy.charges()).toEqual(['10,00']);
  // The core shows the new sale while the charge's own answer is still on its way.
  await waitForQr(page, 'R$10.00');
  await amountField(page).fill('7,50');
  await page.getByLabel('Reference', { exact: true }).fill('B-2');
  await snap(page, testInfo, '01-typing-while-charging');

  proxy.release();
  await expect(page.getByText('Sending the sale to the payment service…')).toHaveCount(0);
  await expect(amountField(page)).toHaveValue('7,50');
  await expect(page.getByLabel('Reference', { exact: true })).toHaveValue('B-2');

  // Untouched fields are emptied as usual.
  await amountField(page).press('Enter');
  await waitForQr(page, 'R$7.50');
  await expect(amountField(page)).toHaveValue('');
  await expect(page.getByLabel('Reference', { exact: true })).toHaveValue('');
});

test('a charge whose answer is lost says it may have gone through, and clears once the sale shows', async ({ page, freshApp, request }, testInfo) => {
  const proxy = await bridgeBetween(page);
  await openCashier(page, freshApp, request);
  await expect(currentSale(page).locator('[data-screen="idle"]')).toBeVisible();

  proxy.cutOn = 'sale.charge';
  await amountField(page).fill('12,50');
  await amountField(page).press('Enter');
  const alert = chargeErrors(page);
  await expect(alert).toHaveText(/The charge may have gone through: check the current sale before charging again\./);
  await expect(alert).not.toContainText('try again');
  // What was typed stays until it is known to be charged: it may not have been.
  await expect(amountField(page)).toHaveValue('12,50');
  await snap(page, testInfo, '01-charge-answer-lost');

  // The connection is back: the core's view shows the sale the charge made.
  proxy.release();
  await waitForQr(page, 'R$12.50');
  await expect(alert).toHaveCount(0);
  await expect(amountField(page)).toHaveValue('');
  expect(proxy.charges()).toEqual(['12,50']);
  await snap(page, testInfo, '02-charge-answer-lost-then-shown');
});

test('a thousands separator is refused in the preview and by the core, in words', async ({ page, freshApp, request }, testInfo) => {
  await openCashier(page, freshApp, request);
  await amountField(page).fill('2.500');
  const preview = page.locator('#amount-preview');
  await expect(preview).toHaveText(/No thousands separator: type 1500 or 1500\.00\./);
  await expect(page.getByText(/Will charge/)).toHaveCount(0);
  await expect(amountField(page)).toHaveAttribute('aria-invalid', 'true');
  await snap(page, testInfo, '01-thousands-separator-preview');

  await amountField(page).press('Enter');
  await expect(chargeErrors(page)).toHaveText(/No thousands separator: type 1500 or 1500\.00\./);
  await expect(currentSale(page).locator('[data-screen="idle"]')).toBeVisible();
  await snap(page, testInfo, '02-thousands-separator-refused');

  await amountField(page).fill('2500');
  await expect(preview).toHaveText('Will charge R$2,500.00');
});

test('a minus sign or an exponent is kept in the field and refused in words, never charged as another amount', async ({ page, freshApp, request }, testInfo) => {
  await openCashier(page, freshApp, request);
  const preview = page.locator('#amount-preview');
  // Issue 13: the field dropped what was not a digit, so "-5" charged R$ 5,00 and "1e3" R$ 13,00.
  await amountField(page).pressSequentially('-5');
  await expect(amountField(page)).toHaveValue('-5');
  await expect(preview).toHaveText(/An amount to charge cannot be negative: type it without a minus sign\./);
  await expect(amountField(page)).toHaveAttribute('aria-invalid', 'true');
  await amountField(page).press('Enter');
  await expect(chargeErrors(page)).toHaveText(/An amount to charge cannot be negative/);
  await snap(page, testInfo, '01-minus-sign-refused');

  await amountField(page).fill('');
  await amountField(page).pressSequentially('1e3');
  await expect(amountField(page)).toHaveValue('1e3');
  await expect(preview).toHaveText(/Type the amount in plain digits, like 1000 or 1000\.00/);
  await amountField(page).press('Enter');
  await expect(chargeErrors(page)).toHaveText(/Type the amount in plain digits/);
  await expect(currentSale(page).locator('[data-screen="idle"]')).toBeVisible();
  await snap(page, testInfo, '02-exponent-refused');

  await amountField(page).fill('R$ 12,50');
  await expect(preview).toHaveText('Will charge R$12.50');
  await amountField(page).press('Enter');
  await waitForQr(page, 'R$12.50');
});

test('the replace notice is part of the Amount field description and is announced', async ({ page, freshApp, request }) => {
  await openCashier(page, freshApp, request);
  await amountField(page).fill('10,00');
  await amountField(page).press('Enter');
  await waitForQr(page, 'R$10.00');
  const notice = page.locator('#replace-notice');
  await expect(notice).toHaveAttribute('aria-live', 'polite');
  await amountField(page).fill('11');
  await expect(amountField(page)).toHaveAccessibleDescription(/Charging now replaces the sale of R\$10\.00 that is waiting for payment/);
  await expect(page.getByRole('button', { name: 'Charge', exact: true })).toHaveAccessibleDescription(/Charging now replaces the sale of R\$10\.00/);
  // The status bar stays the page's one status.
  await expect(page.getByRole('status')).toHaveCount(1);
});

test('Escape clears the charge form from anywhere on the screen, but not from the language list', async ({ page, freshApp, request }, testInfo) => {
  const payer = await openCashier(page, freshApp, request);
  await amountField(page).fill('20,00');
  await amountField(page).press('Enter');
  await waitForQr(page, 'R$20.00');
  await payer.payCheckout('15.00');
  const alert = page.getByRole('alert').filter({ hasText: 'Amount mismatch' });
  await expect(alert).toBeVisible();

  // In the language list Escape leaves the amount alone.
  await amountField(page).fill('3,00');
  await page.getByLabel('Reference', { exact: true }).fill('R-9');
  await page.getByLabel('Language').press('Escape');
  await expect(amountField(page)).toHaveValue('3,00');

  // On a button of the attention item, the customer display link, or the keypad, it clears.
  await alert.getByRole('button', { name: 'Acknowledge' }).focus();
  await page.keyboard.press('Escape');
  await expect(amountField(page)).toHaveValue('');
  await expect(page.getByLabel('Reference', { exact: true })).toHaveValue('');
  await expect(amountField(page)).toBeFocused();

  await amountField(page).fill('4,00');
  await page.getByRole('link', { name: /Customer display/ }).focus();
  await page.keyboard.press('Escape');
  await expect(amountField(page)).toHaveValue('');

  await amountField(page).fill('5,00');
  await page.getByRole('group', { name: 'Keypad' }).getByRole('button', { name: '7', exact: true }).focus();
  await page.keyboard.press('Escape');
  await expect(amountField(page)).toHaveValue('');
  await snap(page, testInfo, '01-escape-cleared');
});

test('in pt-BR a refusal by the service is said in Portuguese, not in the core log English', async ({ page, request }, testInfo) => {
  const app = await startApp({ POS_LANG: 'pt-BR' });
  try {
    const payer = await openCashier(page, app, request);
    const off = await request.put(`${payer.baseUrl}/_sandbox/gateway`, { data: { printed_disabled: true } });
    expect(off.ok()).toBe(true);
    await page.getByLabel('Valor', { exact: true }).fill('9,90');
    await page.getByLabel('Valor', { exact: true }).press('Enter');
    const alert = chargeErrors(page);
    await expect(alert).toHaveText(/Os QRs impressos estão temporariamente desativados no serviço de pagamento; tente mais tarde\./);
    await expect(alert).not.toContainText('Printed QRs');
    await snap(page, testInfo, '01-pt-BR-recusa-traduzida');
  } finally {
    await app.stop();
  }
});
