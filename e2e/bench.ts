/**
 * The cashier screen's benchmark (part of `npm run bench`): through the browser shell on
 * loopback, Charge pressed → the new sale's QR in the page, and payment sent → Paid on
 * screen, each next to the raw HTTP round trip of the same call measured in the same run.
 * Three bounded runs, each with a fresh app (`--runs N` for another count); every figure is the
 * median over the runs of each run's p50 or p95. A measurement, never a test.
 */
import { chromium } from '@playwright/test';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHROMIUM_FLAGS, findChromium } from '../electron/web/open-browser.ts';
import { STEP } from '../electron/core/terminal/steps.ts';
import { startApp } from './app.ts';

const ROUNDS = 40;
const MAX_SECONDS = 120;
/** Runs of a bench, each with a fresh app: the figures are medians over them. */
const RUNS = 3;
const BENCHMARKS_FILE = fileURLToPath(new URL('../BENCHMARKS.md', import.meta.url));
const START = '<!-- bench:ui:start -->';
const END = '<!-- bench:ui:end -->';

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
}

const ms = (v: number) => `${v.toFixed(1)} ms`;

/** What the bridge noted in the page (src/lib/bridge.ts stepMark). */
interface Mark {
  what: string;
  at: number;
}

/** Page-side steps, by name: each a list of durations in ms. */
type Samples = Map<string, number[]>;

function addSample(samples: Samples, step: string, value: number | undefined): void {
  if (value === undefined || !Number.isFinite(value)) return;
  const list = samples.get(step);
  if (list === undefined) samples.set(step, [value]);
  else list.push(value);
}

/** The last mark named `what` at or before `until` (after `from`). */
function lastMark(marks: readonly Mark[], what: string, from: number, until: number): Mark | undefined {
  return marks.filter((m) => m.what === what && m.at >= from && m.at <= until).at(-1);
}

const PAGE = {
  send: 'page: click → sale.charge sent',
  toPush: 'page: sent → push with the QR received (the core\'s steps)',
  handled: 'page: push handled (store updated)',
  render: 'page: push handled → QR in the document (render)',
  payHandled: 'page: payment push handled (store updated)',
  payRender: 'page: payment push handled → Paid in the document (render)',
} as const;

/** One run's samples: the totals, the raw round trips, and every step in the page and the core. */
interface Run {
  chargeToQr: number[];
  rawCreate: number[];
  payToPaid: number[];
  rawPay: number[];
  pageSteps: Samples;
  coreSteps: Record<string, number[]>;
}

