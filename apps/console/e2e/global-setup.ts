import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
// The platform's HTTPS test peer, by path: the console's own tsconfig has no aliases, and the
// whole of @engage/platform/testing (databases, Nest) has no place in a browser test's worker.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { createSelfSignedCert } from '../../../libs/platform/src/testing/https-receiver';
import { subscribe } from './api';

// Starts the built service (node dist/apps/api/main.js --with-worker, as npm start does) on a fresh embedded
// PostgreSQL for the whole run, and makes an organization whose OWNER has finished onboarding.
const root = join(__dirname, '..', '..', '..');

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

function startApi(env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [join(root, 'dist', 'apps', 'api', 'main.js'), '--with-worker'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the api was not listening after 60 s:\n${output}`)), 60_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the api exited with ${code}:\n${output}`));
    });
    const poll = setInterval(() => {
      const match = /listening on (http:\/\/[\d.]+:\d+)/.exec(output);
      if (!match) return;
      clearInterval(poll);
      clearTimeout(timer);
      child.removeAllListeners('exit');
      resolve({ child, url: match[1] });
    }, 50);
  });
}

export default async function globalSetup(): Promise<() => Promise<void>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'engage-console-'));
  // PostgreSQL runs as "nobody" when the tests run as root: it must be able to enter the folder.
  chmodSync(dataDir, 0o755);
  const secret = randomBytes(24).toString('hex');
  const metaSecret = randomBytes(24).toString('hex');
  // The webhook tests deliver to an HTTPS receiver on 127.0.0.1 with this certificate.
  const cert = createSelfSignedCert();
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    HOST: '127.0.0.1',
    PORT: String(await freePort()),
    DATA_DIR: join(dataDir, 'data'),
    LOG_LEVEL: 'warn',
    BILLING_WEBHOOK_SECRET: secret,
    // The inbox tests sign Messenger webhooks (e2e/inbox.spec.ts); Graph is not reachable here.
    META_APP_SECRET: metaSecret,
    META_VERIFY_TOKEN: randomBytes(12).toString('hex'),
    META_GRAPH_URL: 'http://127.0.0.1:9',
    OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
    NODE_EXTRA_CA_CERTS: cert.certPath,
    // Most tests sign the same owner in from 127.0.0.1, more than the 10 in 5 minutes allowed to one
    // address per email; the limit itself is identity's to test (libs/identity).
    LOGIN_LIMIT_PER_EMAIL: '1000',
    LOGIN_LIMIT_PER_IP: '10000',
  };
  const { child, url } = await startApi(env);
  const email = `owner-${randomBytes(4).toString('hex')}@console.test`;
  const password = `Pw-${randomBytes(9).toString('base64url')}`;
  // The admin CLI shares the running embedded PostgreSQL (docs/identity.md, "Bootstrap").
  const created = execFileSync(
    process.execPath,
    [join(root, 'dist', 'apps', 'api', 'admin.js'), 'create-org', '--name', 'Console Test Org', '--owner-email', email, '--owner-password', password, '--json'],
    { cwd: root, env, encoding: 'utf8' },
  );
  const { organization_id: organizationId } = JSON.parse(created.trim().split('\n').pop()!) as { organization_id: string };
  // An AGENT of the same organization, for what each role is offered (settings.signed-in.spec.ts).
  const agentEmail = `agent-${randomBytes(4).toString('hex')}@console.test`;
  execFileSync(
    process.execPath,
    [
      join(root, 'dist', 'apps', 'api', 'admin.js'),
      'create-user',
      '--org',
      organizationId,
      '--email',
      agentEmail,
      '--password',
      password,
      '--role',
      'AGENT',
      '--json',
    ],
    { cwd: root, env, encoding: 'utf8' },
  );
  await subscribe(url, secret, organizationId);
  const signIn = async (who: string) => {
    const answer = await fetch(`${url}/auth/v1/token?grant_type=password`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: who, password }),
    });
    return ((await answer.json()) as { access_token: string }).access_token;
  };
  const token = await signIn(email);
  for (const member of [token, await signIn(agentEmail)]) {
    const skipped = await fetch(`${url}/functions/v1/onboarding/skip-channels`, { method: 'POST', headers: { authorization: `Bearer ${member}` } });
    if (!skipped.ok) throw new Error(`onboarding of a test member failed: ${skipped.status} ${await skipped.text()}`);
  }
  // Some records in two scripts for the list pages.
  for (const [table, row] of [
    ['companies', { name: 'شركة النيل', country: 'EG', industry: 'Retail' }],
    ['contacts', { first_name: 'ليلى', last_name: 'حداد', phones: ['+201001234567'], tags: ['vip'] }],
    ['contacts', { first_name: 'Maria', last_name: 'Souza', emails: ['maria@example.com'] }],
  ] as const) {
    const created = await fetch(`${url}/rest/v1/${table}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(row),
    });
    if (!created.ok) throw new Error(`creating ${table} failed: ${created.status} ${await created.text()}`);
  }
  Object.assign(process.env, {
    CONSOLE_BASE_URL: url,
    CONSOLE_DATA_DIR: env.DATA_DIR,
    CONSOLE_BILLING_SECRET: secret,
    CONSOLE_OWNER_EMAIL: email,
    CONSOLE_OWNER_PASSWORD: password,
    CONSOLE_META_APP_SECRET: metaSecret,
    CONSOLE_TLS_CERT: cert.certPath,
    CONSOLE_AGENT_EMAIL: agentEmail,
  });
  return async () => {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(dirname(cert.certPath), { recursive: true, force: true });
  };
}
