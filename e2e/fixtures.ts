import { test as base, expect, type APIRequestContext, type Browser, type BrowserContext, type Page, type TestInfo } from '@playwright/test';
import { FIXTURE_TOKENS } from '../electron/sandbox/fixture.ts';
import { startApp, type RunningApp } from './app.ts';

export { startApp, type RunningApp };

/**
 * The payer, as the sandbox's control API lets one act (electron/sandbox/README.md): scans
 * the checkout's printed QR, pays a displaced sale late, or lets time pass. Nothing else:
 * everything the cashier does goes through the UI.
 */
export class Payer {
  readonly #request: APIRequestContext;
  readonly baseUrl: string;
  constructor(request: APIRequestContext, baseUrl: string) {
    this.#request = request;
    this.baseUrl = baseUrl;
  }

  async #post(path: string, data: unknown): Promise<Record<string, unknown>> {
    const res = await this.#request.post(this.baseUrl + path, { data });
    expect(res.status(), `${path}: ${await res.text()}`).toBe(200);
    return (await res.json()) as Record<string, unknown>;
  }

  /** Scans the printed QR of a checkout of store 1 (checkout 1 unless told): pays its newest sale, or another sum. */
  payCheckout(amount?: string, checkoutId = 1) {
    return this.#post('/_sandbox/pay', { store_id: 1, checkout_id: checkoutId, ...(amount === undefined ? {} : { amount }) });
  }

  /** Pays a displaced sale late (the payer paid just before the new sale was created). */
  payLate(pixId: string) {
    return this.#post('/_sandbox/pay', { late_for: pixId });
  }

  advanceClock(seconds: number) {
    return this.#post('/_sandbox/clock/advance', { seconds });
  }

  /** Puts a checkout of store 1 in a settlement mode (contract 6; the operator's knob). */
  async setSettlementMode(checkoutId: number, mode: 'ars_per_charge' | 'ars_batched' | 'blockchain_batched') {
    const res = await this.#request.put(`${this.baseUrl}/_sandbox/checkouts/1/${checkoutId}/mode`, { data: { mode } });
    expect(res.status()).toBe(200);
  }

  /** Closes the current settlement window now (contract 7): the ids settled. */
  async runSettlements(): Promise<number[]> {
    return (await this.#post('/_sandbox/settlements/run', {}))['settled'] as number[];
  }

  /**
   * Another system of the merchant charges on a checkout through the public API (contract 2),
   * never through this app: the service knows the sale, the app's journal does not.
   */
  async chargeElsewhere(amount: string, externalId: string, checkoutId = 1): Promise<{ service_id: string }> {
    const res = await this.#request.post(`${this.baseUrl}/v2/create_dynamic_pix`, {
      headers: { authorization: `Bearer ${FIXTURE_TOKENS.cashier}` },
      data: { amount, store_id: 1, checkout_id: checkoutId, external_id: externalId },
    });
    expect(res.status(), await res.text()).toBe(201);
    return (await res.json()) as { service_id: string };
  }

  /** Moves a MED claim on at the service (contract 7 control API), as the bank would. */
  advanceClaim(medCaseId: string, to: { status: string; money_refunded?: boolean; refunded_amount?: string }) {
    return this.#post(`/_sandbox/med/${medCaseId}/advance`, to);
  }

  /** Arms a fault at the service (contract 7 `POST /_sandbox/faults`): a lost answer, an ignored key. */
  async armFault(fault: Record<string, unknown>): Promise<void> {
    const res = await this.#request.post(`${this.baseUrl}/_sandbox/faults`, { data: fault });
    expect(res.status(), await res.text()).toBe(201);
  }

  /** The service's sales of a checkout of store 1 (checkout 1 unless told), newest first. */
  async sales(checkoutId = 1): Promise<{ pix_id: string; service_id: string; amount_brl: string; status: string; displaced: boolean; external_id: string | null }[]> {
    const res = await this.#request.get(`${this.baseUrl}/_sandbox/sales?store_id=1&checkout_id=${checkoutId}`);
    expect(res.ok()).toBe(true);
    return (await res.json()) as never;
  }
}

/** The till's first manager, created by the first test of each app (and signed in by the next). */
export const MANAGER = { name: 'Ana', pin: '2468' } as const;

export interface Operator {
  name: string;
  pin: string;
}

/**
 * Signs in as a person does: on an app with no operator yet, **Create the first manager**
 * (who is then signed in); otherwise **Sign in**. Waits until the header names them.
 */
export async function signIn(page: Page, who: Operator = MANAGER): Promise<void> {
  // By the fields' ids, so the same step works whatever the language of the app under test.
  const first = page.locator('#create-name, #sign-in-name');
  await expect(first).toBeVisible();
  if ((await first.getAttribute('id')) === 'create-name') {
    await page.locator('#create-name').fill(who.name);
    await page.locator('#create-pin').fill(who.pin);
    await page.locator('#create-repeat').fill(who.pin);
    await page.locator('#create-repeat').press('Enter');
  } else {
    await page.locator('#sign-in-name').fill(who.name);
    await page.locator('#sign-in-pin').fill(who.pin);
    await page.locator('#sign-in-pin').press('Enter');
  }
  await expect(page.getByTestId('signed-in')).toContainText(who.name);
}

