import { defineConfig } from '@playwright/test';
import { CHROMIUM_FLAGS, findChromium } from '../electron/web/open-browser.ts';

/**
 * Browser used: POS_BROWSER (or CHROMIUM_PATH) when set, else Playwright's own Chromium
 * when installed, else the system's chromium. Each test file starts its own browser shell
 * on the embedded sandbox (see fixtures.ts), so tests never share a journal.
 */
const executablePath = findChromium();
if (!executablePath) {
  throw new Error('No Chromium found: install one (apt-get install chromium, or npx playwright install chromium) or set POS_BROWSER.');
}

export default defineConfig({
  testDir: '.',
  testMatch: '**/*.e2e.ts',
  outputDir: '../test-results',
  timeout: 60_000,
  expect: { timeout: 10_000 },
  // Two files at a time, each test of a file in order in one worker: every test has an app
  // (and so a journal, a sandbox and a clock) of its own or its file's, so nothing is shared
  // between the two. Most of a test's time is spent waiting on the app and the browser, not
  // on the CPU: two at a time take about half as long, on two cores too.
  fullyParallel: false,
  workers: 2,
  retries: 0,
  reporter: [['list'], ['html', { outputFolder: '../playwright-report', open: 'never' }]],
  use: {
    browserName: 'chromium',
    headless: true,
    viewport: { width: 1280, height: 800 },
    screenshot: 'only-on-failure',
    trace: 'retain-on-failure',
    launchOptions: { executablePath, args: CHROMIUM_FLAGS },
  },
});
