import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import type { Plugin } from 'vite';
import react from '@vitejs/plugin-react';
import { withContentSecurityPolicy } from './electron/shared/csp.ts';

/** The pages' CSP meta tag comes from electron/shared/csp.ts, the browser shell's header's source. */
const contentSecurityPolicy: Plugin = { name: 'pix-cashier-csp', transformIndexHtml: { order: 'pre', handler: withContentSecurityPolicy } };

// The build test (electron/build.int.test.ts) builds into a directory of its own.
const out = resolve(process.env.POS_BUILD_OUT_DIR ?? 'out');

// Three builds, one renderer: the renderer in out/renderer is served unchanged by the
// Electron shell (file://) and by the browser shell (http on loopback).
export default defineConfig(({ mode }) => ({
  main: {
    // Only `electron-vite dev` trusts its dev server's URL (electron/main/security.ts).
    define: { __POS_DEV_BUILD__: JSON.stringify(mode === 'development') },
    build: {
      outDir: resolve(out, 'main'),
      rollupOptions: { input: { index: resolve('electron/main/index.ts') } },
    },
  },
  preload: {
    build: {
      outDir: resolve(out, 'preload'),
      rollupOptions: {
        // index: the store's till windows (window.pos); display: its customer display (window.pos, its
        // screen only); device: connect mode's store page (window.posDevice); setup: connect mode's
        // setup page (window.posSetup). They share no module, so each stays one file.
        input: {
          index: resolve('electron/preload/index.ts'),
          display: resolve('electron/preload/display.ts'),
          device: resolve('electron/preload/device.ts'),
          setup: resolve('electron/preload/setup.ts'),
        },
        // A sandboxed preload can only be one CommonJS file that requires nothing but electron.
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve('src'),
    // Files shipped with the app (the icon) are served beside the pages.
    publicDir: resolve('resources'),
    plugins: [react(), contentSecurityPolicy],
    build: {
      outDir: resolve(out, 'renderer'),
      // The CSP allows images from data: only for QR codes; keep every other asset a file.
      assetsInlineLimit: 0,
      minify: true,
      rollupOptions: {
        input: {
          index: resolve('src/index.html'),
          // The customer display: a second page (a second window in Electron, /display in the browser shell).
          display: resolve('src/display.html'),
          // Connect mode's first page in Electron: the store's address and its certificate to compare.
          setup: resolve('src/setup.html'),
        },
      },
    },
  },
}));
