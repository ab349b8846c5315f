import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// Built by scripts/build.mjs into dist/console and served by the api at /app/ (apps/api/src/console-static.ts).
const here = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: here,
  base: '/app/',
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../../dist/console', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    sourcemap: false,
    // The CSP allows no inline script or style: keep every asset a file.
    assetsInlineLimit: 0,
  },
  logLevel: 'warn',
});
