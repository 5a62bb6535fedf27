import type { APIRequestContext, Page } from '@playwright/test';
import { addOperator, expect, openCashier, signIn, signOut, snap, test, type Payer, type RunningApp } from './fixtures.ts';

/**
 * Refunds (issue 10, point 4) as a supervisor lives them: a paid sale of the shift is
 * refunded in part, then the rest, from the Shift journal; the sale reads Partly refunded,
 * then Refunded, the totals change, and the service's own state is read through its public
 * API (Tx Status, and a refund request for more than any charge could have left, whose 422
 * names what is left) after each step, never from the screen alone.
 */

const currentSale = (page: Page) => page.getByRole('region', { name: 'Current sale' });
const salesRegion = (page: Page) => page.getByRole('region', { name: 'Sales of the shift' });
/** Contract 7: the fixture's supervisor token (pay_in, any role may refund: contract 1). */
const TOKEN = 'Bearer sandbox-supervisor-token';

async function txStatus(request: APIRequestContext, payer: Payer, pixId: string): Promise<string> {
  const res = await request.get(`${payer.baseUrl}/v2/tx_status/${pixId}`, { headers: { authorization: TOKEN } });
  expect(res.status()).toBe(200);
  return ((await res.json()) as { status: string }).status;
}

/** What the service would still refund: asking for more than any charge has is always a 422 that says. */
async function leftAtService(request: APIRequestContext, payer: Payer, serviceId: string): Promise<string | undefined> {
  const res = await request.post(`${payer.baseUrl}/v2/pay_in_refunds/request`, { headers: { authorization: TOKEN }, data: { service_id: serviceId, amount: '999999.99' } });
  expect(res.status()).toBe(422);
  return ((await res.json()) as { detail: { ctx?: { le?: string } }[] }).detail[0]?.ctx?.le;
}

/** A fresh app with supervisor Rui signed in and a shift open: the payer of its checkout. */
async function supervisorOnShift(page: Page, app: RunningApp, request: APIRequestContext): Promise<Payer> {
  const payer = await openCashier(page, app, request);
  const rui = { name: 'Rui', pin: '1357', role: 'Supervisor' } as const;
  await addOperator(page, rui);
  await signOut(page);
  await signIn(page, rui);
  await page.getByRole('link', { name: 'Shift journal', exact: true }).click();
  await page.getByRole('button', { name: 'Open shift' }).click();
  await expect(page.getByTestId('shift-state')).toHaveText(/Shift open/);
  return payer;
}

/**
 * A paid sale of R$ 10,00 rung up at the Cashier screen and paid by the payer; its row in the
 * Shift journal (opened) and its ids at the service.
 */
async function paidSaleInJournal(page: Page, payer: Payer) {
  await page.getByRole('link', { name: 'Cashier', exact: true }).click();
  await page.getByLabel('Amount', { exact: true }).fill('10,00');
  await page.getByLabel('Amount', { exact: true }).press('Enter');
  await expect(currentSale(page).getByRole('img', { name: 'Payment QR code' })).toBeVisible();
  await payer.payCheckout();
  await expect(currentSale(page)).toContainText('R$10.00 received.');
  const [sold] = await payer.sales();
  expect(sold?.status).toBe('paid');
  const { pix_id: pixId, service_id: serviceId } = sold as { pix_id: string; service_id: string };
  await page.getByRole('link', { name: 'Shift journal', exact: true }).click();
  const row = salesRegion(page).locator('tbody tr[data-sale-id]').filter({ hasText: pixId });
  return { pixId, serviceId, row };
}

