import { readFile } from 'node:fs/promises';
import type { APIRequestContext, Page } from '@playwright/test';
import { FIXTURE_WEBHOOK_SECRET } from '../electron/sandbox/fixture.ts';
import { webhookHeaders } from '../electron/shared/standard-webhooks.ts';
import { addOperator, expect, openCashier, signIn, signOut, snap, test, type Payer, type RunningApp } from './fixtures.ts';

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

/** A fresh app whose checkout 1 is in `mode`, with a supervisor signed in on the Cashier screen. */
async function supervisorAt(page: Page, app: RunningApp, request: APIRequestContext, mode: 'ars_batched' | 'blockchain_batched', supervisor: { name: string; pin: string }): Promise<Payer> {
  const payer = await openCashier(page, app, request);
  await payer.setSettlementMode(1, mode);
  await addOperator(page, { ...supervisor, role: 'Supervisor' });
  await signOut(page);
  await signIn(page, supervisor);
  await page.getByRole('link', { name: 'Cashier', exact: true }).click();
  return payer;
}

test('a supervisor sees a settlement Reconciled, every charge Matched, and exports it', async ({ page, freshApp, request }, testInfo) => {
  test.setTimeout(120_000);
  const payer = await supervisorAt(page, freshApp, request, 'blockchain_batched', { name: 'Rui', pin: '1357' });
  await paidSale(page, '12,50', 'R$12.50', () => payer.payCheckout());
  await paidSale(page, '9,90', 'R$9.90', () => payer.payCheckout());
  // Before the window: both charges wait for the next settlement, with the totals.
  await page.getByRole('link', { name: 'Settlements', exact: true }).click();
  await page.getByRole('button', { name: 'Pending', exact: true }).click();
  const pending = page.getByTestId('pending');
  await expect(pending.getByRole('table', { name: 'Store 1 · Checkout 1' }).locator('tbody tr')).toHaveCount(2);
  // Each charge is named as people name a sale: when it was paid (these have no reference).
  for (const cell of await pending.getByRole('table', { name: 'Store 1 · Checkout 1' }).locator('tbody tr td:first-child').all()) {
    await expect(cell).toContainText(/^\d{1,2}\/\d{1,2}\/\d{4}, \d{1,2}:\d{2}:\d{2} [AP]M/);
  }
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
  expect(lines[0]).toBe('settlement_id,line,id,external_id,charged,settlement_or_deduction,check,sale_id,sale_received_brl');
  expect(lines.filter((l) => l.includes(',charge,') && l.includes(',matched,'))).toHaveLength(2);
  expect(lines.at(-1)).toContain(',reconciled,');

  // Each sale learnt its settlement: the journal shows Settled with its id, and where the money went.
  await page.getByRole('link', { name: 'Shift journal', exact: true }).click();
  const settled = page.getByTestId('settled');
  await expect(settled).toHaveCount(2);
  await expect(settled.first()).toContainText(`Settled in ${id}`);
  await expect(page.getByTestId('trail-settled')).toHaveText('2 sales, R$22.40');
  await expect(page.getByTestId('trail-awaiting')).toHaveText('0 sales, R$0.00');
  await snap(page, testInfo, 'settlements-02-journal-settled');
});

