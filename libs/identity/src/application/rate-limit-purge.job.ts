import { Injectable } from '@nestjs/common';
import { defineJob, type JobHandler } from '@engage/platform';
import { RateLimiter } from './rate-limiter';

// Sign-in counters outlive their windows by a day at most: deleted every hour (in worker processes).
@Injectable()
export class RateLimitPurge implements JobHandler {
  constructor(private readonly limiter: RateLimiter) {}

  async handle(): Promise<void> {
    await this.limiter.purgeExpired();
  }
}

export const rateLimitPurgeJob = defineJob({ name: 'identity.rate-limit-purge', handler: RateLimitPurge });
