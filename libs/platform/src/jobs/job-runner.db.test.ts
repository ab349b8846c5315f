import { Database } from '../database/database';
import type { PlatformRuntime } from '../runtime/platform-runtime';
import { createPool } from '../database/data-source';
import { DatabaseProxy, makeOrganization, startTestRuntime } from '../testing';
import { enqueueJob } from './enqueue';
import { deadJobs, jobCounts, replayDeadJob } from './job-admin';
import { defineJob, type JobContext, retryDelayMs } from './job-definition';
import { JobRunner } from './job-runner';
import { COMPLETE_AND_CLAIM, REQUEUE_LAPSED, RETRY_JOB } from './jobs.sql';
import { eventually, secondReplica } from './job-test-helpers';

describe('job runner', () => {
  let runtime: PlatformRuntime;
  let replica: { db: Database; close(): Promise<void> };
  const runners: JobRunner[] = [];
  const runner = (db: Database, options: Partial<ConstructorParameters<typeof JobRunner>[1]>) => {
    const created = new JobRunner(db, { jobs: [], schedules: [], concurrency: 4, pollMs: 50, ...options });
    runners.push(created);
    return created;
  };
  const jobRows = (name: string) =>
    runtime.db.systemQuery<{ id: string; state: string; attempts: number; organization_id: string | null; last_error: string | null; due_in_ms: number }>(
      `SELECT id::text, state, attempts, organization_id, last_error, (extract(epoch FROM run_at - now()) * 1000)::int AS due_in_ms FROM jobs WHERE name = $1`,
      [name],
    );

  beforeAll(async () => {
    runtime = await startTestRuntime({ role: 'worker' });
    replica = await secondReplica(runtime);
  });
  afterEach(async () => {
    await Promise.all(runners.splice(0).map((r) => r.stop()));
  });
  afterAll(async () => {
    await replica.close();
    await runtime.close();
  });

  it('should keep a job only when the transaction that enqueued it commits', async () => {
    const job = defineJob<{ n: number }>({ name: 'test.enqueue', handler: { handle: async () => undefined } });
    const ctx = await makeOrganization(runtime);
    await expect(
      runtime.db.inTenant(ctx, async (tx) => {
        await enqueueJob(tx, job, { n: 1 });
        throw new Error('the state change failed');
      }),
    ).rejects.toThrow('the state change failed');
    expect(await jobRows('test.enqueue')).toEqual([]);

    await runtime.db.inTenant(ctx, (tx) => enqueueJob(tx, job, { n: 2 }));
    const rows = await jobRows('test.enqueue');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ state: 'queued', attempts: 0, organization_id: ctx.organizationId });
  });

  it("should refuse a tenant transaction's job for another organization and any reading of jobs", async () => {
    const job = defineJob({ name: 'test.foreign', handler: { handle: async () => undefined } });
    const [mine, other] = [await makeOrganization(runtime), await makeOrganization(runtime)];
    await expect(runtime.db.inTenant(mine, (tx) => enqueueJob(tx, job, {}, { organizationId: other.organizationId }))).rejects.toThrow(/row-level security/);
    expect(await jobRows('test.foreign')).toEqual([]);
    // Tenants add jobs but cannot read them (payloads of other organizations included).
    await runtime.db.inTenant(mine, (tx) => enqueueJob(tx, job, {}));
    await expect(runtime.db.inTenant(mine, (tx) => tx.query('SELECT id FROM jobs'))).rejects.toThrow(/permission denied/);
  });

  it('should run each of many jobs exactly once with two runners on two pools', async () => {
    const seen: string[] = [];
    const job = defineJob<{ n: number }>({ name: 'test.many', handler: { handle: async ({ n }) => void seen.push(String(n)) } });
    const count = 300;
    await runtime.db.asSystem(async (tx) => {
      for (let n = 0; n < count; n++) await enqueueJob(tx, job, { n });
    });
    runner(runtime.db, { jobs: [job] });
    runner(replica.db, { jobs: [job] });
    await Promise.all(runners.map((r) => r.start()));
    await eventually(
      () => jobRows('test.many'),
      (rows) => rows.length === 0,
    );
    await Promise.all(runners.map((r) => r.stop()));
    expect(seen).toHaveLength(count);
    expect(new Set(seen).size).toBe(count);
  });

  it('should retry a failing job with backoff, dead-letter it, and run it again when replayed', async () => {
    let fail = true;
    const attempts: JobContext[] = [];
    const job = defineJob({
      name: 'test.failing',
      retry: { maxAttempts: 3, baseMs: 1000, maxMs: 1500 },
      handler: {
        handle: async (_payload, context) => {
          attempts.push(context);
          if (fail) throw new Error(`provider said no (attempt ${context.attempt})`);
        },
      },
    });
    const ctx = await makeOrganization(runtime);
    await runtime.db.inTenant(ctx, (tx) => enqueueJob(tx, job, {}));
    const [{ id }] = await jobRows('test.failing');
    await runner(runtime.db, { jobs: [job] }).start();

    // After the first failure the job waits its backoff before it is due again.
    const [afterFirst] = await eventually(
      () => jobRows('test.failing'),
      (rows) => rows[0]?.attempts === 1 && rows[0].state === 'queued',
    );
    expect(afterFirst.due_in_ms).toBeGreaterThan(0);
    expect(afterFirst.last_error).toBe('provider said no (attempt 1)');

    await eventually(
      () => jobRows('test.failing'),
      (rows) => rows[0]?.state === 'dead',
    );
    expect(attempts.map((a) => a.attempt)).toEqual([1, 2, 3]);
    expect(attempts.every((a) => a.id === id && a.organizationId === ctx.organizationId)).toBe(true);
    const [dead] = await deadJobs(runtime.db, { limit: 10, name: 'test.failing' });
    expect(dead).toMatchObject({ id, name: 'test.failing', attempts: 3, organization_id: ctx.organizationId, last_error: 'provider said no (attempt 3)' });
    expect(await jobCounts(runtime.db)).toContainEqual(expect.objectContaining({ name: 'test.failing', state: 'dead', count: 1 }));

    fail = false;
    expect(await replayDeadJob(runtime.db, id)).toEqual({ id, name: 'test.failing' });
    expect(await replayDeadJob(runtime.db, id)).toBeUndefined();
    expect(await replayDeadJob(runtime.db, 'not-an-id')).toBeUndefined();
    await eventually(
      () => jobRows('test.failing'),
      (rows) => rows.length === 0,
    );
    expect(attempts.map((a) => a.attempt)).toEqual([1, 2, 3, 1]);
  });

  it('should run again a job whose claim lapsed because its worker died', async () => {
    const ran: JobContext[] = [];
    const job = defineJob({ name: 'test.lapsed', leaseMs: 200, handler: { handle: async (_payload, context) => void ran.push(context) } });
    await runtime.db.asSystem((tx) => enqueueJob(tx, job, {}));
    // A worker claims it and dies before finishing.
    const claimed = await runtime.db.systemQuery(COMPLETE_AND_CLAIM, ['a-worker-that-died', [job.name], 1, [job.leaseMs], []]);
    expect(claimed).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, job.leaseMs + 50));
    await runner(replica.db, { jobs: [job] }).start();
    await eventually(
      () => jobRows('test.lapsed'),
      (rows) => rows.length === 0,
    );
    expect(ran.map((r) => r.attempt)).toEqual([2]);
  });

  it('should dead-letter a job whose claim lapsed on its last attempt', async () => {
    const job = defineJob({ name: 'test.crashing', leaseMs: 200, retry: { maxAttempts: 1 }, handler: { handle: async () => undefined } });
    await runtime.db.asSystem((tx) => enqueueJob(tx, job, {}));
    await runtime.db.systemQuery(COMPLETE_AND_CLAIM, ['a-worker-that-died', [job.name], 1, [job.leaseMs], []]);
    await new Promise((resolve) => setTimeout(resolve, job.leaseMs + 50));
    await runner(runtime.db, { jobs: [job] }).start();
    const [dead] = await eventually(
      () => jobRows('test.crashing'),
      (rows) => rows[0]?.state === 'dead',
    );
    expect(dead).toMatchObject({ attempts: 1, last_error: 'claim lapsed: the worker stopped while running it' });
  });

  it('should record a failure once the database answers again and retry the job when it would have, never twice at once', async () => {
    // This runner reaches the database through a relay the handler cuts before it fails.
    const proxy = new DatabaseProxy(runtime.config.DATABASE_URL!);
    await proxy.start();
    const cut = new Database({ pool: createPool({ url: proxy.urlOf(runtime.config.DATABASE_URL!) }, 2) });
    const runs: { attempt: number; at: number }[] = [];
    let running = 0;
    let mostAtOnce = 0;
    let failedAt = 0;
    let backAt = 0;
    const job = defineJob({
      name: 'test.outage',
      retry: { maxAttempts: 3, baseMs: 3000 },
      handler: {
        handle: async (_payload, context) => {
          running += 1;
          mostAtOnce = Math.max(mostAtOnce, running);
          runs.push({ attempt: context.attempt, at: Date.now() });
          try {
            if (context.attempt > 1) return;
            await proxy.stop();
            setTimeout(() => {
              backAt = Date.now();
              void proxy.start();
            }, 1000);
            failedAt = Date.now();
            throw new Error('the provider is down too');
          } finally {
            running -= 1;
          }
        },
      },
    });
    try {
      await runtime.db.asSystem((tx) => enqueueJob(tx, job, {}));
      await runner(cut, { jobs: [job] }).start();
      // Before, the failure was dropped and the job waited for its 15-minute lease.
      await eventually(
        () => jobRows('test.outage'),
        (rows) => rows.length === 0,
      );
      expect(runs.map((run) => run.attempt)).toEqual([1, 2]);
      expect(backAt).toBeGreaterThan(0);
      // Due 3 s after the failure, as without the outage (the poll and recording add a little).
      expect(runs[1].at - failedAt).toBeGreaterThanOrEqual(2900);
      expect(runs[1].at - failedAt).toBeLessThan(6000);
      expect(mostAtOnce).toBe(1);
    } finally {
      await Promise.all(runners.splice(0).map((r) => r.stop()));
      await cut.close();
      await proxy.stop();
    }
  }, 30_000);

  it('should not requeue a job claimed again since with the late record of an earlier attempt', async () => {
    const job = defineJob({ name: 'test.late-record', leaseMs: 200, handler: { handle: async () => undefined } });
    await runtime.db.asSystem((tx) => enqueueJob(tx, job, {}));
    const [first] = await runtime.db.systemQuery<{ id: string }>(COMPLETE_AND_CLAIM, ['one-worker', [job.name], 1, [job.leaseMs], []]);
    await new Promise((resolve) => setTimeout(resolve, job.leaseMs + 50));
    await runtime.db.systemQuery(REQUEUE_LAPSED);
    // The same worker claims it again (attempt 2) before the failure of attempt 1 is recorded.
    expect(await runtime.db.systemQuery(COMPLETE_AND_CLAIM, ['one-worker', [job.name], 1, [60_000], []])).toHaveLength(1);
    expect(await runtime.db.systemQuery(RETRY_JOB, [first.id, 'one-worker', 0, 'attempt 1 failed', 1])).toEqual([]);
    expect(await jobRows('test.late-record')).toEqual([
      expect.objectContaining({ state: 'running', attempts: 2, last_error: 'claim lapsed: the worker stopped while running it' }),
    ]);
  });

  it('should double the wait after each failure up to the policy maximum', () => {
    const retry = { maxAttempts: 10, baseMs: 1000, maxMs: 5000 };
    expect([1, 2, 3, 4, 5].map((n) => retryDelayMs(retry, n))).toEqual([1000, 2000, 4000, 5000, 5000]);
  });

  it('should refuse a job name without its context and a bad retry policy', () => {
    expect(() => defineJob({ name: 'nocontext', handler: { handle: async () => undefined } })).toThrow(/<context>\.<what>/);
    expect(() => defineJob({ name: 'test.bad', retry: { maxAttempts: 0 }, handler: { handle: async () => undefined } })).toThrow(/retry policy/);
  });
});