export async function signOut(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Sign out', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Sign in', exact: true })).toBeVisible();
}

/** A manager adds an operator on the Operators screen, as a person does. */
export async function addOperator(page: Page, who: Operator & { role: 'Cashier' | 'Supervisor' | 'Manager' }): Promise<void> {
  await page.getByRole('link', { name: 'Operators', exact: true }).click();
  const form = page.getByRole('region', { name: 'Add operator' });
  await form.getByLabel('Name', { exact: true }).fill(who.name);
  await form.getByLabel('Role', { exact: true }).selectOption({ label: who.role });
  await form.getByLabel('PIN', { exact: true }).fill(who.pin);
  await form.getByLabel('Repeat PIN', { exact: true }).fill(who.pin);
  await form.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(form).toContainText(`${who.name} was added.`);
  await expect(page.locator(`tr[data-operator="${who.name}"]`)).toContainText(who.role);
}

/** Opens the app as the cashier does, signs in (the first manager unless told), and finds the payment service the footer names. */
export async function openCashier(page: Page, app: RunningApp, request: APIRequestContext, who: Operator = MANAGER): Promise<Payer> {
  await page.goto(app.url);
  await signIn(page, who);
  const service = page.getByTestId('service-mode');
  await expect(service).toHaveAttribute('data-service-url', /^http:\/\/127\.0\.0\.1:\d+/);
  return new Payer(request, (await service.getAttribute('data-service-url')) as string);
}

/** Keeps a full-page screenshot of a state as a test artifact. */
export async function snap(page: Page, testInfo: TestInfo, name: string): Promise<string> {
  const path = testInfo.outputPath(`${name}.png`);
  await page.screenshot({ path, fullPage: true, animations: 'disabled' });
  await testInfo.attach(name, { path, contentType: 'image/png' });
  return path;
}

export const test = base.extend<{ freshApp: RunningApp }, { app: RunningApp }>({
  /** An app of its own for one test: its journal, sandbox and clock start empty. */
  freshApp: [
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const app = await startApp();
      await use(app);
      await app.stop();
    },
    { scope: 'test' },
  ],
  app: [
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const app = await startApp();
      await use(app);
      await app.stop();
    },
    { scope: 'worker' },
  ],
});

export { expect };

/** Opens the customer display the way the cashier does: its link, in a window of its own. */
export async function openCustomerDisplay(page: Page): Promise<Page> {
  const [display] = await Promise.all([page.waitForEvent('popup'), page.getByRole('link', { name: /Customer display/ }).click()]);
  await display.waitForLoadState();
  return display;
}

/**
 * Acknowledges an attention item as a person does: its Acknowledge button, with a name
 * typed first where the form still asks for one.
 */
export async function acknowledgeAlert(alert: import('@playwright/test').Locator, name = 'Rui'): Promise<void> {
  const field = alert.getByLabel('Your name');
  if ((await field.count()) > 0 && (await field.inputValue()) === '') await field.fill(name);
  await alert.getByRole('button', { name: 'Acknowledge' }).click();
}

/**
 * A manager makes a pairing code on the Devices screen, as a person does: **Pair a till**,
 * the kind, the checkout of store 1 and a name. Returns the code as shown ("1234 5678").
 */
export async function createPairingCode(page: Page, device: { kind: 'Till' | 'Customer display'; checkout: number; name: string }): Promise<string> {
  await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Devices', exact: true }).click();
  const section = page.getByRole('region', { name: 'Pair a till' });
  const open = section.getByRole('button', { name: 'Pair a till', exact: true });
  if (await open.isVisible()) await open.click();
  await section.getByLabel('Kind', { exact: true }).selectOption({ label: device.kind });
  // Issue 26: store and checkout are picked from the service's lists; a checkout it does not
  // list yet (made by its first charge) is typed as Another checkout.
  await section.getByLabel('Store', { exact: true }).selectOption('1');
  const checkout = section.getByLabel('Checkout', { exact: true });
  await expect(checkout.locator('option[value="other"]')).toHaveCount(1);
  if ((await checkout.locator(`option[value="${device.checkout}"]`).count()) > 0) {
    await checkout.selectOption(String(device.checkout));
  } else {
    await checkout.selectOption('other');
    await section.getByLabel('Checkout number', { exact: true }).fill(String(device.checkout));
  }
  await section.getByLabel('Name', { exact: true }).fill(device.name);
  const shown = section.getByTestId('pairing-code');
  const before = (await shown.count()) > 0 ? await shown.textContent() : null;
  await section.getByRole('button', { name: 'Create pairing code', exact: true }).click();
  await expect(shown).toHaveText(/^\d{4} \d{4}$/);
  if (before !== null) await expect(shown).not.toHaveText(before);
  return (await shown.textContent()) as string;
}

