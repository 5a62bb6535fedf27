import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, signIn, test } from './fixtures.ts';

/**
 * Issue 23, as a cashier lives it: the core behind the till restarts (the same data dir,
 * address and token, as a service manager restarts it) while a sign-in is open. The till's
 * connection drops, comes back by itself, and the cashier is still signed in; a reload of the
 * page still asks for the PIN, as before.
 */
const root = fileURLToPath(new URL('..', import.meta.url));

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The app (browser shell, core, embedded sandbox) on a fixed port: a restart is found at the same address. */
function startCore(env: Record<string, string>): Promise<{ url: string; stop(): Promise<void> }> {
  const child: ChildProcess = spawn(process.execPath, [join(root, 'electron/web/cli.ts')], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the app did not start in time:\n${output.join('')}`)), 30_000);
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => output.push(chunk));
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      output.push(chunk);
      const match = /open (http:\/\/\S+)/.exec(chunk);
      if (!match?.[1]) return;
      clearTimeout(timer);
      resolve({
        url: match[1],
        async stop() {
          if (child.exitCode !== null || child.signalCode !== null) return;
          const exited = new Promise((r) => child.once('exit', r));
          child.kill('SIGTERM');
          await exited;
        },
      });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the app exited with ${code}:\n${output.join('')}`));
    });
  });
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
