import type { APIRequestContext } from '@playwright/test';
import { addOperator, expect, openCashier, signIn, signOut, snap, test, type Payer } from './fixtures.ts';

/**
 * The claims desk (issue 12) as a supervisor lives it: the pay-outs say which can be
 * claimed, a claim on po_fixture_ok is opened behind its one confirmation, and it moves to
 * Open, then Closed with the money returned, as the service (moved through its control API)
 * says; what the service holds is read through its public API, never from the screen alone.
 */

/** Contract 7: the fixture's supervisor token (pay_out). */
const TOKEN = 'Bearer sandbox-supervisor-token';
const DETAILS = 'The payer was sent a fake invoice by e-mail\nand paid it the same day.';

async function claimsAtService(request: APIRequestContext, payer: Payer): Promise<{ med_case_id: string; service_id: string; reason: string; status_id: string }[]> {
  const res = await request.get(`${payer.baseUrl}/v2/payout_meds?limit=200`, { headers: { authorization: TOKEN } });
  expect(res.status()).toBe(200);
  return (await res.json()) as { med_case_id: string; service_id: string; reason: string; status_id: string }[];
}

test('a supervisor opens a claim on a pay-out and follows it to Closed with money returned', async ({ page, freshApp, request }, testInfo) => {
  test.setTimeout(120_000);
  const payer = await openCashier(page, freshApp, request);
  const rui = { name: 'Rui', pin: '1357', role: 'Supervisor' } as const;
  await addOperator(page, rui);
  await signOut(page);
  await signIn(page, rui);

  await page.getByRole('link', { name: 'Claims', exact: true }).click();
  const payouts = page.getByRole('table', { name: 'Pay-outs' });
  const ok = payouts.locator('tr[data-payout="po_fixture_ok"]');
  await expect(ok).toContainText('R$150.00');
  await expect(ok).toContainText('Can be claimed: 77 days left.');
  await expect(payouts.locator('tr[data-payout="po_fixture_old"]')).toContainText('older than the 79-day window');
  await expect(payouts.locator('tr[data-payout="po_fixture_no_e2e"]')).toContainText('the bank has not processed this pay-out');
  await expect(payouts.locator('tr[data-payout="po_fixture_undated"]')).toContainText('has no date');
  await expect(payouts.locator('tr[data-payout="po_fixture_m2"]')).toHaveCount(0);

  await ok.getByRole('button', { name: 'Open claim' }).click();
  const form = page.getByRole('form', { name: /Open a claim on the pay-out of / });
  // Issue 26: a wrong field is named beside it before any confirmation.
  await form.getByLabel('Details').fill('short');
  await form.getByRole('button', { name: 'Submit claim' }).click();
  await expect(form).toContainText('Reason: choose the reason for the claim from the list.');
  await expect(form).toContainText('Details: describe what happened in at least 10 characters');
  await expect(page.getByRole('alertdialog')).toHaveCount(0);
  await form.getByLabel('Reason').selectOption({ label: 'Scam' });
  await form.getByLabel('Details').fill(DETAILS);
  await expect(form).not.toContainText('Details: describe what happened');
  await expect(form.getByTestId('details-count')).toHaveText(`${DETAILS.length} of 4,000 characters (at least 10).`);
  await expect(form).toContainText('Line breaks become spaces. A person at the other bank reads this text.');
  await form.getByLabel('Your reference (optional)').fill('case-42');
  await form.getByRole('button', { name: 'Submit claim' }).click();
  // Nothing is sent before the confirmation.
  expect(await claimsAtService(request, payer)).toHaveLength(0);
  const confirm = page.getByRole('alertdialog');
  await expect(confirm).toContainText('cannot be withdrawn, and cannot be reopened with another reason');
  await snap(page, testInfo, 'claims-01-confirm');
  await confirm.getByRole('button', { name: 'Confirm' }).click();
  await expect(page.getByTestId('claim-outcome')).toContainText('opened: being sent to the bank');

  const [claim] = await claimsAtService(request, payer);
  expect(claim).toMatchObject({ service_id: 'po_fixture_ok', reason: 'scam', status_id: 'dispatching' });
  const id = claim!.med_case_id;
  await expect(ok).toContainText('Already claimed');

  // The service moves the claim on; Refresh shows where it is.
  await payer.advanceClaim(id, { status: 'open' });
  await page.getByRole('button', { name: 'Claims', exact: true }).click();
  const row = page.getByRole('table', { name: 'Claims' }).locator(`tr[data-claim="${id}"]`);
  await page.getByRole('button', { name: 'Refresh' }).click();
  await expect(row).toHaveAttribute('data-status', 'open');
  await expect(row).toContainText('Open');

  await payer.advanceClaim(id, { status: 'closed', money_refunded: true, refunded_amount: '120.00' });
  await page.getByRole('button', { name: 'Refresh' }).click();
  await expect(row).toHaveAttribute('data-status', 'closed');
  await expect(row).toContainText('Closed');
  await expect(row).toContainText('Money returned: R$120.00');
  await snap(page, testInfo, 'claims-02-closed');

  // A supervisor at the counter hears it on the attention list.
  await page.getByRole('link', { name: 'Cashier', exact: true }).click();
  const notices = page.getByRole('region', { name: 'Claims that moved' });
  await expect(notices).toContainText(`Claim ${id} on pay-out po_fixture_ok is now Closed. Money returned: R$120.00`);
});

