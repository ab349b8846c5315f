import { Injectable } from '@nestjs/common';
import { Database } from '../database/database';
import { PURGE_PUBLISHED } from '../events/outbox.sql';
import { defineJob, defineSchedule, type JobHandler } from './job-definition';

const PUBLISHED_RETENTION_DAYS = 7;

// Published outbox rows are kept a week (to look into what was sent), then deleted.
@Injectable()
export class OutboxPurgeJob implements JobHandler {
  constructor(private readonly db: Database) {}

  async handle(): Promise<void> {
    await this.db.asSystem((tx) => tx.query(PURGE_PUBLISHED, [PUBLISHED_RETENTION_DAYS]));
  }
}

export const platformSchedules = [defineSchedule({ job: defineJob({ name: 'platform.outbox-purge', handler: OutboxPurgeJob }), cron: '0 * * * *' })];
