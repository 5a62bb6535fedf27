import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../electron/core/terminal/fixtures/core-child.ts';
import { startCliProcess } from '../electron/web/fixtures/cli-process.ts';
import { expect, signIn, test } from './fixtures.ts';

/**
 * Issue 23, as a cashier lives it: the core behind the till restarts (the same data dir,
 * address and token, as a service manager restarts it) while a sign-in is open. The till's
 * connection drops, comes back by itself, and the cashier is still signed in; a reload of the
 * page still asks for the PIN, as before.
 */

/** The app (browser shell, core, embedded sandbox) on a fixed port: a restart is found at the same address. */
async function startCore(env: Record<string, string>): Promise<{ url: string; stop(): Promise<void> }> {
  const app = startCliProcess({ name: 'the app', args: [], env: { ...process.env, ...env } });
  await app.until(/open http:\/\/\S+/, 30_000);
  const url = /open (http:\/\/\S+)/.exec(app.out())![1]!;
  return { url, stop: () => app.stop() };
}

test('a till whose core restarts comes back signed in; a reload asks for the PIN', async ({ page }) => {
  test.setTimeout(90_000);
  const dataDir = await mkdtemp(join(tmpdir(), 'pos-e2e-resume-'));
  const env = { POS_DATA_DIR: dataDir, POS_WEB_PORT: String(await freePort()), POS_WEB_TOKEN: randomBytes(18).toString('base64url'), POS_LANG: 'en' };
  let core = await startCore(env);
  try {
    await page.goto(core.url);
    await signIn(page);
    await expect(page.getByTestId('signed-in')).toHaveText('Ana · Manager');

    await core.stop();
    await expect(page.getByText('Not connected — do not take payment')).toBeVisible();
    core = await startCore(env);
    // The page reconnects by itself, offers its sign-in's secret, and goes on as Ana.
    await expect(page.getByText('Not connected — do not take payment')).toHaveCount(0, { timeout: 20_000 });
    await expect(page.getByTestId('signed-in')).toHaveText('Ana · Manager');
    await expect(page.getByRole('heading', { name: 'Sign in', exact: true })).toHaveCount(0);
    // A manager's screen still answers: the core knows who is at the till.
    await page.getByRole('link', { name: 'Operators', exact: true }).click();
    await expect(page.locator('tr[data-operator]')).toHaveCount(1);

    await page.reload();
    await expect(page.getByRole('heading', { name: 'Sign in', exact: true })).toBeVisible();
    await expect(page.getByTestId('signed-in')).toHaveCount(0);
  } finally {
    await core.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
});
