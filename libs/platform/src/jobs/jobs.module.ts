import { type DynamicModule, Inject, Injectable, Module, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { Logger } from 'pino';
import type { PlatformRuntime } from '../runtime/platform-runtime';
import { PLATFORM_LOG, PLATFORM_RUNTIME } from '../runtime/tokens';
import type { JobDefinition, QueueDefinition, QueueWorker, ScheduleDefinition } from './job-definition';
import { JobRunner } from './job-runner';
import { DeadJobsPurgeJob, OutboxPurgeJob, platformSchedules } from './platform-jobs';
import { QueueLoop } from './queue-loop';

// What the composed contexts declare: their durable job kinds, schedules and hot queues.
export interface JobRegistrations {
  jobs: JobDefinition[];
  schedules: ScheduleDefinition[];
  queues?: QueueDefinition[];
}

const JOB_REGISTRATIONS = Symbol('JOB_REGISTRATIONS');

// Runs the job runner in worker processes (and the all-in-one process), never in the api alone.
@Injectable()
export class JobsWorker implements OnApplicationBootstrap, OnModuleDestroy {
  readonly runner: JobRunner;
  private readonly queues: { loop: QueueLoop; worker: QueueWorker }[] = [];

  constructor(
    @Inject(PLATFORM_RUNTIME) private readonly runtime: PlatformRuntime,
    @Inject(PLATFORM_LOG) private readonly log: Logger,
    @Inject(JOB_REGISTRATIONS) private readonly registrations: JobRegistrations,
    private readonly moduleRef: ModuleRef,
  ) {
    this.runner = new JobRunner(runtime.db, {
      jobs: registrations.jobs,
      schedules: [...platformSchedules, ...registrations.schedules],
      concurrency: runtime.config.JOBS_CONCURRENCY,
      pollMs: runtime.config.JOBS_POLL_MS,
      listen: true,
      resolve: (handler) => moduleRef.get(handler, { strict: false }),
      log: (message, fields) => log.warn(fields, message),
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.runner.start();
    for (const queue of this.registrations.queues ?? []) {
      const worker = this.moduleRef.get(queue.worker, { strict: false });
      const onError = (error: unknown) => this.log.warn({ err: error, queue: queue.name }, 'queue pass failed; retried after a backoff');
      this.queues.push({ worker, loop: new QueueLoop(() => worker.pass(), { pollMs: queue.pollMs(this.runtime.config), onError }) });
    }
    for (const { loop, worker } of this.queues) {
      worker.started?.(() => loop.wake());
      loop.start();
    }
  }

  // The first shutdown hook: work under way finishes while the services it uses still stand.
  async onModuleDestroy(): Promise<void> {
    const queues = this.queues.map(async ({ loop, worker }) => {
      await loop.stop();
      await worker.drained?.();
    });
    await Promise.all([this.runner.stop(), ...queues]);
  }
}

@Module({})
export class JobsModule {
  static forRoot(runtime: PlatformRuntime, registrations: JobRegistrations): DynamicModule {
    const runsJobs = runtime.role !== 'api';
    return {
      module: JobsModule,
      providers: runsJobs ? [{ provide: JOB_REGISTRATIONS, useValue: registrations }, OutboxPurgeJob, DeadJobsPurgeJob, JobsWorker] : [],
    };
  }
}
