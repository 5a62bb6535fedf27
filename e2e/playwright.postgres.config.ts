import { defineConfig } from '@playwright/test';
import base from './playwright.config.ts';

/**
 * The counter, journal and settlements specs once more, each app's journal in PostgreSQL
 * (app.ts reads POS_E2E_JOURNAL and gives every app a database of its own): the same specs,
 * the same app, the other backend. Part of `npm run test:e2e`.
 */
process.env.POS_E2E_JOURNAL = 'postgres';

export default defineConfig({
  ...base,
  testMatch: ['**/counter.e2e.ts', '**/journal.e2e.ts', '**/settlements.e2e.ts'],
  outputDir: '../test-results/postgres',
  reporter: [['list']],
});