test('a supervisor refunds part, then the rest, of a paid sale and sees the totals change', async ({ page, freshApp, request }, testInfo) => {
  test.setTimeout(120_000);
  const payer = await supervisorOnShift(page, freshApp, request);

  // A paid sale of R$ 10,00.
  const { pixId, serviceId, row } = await paidSaleInJournal(page, payer);
  await expect(row).toHaveAttribute('data-status', 'paid');
  await expect(page.getByTestId('total-received_cents')).toHaveText('R$10.00');
  await expect(page.getByTestId('total-refunded_cents')).toHaveText('R$0.00');
  await expect(page.getByTestId('total-net_cents')).toHaveText('R$10.00');
  await expect(page.getByTestId('trail-awaiting')).toHaveText('1 sales, R$10.00');

  // ── Part: the amount is prefilled with all that is left; the supervisor gives back 4,00 ──
  await row.getByRole('button', { name: 'Refund', exact: true }).click();
  const form = row.getByRole('form', { name: 'Refund' });
  await expect(form.getByLabel('Amount', { exact: true })).toHaveValue('10.00');
  await expect(form).toContainText('Left to refund: R$10.00');
  // More than the sale: refused in words before anything is sent.
  await form.getByLabel('Amount', { exact: true }).fill('10.01');
  await form.getByRole('button', { name: 'Confirm refund' }).click();
  await expect(form.getByRole('alert')).toHaveText('That is more than is left to refund on this sale; nothing was sent. Refund at most what is left.');
  expect(await leftAtService(request, payer, serviceId)).toBe('10.00');

  await form.getByLabel('Amount', { exact: true }).fill('4.00');
  await form.getByLabel('Reason', { exact: true }).fill('one item returned');
  await form.getByRole('button', { name: 'Confirm refund' }).click();
  await expect(row).toHaveAttribute('data-status', 'partly_refunded');
  await expect(row).toContainText('Partly refunded');
  await expect(row).toContainText('Refunded R$4.00 to the customer (Rui).');
  // Received stays what came in; the refund is said apart, and the net is what was kept.
  await expect(page.getByTestId('total-received_cents')).toHaveText('R$10.00');
  await expect(page.getByTestId('total-refunded_cents')).toHaveText('R$4.00');
  await expect(page.getByTestId('total-net_cents')).toHaveText('R$6.00');
  await expect(page.getByTestId('trail-awaiting')).toHaveText('1 sales, R$6.00');
  await expect(page.getByTestId('total-partly_refunded')).toHaveText('1');
  expect(await txStatus(request, payer, pixId)).toBe('paid');
  expect(await leftAtService(request, payer, serviceId)).toBe('6.00');
  await snap(page, testInfo, '01-partly-refunded');

  // ── The rest ──────────────────────────────────────────────────────────────────────
  await row.getByRole('button', { name: 'Refund', exact: true }).click();
  await expect(form.getByLabel('Amount', { exact: true })).toHaveValue('6.00');
  await form.getByRole('button', { name: 'Confirm refund' }).click();
  await expect(row).toHaveAttribute('data-status', 'refunded');
  await expect(row.getByRole('button', { name: 'Refund', exact: true })).toHaveCount(0);
  await expect(page.getByTestId('total-received_cents')).toHaveText('R$10.00');
  await expect(page.getByTestId('total-refunded_cents')).toHaveText('R$10.00');
  await expect(page.getByTestId('total-net_cents')).toHaveText('R$0.00');
  // Given back in full before any settlement: nothing of it waits for one.
  await expect(page.getByTestId('trail-awaiting')).toHaveText('0 sales, R$0.00');
  await expect(page.getByTestId('trail-refunded')).toHaveText('R$10.00');
  await expect(page.getByTestId('total-refunded')).toHaveText('1');
  await expect(page.getByTestId('total-partly_refunded')).toHaveText('0');
  expect(await txStatus(request, payer, pixId)).toBe('refunded');
  expect((await payer.sales())[0]?.status).toBe('refunded');
  await snap(page, testInfo, '02-refunded');

  // The cashier's list says so too.
  await page.getByRole('link', { name: 'Cashier', exact: true }).click();
  await expect(page.getByRole('region', { name: 'Recent sales' }).locator('[data-status="refunded"]')).toHaveCount(1);
});

