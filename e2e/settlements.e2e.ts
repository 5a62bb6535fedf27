import { readFile } from 'node:fs/promises';
import type { Page } from '@playwright/test';
import { addOperator, expect, openCashier, signIn, signOut, snap, test } from './fixtures.ts';

/**
 * Settlements (issue 11) as a supervisor reads them: two sales paid on a blockchain batched
 * checkout, the service's window run, and the settlement listed Reconciled; its detail shows
 * each charge Matched with its sale, the invariant lines with their figures and Totals check
 * out; Export CSV gives the same lines.
 */
const currentSale = (page: Page) => page.getByRole('region', { name: 'Current sale' });

async function paidSale(page: Page, amount: string, shown: string, pay: () => Promise<unknown>): Promise<void> {
  await page.getByLabel('Amount', { exact: true }).fill(amount);
  await page.getByLabel('Amount', { exact: true }).press('Enter');
  await expect(currentSale(page).getByRole('img', { name: 'Payment QR code' })).toBeVisible();
  await pay();
  await expect(currentSale(page)).toContainText(`${shown} received.`);
}

test('a supervisor sees a settlement Reconciled, every charge Matched, and exports it', async ({ page, freshApp, request }, testInfo) => {
  test.setTimeout(120_000);
  const payer = await openCashier(page, freshApp, request);
  await payer.setSettlementMode(1, 'blockchain_batched');
  const rui = { name: 'Rui', pin: '1357', role: 'Supervisor' } as const;
  await addOperator(page, rui);
  await signOut(page);
  await signIn(page, rui);
  await page.getByRole('link', { name: 'Cashier', exact: true }).click();
  await paidSale(page, '12,50', 'R$12.50', () => payer.payCheckout());
  await paidSale(page, '9,90', 'R$9.90', () => payer.payCheckout());
  // Before the window: both charges wait for the next settlement, with the totals.
  await page.getByRole('link', { name: 'Settlements', exact: true }).click();
  await page.getByRole('button', { name: 'Pending', exact: true }).click();
  const pending = page.getByTestId('pending');
  await expect(pending.getByRole('table', { name: 'Checkout 1' }).locator('tbody tr')).toHaveCount(2);
  await expect(pending.getByTestId('pending-totals')).toContainText('2 charges');
  await expect(pending).not.toContainText('The net is negative');
  await snap(page, testInfo, 'settlements-00-pending');

  const [id] = await payer.runSettlements();
  expect(id).toBeDefined();

  const row = page.getByRole('table', { name: 'Settlements' }).locator(`tr[data-settlement="${id}"]`);
  // The webhook's reconciliation runs after it is acknowledged: Show again until it is there.
  await expect(async () => {
    await page.getByRole('button', { name: 'Show', exact: true }).click();
    await expect(row).toHaveAttribute('data-reconciled', 'reconciled', { timeout: 1_000 });
  }).toPass({ timeout: 20_000 });
  await expect(row).toContainText('Done');
  await expect(row).toContainText('USDt');
  await expect(row).toContainText('Reconciled');

  await row.getByRole('button', { name: `Show settlement ${id}` }).click();
  const detail = page.getByTestId('settlement-detail');
  const charges = detail.getByRole('table', { name: 'Charges' }).locator('tbody tr');
  await expect(charges).toHaveCount(2);
  await expect(charges.filter({ hasText: 'Matched' })).toHaveCount(2);
  await expect(charges.nth(0)).toContainText('R$12.50');
  await expect(detail.getByRole('list', { name: 'Totals' })).toContainText('Amount = charges − deductions');
  await expect(detail.getByTestId('totals-check')).toHaveText('Totals check out');
  await snap(page, testInfo, 'settlements-01-detail');

  const download = page.waitForEvent('download');
  await detail.getByRole('button', { name: 'Export CSV' }).click();
  const csv = await readFile((await (await download).path()) as string, 'utf8');
  const lines = csv.trim().split('\r\n');
  expect(lines[0]).toBe('settlement_id,line,id,external_id,charged,settlement_or_deduction,check,sale_id,sale_received_cents');
  expect(lines.filter((l) => l.includes(',charge,') && l.includes(',matched,'))).toHaveLength(2);
  expect(lines.at(-1)).toContain(',reconciled,');
});
