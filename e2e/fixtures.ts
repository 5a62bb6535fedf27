import { test as base, expect, type APIRequestContext, type Page, type TestInfo } from '@playwright/test';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Starts the real app (browser shell + core + embedded sandbox) as a child process on free
 * loopback ports, reads the one line it prints, and stops it by its pid afterwards.
 */
export interface RunningApp {
  url: string;
  origin: string;
  token: string;
  dataDir: string;
  output: string[];
  stop(): Promise<void>;
}

const root = fileURLToPath(new URL('..', import.meta.url));

export async function startApp(env: Record<string, string> = {}): Promise<RunningApp> {
  const dataDir = await mkdtemp(join(tmpdir(), 'pos-e2e-'));
  const token = randomBytes(18).toString('base64url');
  const child: ChildProcess = spawn(process.execPath, [join(root, 'electron/web/cli.ts')], {
    cwd: root,
    env: { ...process.env, POS_DATA_DIR: dataDir, POS_WEB_PORT: '0', POS_WEB_TOKEN: token, POS_LANG: 'en', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the app did not start in time:\n${output.join('\n')}`)), 30_000);
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      output.push(chunk);
      const match = /open (http:\/\/\S+)/.exec(chunk);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => output.push(chunk));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the app exited with ${code}:\n${output.join('\n')}`));
    });
  });
  return {
    url,
    origin: new URL(url).origin,
    token,
    dataDir,
    output,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

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

/** Opens the app as the cashier does and finds the payment service the footer names. */
export async function openCashier(page: Page, app: RunningApp, request: APIRequestContext): Promise<Payer> {
  await page.goto(app.url);
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
