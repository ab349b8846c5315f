import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { getPriority, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createEvent } from '@engage/shared-kernel';
import type { PlatformRuntime } from '@engage/platform';
import { makeOrganization, startTestRuntime } from '@engage/platform/testing';

// npm run start:api and npm run start:worker as separate processes on one DATABASE_URL.
const root = resolve(__dirname, '..', '..', '..');

function startProcess(entry: string, env: NodeJS.ProcessEnv, readyText: RegExp): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, [join(root, 'dist', 'apps', entry)], { env: { PATH: process.env.PATH, ...env }, cwd: root });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  return new Promise((resolveStart, rejectStart) => {
    const timer = setTimeout(() => rejectStart(new Error(`${entry} not ready after 30 s:\n${output}`)), 30_000);
    child.once('exit', (code) => rejectStart(new Error(`${entry} exited with ${code}:\n${output}`)));
    const poll = setInterval(() => {
      if (!readyText.test(output)) return;
      clearInterval(poll);
      clearTimeout(timer);
      child.removeAllListeners('exit');
      resolveStart({ child, output: () => output });
    }, 50);
  });
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((r) => (child.exitCode !== null ? r(child.exitCode) : child.once('exit', (code) => r(code))));

describe('api and worker as separate processes', () => {
  jest.setTimeout(90_000);
  let runtime: PlatformRuntime;

  beforeAll(async () => {
    execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--if-stale'], { cwd: root, stdio: 'inherit' });
    // The test's own runtime stands in for the api writing events; it never relays (role api).
    runtime = await startTestRuntime({ role: 'api' });
  });
  const dataDir = mkdtempSync(join(tmpdir(), 'engage-worker-'));
  afterAll(async () => {
    await runtime.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('should let the worker process relay events that another process committed', async () => {
    const databaseUrl = runtime.config.DATABASE_URL!;
    const env = { DATABASE_URL: databaseUrl, DATA_DIR: dataDir, LOG_LEVEL: 'info', KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? '', OUTBOX_POLL_MS: '60000' };
    const api = await startProcess(join('api', 'main.js'), { ...env, PORT: '0' }, /listening on http/);
    const worker = await startProcess(join('worker', 'main.js'), { ...env, WORKER_NICE: '5' }, /engage worker started/);
    try {
      // WORKER_NICE: the worker lowered its own CPU priority; the api kept the default.
      // Every thread of it, V8's garbage-collection helpers included (Linux keeps a nice value per thread).
      if (getPriority() <= 5 && existsSync(`/proc/${worker.child.pid}/task`)) {
        const threads = readdirSync(`/proc/${worker.child.pid}/task`).map((id) => getPriority(Number(id)));
        expect(threads.length).toBeGreaterThan(1);
        expect(new Set(threads)).toEqual(new Set([5]));
      }
      expect(getPriority(api.child.pid)).toBe(getPriority());
      const url = /listening on (http:\/\/[\d.]+:\d+)/.exec(api.output())![1];
      const ready = (await (await fetch(`${url}/readyz`)).json()) as { checks: Record<string, string> };
      expect(ready.checks).toEqual({ database: 'ok', migrations: 'ok' }); // an api-only process has no bus

      const org = await makeOrganization(runtime);
      const event = createEvent({ type: 'probe.happened', source: 'probe', organizationId: org.organizationId, aggregateId: 'p', payload: {} });
      await runtime.db.inTenant(org, (tx) => tx.emit([event]));
      // The poll interval is a minute: only the commit notification can wake the worker this fast.
      const deadline = Date.now() + 10_000;
      let published: Date | null = null;
      while (!published && Date.now() < deadline) {
        const [row] = await runtime.db.asSystem((tx) => tx.query<{ published_at: Date | null }>('SELECT published_at FROM outbox WHERE id = $1', [event.id]));
        published = row.published_at;
        if (!published) await new Promise((r) => setTimeout(r, 50));
      }
      expect(published).not.toBeNull();
    } finally {
      api.child.kill('SIGTERM');
      worker.child.kill('SIGTERM');
      expect(await exited(api.child)).toBe(0);
      expect(await exited(worker.child)).toBe(0);
    }
  });
});
