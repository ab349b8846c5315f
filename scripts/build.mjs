// Compiles apps and libs with swc (it rewrites the @engage/* path aliases) into dist/out, and
// writes the entry points named in OPERATIONS.md: dist/apps/api/main.js, dist/apps/worker/main.js.
// `--if-stale` skips the build when dist/out is newer than every source file. Builds take a lock,
// because tests in parallel processes build too and one must not delete files another runs.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'out');
const stamp = join(root, 'dist', '.built');
const lock = join(root, 'dist', '.build-lock');

function newestSource(dir, newest = 0) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = newestSource(path, newest);
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

const upToDate = () =>
  existsSync(stamp) &&
  statSync(stamp).mtimeMs >=
    Math.max(
      newestSource(join(root, 'apps')),
      newestSource(join(root, 'libs')),
      statSync(join(root, '.swcrc')).mtimeMs,
      statSync(fileURLToPath(import.meta.url)).mtimeMs,
    );

function acquireLock() {
  mkdirSync(join(root, 'dist'), { recursive: true });
  for (const started = Date.now(); ;) {
    try {
      mkdirSync(lock);
      return;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
      // A lock left by a killed build is older than any real build takes.
      if (Date.now() - statSync(lock, { throwIfNoEntry: false })?.mtimeMs > 120_000) rmSync(lock, { recursive: true, force: true });
      if (Date.now() - started > 180_000) throw new Error('waited 3 minutes for another build to finish');
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
    }
  }
}

acquireLock();
try {
  if (!(process.argv.includes('--if-stale') && upToDate())) {
    rmSync(out, { recursive: true, force: true });
    execFileSync(
      process.execPath,
      [
        join(root, 'node_modules', '@swc', 'cli', 'bin', 'swc.js'),
        'apps',
        'libs',
        '--config-file',
        '.swcrc',
        '-d',
        out,
        '--quiet',
        '--ignore',
        '**/*.test.ts,**/jest.config.js,**/test/**',
      ],
      { cwd: root, stdio: 'inherit' },
    );
    const entries = { api: ['main', 'admin'], worker: ['main'] };
    for (const [app, files] of Object.entries(entries)) {
      mkdirSync(join(root, 'dist', 'apps', app), { recursive: true });
      for (const file of files) writeFileSync(join(root, 'dist', 'apps', app, `${file}.js`), `require('../../out/apps/${app}/src/${file}.js');\n`);
    }
    writeFileSync(stamp, new Date().toISOString());
  }
} finally {
  rmSync(lock, { recursive: true, force: true });
}
