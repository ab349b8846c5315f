import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from 'pg';

// The built service as users run it: `node dist/apps/api/main.js --with-worker` (what npm start runs).
const root = resolve(__dirname, '..', '..', '..');
const main = join(root, 'dist', 'apps', 'api', 'main.js');

interface Started {
  child: ChildProcess;
  url: string;
  readyMs: number;
  output: () => string;
}

function start(dataDir: string, env: NodeJS.ProcessEnv = {}, shellPrefix = ''): Promise<Started> {
  const began = Date.now();
  const baseEnv = { PATH: process.env.PATH, PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...env };
  const child = shellPrefix
    ? spawn('sh', ['-c', `${shellPrefix}; exec "${process.execPath}" "${main}" --with-worker`], { env: baseEnv, cwd: root })
    : spawn(process.execPath, [main, '--with-worker'], { env: baseEnv, cwd: root });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  return new Promise((resolveStart, rejectStart) => {
    const timer = setTimeout(() => rejectStart(new Error(`not listening after 30 s:\n${output}`)), 30_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      clearInterval(poll);
      rejectStart(new Error(`exited with ${code}:\n${output}`));
    });
    const poll = setInterval(async () => {
      const match = /listening on (http:\/\/[\d.]+:\d+)/.exec(output);
      if (!match) return;
      clearInterval(poll);
      try {
        const res = await fetch(`${match[1]}/readyz`);
        if (res.status !== 200) throw new Error(`readyz ${res.status}: ${await res.text()}`);
        clearTimeout(timer);
        child.removeAllListeners('exit');
        resolveStart({ child, url: match[1], readyMs: Date.now() - began, output: () => output });
      } catch (error) {
        clearTimeout(timer);
        rejectStart(error);
      }
    }, 50);
  });
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((r) => (child.exitCode !== null ? r(child.exitCode) : child.once('exit', (code) => r(code))));

// postgres processes whose command line names this data directory.
function postgresOf(dataDir: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        return cmd.includes('postgres') && cmd.includes(join(dataDir, 'pg'));
      } catch {
        return false;
      }
    })
    .map(Number);
}

function freshDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'engage-proc-'));
  chmodSync(dir, 0o755);
  return join(dir, 'data');
}

const report = (line: string) => process.stdout.write(`process.e2e: ${line}\n`);

describe('the service as a process', () => {
  jest.setTimeout(120_000);
  const dirs: string[] = [];

  beforeAll(() => {
    execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--if-stale'], { cwd: root, stdio: 'inherit' });
  });
  afterAll(() => {
    for (const dir of dirs) {
      for (const pid of postgresOf(dir)) process.kill(pid, 'SIGKILL');
      rmSync(resolve(dir, '..'), { recursive: true, force: true });
    }
  });

  it('should be ready within 30 s on a first start and 8 s on the next, and stop its database on SIGTERM', async () => {
    const dataDir = freshDataDir();
    dirs.push(dataDir);
    const first = await start(dataDir);
    expect(first.readyMs).toBeLessThan(30_000);
    expect(first.output()).toContain('embedded PostgreSQL');
    expect(first.output()).toMatch(/anon key: eyJ/);
    // The demo organization's OWNER can sign in with what the first start wrote.
    const demo = JSON.parse(readFileSync(join(dataDir, 'demo-credentials.json'), 'utf8'));
    const login = await fetch(`${first.url}/functions/v1/mobile-api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: demo.owner_email, password: demo.owner_password }),
    });
    expect(login.status).toBe(200);
    expect(((await login.json()) as { user: { organization_id: string } }).user.organization_id).toBe(demo.organization_id);
    // Its API key registers a call recording, uploaded under the demo suite id to the local stand-in.
    const form = new FormData();
    form.append('file', new Blob([Buffer.from('OggS\x00\x02 demo recording', 'latin1')]), 'demo.ogg');
    const upload = await fetch(`${first.url}/functions/v1/mobile-api/call-recording`, { method: 'POST', headers: { 'x-api-key': demo.api_key }, body: form });
    expect(upload.status).toBe(200);
    const { call_record_id: callId } = (await upload.json()) as { call_record_id: string };
    const month = new Date().toISOString().slice(0, 7).replace('-', '/');
    expect(existsSync(join(dataDir, 'cdn', 'demo', month, `${callId}.ogg`))).toBe(true);
    first.child.kill('SIGTERM');
    expect(await exited(first.child)).toBe(0);
    expect(postgresOf(dataDir)).toEqual([]);
    expect(existsSync(join(dataDir, 'pg', 'postmaster.pid'))).toBe(false);

    const second = await start(dataDir);
    expect(second.readyMs).toBeLessThan(8_000);
    report(`first start ready in ${first.readyMs} ms, second in ${second.readyMs} ms`);
    second.child.kill('SIGINT');
    expect(await exited(second.child)).toBe(0);
  });

  it('should start again after kill -9 left its PostgreSQL running', async () => {
    const dataDir = freshDataDir();
    dirs.push(dataDir);
    const first = await start(dataDir);
    first.child.kill('SIGKILL');
    await exited(first.child);
    expect(postgresOf(dataDir).length).toBeGreaterThan(0); // the orphan
    const again = await start(dataDir);
    report(`restart after kill -9 ready in ${again.readyMs} ms`);
    expect((await fetch(`${again.url}/healthz`)).status).toBe(200);
    again.child.kill('SIGTERM');
    expect(await exited(again.child)).toBe(0);
    expect(postgresOf(dataDir)).toEqual([]);
  });

  it('should start under umask 077 with an empty locale environment, with a UTF8 database', async () => {
    const dataDir = freshDataDir();
    dirs.push(dataDir);
    const started = await start(dataDir, {}, 'umask 077; unset LANG LC_ALL LC_CTYPE LANGUAGE');
    const client = new Client({ host: join(dataDir, 'pg'), port: 5432, user: 'postgres', database: 'engage' });
    await client.connect();
    const { rows } = await client.query(`SELECT current_setting('server_encoding') AS encoding, upper('straße ÄÖ') AS upper`);
    await client.end();
    expect(rows[0]).toEqual({ encoding: 'UTF8', upper: 'STRAßE ÄÖ' });
    started.child.kill('SIGTERM');
    expect(await exited(started.child)).toBe(0);
  });

  it('should exit 1 with one line naming a bad setting', async () => {
    const child = spawn(process.execPath, [main], { env: { PATH: process.env.PATH, PORT: 'eighty' }, cwd: root });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    expect(await exited(child)).toBe(1);
    expect(stderr.trim().split('\n')).toEqual(['invalid setting PORT: must be a whole number, got "eighty"']);
  });
});
