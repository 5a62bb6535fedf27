import { test as base, expect, type APIRequestContext, type Page, type TestInfo } from '@playwright/test';
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

  /** Scans the printed QR of checkout 1 of store 1: pays its newest sale, or another sum. */
  payCheckout(amount?: string) {
    return this.#post('/_sandbox/pay', { store_id: 1, checkout_id: 1, ...(amount === undefined ? {} : { amount }) });
  }

  /** Pays a displaced sale late (the payer paid just before the new sale was created). */
  payLate(pixId: string) {
    return this.#post('/_sandbox/pay', { late_for: pixId });
  }

  advanceClock(seconds: number) {
    return this.#post('/_sandbox/clock/advance', { seconds });
  }

  /** The service's sales of the checkout, newest first. */
  async sales(): Promise<{ pix_id: string; service_id: string; amount_brl: string; status: string; displaced: boolean; external_id: string | null }[]> {
    const res = await this.#request.get(`${this.baseUrl}/_sandbox/sales?store_id=1&checkout_id=1`);
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
