// `npm test`: every project's Jest suite through Nx, with the peers they need (scripts/test-peers.mjs),
// then one total line for the whole run.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestPeers } from './test-peers.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const results = join(root, 'dist', 'test-results');
rmSync(results, { recursive: true, force: true });

// The process tests run the built service; build it once, before they start in parallel, while the
// peers start.
const build = new Promise((resolve) => {
  spawn(process.execPath, [join(root, 'scripts', 'build.mjs'), '--if-stale'], { cwd: root, stdio: 'inherit' }).on('close', resolve);
});
const [peers] = await Promise.all([startTestPeers(root), build]);
process.on('SIGINT', () => {
  peers.stop();
  process.exit(130);
});
const nx = join(root, 'node_modules', '.bin', 'nx');
const run = spawnSync(nx, ['run-many', '-t', 'test', '--parallel=2', '--outputStyle=stream', '--skipNxCache', ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
  env: { NX_DAEMON: 'false', ...process.env, ...peers.env },
});
peers.stop();

const total = { passed: 0, failed: 0, skipped: 0 };
if (existsSync(results)) {
  for (const file of readdirSync(results)) {
    const counts = JSON.parse(readFileSync(join(results, file), 'utf8'));
    for (const key of Object.keys(total)) total[key] += counts[key];
  }
}
const failed = run.status === 0 ? total.failed : Math.max(total.failed, 1);
process.stdout.write(`\n${total.passed} passed, ${failed} failed, ${total.skipped} skipped\n`);
process.exit(run.status ?? 1);