test('a refund whose answer was lost is not sent again by itself: a supervisor answers It was refunded, or Send again for the amount named', async ({ page, freshApp, request }, testInfo) => {
  test.setTimeout(120_000);
  const payer = await supervisorOnShift(page, freshApp, request);

  const REFUND_ROUTE = { method: 'POST', path: '/v2/pay_in_refunds/request' };
  // The service ignores refund keys throughout: asking again would be a second refund.
  await payer.armFault({ target: 'idempotency', ...REFUND_ROUTE, fault: 'ignore_key', count: 1000 });

  for (const [fault, answer] of [
    ['lost_response', 'It was refunded'],
    ['http_503', 'Send again'],
  ] as const) {
    const { serviceId, row } = await paidSaleInJournal(page, payer);
    await payer.armFault({ target: 'route', ...REFUND_ROUTE, fault, count: 1 });
    await row.getByRole('button', { name: 'Refund', exact: true }).click();
    const form = row.getByRole('form', { name: 'Refund' });
    await form.getByLabel('Amount', { exact: true }).fill('4.00');
    await form.getByRole('button', { name: 'Confirm refund' }).click();
    await expect(row.locator('[data-refund-state="uncertain"]')).toContainText('no answer from the payment service yet');

    // The follow-up reads the charge, finds nothing certain, and leaves it to a person.
    await payer.advanceClock(11);
    await expect(row.locator('[data-refund-state="unconfirmed"]')).toContainText('Refund of R$4.00 by Rui: not confirmed.', { timeout: 20_000 });
    expect(await leftAtService(request, payer, serviceId)).toBe(fault === 'lost_response' ? '6.00' : '10.00');

    await page.getByRole('link', { name: 'Cashier', exact: true }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'Refund not confirmed' });
    await expect(alert).toContainText(`Check the charge ${serviceId} at the payment service`);
    if (answer === 'It was refunded') {
      await alert.getByRole('button', { name: 'It was refunded' }).click();
    } else {
      await alert.getByRole('button', { name: 'Send again' }).click();
      await expect(alert).toContainText('Send a new refund of R$4.00 to the customer? If the first one was made after all, the customer is refunded twice.');
      await snap(page, testInfo, '03-send-again');
      await alert.getByRole('button', { name: 'Yes, send R$4.00 again' }).click();
    }
    await expect(alert).toHaveCount(0);
    await page.getByRole('link', { name: 'Shift journal', exact: true }).click();
    await expect(row).toHaveAttribute('data-status', 'partly_refunded');
    await expect(row).toContainText(answer === 'It was refunded' ? 'Confirmed by Rui' : 'Sent again by Rui');
    // Exactly one refund of 4.00 at the service either way.
    expect(await leftAtService(request, payer, serviceId)).toBe('6.00');
  }
});

test('an overpayment says how much to give back: a supervisor refunds it right there, a cashier is told to call one', async ({ page, freshApp, request }, testInfo) => {
  test.setTimeout(150_000);
  const payer = await openCashier(page, freshApp, request);
  const caio = { name: 'Caio', pin: '2468', role: 'Cashier' } as const;
  const rui = { name: 'Rui', pin: '1357', role: 'Supervisor' } as const;
  await addOperator(page, caio);
  await addOperator(page, rui);
  await signOut(page);
  await signIn(page, rui);
  await page.getByRole('link', { name: 'Shift journal', exact: true }).click();
  await page.getByRole('button', { name: 'Open shift' }).click();
  await expect(page.getByTestId('shift-state')).toHaveText(/Shift open/);

  // R$ 10,00 charged, R$ 12,00 paid: R$ 2,00 to give back.
  await page.getByRole('link', { name: 'Cashier', exact: true }).click();
  await page.getByLabel('Amount', { exact: true }).fill('10,00');
  await page.getByLabel('Amount', { exact: true }).press('Enter');
  await expect(currentSale(page).getByRole('img', { name: 'Payment QR code' })).toBeVisible();
  await payer.payCheckout('12.00');
  const [sold] = await payer.sales();
  const serviceId = (sold as { service_id: string }).service_id;
  const item = page.locator('.attention-item');
  await expect(item.getByTestId('attention-settle')).toContainText('Give back R$2.00 to the customer.');
  await expect(item.getByRole('button', { name: 'Refund R$2.00', exact: true })).toBeVisible();
  await snap(page, testInfo, 'refunds-settle-supervisor');

  // A cashier reads the amount and whom to call, and has no refund to press.
  await signOut(page);
  await signIn(page, caio);
  await expect(item.getByTestId('attention-settle')).toContainText('Give back R$2.00 to the customer. A cashier cannot refund: call a supervisor to give back R$2.00.');
  await expect(item.getByRole('button', { name: /^Refund/ })).toHaveCount(0);
  await signOut(page);

  // The supervisor refunds the R$ 2,00 through the same refund flow, prefilled.
  await signIn(page, rui);
  await item.getByRole('button', { name: 'Refund R$2.00', exact: true }).click();
  const form = item.getByRole('form', { name: 'Refund' });
  await expect(form.getByLabel('Amount', { exact: true })).toHaveValue('2.00');
  await form.getByRole('button', { name: 'Confirm refund' }).click();
  await expect(item.getByTestId('attention-settle')).toContainText('R$2.00 is refunded to the customer');
  await expect(item.getByRole('button', { name: /^Refund/ })).toHaveCount(0);
  expect(await leftAtService(request, payer, serviceId)).toBe('10.00');
});
