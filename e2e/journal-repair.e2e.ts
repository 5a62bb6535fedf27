import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { expect, openCashier, snap, startApp, test } from './fixtures.ts';

/**
 * A damaged journal must not close the shop (issue 13, point 11): the journal of a real app
 * is damaged on disk between two runs; the next run names the broken entry, refuses to
 * charge with a sentence, and a manager's Start a new chain lets the till sell again.
 */

const currentSale = (page: Page) => page.getByRole('region', { name: 'Current sale' });

async function charge(page: Page, amount: string) {
  await page.getByLabel('Amount', { exact: true }).fill(amount);
  await page.getByLabel('Amount', { exact: true }).press('Enter');
}

test('a broken journal names its broken entry, and Start a new chain restores charging', async ({ page, request }, testInfo) => {
  test.setTimeout(120_000);
  const dataDir = await mkdtemp(join(tmpdir(), 'pos-e2e-repair-'));
  try {
    // ── A day's work: a sale, then a shift opened (the entry that will be damaged) ───────
    let app = await startApp({ POS_DATA_DIR: dataDir });
    try {
      await openCashier(page, app, request);
      await charge(page, '12,50');
      await expect(currentSale(page).getByRole('img', { name: 'Payment QR code' })).toBeVisible();
      await page.getByRole('link', { name: 'Shift journal', exact: true }).click();
      await page.getByRole('button', { name: 'Open shift' }).click();
      await expect(page.getByTestId('shift-state')).toHaveText(/Shift open/);
    } finally {
      await app.stop();
    }

    // ── The disk damages the last entry: its content no longer matches its hash ─────────
    const journalDir = join(dataDir, 'journal');
    const [segment] = (await readdir(journalDir)).filter((n) => n.endsWith('.jsonl'));
    const lines = (await readFile(join(journalDir, segment!), 'utf8')).split('\n').slice(0, -1);
    expect(lines.at(-1)).toContain('"type":"shift.opened"');
    lines[lines.length - 1] = lines.at(-1)!.replace('"by":"Ana"', '"by":"Bob"');
    await writeFile(join(journalDir, segment!), lines.map((l) => l + '\n').join(''));
    const seq = lines.length;

    // ── The next start: the status says exactly what is broken; Charge is refused ───────
    app = await startApp({ POS_DATA_DIR: dataDir });
    try {
      const payer = await openCashier(page, app, request);
      const stopped = page.getByTestId('journal-stopped');
      await expect(stopped).toHaveText(
        `Charging is stopped: journal entry ${seq} (${segment}, line ${seq}) is broken: its content was changed after it was written. A manager can start a new chain in the Shift journal.`,
      );
      await charge(page, '13,00');
      await expect(page.getByRole('alert').filter({ hasText: 'The journal is damaged, so nothing can be charged' })).toBeVisible();
      await snap(page, testInfo, '01-charge-refused');

      // ── A manager starts a new chain, after a confirmation that says what it does ────
      await page.getByRole('link', { name: 'Shift journal', exact: true }).click();
      const repair = page.getByTestId('journal-repair');
      await expect(page.getByTestId('journal-broken-entry')).toHaveText(
        `Entry ${seq} is broken: its content was changed after it was written. It is in the file ${segment}, line ${seq}.`,
      );
      await repair.getByRole('button', { name: 'Start a new chain' }).click();
      const confirm = page.getByRole('alertdialog', { name: 'Start a new chain?' });
      await expect(confirm).toContainText(`Entry ${seq} and everything after it in the old files stay exactly as they are`);
      // In the name of the manager signed in (the till's first manager, Ana).
      await expect(confirm).toContainText('in your name, Ana');
      await snap(page, testInfo, '02-confirm-new-chain');
      await confirm.getByRole('button', { name: 'Start a new chain' }).click();

      await expect(page.getByTestId('journal-repair')).toHaveCount(0);
      await expect(page.getByTestId('journal-breaks')).toContainText(`Entry ${seq} (${segment}, line ${seq}) was damaged`);
      await expect(page.getByTestId('journal-breaks')).toContainText('Ana started a new chain');
      await expect(page.getByTestId('journal-stopped')).toHaveCount(0);
      await page.getByRole('button', { name: 'Check integrity' }).click();
      await expect(page.getByTestId('integrity-result')).toContainText('Journal intact');
      await expect(page.getByTestId('integrity-acknowledged')).toContainText(`Acknowledged break: entry ${seq}`);
      await snap(page, testInfo, '03-new-chain');

      // ── The till sells again ────────────────────────────────────────────────────────
      await page.getByRole('link', { name: 'Cashier', exact: true }).click();
      await charge(page, '13,00');
      await expect(currentSale(page).getByTestId('sale-amount')).toHaveText('R$13.00');
      await expect(currentSale(page).getByRole('img', { name: 'Payment QR code' })).toBeVisible();
      await payer.payCheckout();
      await expect(currentSale(page)).toContainText('R$13.00 received.');
      await snap(page, testInfo, '04-selling-again');
    } finally {
      await app.stop();
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});