test('a claim the service could not confirm: a supervisor records that the bank has it, and a wrong claim id changes nothing', async ({ page, freshApp, request }, testInfo) => {
  test.setTimeout(120_000);
  const payer = await openCashier(page, freshApp, request);
  const rui = { name: 'Rui', pin: '1357', role: 'Supervisor' } as const;
  await addOperator(page, rui);
  await signOut(page);
  await signIn(page, rui);
  // Reference 4.6 claim_not_confirmed: the registration of this pay-out's claim is not confirmed.
  const handling = async (data: Record<string, string>) =>
    expect((await request.put(`${payer.baseUrl}/_sandbox/payouts/po_fixture_no_doc/med`, { data })).status()).toBe(200);
  await handling({ handling: 'manual', manual_registration: 'unconfirmed' });

  await page.getByRole('link', { name: 'Claims', exact: true }).click();
  const row = page.getByRole('table', { name: 'Pay-outs' }).locator('tr[data-payout="po_fixture_no_doc"]');
  await row.getByRole('button', { name: 'Open claim' }).click();
  const form = page.getByRole('form', { name: /Open a claim on the pay-out of / });
  await form.getByLabel('Reason').selectOption({ label: 'Scam' });
  await form.getByLabel('Details').fill(DETAILS);
  await form.getByRole('button', { name: 'Submit claim' }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Confirm' }).click();
  await expect(form.getByRole('alert')).toContainText('could not confirm the claim was registered, and the app does not send it again');
  await form.getByRole('button', { name: 'Cancel' }).click();
  await page.getByRole('button', { name: 'Refresh' }).click();
  await expect(row).toContainText('An earlier claim request was not confirmed, and the app does not repeat it');
  await expect(row.getByRole('button', { name: 'Open claim' })).toHaveCount(0);

  // The bank says it registered the claim after all: the service has it, tracked.
  await handling({ handling: 'tracked' });
  const opened = await request.post(`${payer.baseUrl}/v2/payout_meds`, { headers: { authorization: TOKEN }, data: { service_id: 'po_fixture_no_doc', reason: 'scam', details: DETAILS } });
  expect(opened.status()).toBe(202);
  const id = ((await opened.json()) as { med_case_id: string }).med_case_id;

  await row.getByRole('button', { name: 'Record what the bank said' }).click();
  const answer = page.getByRole('form', { name: /What the bank said of the claim on the pay-out of / });
  await expect(answer).toContainText('The app never sends this claim again by itself.');
  await answer.getByLabel('The claim exists').check();
  await answer.getByLabel('Claim id (starts with med_)').fill('case 42');
  await answer.getByRole('button', { name: 'Record answer' }).click();
  await expect(answer.getByRole('alert')).toContainText('A claim id starts with med_');
  await answer.getByLabel('Claim id (starts with med_)').fill('med_nosuchclaim');
  await answer.getByRole('button', { name: 'Record answer' }).click();
  await expect(answer.getByRole('alert')).toContainText('has no claim with this id');
  await snap(page, testInfo, 'claims-03-bank-answer');
  await expect(row).toContainText('An earlier claim request was not confirmed');

  await answer.getByLabel('Claim id (starts with med_)').fill(id);
  await answer.getByRole('button', { name: 'Record answer' }).click();
  await expect(page.getByTestId('claim-outcome')).toContainText(`Recorded: claim ${id} on pay-out po_fixture_no_doc is followed in Claims.`);
  await expect(answer).toHaveCount(0);
  await expect(row).toContainText('Already claimed');
  await expect(row).toContainText(id);
});
