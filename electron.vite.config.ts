import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';

// Three builds, one renderer: the renderer in out/renderer is served unchanged by the
// Electron shell (file://) and by the browser shell (http on loopback).
export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      rollupOptions: { input: { index: resolve('electron/main/index.ts') } },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      rollupOptions: {
        input: { index: resolve('electron/preload/index.ts') },
        // A sandboxed preload can only be one CommonJS file that requires nothing but electron.
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve('src'),
    // Files shipped with the app (the icon) are served beside the pages.
    publicDir: resolve('resources'),
    plugins: [react()],
    build: {
      outDir: resolve('out/renderer'),
      // The CSP allows images from data: only for QR codes; keep every other asset a file.
      assetsInlineLimit: 0,
      minify: true,
      rollupOptions: {
        input: {
          index: resolve('src/index.html'),
          // The customer display: a second page (a second window in Electron, /display in the browser shell).
          display: resolve('src/display.html'),
        },
      },
    },
  },
});