test('a charge the journal does not know: Needs attention until a supervisor acknowledges it in their name', async ({ page, freshApp, request }, testInfo) => {
  test.setTimeout(120_000);
  const payer = await supervisorAt(page, freshApp, request, 'ars_batched', { name: 'Bia', pin: '2468' });
  await paidSale(page, '20,00', 'R$20.00', () => payer.payCheckout());
  // Another system of the merchant charges on the same checkout, and its customer pays.
  const outside = await payer.chargeElsewhere('5.00', 'other-system-1');
  await payer.payCheckout();
  const [id] = await payer.runSettlements();
  expect(id).toBeDefined();

  await page.getByRole('link', { name: 'Settlements', exact: true }).click();
  const row = page.getByRole('table', { name: 'Settlements' }).locator(`tr[data-settlement="${id}"]`);
  await expect(async () => {
    await page.getByRole('button', { name: 'Show', exact: true }).click();
    await expect(row).toHaveAttribute('data-reconciled', 'needs_attention', { timeout: 1_000 });
  }).toPass({ timeout: 20_000 });
  // The supervisor's attention list says so on the Cashier screen too, and leads here.
  await page.getByRole('link', { name: 'Cashier', exact: true }).click();
  await expect(page.locator(`li[data-settlement="${id}"]`)).toContainText(`Settlement ${id}: 1 difference(s) not acknowledged.`);
  await page.locator(`li[data-settlement="${id}"]`).getByRole('link', { name: 'Open Settlements' }).click();
  await page.getByRole('button', { name: 'Show', exact: true }).click();
  await row.getByRole('button', { name: `Show settlement ${id}` }).click();
  const detail = page.getByTestId('settlement-detail');
  await expect(detail.getByTestId('settlement-status')).toHaveText('Needs attention');
  await expect(detail.getByRole('table', { name: 'Charges' }).locator('tr[data-check="not_in_journal"]')).toContainText('other-system-1');
  const line = detail.getByTestId('differences').locator(`li[data-difference="charge:${outside.service_id}"]`);
  await expect(line).toContainText('Charge other-system-1: Not in journal.');
  await line.getByLabel('Note (optional)').fill('charged by the web shop');
  await line.getByRole('button', { name: 'Acknowledge' }).click();
  await expect(line).toContainText('Acknowledged by Bia');
  await expect(line).toContainText('charged by the web shop');
  await expect(detail.getByTestId('settlement-status')).toHaveText('Differences acknowledged');
  await expect(row).toContainText('Differences acknowledged');
  await snap(page, testInfo, 'settlements-03-acknowledged');
  // Read again from the core, it stays so.
  await page.getByRole('button', { name: 'Show', exact: true }).click();
  await expect(row).toHaveAttribute('data-reconciled', 'acknowledged');
  await page.getByRole('link', { name: 'Cashier', exact: true }).click();
  await expect(page.locator(`li[data-settlement="${id}"]`)).toHaveCount(0);
});

/**
 * Issue 24 point 4: a `settlement.settled` signed with the merchant's secret for a settlement
 * the service does not have (a forged delivery, or one not listed yet) is delivered to the app.
 */
async function deliverUnknownSettlement(request: APIRequestContext, payer: Payer, settlementId: number): Promise<void> {
  const endpoints = (await (await request.get(`${payer.baseUrl}/_sandbox/webhook`)).json()) as Record<string, { url: string | null }>;
  const now = Date.parse(((await (await request.get(`${payer.baseUrl}/_sandbox/clock`)).json()) as { now: string }).now);
  const body = JSON.stringify({
    event: 'settlement.settled',
    settlement_id: settlementId,
    provider_settlement_id: 'prov-unknown',
    external_settlement_id: null,
    amount: 0,
    currency_id: 3,
    source_amount: 0,
    source_currency_id: 3,
    source_net_price: 0,
    settled_at: new Date(now).toISOString(),
    charges: [],
    refunds: [],
  });
  const res = await request.post(endpoints['1']!.url as string, { headers: { ...webhookHeaders(FIXTURE_WEBHOOK_SECRET, `msg_unknown_${settlementId}`, Math.floor(now / 1000), body), 'content-type': 'application/json' }, data: body });
  expect(res.status()).toBe(200);
}

test('a settlement known only from its signed webhook is listed with Needs attention and what differs', async ({ page, freshApp, request }, testInfo) => {
  test.setTimeout(120_000);
  const payer = await supervisorAt(page, freshApp, request, 'blockchain_batched', { name: 'Ciro', pin: '4826' });
  const id = 880_001;
  await deliverUnknownSettlement(request, payer, id);
  await page.getByRole('link', { name: 'Settlements', exact: true }).click();
  const row = page.getByRole('table', { name: 'Settlements' }).locator(`tr[data-settlement="${id}"]`);
  await expect(async () => {
    await page.getByRole('button', { name: 'Show', exact: true }).click();
    await expect(row).toHaveAttribute('data-missing', 'list', { timeout: 1_000 });
  }).toPass({ timeout: 20_000 });
  await expect(row).toHaveAttribute('data-reconciled', 'needs_attention');
  await expect(row).toContainText('Needs attention · Not in the service’s list');
  await row.getByRole('button', { name: `Show settlement ${id}` }).click();
  const detail = page.getByTestId('settlement-detail');
  await expect(detail.getByTestId('only-webhook')).toHaveText('Known only from its signed webhook: the service answers that it has no such settlement.');
  const line = detail.getByTestId('differences').locator('li[data-difference="missing:detail"]');
  await expect(line).toContainText('The service does not have this settlement; only its signed webhook said it settled.');
  await snap(page, testInfo, 'settlements-04-only-webhook');
  await line.getByRole('button', { name: 'Acknowledge' }).click();
  await expect(line).toContainText('Acknowledged by Ciro');
  await expect(detail.getByTestId('settlement-status')).toHaveText('Differences acknowledged');
  await page.getByRole('button', { name: 'Show', exact: true }).click();
  await expect(row).toHaveAttribute('data-reconciled', 'acknowledged');
  await expect(row).toContainText('Not in the service’s list');
});
