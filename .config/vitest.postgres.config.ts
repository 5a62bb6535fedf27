import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * The core's journal-touching tests a second time, on PostgreSQL (`npm run test:postgres`,
 * part of `npm test`): every integration test that starts its core through the shared
 * fixtures (electron/core/terminal/fixtures/core.ts, directly or through the claims app,
 * and the crash tests' child cores, SIGKILLed mid-sale: fixtures/child-cores.ts),
 * with POS_TEST_JOURNAL=postgres, which gives each core a database of its own. The same
 * files as the first pass, not a copy. One file is left out: status-push fakes the clock's
 * timers, which the PostgreSQL client's own connection timers cannot run under.
 */
const root = fileURLToPath(new URL('..', import.meta.url));
const FIXTURE = /startCoreOnSandbox|coreOnSandboxForFile|startClaimsApp|claims-app\.ts|childCoresPerTest/;
const LEFT_OUT = new Set(['electron/core/status-push.int.test.ts']);

function filesUnder(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? filesUnder(join(dir, d.name)) : [join(dir, d.name)]));
}

const include = filesUnder('electron/core')
  .filter((f) => f.endsWith('.int.test.ts') && !LEFT_OUT.has(f))
  .filter((f) => FIXTURE.test(readFileSync(join(root, f), 'utf8')))
  .map((f) => relative(root, join(root, f)));

export default defineConfig({
  root,
  test: {
    include,
    env: { POS_TEST_JOURNAL: 'postgres' },
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Four test files at a time on two cores: the integration tests spend most of their time
    // waiting (on sockets, child processes, the disk, the database), so four keep both cores
    // busy where two left them mostly idle.
    maxWorkers: 4,
    reporters: ['default'],
  },
});
