import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { loadConfig } from '../config/load-config';
import { Database } from '../database/database';
import { PlatformModule } from '../runtime/platform.module';
import type { PlatformRuntime } from '../runtime/platform-runtime';
import { makeOrganization, startTestRuntime } from '../testing';
import { enqueueJob } from './enqueue';
import { defineJob, defineQueue, type QueueWorker } from './job-definition';
import { JobRunner } from './job-runner';
import { JobsModule, JobsWorker } from './jobs.module';
import { DeadJobsPurgeJob } from './platform-jobs';
import { eventually, secondReplica } from './job-test-helpers';

describe('job runner wake-ups, dead-job retention and hot queues', () => {
  let runtime: PlatformRuntime;
  let replica: { db: Database; close(): Promise<void> };

  beforeAll(async () => {
    runtime = await startTestRuntime({ role: 'worker' });
    replica = await secondReplica(runtime);
    await runtime.db.systemQuery('CREATE TABLE test_queue_items (id serial PRIMARY KEY, done_by text)');
  });
  afterAll(async () => {
    await replica.close();
    await runtime.close();
  });

  it('should run at once a job another process enqueued, without waiting for its next poll', async () => {
    const ran: string[] = [];
    const job = defineJob<{ n: string }>({ name: 'test.woken', handler: { handle: async ({ n }) => void ran.push(n) } });
    // Polling once a minute: only the notification at commit can make it run within the wait below.
    const runner = new JobRunner(runtime.db, { jobs: [job], schedules: [], concurrency: 4, pollMs: 60_000, listen: true });
    await runner.start();
    try {
      await eventually(
        () => runtime.db.systemQuery(`SELECT 1 FROM pg_stat_activity WHERE query = 'LISTEN jobs_enqueued'`),
        (rows) => rows.length === 1,
      );
      const ctx = await makeOrganization(runtime);
      await replica.db.inTenant(ctx, (tx) => enqueueJob(tx, job, { n: 'first' }));
      await eventually(
        () => ran,
        (seen) => seen.length === 1,
        10_000,
      );
      await replica.db.asSystem((tx) => enqueueJob(tx, job, { n: 'second' }));
      await eventually(
        () => ran,
        (seen) => seen.length === 2,
        10_000,
      );
      expect(ran).toEqual(['first', 'second']);
    } finally {
      await runner.stop();
    }
    // stop() closes its LISTEN session.
    await eventually(
      () => runtime.db.systemQuery(`SELECT 1 FROM pg_stat_activity WHERE query = 'LISTEN jobs_enqueued'`),
      (rows) => rows.length === 0,
    );
  });

  it('should delete dead-lettered jobs past the retention and keep the others', async () => {
    await runtime.db.systemQuery(
      `INSERT INTO jobs (name, payload, state, attempts, max_attempts, dead_at, last_error) VALUES
         ('test.dead-old', '{}', 'dead', 5, 5, now() - interval '31 days', 'no'),
         ('test.dead-recent', '{}', 'dead', 5, 5, now() - interval '29 days', 'no'),
         ('test.queued-old', '{}', 'queued', 0, 5, NULL, NULL)`,
    );
    await new DeadJobsPurgeJob(runtime.db, { ...runtime.config, JOBS_DEAD_RETENTION_DAYS: 30 }).handle();
    const left = await runtime.db.systemQuery<{ name: string }>(
      `SELECT name FROM jobs WHERE name LIKE 'test.%-old' OR name LIKE 'test.%-recent' ORDER BY name`,
    );
    expect(left.map((row) => row.name)).toEqual(['test.dead-recent', 'test.queued-old']);
    expect(() => loadConfig({ JOBS_DEAD_RETENTION_DAYS: '0' })).toThrow(/JOBS_DEAD_RETENTION_DAYS/);
    expect(loadConfig({}).JOBS_DEAD_RETENTION_DAYS).toBe(30);
  });

  describe('a hot queue declared with defineQueue', () => {
    @Injectable()
    class ItemsWorker implements QueueWorker {
      wakeUp: (() => void) | undefined;
      failNext = 0;
      failures = 0;
      drainedCalls = 0;
      constructor(readonly db: Database) {}
      started(wake: () => void): void {
        this.wakeUp = wake;
      }
      async pass(): Promise<undefined> {
        if (this.failNext > 0) {
          this.failNext -= 1;
          this.failures += 1;
          throw new Error('the database said no');
        }
        await this.db.systemQuery(`UPDATE test_queue_items SET done_by = $1 WHERE done_by IS NULL`, [this.db === runtime.db ? 'worker' : 'replica']);
        return undefined;
      }
      async drained(): Promise<void> {
        this.drainedCalls += 1;
      }
    }
    @Module({ providers: [ItemsWorker] })
    class ItemsModule {}
    // Polls once a minute: the items below are taken because the worker's own wake-up says so.
    const itemsQueue = defineQueue({ name: 'test.items', worker: ItemsWorker, pollMs: () => 60_000 });
    const start = (processRuntime: PlatformRuntime) => {
      const jobs = JobsModule.forRoot(processRuntime, { jobs: [], schedules: [], queues: [itemsQueue] });
      const root = { module: class Root {}, imports: [PlatformModule.forRoot(processRuntime), ItemsModule, jobs] };
      return NestFactory.createApplicationContext(root, { logger: false }).then(async (app) => (await app.init(), app));
    };
    const items = () => runtime.db.systemQuery<{ id: number; done_by: string | null }>('SELECT id, done_by FROM test_queue_items ORDER BY id');

    it('should run its passes in a worker process when woken, back off after a failure, and drain on close', async () => {
      const app = await start(runtime);
      const worker = app.get(ItemsWorker);
      try {
        expect(worker.wakeUp).toBeDefined();
        await runtime.db.systemQuery('INSERT INTO test_queue_items DEFAULT VALUES');
        worker.wakeUp?.();
        await eventually(items, (rows) => rows.every((row) => row.done_by === 'worker'));

        worker.failNext = 2;
        await runtime.db.systemQuery('INSERT INTO test_queue_items DEFAULT VALUES');
        worker.wakeUp?.();
        // Two failed passes, then the backoff's next pass takes it.
        await eventually(items, (rows) => rows.length === 2 && rows.every((row) => row.done_by === 'worker'));
        expect(worker.failures).toBe(2);
      } finally {
        await app.close();
      }
      expect(worker.drainedCalls).toBe(1);
    });

    it('should not run it in an api process', async () => {
      const api: PlatformRuntime = { ...runtime, role: 'api', db: replica.db };
      const app = await start(api);
      try {
        expect(() => app.get(JobsWorker, { strict: false })).toThrow();
        expect(app.get(ItemsWorker).wakeUp).toBeUndefined();
      } finally {
        await app.close();
      }
    });

    it('should refuse a queue name without its context', () => {
      expect(() => defineQueue({ name: 'items', worker: ItemsWorker, pollMs: () => 1000 })).toThrow(/<context>\.<what>/);
    });
  });
});
