// `nx test console` (and so `npm test`): the console's browser tests. Builds what is stale, then
// runs Playwright with the distribution's Chromium; without one (not root, not installed) the
// tests are skipped with one line saying how to get it (scripts/test-peers.mjs fails CI instead).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const chromium = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path) => path && existsSync(path));
if (!chromium) {
  const reason = process.env.ENGAGE_SKIP_BROWSER_TESTS ?? 'Chromium is not installed (Debian: apt-get install -y chromium, or set CHROMIUM_PATH)';
  process.stdout.write(`console browser tests SKIPPED: ${reason}\n`);
  mkdirSync(join(root, 'dist', 'test-results'), { recursive: true });
  writeFileSync(join(root, 'dist', 'test-results', 'console-browser.json'), JSON.stringify({ passed: 0, failed: 0, skipped: 1 }));
  process.exit(process.env.CI ? 1 : 0);
}
const build = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--if-stale'], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);
const run = spawnSync(
  process.execPath,
  [
    join(root, 'node_modules', '@playwright', 'test', 'cli.js'),
    'test',
    '--config',
    join(root, 'apps', 'console', 'playwright.config.ts'),
    ...process.argv.slice(2),
  ],
  { cwd: root, stdio: 'inherit', env: { ...process.env, CHROMIUM_PATH: chromium, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1' } },
);
process.exit(run.status ?? 1);
