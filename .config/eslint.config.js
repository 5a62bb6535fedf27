// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const nodeBuiltins = ['node:*', 'fs', 'path', 'http', 'https', 'net', 'crypto', 'child_process', 'os', 'url', 'stream', 'events', 'worker_threads'];

// What the core may not import, in every one of its modules (tests and fixtures aside).
const corePaths = [{ name: 'electron', message: 'electron/core is plain Node: only electron/main and electron/preload may import electron.' }];
const coreBoundaries = [
  { group: ['**/sandbox', '**/sandbox/**'], message: 'electron/core must not import electron/sandbox: take a ServiceEndpoint (electron/core/service-endpoint.ts); electron/compose.ts makes one.' },
  // The PostgreSQL client too: the core knows the journal's port, never a backend.
  { group: ['**/postgres', '**/postgres/**'], message: 'electron/core must not import electron/postgres or the PostgreSQL client: take the journal port; the start-up entry points pick the backend.' },
];

export default tseslint.config(
  { ignores: ['out/**', 'node_modules/**', 'test-results/**', 'playwright-report/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'off',
    },
  },
  {
    // The core is plain Node: it must run where Electron's binary is absent (browser shell, tests).
    files: ['electron/core/**', 'electron/sandbox/**', 'electron/web/**', 'electron/shared/**', 'electron/postgres/**'],
    rules: {
      'no-restricted-imports': ['error', { paths: [{ name: 'electron', message: 'electron/core, sandbox, web, shared and postgres are plain Node: only electron/main and electron/preload may import electron.' }] }],
    },
  },
  {
    // The core does not know the sandbox: it receives a service endpoint, composed at the
    // start-up entry points (electron/compose.ts). Its tests and fixtures may start one.
    files: ['electron/core/**'],
    ignores: ['**/*.test.ts', 'electron/core/**/fixtures/**'],
    rules: {
      'no-restricted-imports': ['error', { paths: corePaths, patterns: coreBoundaries }],
      'no-restricted-syntax': ['error',
        { selector: 'ImportExpression[source.value=/(^|\\/)sandbox(\\/|$)/]', message: 'electron/core must not import electron/sandbox, not even lazily: take a ServiceEndpoint.' },
        { selector: 'ImportExpression[source.value=/(^|\\/)postgres(\\/|$)/]', message: 'electron/core must not import electron/postgres or the PostgreSQL client, not even lazily: take the journal port.' },
      ],
    },
  },
  {
    // The core knows the journal by its port (journal/port.ts; the hash chain's canonical
    // form, journal/canonical.ts, is the same on every backend). The embedded adapter's
    // modules are opened by the one composing module (core/services/parts.ts) and used inside
    // journal/ only; tests, fixtures and benches may open one.
    files: ['electron/core/**'],
    ignores: ['**/*.test.ts', 'electron/core/**/fixtures/**', 'electron/core/journal/**', 'electron/core/services/parts.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: corePaths,
        patterns: [
          ...coreBoundaries,
          { group: ['**/journal/*', '!**/journal/port.ts', '!**/journal/canonical.ts'], message: "electron/core imports the journal's port (journal/port.ts), never an adapter: only core/services/parts.ts opens the file journal." },
        ],
      }],
    },
  },
  {
    // Shared code runs in the renderer too: no Node.
    files: ['electron/shared/**'],
    rules: {
      'no-restricted-imports': ['error', { paths: [{ name: 'electron', message: 'shared code runs everywhere' }], patterns: [{ group: nodeBuiltins, message: 'electron/shared runs in the renderer too: no Node built-ins.' }] }],
    },
  },
  {
    // The renderer is sandboxed: no Node, no electron; it reaches the core only through src/lib/bridge.
    files: ['src/**'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [{ name: 'electron', message: 'The renderer talks to the core through src/lib/bridge only.' }],
        patterns: [
          { group: nodeBuiltins, message: 'The renderer is sandboxed: no Node built-ins.' },
          { group: ['**/electron/core/**', '!**/electron/core/contract*'], allowTypeImports: true, message: 'The renderer may import only types from the core.' },
        ],
      }],
      'no-restricted-globals': ['error', 'process', 'require', 'Buffer', '__dirname', '__filename'],
    },
  },
);