/** One run: a fresh app and browser, up to ROUNDS sales or MAX_SECONDS. */
async function measure(executablePath: string): Promise<Run> {
  // The core's step timings (core/terminal/steps.ts) are written to this file as the app stops.
  const stepDir = await mkdtemp(join(tmpdir(), 'pos-bench-steps-'));
  const stepFile = join(stepDir, 'steps.json');
  const app = await startApp({ POS_STEP_TIMES: stepFile });
  const browser = await chromium.launch({ executablePath, args: CHROMIUM_FLAGS, headless: true });
  const pageSteps: Samples = new Map();
  const chargeToQr: number[] = [];
  const rawCreate: number[] = [];
  const payToPaid: number[] = [];
  const rawPay: number[] = [];
  try {
    const page = await browser.newPage();
    // The page's step marks (src/lib/bridge.ts): the app has no such list.
    await page.addInitScript(() => {
      (globalThis as { posStepMarks?: unknown[] }).posStepMarks = [];
    });
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
      const charged = await page.evaluate(
        () =>
          new Promise<{ start: number; end: number; marks: { what: string; at: number }[] }>((resolve, reject) => {
            const marks = (globalThis as { posStepMarks?: { what: string; at: number }[] }).posStepMarks ?? [];
            marks.length = 0;
            const current = () => document.querySelector<HTMLImageElement>('img[alt="Payment QR code"]')?.getAttribute('src') ?? null;
            const before = current();
            const button = [...document.querySelectorAll('button')].find((b) => b.textContent?.trim() === 'Charge');
            if (!button) return reject(new Error('no Charge button'));
            const start = performance.now();
            const observer = new MutationObserver(() => {
              const now = current();
              if (now !== null && now !== before) {
                observer.disconnect();
                resolve({ start, end: performance.now(), marks: [...marks] });
              }
            });
            observer.observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['src'] });
            button.click();
            setTimeout(() => reject(new Error('no QR within 10 s')), 10_000);
          }),
      );
      chargeToQr.push(charged.end - charged.start);
      const sent = lastMark(charged.marks, 'send sale.charge', charged.start, charged.end);
      const push = lastMark(charged.marks, 'event checkout.changed', charged.start, charged.end);
      const handled = lastMark(charged.marks, 'handled checkout.changed', charged.start, charged.end);
      addSample(pageSteps, PAGE.send, sent && sent.at - charged.start);
      addSample(pageSteps, PAGE.toPush, sent && push && push.at - sent.at);
      addSample(pageSteps, PAGE.handled, push && handled && handled.at - push.at);
      addSample(pageSteps, PAGE.render, handled && charged.end - handled.at);

      // Payment sent → "Paid" on screen, timed from the test process (includes one CDP hop);
      // in the page, an observer notes when Paid is in the document, for the render step.
      await page.evaluate(() => {
        const g = globalThis as { posStepMarks?: unknown[]; posPaidAt?: number };
        g.posStepMarks!.length = 0;
        delete g.posPaidAt;
        const observer = new MutationObserver(() => {
          if (document.querySelector('.sale-panel[data-screen="settled"][data-status="paid"]') !== null) {
            g.posPaidAt = performance.now();
            observer.disconnect();
          }
        });
        observer.observe(document.body, { subtree: true, childList: true, attributes: true });
      });
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
      const afterPay = await page.evaluate(() => {
        const g = globalThis as { posStepMarks?: { what: string; at: number }[]; posPaidAt?: number };
        return { paidAt: g.posPaidAt ?? null, marks: [...(g.posStepMarks ?? [])] };
      });
      if (afterPay.paidAt !== null) {
        const payPush = lastMark(afterPay.marks, 'event checkout.changed', 0, afterPay.paidAt);
        const payHandled = lastMark(afterPay.marks, 'handled checkout.changed', 0, afterPay.paidAt);
        addSample(pageSteps, PAGE.payHandled, payPush && payHandled && payHandled.at - payPush.at);
        addSample(pageSteps, PAGE.payRender, payHandled && afterPay.paidAt - payHandled.at);
      }

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
  const coreSteps = JSON.parse(await readFile(stepFile, 'utf8').catch(() => '{}')) as Record<string, number[]>;
  await rm(stepDir, { recursive: true, force: true });
  return { chargeToQr, rawCreate, payToPaid, rawPay, pageSteps, coreSteps };
}

function median(values: readonly number[]): number {
  return percentile([...values], 50);
}

