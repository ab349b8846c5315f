// The real servers `npm test` needs besides PostgreSQL (which each Jest project starts itself):
// Dovecot for the email channel's tests, a Kafka broker for the Kafka tests and headless Chromium
// (Debian's chromium package) for the console's browser tests. Each is started
// (or installed from the distribution's packages, when running as root) where the machine can;
// where it cannot, its suites are skipped with one line naming what is missing and how to get it.
// Under CI (CI=true) nothing may be skipped: a peer that cannot be brought up fails the run.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const isRoot = process.getuid?.() === 0;

function commandExists(name) {
  return spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0;
}

function run(command, args, options = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', (error) => resolve({ status: 1, stdout, stderr: String(error) }));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

const dovecotPath = () => ['/usr/sbin/dovecot', '/usr/local/sbin/dovecot'].find((path) => existsSync(path));

// One apt-get at a time (dpkg has one lock), and the package lists updated once per run.
let aptUpdated = false;
async function aptInstall(pkg) {
  process.stdout.write(`test peers: installing ${pkg} from the distribution...\n`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const update = aptUpdated ? { status: 0 } : await run('apt-get', ['update', '-qq'], { env });
  aptUpdated ||= update.status === 0;
  const install = update.status === 0 ? await run('apt-get', ['install', '-y', '-qq', pkg], { env }) : update;
  return install.status === 0 ? undefined : `installing ${pkg} failed: ${(install.stderr || install.stdout).trim().split('\n').pop()}`;
}

// Dovecot: the email tests start their own servers from the binary; here it only has to exist.
async function ensureDovecot() {
  if (process.env.DOVECOT_BIN || dovecotPath()) return { ok: true };
  if (!isRoot) {
    return { ok: false, reason: 'Dovecot is not installed (Debian: sudo apt-get install -y dovecot-imapd, or run npm test as root)' };
  }
  const failed = await aptInstall('dovecot-imapd');
  if (failed || !dovecotPath()) return { ok: false, reason: failed ?? 'dovecot-imapd installed no dovecot binary' };
  return { ok: true };
}

const chromiumPath = () => [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path) => path && existsSync(path));

// Chromium: the console's browser tests (Playwright) launch this binary; no browser is downloaded.
async function ensureChromium() {
  if (chromiumPath()) return { ok: true, env: { CHROMIUM_PATH: chromiumPath() } };
  if (!isRoot) {
    return { ok: false, reason: 'Chromium is not installed (Debian: sudo apt-get install -y chromium, or run npm test as root; or set CHROMIUM_PATH)' };
  }
  const failed = await aptInstall('chromium');
  if (failed || !chromiumPath()) return { ok: false, reason: failed ?? 'the chromium package installed no /usr/bin/chromium' };
  return { ok: true, env: { CHROMIUM_PATH: chromiumPath() } };
}

// Kafka: a broker already named by KAFKA_BROKERS is used as it is; otherwise one is started from
// the Maven jars (scripts/kafka-local.sh) and stopped after the run, unless it was running before.
async function ensureKafka(root) {
  if (process.env.KAFKA_BROKERS) return { ok: true, env: {} };
  if (!commandExists('java') || !commandExists('mvn')) {
    return { ok: false, reason: 'Java 17+ and Maven are needed to run the Kafka broker (Debian: apt-get install -y openjdk-17-jre-headless maven)' };
  }
  const script = join(root, 'scripts', 'kafka-local.sh');
  const wasRunning = (await run(script, ['status'])).status === 0;
  process.stdout.write(wasRunning ? 'test peers: using the running Kafka broker\n' : 'test peers: starting a Kafka broker...\n');
  const started = await run(script, ['start']);
  const line = started.stdout.trim().split('\n').pop() ?? '';
  if (started.status !== 0 || !line.startsWith('KAFKA_BROKERS=')) {
    return { ok: false, reason: `the Kafka broker did not start: ${started.stderr.trim().split('\n').pop()}` };
  }
  return {
    ok: true,
    env: { KAFKA_BROKERS: line.slice('KAFKA_BROKERS='.length) },
    stop: wasRunning ? undefined : () => spawnSync(script, ['stop'], { stdio: 'ignore' }),
  };
}

// Returns the environment the test run gets and what to stop after it; exits under CI when a peer is missing.
export async function startTestPeers(root) {
  const fromApt = ensureDovecot().then(async (dovecot) => [dovecot, await ensureChromium()]);
  const [[dovecot, chromium], kafka] = await Promise.all([fromApt, ensureKafka(root)]);
  const env = { ...(kafka.env ?? {}), ...(chromium.env ?? {}) };
  const missing = [];
  if (!dovecot.ok) {
    env.ENGAGE_SKIP_EMAIL_TESTS = dovecot.reason;
    missing.push(`email channel tests SKIPPED: ${dovecot.reason}`);
  }
  if (!kafka.ok) missing.push(`Kafka tests SKIPPED: ${kafka.reason}`);
  if (!chromium.ok) {
    env.ENGAGE_SKIP_BROWSER_TESTS = chromium.reason;
    missing.push(`console browser tests SKIPPED: ${chromium.reason}`);
  }
  for (const line of missing) process.stdout.write(`test peers: ${line}\n`);
  if (missing.length > 0 && process.env.CI) {
    kafka.stop?.();
    process.stderr.write('test peers: CI must skip nothing; bring up the peers named above\n');
    process.exit(1);
  }
  return { env, stop: () => kafka.stop?.() };
}
