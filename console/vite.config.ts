import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';
import path from 'node:path';

/** Built into dist/console-app/ (served by the service at /console/), every asset with a content hash. */
export default defineConfig({
  root: __dirname,
  base: '/console/',
  plugins: [react()],
  build: {
    outDir: path.resolve(__dirname, '..', 'dist', 'console-app'),
    emptyOutDir: true,
    assetsDir: 'assets',
    // No inline script or module-preload polyfill: the CSP allows scripts from the service only.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 2000,
    sourcemap: false,
    rollupOptions: {
      input: { console: path.resolve(__dirname, 'index.html'), graphiql: path.resolve(__dirname, 'graphiql.html') },
    },
  },
  test: {
    environment: 'jsdom',
    include: ['tests/**/*.test.tsx', 'tests/**/*.test.ts'],
    setupFiles: ['tests/setup.ts'],
    root: __dirname,
  },
});
