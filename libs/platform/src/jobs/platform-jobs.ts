import { Inject, Injectable } from '@nestjs/common';
import type { Config } from '../config/settings';
import { CONFIG } from '../runtime/tokens';
import { Database } from '../database/database';
import { PURGE_PUBLISHED } from '../events/outbox.sql';
import { defineJob, defineSchedule, type JobHandler } from './job-definition';
import { PURGE_DEAD_JOBS } from './jobs.sql';

const PUBLISHED_RETENTION_DAYS = 7;

// Published outbox rows are kept a week (to look into what was sent), then deleted.
@Injectable()
export class OutboxPurgeJob implements JobHandler {
  constructor(private readonly db: Database) {}

  async handle(): Promise<void> {
    await this.db.asSystem((tx) => tx.query(PURGE_PUBLISHED, [PUBLISHED_RETENTION_DAYS]));
  }
}

// Dead-lettered jobs are kept JOBS_DEAD_RETENTION_DAYS for an admin to replay, so the table does not grow forever.
@Injectable()
export class DeadJobsPurgeJob implements JobHandler {
  constructor(
    private readonly db: Database,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  async handle(): Promise<void> {
    await this.db.systemQuery(PURGE_DEAD_JOBS, [this.config.JOBS_DEAD_RETENTION_DAYS]);
  }
}

export const platformSchedules = [
  defineSchedule({ job: defineJob({ name: 'platform.outbox-purge', handler: OutboxPurgeJob }), cron: '0 * * * *' }),
  defineSchedule({ job: defineJob({ name: 'platform.dead-jobs-purge', handler: DeadJobsPurgeJob }), cron: '47 * * * *' }),
];
