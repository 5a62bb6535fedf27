import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Unit tests sit beside the code (*.test.ts); integration tests (*.int.test.ts) start the
// sandbox on a free loopback port. Playwright's e2e suite lives in e2e/ and is run apart.
export default defineConfig({
  root: fileURLToPath(new URL('..', import.meta.url)),
  test: {
    include: ['electron/**/*.test.ts', 'src/**/*.test.{ts,tsx}'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Four test files at a time on two cores: the integration tests spend most of their time
    // waiting (on sockets, child processes, the disk, the database), so four keep both cores
    // busy where two left them mostly idle.
    maxWorkers: 4,
    reporters: ['default'],
  },
});
