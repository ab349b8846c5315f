import { join } from 'node:path';
import { defineConfig } from '@playwright/test';

// The console's browser tests: headless Chromium from the distribution (CHROMIUM_PATH, set by
// scripts/test-peers.mjs; /usr/bin/chromium otherwise), never a downloaded browser. The api is
// started once for the run by e2e/global-setup.ts; the owner signs in once (auth.setup.ts) and
// the other tests reuse that stored state.
const root = join(__dirname, '..', '..');
export const OUTPUT = join(root, 'dist', 'console-tests');
export const OWNER_STATE = join(OUTPUT, '.auth', 'owner.json');

export default defineConfig({
  testDir: join(__dirname, 'e2e'),
  outputDir: join(OUTPUT, 'results'),
  globalSetup: join(__dirname, 'e2e', 'global-setup.ts'),
  workers: 1,
  fullyParallel: false,
  timeout: 30_000,
  expect: { timeout: 5_000 },
  retries: 0,
  forbidOnly: !!process.env.CI,
  reporter: [['list'], [join(__dirname, 'e2e', 'summary-reporter.ts')]],
  use: {
    viewport: { width: 1280, height: 800 },
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
      // No background traffic: this machine has no network beyond its package registries.
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
  projects: [
    { name: 'setup', testMatch: /auth\.setup\.ts/ },
    { name: 'signed-out', testMatch: /signed-out\.spec\.ts/ },
    { name: 'signed-in', testMatch: /signed-in\.spec\.ts/, dependencies: ['setup'], use: { storageState: OWNER_STATE } },
    { name: 'inbox', testMatch: /inbox.*\.spec\.ts/, dependencies: ['setup'], use: { storageState: OWNER_STATE } },
  ],
});
