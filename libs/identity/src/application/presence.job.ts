import { Injectable } from '@nestjs/common';
import { defineJob, defineSchedule, type JobHandler } from '@engage/platform';
import { PresenceService } from './presence.service';
import { rateLimitPurgeJob } from './rate-limit-purge.job';

// Members whose heartbeat stopped are shown offline again, every minute (in worker processes).
@Injectable()
export class PresenceJob implements JobHandler {
  constructor(private readonly presence: PresenceService) {}

  async handle(): Promise<void> {
    await this.presence.expireStale();
  }
}

export const identitySchedules = [
  defineSchedule({ job: defineJob({ name: 'identity.presence-expire', handler: PresenceJob }), everyMs: 60_000 }),
  defineSchedule({ job: rateLimitPurgeJob, cron: '41 * * * *' }),
];
