import type { Page } from '@playwright/test';
import { createPairingCode, expect, openCashier, pairDevice, test } from './fixtures.ts';

/**
 * Issue 5's accessibility rules, checked on every screen and in the states a cashier sees
 * most: every control has a role and an accessible name, a touch target of at least 44 px,
 * and a visible focus ring when reached from the keyboard.
 */
interface ControlReport {
  what: string;
  name: string;
  width: number;
  height: number;
}

/** Every visible interactive control of the page, with its accessible name and size. */
async function controls(page: Page): Promise<ControlReport[]> {
  return page.evaluate(() => {
    const selector = 'button, a[href], input:not([type=hidden]), select, textarea, [role=button], [tabindex]:not([tabindex="-1"])';
    const text = (el: Element | null) => (el?.textContent ?? '').replace(/\s+/g, ' ').trim();
    return [...document.querySelectorAll<HTMLElement>(selector)]
      .filter((el) => {
        const r = el.getBoundingClientRect();
        return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== 'hidden';
      })
      .map((el) => {
        const labelledBy = (el.getAttribute('aria-labelledby') ?? '')
          .split(/\s+/)
          .map((id) => text(document.getElementById(id)))
          .join(' ')
          .trim();
        const labels = 'labels' in el ? [...((el as HTMLInputElement).labels ?? [])].map(text).join(' ') : '';
        const name = el.getAttribute('aria-label') ?? (labelledBy || labels || text(el) || el.getAttribute('title') || '');
        const r = el.getBoundingClientRect();
        return { what: `${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''} "${text(el).slice(0, 30)}"`, name, width: r.width, height: r.height };
      });
  });
}

async function expectAccessible(page: Page, screen: string, least = 3) {
  const found = await controls(page);
  expect(found.length, `${screen}: controls found`).toBeGreaterThanOrEqual(least);
  for (const c of found) {
    expect(c.name, `${screen}: ${c.what} has an accessible name`).not.toBe('');
    expect(Math.round(c.height), `${screen}: ${c.what} is at least 44 px tall`).toBeGreaterThanOrEqual(44);
    expect(Math.round(c.width), `${screen}: ${c.what} is at least 44 px wide`).toBeGreaterThanOrEqual(44);
  }
}

/** Tabs through the page: every control reached shows a focus ring (outline or box shadow). */
async function expectVisibleFocus(page: Page, screen: string, steps = 12) {
  await page.locator('body').click({ position: { x: 1, y: 1 } });
  for (let i = 0; i < steps; i++) {
    await page.keyboard.press('Tab');
    const ring = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      if (!el || el === document.body) return null;
      const style = getComputedStyle(el);
      const outline = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2;
      return { what: `${el.tagName.toLowerCase()} "${(el.textContent ?? '').trim().slice(0, 30)}"`, visible: outline || style.boxShadow !== 'none' };
    });
    if (ring === null) continue;
    expect(ring.visible, `${screen}: focus on ${ring.what} is visible`).toBe(true);
  }
}

test('every control on every screen has a name, a 44 px target and a visible focus', async ({ page, browser, freshApp, request }) => {
  const payer = await openCashier(page, freshApp, request);
  await payer.setSettlementMode(1, 'ars_batched');
  await expect(page.getByRole('status')).toContainText('Service reachable');
  await expectAccessible(page, 'cashier (idle)');
  await expectVisibleFocus(page, 'cashier (idle)');

  await page.getByLabel('Amount', { exact: true }).fill('12,50');
  await page.getByRole('button', { name: 'Charge', exact: true }).click();
  await expect(page.getByRole('img', { name: 'Payment QR code' })).toBeVisible();
  await expectAccessible(page, 'cashier (waiting for payment)');

  await payer.payCheckout('2.00');
  await expect(page.getByRole('button', { name: 'Acknowledge' })).toBeVisible();
  await expectAccessible(page, 'cashier (amount mismatch)');

  await page.getByRole('link', { name: 'Shift journal' }).click();
  await expect(page.getByRole('heading', { name: 'Totals' })).toBeVisible();
  await expectAccessible(page, 'shift journal');
  await expectVisibleFocus(page, 'shift journal');

  await page.getByRole('link', { name: 'Claims', exact: true }).click();
  await page.locator('tr[data-payout="po_fixture_ok"]').getByRole('button', { name: 'Open claim' }).click();
  await expect(page.getByLabel('Details')).toBeVisible();
  await expectAccessible(page, 'claims');
  await expectVisibleFocus(page, 'claims');

  // Settlements, with a settlement that needs attention (a charge made elsewhere), its
  // differences to acknowledge, and the Pending view.
  await payer.chargeElsewhere('5.00', 'other-system-1');
  await payer.payCheckout();
  const [settlementId] = await payer.runSettlements();
  await page.getByRole('link', { name: 'Settlements', exact: true }).click();
  const row = page.locator(`tr[data-settlement="${settlementId}"]`);
  await expect(async () => {
    await page.getByRole('button', { name: 'Show', exact: true }).click();
    await expect(row).toHaveAttribute('data-reconciled', 'needs_attention', { timeout: 1_000 });
  }).toPass({ timeout: 20_000 });
  await row.getByRole('button', { name: `Show settlement ${settlementId}` }).click();
  await expect(page.getByRole('button', { name: 'Acknowledge' })).toBeVisible();
  await page.getByRole('button', { name: 'Pending', exact: true }).click();
  await expect(page.getByTestId('unsettled')).toBeVisible();
  await expectAccessible(page, 'settlements');
  await expectVisibleFocus(page, 'settlements');

  await page.getByRole('link', { name: 'Settings' }).click();
  await expectAccessible(page, 'settings');

  await page.getByRole('link', { name: 'Operators' }).click();
  await expect(page.getByRole('heading', { name: 'Add operator' })).toBeVisible();
  await expectAccessible(page, 'operators');
  await expectVisibleFocus(page, 'operators');

  // Devices, with a paired till (its Revoke) and a pairing code on show; and Pair this till.
  const till = await pairDevice(browser, freshApp, await createPairingCode(page, { kind: 'Till', checkout: 2, name: 'Till 2' }));
  await expect(page.getByRole('button', { name: 'Revoke Till 2' })).toBeVisible();
  await expectAccessible(page, 'devices');
  await expectVisibleFocus(page, 'devices');
  await page.getByRole('button', { name: 'Revoke Till 2' }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Revoke Till 2' }).click();
  await expect(till.page.getByRole('heading', { name: 'Pair this till', exact: true })).toBeVisible();
  // Pairing Code and Pair are all an unpaired page has.
  await expectAccessible(till.page, 'pair this till', 2);
  await expectVisibleFocus(till.page, 'pair this till', 4);
  await till.context.close();

  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByRole('heading', { name: 'Sign in', exact: true })).toBeVisible();
  await expectAccessible(page, 'sign in');
  await expectVisibleFocus(page, 'sign in');
});
