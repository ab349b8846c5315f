import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { PlatformModule } from '../runtime/platform.module';
import type { PlatformRuntime } from '../runtime/platform-runtime';
import { startTestRuntime } from '../testing';
import { enqueueJob } from './enqueue';
import { defineJob, defineSchedule, type JobHandler, nextTick, type ScheduleTick } from './job-definition';
import { eventually, secondReplica } from './job-test-helpers';
import { JobRunner } from './job-runner';
import { JobsModule, JobsWorker } from './jobs.module';

describe('job runner: schedules, stopping, processes', () => {
  let runtime: PlatformRuntime;

  beforeAll(async () => {
    runtime = await startTestRuntime({ role: 'worker' });
  });
  afterAll(() => runtime.close());

  const queued = (name: string) => runtime.db.systemQuery<{ n: number }>(`SELECT count(*)::int AS n FROM jobs WHERE name = $1`, [name]).then(([row]) => row.n);

  it('should fire a schedule once per tick with two runners', async () => {
    const ticks: string[] = [];
    const job = defineJob<ScheduleTick>({ name: 'test.every-second', handler: { handle: async ({ tick }) => void ticks.push(tick) } });
    const schedule = defineSchedule({ job, everyMs: 1000 });
    const replica = await secondReplica(runtime);
    const runners = [runtime.db, replica.db].map((db) => new JobRunner(db, { jobs: [], schedules: [schedule], concurrency: 2, pollMs: 20 }));
    try {
      await Promise.all(runners.map((r) => r.start()));
      await eventually(
        () => ticks.length,
        (n) => n >= 3,
      );
    } finally {
      await Promise.all(runners.map((r) => r.stop()));
      await replica.close();
    }
    expect(new Set(ticks).size).toBe(ticks.length);
    // Each tick is a whole second: the ticks of an interval are the same on every replica.
    expect(ticks.every((tick) => new Date(tick).getTime() % 1000 === 0)).toBe(true);
  });

  it('should compute cron ticks in UTC and interval ticks aligned on the epoch', () => {
    const after = new Date('2026-03-01T10:17:30.000Z');
    const job = defineJob({ name: 'test.clock', handler: { handle: async () => undefined } });
    expect(nextTick(defineSchedule({ job, cron: '0 * * * *' }), after).toISOString()).toBe('2026-03-01T11:00:00.000Z');
    expect(nextTick(defineSchedule({ job, everyMs: 600_000 }), after).toISOString()).toBe('2026-03-01T10:20:00.000Z');
    expect(() => defineSchedule({ job, cron: 'every day' })).toThrow(/cron expression "every day" is invalid/);
    expect(() => defineSchedule({ job, everyMs: 10 })).toThrow(/at most once a second/);
  });

  it('should wait for a running job when it stops', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started = false;
    let finished = false;
    const job = defineJob({
      name: 'test.slow',
      handler: {
        handle: async () => {
          started = true;
          await gate;
          finished = true;
        },
      },
    });
    await runtime.db.asSystem((tx) => enqueueJob(tx, job, {}));
    const runner = new JobRunner(runtime.db, { jobs: [job], schedules: [], concurrency: 2, pollMs: 20 });
    await runner.start();
    await eventually(() => started, Boolean);
    let stopped = false;
    const stopping = runner.stop().then(() => (stopped = true));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(finished).toBe(true);
    // It was recorded as done before stop() returned.
    expect(await queued('test.slow')).toBe(0);
  });

  describe('in the composed processes', () => {
    @Injectable()
    class Greeter {
      greeted: string[] = [];
    }
    // A handler class of a context, resolved through Nest with its dependencies.
    @Injectable()
    class GreetJob implements JobHandler<{ who: string }> {
      constructor(private readonly greeter: Greeter) {}
      async handle({ who }: { who: string }): Promise<void> {
        this.greeter.greeted.push(who);
      }
    }
    @Module({ providers: [Greeter, GreetJob], exports: [Greeter] })
    class GreetingModule {}
    const greet = defineJob({ name: 'test.greet', handler: GreetJob });

    const start = (processRuntime: PlatformRuntime) =>
      NestFactory.createApplicationContext(
        {
          module: class Root {},
          imports: [PlatformModule.forRoot(processRuntime), GreetingModule, JobsModule.forRoot(processRuntime, { jobs: [greet], schedules: [] })],
        },
        { logger: false },
      ).then(async (app) => (await app.init(), app));

    it('should run a job in a worker process and not in the api process', async () => {
      const api = await startTestRuntime({ role: 'api', env: { JOBS_POLL_MS: '20' } });
      const apiApp = await start(api);
      try {
        expect(() => apiApp.get(JobsWorker, { strict: false })).toThrow();
        await api.db.asSystem((tx) => enqueueJob(tx, greet, { who: 'ada' }));
        // The api left it; a worker on the same database takes it.
        const worker = await secondReplica(api);
        const workerRuntime: PlatformRuntime = { ...api, role: 'worker', db: worker.db };
        const workerApp = await start(workerRuntime);
        try {
          await eventually(
            () => workerApp.get(Greeter).greeted,
            (greeted) => greeted.length === 1,
          );
          expect(workerApp.get(Greeter).greeted).toEqual(['ada']);
          expect(apiApp.get(Greeter).greeted).toEqual([]);
        } finally {
          await workerApp.close();
          await worker.close();
        }
      } finally {
        await apiApp.close();
        await api.close();
      }
    });
  });
});
