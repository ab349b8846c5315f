// Compiles apps and libs with swc (it rewrites the @engage/* path aliases) into dist/out, and
// writes the entry points named in OPERATIONS.md: dist/apps/api/main.js, dist/apps/worker/main.js.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'out');
rmSync(out, { recursive: true, force: true });
execFileSync(
  process.execPath,
  [join(root, 'node_modules', '@swc', 'cli', 'bin', 'swc.js'), 'apps', 'libs', '--config-file', '.swcrc', '-d', out, '--quiet',
    '--ignore', '**/*.test.ts,**/jest.config.js,**/test/**'],
  { cwd: root, stdio: 'inherit' },
);
const entries = { api: ['main', 'admin'], worker: ['main'] };
for (const [app, files] of Object.entries(entries)) {
  mkdirSync(join(root, 'dist', 'apps', app), { recursive: true });
  for (const file of files) {
    writeFileSync(join(root, 'dist', 'apps', app, `${file}.js`), `require('../../out/apps/${app}/src/${file}.js');\n`);
  }
}
