import { type DynamicModule, Inject, Injectable, Module, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { Logger } from 'pino';
import type { PlatformRuntime } from '../runtime/platform-runtime';
import { PLATFORM_LOG, PLATFORM_RUNTIME } from '../runtime/tokens';
import type { JobDefinition, ScheduleDefinition } from './job-definition';
import { JobRunner } from './job-runner';
import { OutboxPurgeJob, platformSchedules } from './platform-jobs';

// What the composed contexts declare: their durable job kinds and schedules.
export interface JobRegistrations {
  jobs: JobDefinition[];
  schedules: ScheduleDefinition[];
}

const JOB_REGISTRATIONS = Symbol('JOB_REGISTRATIONS');

// Runs the job runner in worker processes (and the all-in-one process), never in the api alone.
@Injectable()
export class JobsWorker implements OnApplicationBootstrap, OnModuleDestroy {
  readonly runner: JobRunner;

  constructor(
    @Inject(PLATFORM_RUNTIME) runtime: PlatformRuntime,
    @Inject(PLATFORM_LOG) log: Logger,
    @Inject(JOB_REGISTRATIONS) registrations: JobRegistrations,
    moduleRef: ModuleRef,
  ) {
    this.runner = new JobRunner(runtime.db, {
      jobs: registrations.jobs,
      schedules: [...platformSchedules, ...registrations.schedules],
      concurrency: runtime.config.JOBS_CONCURRENCY,
      pollMs: runtime.config.JOBS_POLL_MS,
      resolve: (handler) => moduleRef.get(handler, { strict: false }),
      log: (message, fields) => log.warn(fields, message),
    });
  }

  onApplicationBootstrap(): Promise<void> {
    return this.runner.start();
  }

  // The first shutdown hook: a job under way finishes while the services it uses still stand.
  onModuleDestroy(): Promise<void> {
    return this.runner.stop();
  }
}

@Module({})
export class JobsModule {
  static forRoot(runtime: PlatformRuntime, registrations: JobRegistrations): DynamicModule {
    const runsJobs = runtime.role !== 'api';
    return {
      module: JobsModule,
      providers: runsJobs ? [{ provide: JOB_REGISTRATIONS, useValue: registrations }, OutboxPurgeJob, JobsWorker] : [],
    };
  }
}
