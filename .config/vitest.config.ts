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
    reporters: ['default'],
  },
});