/** Types a pairing code on a page that shows **Pair this till** and presses **Pair**. */
export async function enterPairingCode(page: Page, code: string): Promise<void> {
  await expect(page.getByRole('heading', { name: 'Pair this till', exact: true })).toBeVisible();
  await page.getByLabel('Pairing code', { exact: true }).fill(code);
  await page.getByRole('button', { name: 'Pair', exact: true }).click();
}

/**
 * Another device of the store: a browser of its own (its own storage, so its own credential)
 * opening the store's address without the token, and paired with the code.
 */
export async function pairDevice(browser: Browser, app: RunningApp, code: string): Promise<PairedDevice> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const wire = recordBridge(page);
  await page.goto(app.origin + '/');
  await enterPairingCode(page, code);
  await expect(page.getByRole('heading', { name: 'Pair this till', exact: true })).toHaveCount(0);
  return { context, page, ...wire };
}

export interface PairedDevice {
  context: BrowserContext;
  page: Page;
  /** Every bridge method the page called, in order. */
  calls: string[];
  /** Every push the page received over the bridge. */
  pushes: { event: string; payload: Record<string, unknown> }[];
}

/** What a page says and hears on the bridge, read off its WebSocket frames. */
export function recordBridge(page: Page): Pick<PairedDevice, 'calls' | 'pushes'> {
  const calls: string[] = [];
  const pushes: PairedDevice['pushes'] = [];
  page.on('websocket', (ws) => {
    ws.on('framesent', ({ payload }) => {
      const msg = JSON.parse(String(payload)) as { method?: unknown };
      if (typeof msg.method === 'string') calls.push(msg.method);
    });
    ws.on('framereceived', ({ payload }) => {
      const msg = JSON.parse(String(payload)) as { type?: unknown; event?: unknown; payload?: unknown };
      if (msg.type === 'event' && typeof msg.event === 'string') pushes.push({ event: msg.event, payload: msg.payload as Record<string, unknown> });
    });
  });
  return { calls, pushes };
}

/**
 * The merchant's own view of the service: its public API with the merchant's manager token
 * (contract 7's fixture), to check what a back-office screen did against what the service
 * holds, never against the screen alone.
 */
export class Merchant {
  readonly #request: APIRequestContext;
  readonly baseUrl: string;
  constructor(request: APIRequestContext, baseUrl: string) {
    this.#request = request;
    this.baseUrl = baseUrl;
  }

  async get<T>(path: string): Promise<T> {
    const res = await this.#request.get(this.baseUrl + path, { headers: { authorization: `Bearer ${FIXTURE_TOKENS.manager}` } });
    expect(res.status(), `${path}: ${await res.text()}`).toBe(200);
    return (await res.json()) as T;
  }

  stores() {
    return this.get<{ store_id: number; store_name: string; address: string | null; phone_number: string | null; email: string | null }[]>('/v2/stores');
  }

  checkouts(storeId: number) {
    return this.get<{ checkout_id: number; checkout_desc: string; wallet_id: number; default_qr: string | null }[]>(`/v2/stores/${storeId}/checkouts`);
  }

  configs(storeId: number, checkoutId: number) {
    return this.get<{ config_type: string; config_value: string }[]>(`/v2/stores/${storeId}/checkouts/${checkoutId}/configs`);
  }

  /** The checkout's printed QRs' EMV texts (reference 4.4 listing). */
  async printedQrs(storeId: number, checkoutId: number): Promise<string[]> {
    const page = await this.get<{ stores: { checkouts: { printed_dynamic_qrs: { qr_emvcode: string }[] }[] }[] }>(`/v2/printed_dynamic_qrs?store_id=${storeId}&checkout_id=${checkoutId}`);
    return page.stores.flatMap((s) => s.checkouts.flatMap((c) => c.printed_dynamic_qrs.map((q) => q.qr_emvcode)));
  }
}

/**
 * A manager adds a checkout to a store on the Stores screen and prints its QR poster, as a
 * person does (issue 10): the checkout is then in printed mode with its printed QR.
 */
export async function addPrintedCheckout(page: Page, storeName: string, description: string, walletId = 101): Promise<void> {
  await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Stores', exact: true }).click();
  await page.getByRole('button', { name: `Show the checkouts of ${storeName}`, exact: true }).click();
  const add = page.getByRole('region', { name: 'Add checkout', exact: true });
  await add.getByLabel('Description', { exact: true }).fill(description);
  const wallet = add.getByLabel('Wallet', { exact: true });
  await wallet.selectOption({ label: (await wallet.locator('option', { hasText: `Wallet ${walletId}` }).textContent()) as string });
  await add.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(add).toContainText(`${description} was added.`);
  const row = page
    .getByRole('region', { name: `Checkouts of ${storeName}`, exact: true })
    .getByRole('row')
    .filter({ has: page.getByRole('rowheader', { name: new RegExp(description) }) });
  await row.getByRole('button', { name: 'Print QR poster', exact: true }).first().click();
  await expect(page.getByRole('region', { name: `QR poster of ${description}`, exact: true }).getByRole('img', { name: 'Printed QR code' })).toBeVisible();
  await expect(row.getByTestId('checkout-mode')).toHaveText('Printed QR');
}
