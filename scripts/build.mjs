// Compiles apps and libs with swc (it rewrites the @engage/* path aliases) into dist/out, and
// writes the entry points named in OPERATIONS.md: dist/apps/api/main.js, dist/apps/worker/main.js.
// The web console (apps/console) is built by Vite into dist/console, which the api serves at /app/.
// `--if-stale` skips each build when its output is newer than every source file. Builds take a lock,
// because tests in parallel processes build too and one must not delete files another runs.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'out');
const stamp = join(root, 'dist', '.built');
const lock = join(root, 'dist', '.build-lock');
const consoleRoot = join(root, 'apps', 'console');
const consoleOut = join(root, 'dist', 'console');
const consoleStamp = join(root, 'dist', '.console-built');

function newestSource(dir, newest = 0, matches = (name) => name.endsWith('.ts')) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || (dir === join(root, 'apps') && entry.name === 'console')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = newestSource(path, newest, matches);
    else if (matches(entry.name)) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

// The console's sources and config (its browser tests in e2e/ do not change the bundle).
const consoleUpToDate = () =>
  existsSync(consoleStamp) &&
  existsSync(join(consoleOut, 'index.html')) &&
  statSync(consoleStamp).mtimeMs >=
    Math.max(
      newestSource(join(consoleRoot, 'src'), 0, () => true),
      ...['index.html', 'vite.config.mts', 'tsconfig.json'].map((file) => statSync(join(consoleRoot, file)).mtimeMs),
      statSync(join(root, 'package-lock.json')).mtimeMs,
      statSync(fileURLToPath(import.meta.url)).mtimeMs,
    );

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
        '**/*.test.ts,**/jest.config.js,**/test/**,apps/console/**',
      ],
      { cwd: root, stdio: 'inherit' },
    );
    const entries = { api: ['main', 'admin'], worker: ['main'] };
    // Each entry point first turns on node's on-disk compile cache (dist/.compile-cache): the first
    // start compiles the modules and stores their code, later starts (a worker restarted, every admin
    // command) read it instead of compiling again. A directory that cannot be written only loses the cache.
    const cache = `require('node:module').enableCompileCache?.(require('node:path').join(__dirname, '..', '..', '.compile-cache'));`;
    const launcher = (app, file) => `${cache}\nrequire('../../out/apps/${app}/src/${file}.js');\n`;
    for (const [app, files] of Object.entries(entries)) {
      mkdirSync(join(root, 'dist', 'apps', app), { recursive: true });
      for (const file of files) writeFileSync(join(root, 'dist', 'apps', app, `${file}.js`), launcher(app, file));
    }
    writeFileSync(stamp, new Date().toISOString());
  }
  if (!(process.argv.includes('--if-stale') && consoleUpToDate())) {
    execFileSync(process.execPath, [join(root, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--config', join(consoleRoot, 'vite.config.mts')], {
      cwd: root,
      stdio: 'inherit',
    });
    writeFileSync(consoleStamp, new Date().toISOString());
  }
} finally {
  rmSync(lock, { recursive: true, force: true });
}
