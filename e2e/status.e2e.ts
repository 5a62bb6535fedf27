import { addPrintedCheckout, expect, recordBridge, signIn, test } from './fixtures.ts';

test('the first screen shows the core status over the browser shell', async ({ page, app }, testInfo) => {
  await page.goto(app.url);
  await expect(page.getByRole('heading', { name: 'Pix cashier' })).toBeVisible();
  await expect(page.getByTestId('core-state')).toHaveText('Ready');
  await expect(page.getByTestId('service-mode')).toContainText('Embedded sandbox');
  await expect(page.getByRole('status')).toHaveText(/Service reachable/);
  // The token is taken from the address and hidden from it.
  expect(page.url()).not.toContain(app.token);
  await testInfo.attach('first-screen', { body: await page.screenshot({ fullPage: true }), contentType: 'image/png' });
  await page.screenshot({ path: testInfo.outputPath('first-screen.png'), fullPage: true });
  // A till with no operator yet asks for its first manager before anything else.
  await expect(page.getByRole('heading', { name: 'Create the first manager' })).toBeVisible();
  await signIn(page);
  await expect(page.getByRole('link', { name: 'Cashier', exact: true })).toBeVisible();
});

test('a reload keeps the session and the language can be changed', async ({ page, app }) => {
  await page.goto(app.url);
  await expect(page.getByTestId('core-state')).toHaveText('Ready');
  await page.reload();
  await expect(page.getByTestId('core-state')).toHaveText('Ready');
  await page.getByLabel('Language').selectOption('pt-BR');
  await expect(page.getByRole('heading', { name: 'Caixa Pix' })).toBeVisible();
  await expect(page.getByTestId('core-state')).toHaveText('Pronto');
  await page.getByLabel('Idioma').selectOption('en');
  await expect(page.getByTestId('core-state')).toHaveText('Ready');
});

test('the header’s language is this device’s own, even signed out; a manager sets the store’s default on Settings', async ({ browser, freshApp }) => {
  // Two devices of the store: browsers of their own (each its own storage).
  const [tillContext, officeContext] = await Promise.all([browser.newContext(), browser.newContext()]);
  const till = await tillContext.newPage();
  const office = await officeContext.newPage();
  for (const page of [till, office]) {
    await page.goto(freshApp.url);
    await expect(page.getByTestId('core-state')).toHaveText('Ready');
  }
  // Nobody is signed in at the till: its language changes for it alone, and it keeps it.
  await till.getByLabel('Language').selectOption('es');
  await expect(till.getByRole('heading', { name: 'Caja Pix' })).toBeVisible();
  await till.reload();
  await expect(till.getByTestId('core-state')).toHaveText('Listo');
  await office.reload();
  await expect(office.getByTestId('core-state')).toHaveText('Ready');

  // The store's default is a manager's: the office, with no choice of its own, follows it; the till keeps Spanish.
  await signIn(office);
  await office.getByRole('link', { name: 'Settings', exact: true }).click();
  await office.getByLabel('Store’s default language').selectOption('pt-BR');
  await expect(office.getByTestId('core-state')).toHaveText('Pronto');
  await till.reload();
  await expect(till.getByTestId('core-state')).toHaveText('Listo');
  await Promise.all([tillContext.close(), officeContext.close()]);
});

test('Settings’ This terminal picks its store and checkout from the service’s lists and names a wrong one beside it (issue 26)', async ({ page, freshApp }) => {
  const wire = recordBridge(page);
  await page.goto(freshApp.url);
  await expect(page.getByTestId('core-state')).toHaveText('Ready');
  await signIn(page);
  // The store's second checkout, so there is one to pick.
  await addPrintedCheckout(page, 'Loja Centro', 'Caixa 2');
  await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Settings', exact: true }).click();
  const form = page.getByRole('form', { name: 'This terminal' });
  const store = form.getByLabel('Store', { exact: true });
  const checkout = form.getByLabel('Checkout', { exact: true });
  // The saved ones are chosen as the screen opens: store 1, checkout 1 (Caixa 1).
  await expect(store).toHaveValue('1');
  await expect(store.locator('option:checked')).toHaveText('Loja Centro (store 1)');
  await expect(checkout.locator('option[value="other"]')).toHaveCount(1);
  await expect(checkout).toHaveValue('1');
  await expect(checkout.locator('option:checked')).toHaveText('Caixa 1 (checkout 1)');

  // Another checkout with no number: named beside the field, and nothing is sent.
  await checkout.selectOption('other');
  const number = form.getByLabel('Checkout number', { exact: true });
  await number.fill('');
  await form.getByRole('button', { name: 'Save settings', exact: true }).click();
  await expect(number).toHaveAccessibleDescription('Checkout: type its number, a whole number from 1.');
  await expect(number).toHaveAttribute('aria-invalid', 'true');
  await expect(number).toBeFocused();
  expect(wire.calls).not.toContain('settings.update');

  // Caixa 2 picked from the list is saved, and is still chosen when Settings opens again.
  await checkout.selectOption({ label: 'Caixa 2 (checkout 2)' });
  await expect(number).toHaveCount(0);
  await form.getByRole('button', { name: 'Save settings', exact: true }).click();
  await expect(form).toContainText('Settings saved.');
  expect(wire.calls).toContain('settings.update');
  await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Devices', exact: true }).click();
  await expect(form).toHaveCount(0);
  await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Settings', exact: true }).click();
  await expect(checkout).toHaveValue('2');
  await expect(store).toHaveValue('1');
});

test('with a stale token the page says how to connect and reaches nothing', async ({ browser, app }) => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(app.origin + '/#token=not-the-token');
  await expect(page.getByRole('status')).toContainText('open the address it printed', { timeout: 20_000 });
  await expect(page.getByTestId('core-state')).toHaveCount(0);
  await context.close();
});

test('without the token or a pairing the page asks to pair this till and reaches nothing else', async ({ browser, app }) => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(app.origin + '/');
  await expect(page.getByRole('heading', { name: 'Pair this till', exact: true })).toBeVisible();
  await expect(page.getByText('Ask a manager for a pairing code: on the store computer, Devices → Pair a till.')).toBeVisible();
  await expect(page.getByTestId('core-state')).toHaveCount(0);
  await expect(page.getByLabel('Amount', { exact: true })).toHaveCount(0);
  await context.close();
});

test('when the app does not come back, the page says how to connect again while it keeps trying', async ({ page, freshApp }, testInfo) => {
  await page.goto(freshApp.url);
  await expect(page.getByTestId('core-state')).toHaveText('Ready');
  // As after a restart of the app with a new token: every attempt to reconnect fails.
  await freshApp.stop();
  const bar = page.getByRole('status');
  await expect(bar).toContainText('reconnecting', { timeout: 20_000 });
  await expect(bar).toContainText('open the address it printed', { timeout: 30_000 });
  await expect(bar).toContainText('reconnecting');
  await page.screenshot({ path: testInfo.outputPath('reconnect-hint.png'), fullPage: true });
});
