/**
 * The cashier screen's benchmark (part of `npm run bench`): through the browser shell on
 * loopback, Charge pressed → the new sale's QR in the page, and payment sent → Paid on
 * screen, each next to the raw HTTP round trip of the same call measured in the same run.
 * Medians and p95 of one bounded run; a measurement, never a test.
 */
import { chromium } from '@playwright/test';
import { readFile, writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { CHROMIUM_FLAGS, findChromium } from '../electron/web/open-browser.ts';
import { startApp } from './app.ts';

const ROUNDS = 40;
const MAX_SECONDS = 120;
const BENCHMARKS_FILE = fileURLToPath(new URL('../BENCHMARKS.md', import.meta.url));
const START = '<!-- bench:ui:start -->';
const END = '<!-- bench:ui:end -->';

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
}

const ms = (v: number) => `${v.toFixed(1)} ms`;

async function main(): Promise<void> {
  const executablePath = findChromium();
  if (!executablePath) throw new Error('No Chromium found: set POS_BROWSER or install chromium.');
  const app = await startApp();
  const browser = await chromium.launch({ executablePath, args: CHROMIUM_FLAGS, headless: true });
  const chargeToQr: number[] = [];
  const rawCreate: number[] = [];
  const payToPaid: number[] = [];
  const rawPay: number[] = [];
  try {
    const page = await browser.newPage();
    await page.goto(app.url);
    // A fresh app asks for its first manager, who is then signed in at the till.
    await page.locator('#create-name').fill('Bench');
    await page.locator('#create-pin').fill('2468');
    await page.locator('#create-repeat').fill('2468');
    await page.locator('#create-repeat').press('Enter');
    await page.getByTestId('signed-in').waitFor();
    const serviceUrl = await page.getByTestId('service-mode').getAttribute('data-service-url');
    if (!serviceUrl) throw new Error('the page does not name its payment service');
    const deadline = performance.now() + MAX_SECONDS * 1000;

    for (let round = 0; round < ROUNDS && performance.now() < deadline; round++) {
      const amount = `${10 + round},${String(round % 100).padStart(2, '0')}`;
      await page.getByLabel('Amount').fill(amount);
      // Timed inside the page: from the click to the new sale's QR image in the document.
      chargeToQr.push(
        await page.evaluate(
          () =>
            new Promise<number>((resolve, reject) => {
              const current = () => document.querySelector<HTMLImageElement>('img[alt="Payment QR code"]')?.getAttribute('src') ?? null;
              const before = current();
              const button = [...document.querySelectorAll('button')].find((b) => b.textContent?.trim() === 'Charge');
              if (!button) return reject(new Error('no Charge button'));
              const start = performance.now();
              const observer = new MutationObserver(() => {
                const now = current();
                if (now !== null && now !== before) {
                  observer.disconnect();
                  resolve(performance.now() - start);
                }
              });
              observer.observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['src'] });
              button.click();
              setTimeout(() => reject(new Error('no QR within 10 s')), 10_000);
            }),
        ),
      );

      // Payment sent → "Paid" on screen, timed from the test process (includes one CDP hop).
      const t0 = performance.now();
      const paid = page.waitForFunction(() => document.querySelector('.sale-panel[data-screen="settled"][data-status="paid"]') !== null, undefined, {
        polling: 5,
        timeout: 10_000,
      });
      const payStart = performance.now();
      const res = await fetch(`${serviceUrl}/_sandbox/pay`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ store_id: 1, checkout_id: 1 }) });
      rawPay.push(performance.now() - payStart);
      if (res.status !== 200) throw new Error(`pay answered ${res.status}: ${await res.text()}`);
      await paid;
      payToPaid.push(performance.now() - t0);

      // The raw round trip of the same create, on the same checkout once the screen's sale is
      // paid: the stray sale it makes is displaced by the next Charge, as a correction would be.
      const c0 = performance.now();
      const created = await fetch(`${serviceUrl}/v2/create_dynamic_pix`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer sandbox-manager-token' },
        body: JSON.stringify({ amount: '10.00', store_id: 1, checkout_id: 1 }),
      });
      await created.text();
      rawCreate.push(performance.now() - c0);
    }
  } finally {
    await browser.close();
    await app.stop();
  }

  const rows = [
    ['Charge pressed → QR visible', `p50 ${ms(percentile(chargeToQr, 50))}, p95 ${ms(percentile(chargeToQr, 95))}`, `raw create_dynamic_pix round trip: p50 ${ms(percentile(rawCreate, 50))}, p95 ${ms(percentile(rawCreate, 95))}`],
    ['Payment sent → Paid visible', `p50 ${ms(percentile(payToPaid, 50))}, p95 ${ms(percentile(payToPaid, 95))}`, `raw POST /_sandbox/pay round trip: p50 ${ms(percentile(rawPay, 50))}, p95 ${ms(percentile(rawPay, 95))}`],
  ];
  const section = [
    START,
    '## Cashier screen (browser shell)',
    '',
    `Run on ${new Date().toISOString().slice(0, 10)}: ${chargeToQr.length} sales through the browser shell on loopback (headless Chromium, ${cpus().length} cores shared by browser, app and sandbox).`,
    '',
    'Charge → QR is timed inside the page (click to the new QR image in the document): the bridge call, the journal fsync of the intent, the create over HTTP, the fsync of its outcome, and rendering the QR. Payment → Paid is timed from the test process: the payer\'s POST, the signed webhook, its fsync, the push to the page and the render. Each is next to the raw HTTP round trip of the same call in the same run.',
    '',
    '| what | through the UI | raw HTTP of the same call |',
    '|---|---|---|',
    ...rows.map((r) => `| ${r[0]} | ${r[1]} | ${r[2]} |`),
    END,
  ].join('\n');
  console.table(rows.map((r) => ({ what: r[0], ui: r[1], raw: r[2] })));

  let text = await readFile(BENCHMARKS_FILE, 'utf8').catch(() => '# Benchmarks\n');
  const from = text.indexOf(START);
  const to = text.indexOf(END);
  if (from >= 0 && to > from) {
    text = text.slice(0, from) + section + text.slice(to + END.length);
  } else {
    // Replace the placeholder section, if any, else append.
    const placeholder = text.indexOf('## Cashier screen (browser shell)');
    text = (placeholder >= 0 ? text.slice(0, placeholder) : text.trimEnd() + '\n\n') + section + '\n';
  }
  await writeFile(BENCHMARKS_FILE, text);
  console.log(`Wrote the cashier-screen figures to ${BENCHMARKS_FILE}`);
}

await main();
