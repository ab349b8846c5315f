#!/usr/bin/env node
// The contract check: starts the built api (embedded PostgreSQL in a throwaway data folder, on a
// free port), signs in as the demo organization's owner and runs schemathesis (4.x, installed with
// pip into .data/contract-venv) against the served OpenAPI document with its stateful phase: any
// server error, response that contradicts its schema, or status the document does not list fails.
// Usage: node scripts/contract-check.mjs [--paths REGEX] [--max-examples N] [--max-time S]
import { randomBytes } from 'node:crypto';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const option = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : fallback;
};
// Every operation of the three families by default; --paths narrows (e.g. '^/rest/v1/').
const paths = option('paths', '^/(rest|functions|auth)/v1/');
const maxExamples = option('max-examples', '10');
const maxTime = option('max-time', '240');
const SCHEMATHESIS = 'schemathesis>=4,<5';

function ensureSchemathesis() {
  const venv = join(root, '.data', 'contract-venv');
  const bin = join(venv, 'bin', 'schemathesis');
  if (!existsSync(bin)) {
    const python = ['python3.13', 'python3.12', 'python3.11', 'python3'].find((name) => spawnSync(name, ['--version']).status === 0);
    if (!python) throw new Error('contract check: Python 3.10+ is needed for schemathesis');
    execFileSync(python, ['-m', 'venv', venv], { stdio: 'inherit' });
    execFileSync(join(venv, 'bin', 'pip'), ['install', '--quiet', SCHEMATHESIS], { stdio: 'inherit' });
  }
  return bin;
}

function startApi(dataDir) {
  const env = {
    ...process.env,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    DATA_DIR: dataDir,
    LOGIN_LIMIT_PER_EMAIL: '1000000',
    LOGIN_LIMIT_PER_IP: '1000000',
  };
  // The billing bridge and the Meta app configured, so their routes answer what they would in service
  // (401 unsigned, 403 for a wrong handshake token), not 503.
  env.BILLING_WEBHOOK_SECRET = randomBytes(24).toString('hex');
  env.META_APP_SECRET = randomBytes(24).toString('hex');
  env.META_VERIFY_TOKEN = randomBytes(24).toString('hex');
  delete env.DATABASE_URL;
  delete env.KAFKA_BROKERS;
  const child = spawn(process.execPath, [join(root, 'dist', 'apps', 'api', 'main.js'), '--with-worker'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`api: no "listening on" after 90 s:\n${output}`)), 90_000);
    child.once('exit', (code) => reject(new Error(`api exited with ${code}:\n${output}`)));
    const poll = setInterval(() => {
      const match = /listening on (http:\/\/[\d.]+:\d+)/.exec(output);
      if (!match) return;
      clearInterval(poll);
      clearTimeout(timer);
      child.removeAllListeners('exit');
      resolve({ child, url: match[1], output: () => output });
    }, 50);
  });
}

async function main() {
  const schemathesis = ensureSchemathesis();
  execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--if-stale'], { stdio: 'inherit' });
  const dir = mkdtempSync(join(tmpdir(), 'engage-contract-'));
  // PostgreSQL runs as another user when started by root: it must be able to enter the folder.
  chmodSync(dir, 0o755);
  const api = await startApi(join(dir, 'data'));
  let status = 1;
  try {
    const demo = JSON.parse(readFileSync(join(dir, 'data', 'demo-credentials.json'), 'utf8'));
    const login = await fetch(`${api.url}/functions/v1/mobile-api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: demo.owner_email, password: demo.owner_password }),
    });
    const { access_token: token } = await login.json();
    if (typeof token !== 'string') throw new Error(`contract check: the demo owner could not sign in (${login.status})`);
    const args = [
      'run',
      `${api.url}/docs/json`,
      '--url',
      api.url,
      '--header',
      `Authorization: Bearer ${token}`,
      '--include-path-regex',
      paths,
      // Signing out would revoke the run's own session and leave every later request a 401.
      '--exclude-path',
      '/auth/v1/logout',
      '--checks',
      'all',
      // Acceptance of generated data is the writers' business (they refuse what the schema allows with a documented 400).
      '--exclude-checks',
      'positive_data_acceptance,negative_data_rejection,object_level_authorization',
      '--phases',
      'examples,coverage,fuzzing,stateful',
      '--mode',
      'positive',
      '--max-examples',
      maxExamples,
      '--max-time',
      maxTime,
      '--seed',
      '1',
      '--generation-allow-x00',
      'false',
      '--no-color',
      '--warnings',
      'off',
      '--suppress-health-check',
      'all',
    ];
    // Its example cache goes into the throwaway folder, not the repository.
    status = spawnSync(schemathesis, args, { cwd: dir, stdio: 'inherit', env: { ...process.env, PYTHONUNBUFFERED: '1' } }).status ?? 1;
    if (/\b500\b|Unhandled|QueryFailedError/.test(api.output()) && status === 0) console.log('(the api logged errors; see above)');
  } finally {
    api.child.kill('SIGTERM');
    await new Promise((resolve) => (api.child.exitCode !== null ? resolve() : api.child.once('exit', resolve)));
    rmSync(dir, { recursive: true, force: true });
  }
  process.exit(status);
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
