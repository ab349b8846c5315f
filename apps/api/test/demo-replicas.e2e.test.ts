import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from 'pg';
import { createTestDatabase, dropTestDatabase, testAdminUrl } from '@engage/platform/testing';

// Api replicas in development mode (no NODE_ENV=production) against one DATABASE_URL, each with a
// DATA_DIR of its own that does not exist yet, sharing JWT_SECRET and ENCRYPTION_KEY as replicas do:
// the demo organization is made once per database, and every replica starts.
const root = resolve(__dirname, '..', '..', '..');
const main = join(root, 'dist', 'apps', 'api', 'main.js');

interface Started {
  child: ChildProcess;
  url: string;
  output: () => string;
}

function start(env: NodeJS.ProcessEnv): Promise<Started> {
  const child = spawn(process.execPath, [main], { cwd: root, env: { PATH: process.env.PATH, PORT: '0', LOG_LEVEL: 'warn', ...env } });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  return new Promise((resolveStart, rejectStart) => {
    const timer = setTimeout(() => rejectStart(new Error(`not listening after 60 s:\n${output}`)), 60_000);
    const poll = setInterval(async () => {
      const match = /listening on (http:\/\/[\d.]+:\d+)/.exec(output);
      if (!match || !/demo: .*\n/.test(output)) return;
      clearInterval(poll);
      try {
        const res = await fetch(`${match[1]}/readyz`);
        if (res.status !== 200) throw new Error(`readyz ${res.status}: ${await res.text()}`);
        clearTimeout(timer);
        child.removeAllListeners('exit');
        resolveStart({ child, url: match[1], output: () => output });
      } catch (error) {
        clearTimeout(timer);
        rejectStart(error);
      }
    }, 50);
    child.once('exit', (code) => {
      clearTimeout(timer);
      clearInterval(poll);
      rejectStart(new Error(`exited with ${code}:\n${output}`));
    });
  });
}

const stop = (child: ChildProcess) =>
  new Promise<number | null>((done) => {
    if (child.exitCode !== null) return done(child.exitCode);
    child.once('exit', (code) => done(code));
    child.kill('SIGTERM');
  });

const demoLine = (output: string) => /demo: +(.*)/.exec(output)?.[1] ?? '';

describe('api replicas in development mode against one database', () => {
  jest.setTimeout(180_000);
  let databaseUrl: string;
  let parent: string;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--if-stale'], { cwd: root, stdio: 'inherit' });
    databaseUrl = await createTestDatabase(testAdminUrl());
    parent = mkdtempSync(join(tmpdir(), 'engage-replicas-'));
  });
  afterAll(async () => {
    await Promise.all(children.map(stop));
    if (databaseUrl) await dropTestDatabase(testAdminUrl(), databaseUrl);
    if (parent) rmSync(parent, { recursive: true, force: true });
  });

  it('should make one demo organization when two start at once with new DATA_DIRs, and start a third', async () => {
    const shared = { DATABASE_URL: databaseUrl, JWT_SECRET: randomBytes(48).toString('base64url'), ENCRYPTION_KEY: randomBytes(32).toString('base64') };
    const dirs = ['a', 'b', 'c'].map((name) => join(parent, name, 'data'));
    const [a, b] = await Promise.all(dirs.slice(0, 2).map((DATA_DIR) => start({ ...shared, DATA_DIR })));
    children.push(a.child, b.child);

    const db = new Client({ connectionString: databaseUrl });
    await db.connect();
    const orgs = await db.query<{ id: string }>(`SELECT o.id FROM organizations o WHERE o.name = 'Demo Organization'`);
    const owners = await db.query(`SELECT 1 FROM users WHERE email = 'owner@demo.local'`);
    await db.end();
    expect([orgs.rows.length, owners.rows.length]).toEqual([1, 1]);

    // One made it and wrote its DATA_DIR (created on the way); the other says where that file is.
    const made = [a, b].findIndex((replica) => demoLine(replica.output()).startsWith('created'));
    expect(made).toBeGreaterThanOrEqual(0);
    const [creator, other] = made === 0 ? [a, b] : [b, a];
    const file = join(dirs[made], 'demo-credentials.json');
    expect(demoLine(creator.output())).toBe(`created; sign-in details in ${file}`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const demo = JSON.parse(readFileSync(file, 'utf8')) as { organization_id: string; owner_email: string; owner_password: string };
    expect(demo.organization_id).toBe(orgs.rows[0].id);
    expect(demoLine(other.output())).toBe(
      `the demo organization exists in this database; its credentials were written to ${file} by the process that created it`,
    );
    expect(existsSync(join(dirs[1 - made], 'demo-credentials.json'))).toBe(false);

    // Either replica signs the owner in with those credentials.
    for (const replica of [a, b]) {
      const login = await fetch(`${replica.url}/functions/v1/mobile-api/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: demo.owner_email, password: demo.owner_password }),
      });
      expect(login.status).toBe(200);
    }

    // A third start, later, with yet another new DATA_DIR; and the creator again, which finds its own file.
    const c = await start({ ...shared, DATA_DIR: dirs[2] });
    children.push(c.child);
    expect(demoLine(c.output())).toBe(`the demo organization exists in this database; its credentials were written to ${file} by the process that created it`);
    expect(await stop(creator.child)).toBe(0);
    const again = await start({ ...shared, DATA_DIR: dirs[made] });
    children.push(again.child);
    expect(demoLine(again.output())).toBe(`sign-in details in ${file}`);
    for (const output of [a, b, c, again].map((replica) => replica.output())) expect(output).not.toMatch(/already registered|failed to start/);
  });
});