async function main(): Promise<void> {
  const executablePath = findChromium();
  if (!executablePath) throw new Error('No Chromium found: set POS_BROWSER or install chromium.');
  const runsArg = process.argv.indexOf('--runs');
  const wanted = runsArg >= 0 ? Number(process.argv[runsArg + 1]) : RUNS;
  if (!Number.isSafeInteger(wanted) || wanted < 1 || wanted > 9) throw new Error('--runs must be a whole number from 1 to 9');
  const loadAtStart = loadavg()[0]!.toFixed(1);
  const runs: Run[] = [];
  for (let i = 0; i < wanted; i++) {
    runs.push(await measure(executablePath));
    console.log(`bench: run ${i + 1} of ${wanted}: Charge → QR p50 ${ms(percentile(runs.at(-1)!.chargeToQr, 50))}, Payment → Paid p95 ${ms(percentile(runs.at(-1)!.payToPaid, 95))}`);
  }
  // Each figure is the median, over the runs, of that run's p50 (or p95).
  const over = (pick: (run: Run) => readonly number[] | undefined, p: number) => {
    const perRun = runs.map(pick).filter((v): v is readonly number[] => v !== undefined && v.length > 0);
    return perRun.length === 0 ? undefined : median(perRun.map((v) => percentile([...v], p)));
  };
  const figure = (pick: (run: Run) => readonly number[] | undefined) => `p50 ${ms(over(pick, 50) ?? Number.NaN)}, p95 ${ms(over(pick, 95) ?? Number.NaN)}`;
  const eachRun = (pick: (run: Run) => readonly number[]) => runs.map((r) => `${ms(percentile([...pick(r)], 50))} / ${ms(percentile([...pick(r)], 95))}`).join(' · ');
  const samplesOf = (pick: (run: Run) => readonly number[] | undefined) => runs.reduce((sum, r) => sum + (pick(r)?.length ?? 0), 0);
  const stepRow = (name: string, pick: (run: Run) => readonly number[] | undefined) =>
    samplesOf(pick) === 0 ? [name, 'not seen', ''] : [name, figure(pick), `${samplesOf(pick)} samples`];
  const chargeToQr = runs.flatMap((r) => r.chargeToQr);
  const core = (step: string) => (r: Run) => r.coreSteps[step];
  const chargeSteps = [STEP.bridgeIn, STEP.toCharge, STEP.plan, STEP.intent, STEP.toCreate, STEP.create, STEP.outcome, STEP.outcomeToPush, STEP.chargeTotal, STEP.reply].map((step) => stepRow(step, core(step)));
  const sharedSteps = [STEP.view, STEP.push].map((step) => stepRow(step, core(step)));
  const payment = [STEP.payment, STEP.paymentToPush].map((step) => stepRow(step, core(step)));
  const page = Object.values(PAGE).map((step) => stepRow(step, (r) => r.pageSteps.get(step)));

  const rows = [
    ['Charge pressed → QR visible', figure((r) => r.chargeToQr), `raw create_dynamic_pix round trip: ${figure((r) => r.rawCreate)}; each run p50 / p95: ${eachRun((r) => r.chargeToQr)}`],
    ['Payment sent → Paid visible', figure((r) => r.payToPaid), `raw POST /_sandbox/pay round trip: ${figure((r) => r.rawPay)}; each run p50 / p95: ${eachRun((r) => r.payToPaid)}`],
  ];
  const stepRows = [...chargeSteps, ...payment, ...sharedSteps, ...page];
  const section = [
    START,
    '## Cashier screen (browser shell)',
    '',
    `Run on ${new Date().toISOString().slice(0, 10)}: ${runs.length} runs of up to ${ROUNDS} sales each (${chargeToQr.length} in all), each with a fresh app, through the browser shell on loopback (headless Chromium, ${cpus().length} cores shared by browser, app and sandbox); 1-minute load average ${loadAtStart} at the start, ${loadavg()[0]!.toFixed(1)} at the end. Every figure is the median over the runs of each run's p50 (or p95).`,
    '',
    'Charge → QR is timed inside the page (click to the new QR image in the document): the bridge call, the journal fsync of the intent, the create over HTTP, the fsync of its outcome, and rendering the QR. Payment → Paid is timed from the test process: the payer\'s POST, the signed webhook, its fsync, the push to the page and the render. Each is next to the raw HTTP round trip of the same call in the same run.',
    '',
    '| what | through the UI | raw HTTP of the same call |',
    '|---|---|---|',
    ...rows.map((r) => `| ${r[0]} | ${r[1]} | ${r[2]} |`),
    '',
    'Where the time goes, step by step (core/terminal/steps.ts in the core and the bridge, src/lib/bridge.ts marks in the page; on only in this bench). A charge makes two pushes (the intent, then the QR) and answers its call with a view; every push builds a checkout view, so the view and push steps have more samples than sales.',
    '',
    '| step | time | |',
    '|---|---|---|',
    ...stepRows.map((r) => `| ${r[0]} | ${r[1]} | ${r[2]} |`),
    END,
  ].join('\n');
  console.table(rows.map((r) => ({ what: r[0], ui: r[1], raw: r[2] })));
  console.table(stepRows.map((r) => ({ step: r[0], time: r[1], samples: r[2] })));

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
