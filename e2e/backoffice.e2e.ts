import { readFile } from 'node:fs/promises';
import type { Locator, Page } from '@playwright/test';
import { expect, Merchant, openCashier, snap, test } from './fixtures.ts';
import { readPoster } from './poster-pdf.ts';

/**
 * Issue 10, the manager's half, as a manager does it on the Stores screen: a new store, a
 * checkout on wallet 102, its QR poster printed and downloaded (the PDF read back: one page,
 * the checkout's name, a QR that decodes to the service's qr_emvcode), the two modes, printed
 * mode refused without a QR, and a wallet changed after the confirmation. Every step is
 * checked at the service through its public API.
 */

const STORE = { name: 'Loja Praia', address: 'Av. Atlântica, 100', phone: '+55 21 5555-0100', email: 'praia@example.com' };
const CHECKOUT = 'Caixa Praia';

const region = (page: Page, name: string) => page.getByRole('region', { name, exact: true });
const checkoutRow = (page: Page, name: RegExp): Locator => region(page, `Checkouts of ${STORE.name}`).getByRole('row').filter({ has: page.getByRole('rowheader', { name }) });

test('a manager creates a store, adds a checkout, prints its QR poster, switches modes and changes its wallet', async ({ page, freshApp, request }, testInfo) => {
  test.setTimeout(180_000);
  const payer = await openCashier(page, freshApp, request);
  const merchant = new Merchant(request, payer.baseUrl);
  await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Stores', exact: true }).click();
  await expect(region(page, 'Stores').getByRole('rowheader', { name: /Loja Centro/ })).toBeVisible();

  // ── New store: an empty name is refused in words, and nothing is created ─────────────
  const storesBefore = await merchant.stores();
  const form = region(page, 'New store');
  await form.getByLabel('Address', { exact: true }).fill(STORE.address);
  await form.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(form.getByRole('alert')).toHaveText(/A store needs a name/);
  expect(await merchant.stores()).toEqual(storesBefore);

  await form.getByLabel('Store name', { exact: true }).fill(STORE.name);
  await form.getByLabel('Phone', { exact: true }).fill(STORE.phone);
  // Issue 26: an email that is not one is named beside its field, and nothing is created.
  await form.getByLabel('Email', { exact: true }).fill('not-an-email');
  await form.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(form.getByRole('alert')).toHaveText(/^Email: type an address like loja@example\.com/);
  expect(await merchant.stores()).toEqual(storesBefore);
  await form.getByLabel('Email', { exact: true }).fill(STORE.email);
  await form.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(form).toContainText(`${STORE.name} was created.`);
  const store = (await merchant.stores()).find((s) => s.store_name === STORE.name);
  expect(store).toMatchObject({ address: STORE.address, phone_number: STORE.phone, email: STORE.email });
  const storeId = store?.store_id as number;
  await expect(region(page, 'Stores').getByRole('row').filter({ hasText: STORE.name })).toContainText(STORE.email);

  // ── Edit: the form shows the store's values; the phone is cleared on purpose ────────
  await page.getByRole('button', { name: `Edit ${STORE.name}` }).click();
  const edit = region(page, `Edit ${STORE.name}`);
  await expect(edit.getByLabel('Address', { exact: true })).toHaveValue(STORE.address);
  await expect(edit.getByLabel('Phone', { exact: true })).toHaveValue(STORE.phone);
  await expect(edit.getByLabel('Email', { exact: true })).toHaveValue(STORE.email);
  await edit.getByLabel('Clear Phone').check();
  await expect(edit.getByLabel('Phone', { exact: true })).toHaveValue('');
  await edit.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(edit).toContainText(`${STORE.name} was saved. Cleared: Phone.`);
  const edited = (await merchant.stores()).find((s) => s.store_id === storeId);
  expect(edited).toMatchObject({ store_name: STORE.name, address: STORE.address, email: STORE.email });
  expect([null, '']).toContain(edited?.phone_number);
  // The list says the store has no phone now, and the edit offers nothing left to clear.
  await expect(region(page, 'Stores').getByRole('row').filter({ hasText: STORE.name }).getByRole('cell').nth(1)).toHaveText('—');
  await expect(edit.getByLabel('Clear Phone')).toHaveCount(0);
  await edit.getByRole('button', { name: 'Cancel', exact: true }).click();

  // ── Add checkout: a 141-character description is refused; then one on wallet 102 ────
  const add = region(page, 'Add checkout');
  const wallet = add.getByLabel('Wallet', { exact: true });
  await expect(wallet.locator('option', { hasText: 'Wallet 103' })).toBeDisabled();
  await expect(wallet.locator('option', { hasText: 'Wallet 103' })).toContainText('no longer supported');
  // Issue 26: each wrong field is named beside it before anything is sent.
  const description = add.getByLabel('Description', { exact: true });
  await add.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(description).toHaveAccessibleDescription('A checkout needs a description: type one. 1 to 140 characters.');
  await expect(description).toBeFocused();
  await expect(wallet).toHaveAccessibleDescription('Wallet: choose the wallet this checkout’s payments settle to.');
  await expect(wallet).toHaveAttribute('aria-invalid', 'true');
  await description.fill('x'.repeat(141));
  await wallet.selectOption({ label: (await wallet.locator('option', { hasText: 'Wallet 102' }).textContent()) as string });
  await expect(wallet).not.toHaveAttribute('aria-invalid', 'true');
  await add.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(add.getByRole('alert')).toHaveText(/at most 140 characters/);
  await expect(description).toHaveAttribute('aria-invalid', 'true');
  expect(await merchant.checkouts(storeId)).toEqual([]);

  await add.getByLabel('Description', { exact: true }).fill(CHECKOUT);
  await add.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(add).toContainText(`${CHECKOUT} was added.`);
  const [created] = await merchant.checkouts(storeId);
  expect(created).toMatchObject({ checkout_desc: CHECKOUT, wallet_id: 102, default_qr: null });
  const checkoutId = created?.checkout_id as number;
  const row = checkoutRow(page, new RegExp(CHECKOUT));
  await expect(row.getByTestId('checkout-mode')).toContainText('Dynamic QR');
  await expect(row.getByTestId('checkout-wallet')).toContainText('102');

  // ── Printed mode without a printed QR: refused, with Print QR poster offered ─────────
  await row.getByRole('button', { name: 'Use printed QR', exact: true }).click();
  await expect(row.getByRole('alert')).toHaveText(/has no printed QR yet/);
  await expect(row.getByRole('button', { name: 'Print QR poster', exact: true })).toHaveCount(2);
  expect(await merchant.configs(storeId, checkoutId)).toEqual([]);
  expect((await merchant.checkouts(storeId))[0]?.default_qr).toBeNull();
  await snap(page, testInfo, '01-printed-refused');

  // ── Print QR poster: the service's printed QR, shown, printed and downloaded ─────────
  await row.getByRole('button', { name: 'Print QR poster', exact: true }).first().click();
  const poster = region(page, `QR poster of ${CHECKOUT}`);
  await expect(poster.getByRole('img', { name: 'Printed QR code' })).toBeVisible();
  await expect(poster).toContainText(STORE.name);
  await expect(poster).toContainText('choose Pix, scan this code');
  // Issue 26: the store's address and the Pix mark, in the store's customers' language (the default, English, here).
  const sheet = poster.getByTestId('poster-sheet');
  await expect(sheet).toContainText(STORE.address);
  await expect(sheet.getByText('Pix', { exact: true })).toBeVisible();
  await expect(sheet).toHaveAttribute('lang', 'en');
  await expect(poster.getByTestId('poster-lang')).toHaveText(`Printed in English, the language of ${STORE.name}’s customers (set under its checkouts).`);
  const [emv] = await merchant.printedQrs(storeId, checkoutId);
  expect(emv).toMatch(/^000201/);
  expect((await merchant.checkouts(storeId))[0]?.default_qr).toBe('printed_dynamic_qr');
  await expect(row.getByTestId('checkout-mode')).toHaveText('Printed QR');
  await snap(page, testInfo, '02-poster');

  await page.evaluate(() => {
    const w = window as unknown as { printed: number };
    w.printed = 0;
    window.print = () => {
      w.printed++;
    };
  });
  await poster.getByRole('button', { name: 'Print', exact: true }).click();
  await expect.poll(() => page.evaluate(() => (window as unknown as { printed: number }).printed)).toBe(1);

  const [download] = await Promise.all([page.waitForEvent('download'), poster.getByRole('button', { name: 'Download PDF', exact: true }).click()]);
  expect(download.suggestedFilename()).toMatch(/\.pdf$/);
  const pdf = await readPoster(new Uint8Array(await readFile(await download.path())));
  expect(pdf.pages).toBe(1);
  expect(pdf.text).toContain(CHECKOUT);
  expect(pdf.text).toContain(STORE.address);
  expect(pdf.text).toContain('Pix');
  expect(pdf.qr).toBe(emv);

  // ── The store's customers read Portuguese: chosen beside the print actions; the poster
  // follows, the manager's own screen stays English ───────────────────────────────────
  const checkouts = region(page, `Checkouts of ${STORE.name}`);
  await checkouts.getByLabel('Language of this store’s customers', { exact: true }).selectOption('pt-BR');
  await expect(checkouts).toContainText(`${STORE.name}’s customers now read Português (Brasil).`);
  await expect(sheet).toHaveAttribute('lang', 'pt-BR');
  await expect(sheet).toContainText('escolha Pix, leia este código');
  await expect(poster.getByTestId('poster-lang')).toHaveText(`Printed in Português (Brasil), the language of ${STORE.name}’s customers (set under its checkouts).`);
  await snap(page, testInfo, '02b-poster-pt-BR');
  const [again] = await Promise.all([page.waitForEvent('download'), poster.getByRole('button', { name: 'Download PDF', exact: true }).click()]);
  const pdfPt = await readPoster(new Uint8Array(await readFile(await again.path())));
  expect(pdfPt.text.join(' ')).toContain('escolha Pix');
  expect(pdfPt.text).toContain(STORE.address);
  expect(pdfPt.qr).toBe(emv);
  await poster.getByRole('button', { name: 'Close', exact: true }).click();

  // The Printed QRs list pages through the service's listing.
  await expect(region(page, 'Printed QRs')).toContainText(CHECKOUT);

  // ── Use dynamic QR, then Use printed QR: checked at the service each time ────────────
  await row.getByRole('button', { name: 'Use dynamic QR', exact: true }).click();
  await expect(row.getByTestId('checkout-mode')).toHaveText('Dynamic QR');
  expect((await merchant.checkouts(storeId))[0]?.default_qr).toBe('dynamic');
  await row.getByRole('button', { name: 'Use printed QR', exact: true }).click();
  await expect(row.getByTestId('checkout-mode')).toHaveText('Printed QR');
  expect((await merchant.checkouts(storeId))[0]?.default_qr).toBe('printed_dynamic_qr');

  // ── Change wallet, after the confirmation of reference 4.2 ───────────────────────────
  await row.getByRole('button', { name: 'Change wallet', exact: true }).click();
  const change = row.getByRole('form', { name: 'Change wallet' });
  const choice = change.getByLabel('Wallet', { exact: true });
  await choice.selectOption({ label: (await choice.locator('option', { hasText: 'Wallet 101' }).textContent()) as string });
  await change.getByRole('button', { name: 'Save', exact: true }).click();
  const confirm = row.getByRole('alertdialog');
  await expect(confirm).toContainText(`Every payment processed on ${CHECKOUT} from now on settles to wallet 101, including payments of QR codes created before this change.`);
  expect((await merchant.checkouts(storeId))[0]?.wallet_id).toBe(102);
  await snap(page, testInfo, '03-change-wallet');
  await confirm.getByRole('button', { name: 'Move to wallet 101', exact: true }).click();
  await expect(row).toContainText(`${CHECKOUT} now settles to wallet 101.`);
  expect((await merchant.checkouts(storeId))[0]?.wallet_id).toBe(101);
  await expect(row.getByTestId('checkout-wallet')).toContainText('101');
});
