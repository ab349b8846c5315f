import { DomainError } from '@engage/shared-kernel';
import type { Database } from '@engage/platform';
import { HIT_RATE_LIMIT } from '../infrastructure/identity.sql';

export interface Limit {
  key: string;
  max: number;
  windowSeconds: number;
}

// Counters live in PostgreSQL so every api replica shares them.
export class RateLimiter {
  constructor(private readonly db: Database) {}

  async hit(limits: Limit[]): Promise<void> {
    for (const limit of limits) {
      const [row] = await this.db.systemQuery<{ count: number; window_start: number }>(HIT_RATE_LIMIT, [limit.key, limit.windowSeconds]);
      if (row.count > limit.max) {
        const retryAfter = Math.max(1, Math.ceil(row.window_start + limit.windowSeconds - Date.now() / 1000));
        throw new DomainError('rate_limited', 'over_request_rate_limit', `Too many login attempts; try again in ${retryAfter} seconds`, { retry_after: retryAfter });
      }
    }
  }
}
