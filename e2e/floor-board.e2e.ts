import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from '@playwright/test';
import { addOperator, addPrintedCheckout, createPairingCode, expect, openCashier, pairDevice, signIn, snap, test } from './fixtures.ts';

/**
 * Issue 29, the floor board: a supervisor at their own screen follows every checkout live.
 * The manager's store computer rings up on checkout 1 and corrects an amount; a paired till
 * on checkout 2 corrects one too, and its customer pays the first QR late. The supervisor's
 * board follows both without being reloaded: what each poster charges now, the day's
 * corrections (amount → corrected amount, by whom), and the late payment waiting for a person.
 */

const RUI = { name: 'Rui', pin: '8642', role: 'Supervisor' } as const;
const CAIO = { name: 'Caio', pin: '1357', role: 'Cashier' } as const;

const currentSale = (page: Page) => page.getByRole('region', { name: 'Current sale' });
const card = (board: Page, checkout: number) => board.locator(`[data-testid="board-checkout"][data-store="1"][data-checkout="${checkout}"]`);

async function charge(page: Page, amount: string, money: string): Promise<void> {
  await page.getByLabel('Amount', { exact: true }).fill(amount);
  await page.getByLabel('Amount', { exact: true }).press('Enter');
  await expect(currentSale(page).getByTestId('sale-amount')).toHaveText(money);
}

test('a supervisor’s floor board follows a correction on checkout 1 and a late payment on checkout 2, live', async ({ page: store, browser, freshApp, request }, testInfo) => {
  test.setTimeout(180_000);
  const contexts: BrowserContext[] = [];
  try {
    // ── The manager sets up: a supervisor, a cashier, checkout 2 with its poster and its till ──
    const payer = await openCashier(store, freshApp, request);
    await addOperator(store, RUI);
    await addOperator(store, CAIO);
    await addPrintedCheckout(store, 'Loja Centro', 'Caixa 2');
    const till = await pairDevice(browser, freshApp, await createPairingCode(store, { kind: 'Till', checkout: 2, name: 'Till 2' }));
    contexts.push(till.context);
    await signIn(till.page, CAIO);
    await store.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Cashier', exact: true }).click();

    // ── The supervisor opens the floor board on a screen of their own ─────────────────────
    const boardContext = await browser.newContext();
    contexts.push(boardContext);
    const board = await boardContext.newPage();
    await board.goto(freshApp.url);
    await signIn(board, RUI);
    await board.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Floor board', exact: true }).click();
    await expect(board.getByRole('heading', { name: 'Floor board', exact: true })).toBeVisible();
    await expect(card(board, 1)).toBeVisible();
    await expect(card(board, 2)).toContainText('Caixa 2');
    await expect(card(board, 2)).toContainText('Till 2');
    await expect(card(board, 1).getByTestId('board-charge')).toHaveAttribute('data-state', 'none');

    // ── Checkout 1: the manager charges R$15.00, then corrects it to R$12.00 ───────────────
    await charge(store, '15.00', 'R$15.00');
    await expect(card(board, 1).getByTestId('board-charge-amount')).toHaveText('R$15.00');
    await expect(card(board, 1).getByTestId('board-charge')).toContainText('rung up by Ana');
    await charge(store, '12.00', 'R$12.00');
    await expect(card(board, 1).getByTestId('board-charge-amount')).toHaveText('R$12.00');
    const correction = card(board, 1).getByTestId('board-displacement');
    await expect(correction).toHaveCount(1);
    await expect(correction).toContainText('R$15.00');
    await expect(correction).toContainText('R$12.00');
    await expect(correction).toContainText('Ana');
    await expect(correction).toContainText('Displaced');
    await expect(card(board, 1).getByTestId('board-last')).toHaveAttribute('data-status', 'displaced');

    // ── Checkout 2: the cashier corrects R$20.00 to R$18.00, and the first QR is paid late ─
    await charge(till.page, '20.00', 'R$20.00');
    await expect(card(board, 2).getByTestId('board-charge-amount')).toHaveText('R$20.00');
    await charge(till.page, '18.00', 'R$18.00');
    await expect(card(board, 2).getByTestId('board-charge-amount')).toHaveText('R$18.00');
    await expect(card(board, 2).getByTestId('board-displacement')).toContainText('Caio');
    const displaced = (await payer.sales(2)).find((s) => s.amount_brl === '20.00' && s.displaced);
    expect(displaced, 'the displaced sale of checkout 2 at the service').toBeDefined();
    await payer.payLate(displaced?.pix_id ?? '');
    await expect(card(board, 2).getByTestId('board-attention')).toContainText('Late payment');
    await expect(card(board, 2).getByTestId('board-attention')).toContainText('R$20.00');
    await expect(card(board, 2).getByTestId('board-charge')).toHaveAttribute('data-state', 'held');
    await expect(card(board, 2).getByTestId('board-charge')).toContainText('the printed poster still charges this amount');
    await expect(card(board, 2).getByTestId('board-displacement')).toContainText('Late payment');
    // Checkout 1 is untouched by checkout 2's late payment.
    await expect(card(board, 1).getByTestId('board-charge')).toHaveAttribute('data-state', 'qr');
    await expect(card(board, 1)).toContainText('Nothing waits for a person.');
    await snap(board, testInfo, '01-floor-board');
    if (process.env.POS_DOCS_SCREENSHOT === '1') {
      // README's picture of the floor board (npm run test:e2e with POS_DOCS_SCREENSHOT=1).
      const docs = fileURLToPath(new URL('../docs/', import.meta.url));
      await mkdir(docs, { recursive: true });
      await board.screenshot({ path: `${docs}floor-board.png`, fullPage: true, animations: 'disabled' });
    }

    // ── Filters: only what needs a person, then one store ─────────────────────────────────
    await board.getByTestId('board-needs-person').check();
    await expect(board.getByTestId('board-checkout')).toHaveCount(1);
    await expect(card(board, 2)).toBeVisible();
    await board.getByTestId('board-needs-person').uncheck();
    await board.getByTestId('board-store').selectOption({ label: 'Loja Centro' });
    await expect(card(board, 1)).toBeVisible();
    await expect(card(board, 2)).toBeVisible();

    // ── The manager pays checkout 1's poster: the board shows it paid, nothing charged now ──
    await payer.payCheckout(undefined, 1);
    await expect(card(board, 1).getByTestId('board-charge')).toHaveAttribute('data-state', 'none');
    await expect(card(board, 1).getByTestId('board-last')).toHaveAttribute('data-status', 'paid');
    await expect(card(board, 1).getByTestId('board-last')).toContainText('R$12.00');
  } finally {
    for (const c of contexts) await c.close();
  }
});
