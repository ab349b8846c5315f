import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { binDir, type EmbeddedPostgres, runAs, startEmbeddedPostgres } from './embedded-postgres';
import { pidExists } from './postmaster-lock';

const state = (pid: number) => readFileSync(`/proc/${pid}/stat`, 'utf8').split(')').pop()!.trim().split(' ')[0];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

async function answers(instance: EmbeddedPostgres): Promise<number> {
  const client = new Client({ host: instance.host, port: instance.port, user: instance.user, database: instance.database });
  await client.connect();
  try {
    return (await client.query<{ n: number }>('SELECT 7 AS n')).rows[0].n;
  } finally {
    await client.end();
  }
}

// After kill -9 the next start must succeed every time: also when the killed postmaster is a zombie
// that its parent never reaps (PID 1 of a container without an init), and when the old server is
// still shutting down.
describe('embedded PostgreSQL restarts', () => {
  let dir: string;
  let dataDir: string;
  let sockets: string;
  const parents: ChildProcess[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'engage-restart-'));
    chmodSync(dir, 0o755); // PostgreSQL may run as another user
    dataDir = join(dir, 'pg');
    const first = await startEmbeddedPostgres({ dataDir, database: 'postgres' });
    sockets = first.host;
    await first.stop();
  });
  afterAll(() => {
    for (const parent of parents) if (parent.pid && pidExists(parent.pid)) parent.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  // A shell starts the postmaster in the background, then becomes `sleep`, which never waits for it.
  async function serverUnderParentThatDoesNotReap(): Promise<number> {
    const owner = runAs();
    const args = ['-D', dataDir, '-p', '5432', '-c', 'listen_addresses=', '-c', `unix_socket_directories=${sockets}`];
    const parent = spawn('sh', ['-c', '"$0" "$@" >/dev/null 2>&1 & echo $!; exec sleep 600', join(binDir(), 'postgres'), ...args], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C', TZ: 'UTC' },
      uid: owner?.uid,
      gid: owner?.gid,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    parents.push(parent);
    const pid = await new Promise<number>((resolve) => parent.stdout!.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim()))));
    await until(() => {
      try {
        return readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[7]?.trim() === 'ready';
      } catch {
        return false;
      }
    }, 'the server to be ready');
    return pid;
  }

  it('should start after kill -9 when the killed postmaster stays an unreaped zombie', async () => {
    for (let round = 0; round < 2; round++) {
      const pid = await serverUnderParentThatDoesNotReap();
      process.kill(pid, 'SIGKILL');
      await until(() => state(pid) === 'Z', 'the zombie');
      const started = await startEmbeddedPostgres({ dataDir, database: 'postgres' });
      try {
        expect(await answers(started)).toBe(7);
        expect(state(pid)).toBe('Z'); // still there: the start did not depend on it going away
      } finally {
        await started.stop();
      }
    }
  }, 90_000);

  it('should stop an orphan whose parent does not reap it, then start', async () => {
    const pid = await serverUnderParentThatDoesNotReap();
    const started = await startEmbeddedPostgres({ dataDir, database: 'postgres' });
    try {
      expect(await answers(started)).toBe(7);
      expect(state(pid)).toBe('Z');
    } finally {
      await started.stop();
    }
  }, 60_000);

  it('should wait for a server that is still shutting down instead of sharing it', async () => {
    const old = await startEmbeddedPostgres({ dataDir, database: 'postgres' });
    const [pid] = readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n').map(Number);
    // A smart shutdown waits for this session to end.
    const session = new Client({ host: old.host, port: old.port, user: old.user, database: 'postgres' });
    await session.connect();
    session.on('error', () => undefined);
    process.kill(pid, 'SIGTERM');
    await until(() => readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[7]?.trim() === 'stopping', 'the server to be stopping');
    const starting = startEmbeddedPostgres({ dataDir, database: 'postgres' });
    await sleep(300);
    await session.end();
    const started = await starting;
    try {
      expect(await answers(started)).toBe(7);
      expect(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]).not.toBe(String(pid));
    } finally {
      await started.stop();
    }
  }, 60_000);
});
