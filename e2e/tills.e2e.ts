import { copyFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from '@playwright/test';
import { auditPage, SIZES } from './audit.ts';
import { addOperator, addPrintedCheckout, createPairingCode, enterPairingCode, expect, openCashier, pairDevice, recordBridge, signIn, snap, test } from './fixtures.ts';

/**
 * Issue 9, as a store with two tills lives it: the manager, at the store computer, pairs
 * till 1 on checkout 1 and till 2 on checkout 2 of store 1, and the customer display of
 * checkout 2, each a browser of its own opening the store's address without the token.
 * What happens at one checkout reaches that checkout's till and display, never the other
 * till; revoking a till ends its session at once; a wrong, an expired and a used pairing
 * code are each refused in a sentence.
 */

const CAIO = { name: 'Caio', pin: '1357', role: 'Cashier' } as const;
const BIA = { name: 'Bia', pin: '8642', role: 'Cashier' } as const;

const currentSale = (page: Page) => page.getByRole('region', { name: 'Current sale' });
const lateAlert = (page: Page) => page.getByRole('alert').filter({ hasText: 'Late payment' });

async function charge(page: Page, amount: string, money: string): Promise<void> {
  await page.getByLabel('Amount', { exact: true }).fill(amount);
  await page.getByLabel('Amount', { exact: true }).press('Enter');
  await expect(currentSale(page).getByTestId('sale-amount')).toHaveText(money);
}

test('two tills and a display on checkouts 1 and 2: each hears its own checkout only; revoking ends a till at once; bad codes are refused in words', async ({
  page: store,
  browser,
  freshApp,
  request,
}, testInfo) => {
  test.setTimeout(240_000);
  const contexts: BrowserContext[] = [];
  try {
    // ── The store computer: its manager and the cashiers ──────────────────────────────────
    const payer = await openCashier(store, freshApp, request);
    await addOperator(store, CAIO);
    await addOperator(store, BIA);
    // The store's second checkout, with its printed QR poster (Stores screen, issue 10).
    await addPrintedCheckout(store, 'Loja Centro', 'Caixa 2');

    // ── The manager pairs till 1, till 2 and the display of checkout 2 ──────────────────
    const code1 = await createPairingCode(store, { kind: 'Till', checkout: 1, name: 'Till 1' });
    await expect(store.getByRole('region', { name: 'Pairing code' })).toContainText(`${freshApp.origin}/`);
    await expect(store.getByRole('region', { name: 'Pairing code' }).getByRole('img', { name: 'QR code of the store’s address' })).toBeVisible();
    // Opening the store without the token is not a dead page: it asks for a pairing code.
    const till1 = await pairDevice(browser, freshApp, code1);
    contexts.push(till1.context);
    await expect(till1.page.getByTestId('terminal')).toHaveText('Till 1 · Store 1 · Checkout 1');

    const code2 = await createPairingCode(store, { kind: 'Till', checkout: 2, name: 'Till 2' });
    const till2 = await pairDevice(browser, freshApp, code2.replace(' ', ''));
    contexts.push(till2.context);
    await expect(till2.page.getByTestId('terminal')).toHaveText('Till 2 · Store 1 · Checkout 2');

    const code3 = await createPairingCode(store, { kind: 'Customer display', checkout: 2, name: 'Display 2' });
    const display = await pairDevice(browser, freshApp, code3);
    contexts.push(display.context);
    // A paired display shows the customer display at the store's address, nothing of the till.
    await expect(display.page.getByText('Welcome')).toBeVisible();
    await expect(display.page.getByLabel('Amount', { exact: true })).toHaveCount(0);

    const rows = store.locator('tr[data-device]');
    await expect(rows).toHaveCount(3);
    await expect(store.locator('tr[data-device="Till 2"]')).toContainText('Store 1 · Checkout 2');
    await expect(store.locator('tr[data-device="Till 2"]')).toContainText('Online now');
    await expect(store.locator('tr[data-device="Display 2"]')).toContainText('Customer display');
    await expect(store.locator('tr[data-device="Till 1"]')).toContainText('by Ana');
    await snap(store, testInfo, '01-devices');

    // ── Operators still sign in on a paired till ──────────────────────────────────────────
    await signIn(till1.page, CAIO);
    await signIn(till2.page, BIA);
    await expect(till2.page.getByTestId('device-name')).toHaveText('Till 2 · Store 1 · Checkout 2');

    // ── A correction on till 2: its display follows, till 1 hears nothing ─────────────────
    await charge(till2.page, '15.00', 'R$15.00');
    await expect(display.page.getByTestId('display-amount')).toHaveText('R$15.00');
    await charge(till2.page, '12.00', 'R$12.00');
    await expect(display.page.getByTestId('display-amount')).toHaveText('R$12.00');
    await expect(till2.page.getByRole('region', { name: 'Recent sales' })).toContainText('Displaced');

    // ── The displaced sale is paid late: till 2 and its display, not till 1 ──────────────
    const displaced = (await payer.sales(2)).find((s) => s.amount_brl === '15.00' && s.displaced);
    expect(displaced, 'the displaced sale of checkout 2 at the service').toBeDefined();
    await payer.payLate(displaced?.pix_id ?? '');
    await expect(lateAlert(till2.page)).toContainText('do not collect twice');
    await expect(display.page.getByTestId('display-please-wait')).toHaveText('Please wait');
    await expect(display.page.getByRole('img')).toHaveCount(0);
    // The manager's list is the merchant's: the late payment is there, saying whose it is.
    await store.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Cashier', exact: true }).click();
    await expect(lateAlert(store)).toContainText('Checkout 2');
    await snap(till2.page, testInfo, '02-till2-late-payment');
    await snap(display.page, testInfo, '03-display2-please-wait');
    // Till 1 (a cashier of checkout 1) saw none of it.
    await expect(lateAlert(till1.page)).toHaveCount(0);
    await expect(till1.page.getByText('R$15.00')).toHaveCount(0);
    await expect(till1.page.getByText('R$12.00')).toHaveCount(0);

    // ── A payment on checkout 1 shows on till 1, never on till 2 ─────────────────────────
    await charge(till1.page, '7.00', 'R$7.00');
    await payer.payCheckout(undefined, 1);
    await expect(currentSale(till1.page)).toContainText('R$7.00 received.');
    await expect(till2.page.getByText('R$7.00')).toHaveCount(0);
    await expect(display.page.getByText('R$7.00')).toHaveCount(0);
    await expect(display.page.getByTestId('display-please-wait')).toBeVisible();
    await snap(till1.page, testInfo, '04-till1-paid');

    // ── Revoking till 2 sends it back to Pair this till at once ──────────────────────────
    await store.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Devices', exact: true }).click();
    await store.getByRole('button', { name: 'Revoke Till 2', exact: true }).click();
    const confirm = store.getByRole('alertdialog');
    await expect(confirm).toContainText('connection ends at once');
    await expect(confirm).toContainText('paired again');
    await confirm.getByRole('button', { name: 'Revoke Till 2', exact: true }).click();
    await expect(till2.page.getByRole('heading', { name: 'Pair this till', exact: true })).toBeVisible();
    await expect(till2.page.getByTestId('pair-revoked')).toContainText('revoked');
    await expect(till2.page.getByLabel('Amount', { exact: true })).toHaveCount(0);
    await expect(store.locator('tr[data-device="Till 2"]')).toContainText('Revoked by Ana');
    // A reload does not bring it back: the page forgot the credential.
    await till2.page.reload();
    await expect(till2.page.getByRole('heading', { name: 'Pair this till', exact: true })).toBeVisible();
    // Till 1 goes on.
    await expect(till1.page.getByTestId('signed-in')).toContainText('Caio');
    await snap(till2.page, testInfo, '05-till2-revoked');

    // ── A wrong, a used and an expired code are refused with a sentence ─────────────────
    await enterPairingCode(till2.page, '0000 0000');
    await expect(till2.page.getByTestId('pair-error')).toContainText('That pairing code is not one this store gave');
    await enterPairingCode(till2.page, code2);
    await expect(till2.page.getByTestId('pair-error')).toContainText('That pairing code has already been used');
    const late = await createPairingCode(store, { kind: 'Till', checkout: 2, name: 'Till 2 again' });
    // The core's clock is the sandbox's: ten minutes and a second later the code is over.
    await payer.advanceClock(601);
    await enterPairingCode(till2.page, late);
    await expect(till2.page.getByTestId('pair-error')).toContainText('That pairing code has expired');
    await expect(till2.page.getByRole('heading', { name: 'Pair this till', exact: true })).toBeVisible();
    await snap(till2.page, testInfo, '06-expired-code');

    // ── On the wire: till 1 never heard of checkout 2; the display asked for its screen only ──
    const aboutCheckout = (p: { payload: Record<string, unknown> }) => p.payload['checkout_id'];
    expect(till1.pushes.filter((p) => p.event === 'checkout.changed').length).toBeGreaterThan(0);
    expect(till1.pushes.filter((p) => p.event === 'checkout.changed' || p.event === 'display.changed').map(aboutCheckout)).not.toContain(2);
    expect(till1.pushes.map((p) => p.event)).not.toContain('attention.changed');
    expect(till2.pushes.filter((p) => p.event === 'checkout.changed' || p.event === 'display.changed').map(aboutCheckout)).not.toContain(1);
    // The pair screen shows no server-sent fingerprint (issue 25, point 5): it asks only to pair.
    expect(new Set(display.calls)).toEqual(new Set(['pairing.pair', 'display.view']));
    expect(new Set(display.pushes.map((p) => p.event))).toEqual(new Set(['display.changed']));
    expect(display.pushes.map(aboutCheckout)).not.toContain(1);
  } finally {
    for (const context of contexts) await context.close();
  }
});

test('the Devices screen with a paired till and a pairing code on show', async ({ page: store, browser, freshApp, request }, testInfo) => {
  const wire = recordBridge(store);
  await openCashier(store, freshApp, request);

  // Issue 26: Pair a till names each wrong field beside it, and asks the core for nothing.
  await store.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Devices', exact: true }).click();
  const pair = store.getByRole('region', { name: 'Pair a till' });
  await pair.getByRole('button', { name: 'Pair a till', exact: true }).click();
  const checkout = pair.getByLabel('Checkout', { exact: true });
  await expect(checkout.locator('option[value="other"]')).toHaveCount(1);
  await checkout.selectOption('other');
  const number = pair.getByLabel('Checkout number', { exact: true });
  const name = pair.getByLabel('Name', { exact: true });
  await number.fill('0');
  await name.fill('x'.repeat(61));
  await pair.getByRole('button', { name: 'Create pairing code', exact: true }).click();
  await expect(number).toHaveAccessibleDescription('Checkout: type its number, a whole number from 1.');
  await expect(number).toHaveAttribute('aria-invalid', 'true');
  await expect(number).toBeFocused();
  await expect(name).toHaveAccessibleDescription('Name: at most 60 characters; shorten it.');
  await expect(pair.getByLabel('Store', { exact: true })).not.toHaveAttribute('aria-invalid', 'true');
  await expect(pair.getByRole('alert')).toHaveCount(2);
  // Each line follows its field as it is typed: the number's is gone, the name's says why now.
  await number.fill('7');
  await name.fill(' \t ');
  await expect(number).not.toHaveAttribute('aria-invalid', 'true');
  await expect(name).toHaveAccessibleDescription('Name: give the device a name, like Till 2.');
  await pair.getByRole('button', { name: 'Create pairing code', exact: true }).click();
  await expect(name).toBeFocused();
  await expect(pair.getByTestId('pairing-code')).toHaveCount(0);
  await expect(store.getByText('No till or display is paired yet.')).toBeVisible();
  expect(wire.calls).not.toContain('devices.startPairing');

  const code = await createPairingCode(store, { kind: 'Till', checkout: 2, name: 'Till 2' });
  const till = await pairDevice(browser, freshApp, code);
  try {
    await expect(store.locator('tr[data-device="Till 2"]')).toContainText('Online now');
    await createPairingCode(store, { kind: 'Customer display', checkout: 2, name: 'Display 2' });
    // The address line names the device the code is for.
    await expect(store.getByRole('region', { name: 'Pairing code' })).toContainText('On the customer display, open');
    // README's picture of the Devices screen, taken as the cashier screen's is: at 1280×800,
    // once the screen has passed the layout and words audit (issue 26), from this very run
    // (npm run test:e2e with POS_DOCS_SCREENSHOT=1 rewrites docs/devices-screen.png).
    await store.setViewportSize(SIZES[1]);
    await store.evaluate(() => window.scrollTo(0, 0));
    expect((await auditPage(store)).map((p) => `[${p.check}] ${p.what}`)).toEqual([]);
    const shot = await snap(store, testInfo, 'devices-screen');
    if (process.env.POS_DOCS_SCREENSHOT === '1') await copyFile(shot, fileURLToPath(new URL('../docs/devices-screen.png', import.meta.url)));
  } finally {
    await till.context.close();
  }
});

test('a credential the store does not know is forgotten: the page asks to pair again', async ({ browser, freshApp }) => {
  const context = await browser.newContext();
  try {
    // As a till paired with another store, or revoked while it was switched off.
    await context.addInitScript(() => {
      if (sessionStorage.getItem('seeded') === null) {
        localStorage.setItem('pos.deviceCredential', 'A'.repeat(43));
        sessionStorage.setItem('seeded', '1');
      }
    });
    const page = await context.newPage();
    const wire = recordBridge(page);
    await page.goto(freshApp.origin + '/');
    await expect(page.getByRole('heading', { name: 'Pair this till', exact: true })).toBeVisible();
    await expect(page.getByTestId('pair-unknown')).toContainText('The store no longer knows this till');
    await expect.poll(() => page.evaluate(() => localStorage.getItem('pos.deviceCredential'))).toBeNull();
    // An unpaired page asks nothing of the store but to pair, and only once a code is entered.
    await page.getByLabel('Pairing code').fill('0000 0000');
    await page.getByRole('button', { name: 'Pair', exact: true }).click();
    await expect(page.getByTestId('pair-error')).toBeVisible();
    expect(wire.calls).toEqual(['pairing.pair']);
  } finally {
    await context.close();
  }
});
