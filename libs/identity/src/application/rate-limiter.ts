import { setTimeout as sleep } from 'node:timers/promises';
import { DomainError } from '@engage/shared-kernel';
import type { Database } from '@engage/platform';
import { HIT_RATE_LIMIT, PURGE_RATE_LIMITS } from '../infrastructure/identity.sql';

export interface Limit {
  key: string;
  max: number;
  windowSeconds: number;
}

const BACKOFF_FIRST_MS = 100;
export const BACKOFF_MAX_MS = 2000;

// Delay for the attempt numbered `attempts` in a window allowing `free` undelayed ones: doubling from
// 100 ms, at most 2 s. Slows guessing without ever refusing the right password.
export function backoffMs(attempts: number, free: number): number {
  const excess = attempts - free;
  return excess <= 0 ? 0 : Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** Math.min(excess - 1, 16));
}

// Counters live in PostgreSQL so every api replica shares them.
export class RateLimiter {
  constructor(private readonly db: Database) {}

  // Counts one hit against each limit in turn; the first one exceeded answers 429 with Retry-After.
  async hit(limits: Limit[]): Promise<void> {
    for (const limit of limits) {
      const { count, windowStart } = await this.count(limit.key, limit.windowSeconds);
      if (count > limit.max) {
        const retryAfter = Math.max(1, Math.ceil(windowStart + limit.windowSeconds - Date.now() / 1000));
        throw new DomainError('rate_limited', 'over_request_rate_limit', `Too many attempts; try again in ${retryAfter} seconds`, { retry_after: retryAfter });
      }
    }
  }

  // Counts one hit and answers whether the limit is past, refusing nothing: for what a caller
  // skips quietly (an email), where a 429 would tell something.
  async exceeded(limit: Limit): Promise<boolean> {
    return (await this.count(limit.key, limit.windowSeconds)).count > limit.max;
  }

  // Counts one hit and waits the backoff its number calls for, instead of refusing.
  async slowDown(limit: Limit): Promise<number> {
    const delay = backoffMs((await this.count(limit.key, limit.windowSeconds)).count, limit.max);
    if (delay > 0) await sleep(delay);
    return delay;
  }

  // Deletes the counters of windows that ended more than a day ago; returns how many.
  async purgeExpired(): Promise<number> {
    const [row] = await this.db.systemQuery<{ deleted: number }>(PURGE_RATE_LIMITS);
    return row.deleted;
  }

  private async count(key: string, windowSeconds: number): Promise<{ count: number; windowStart: number }> {
    const [row] = await this.db.systemQuery<{ count: number; window_start: number }>(HIT_RATE_LIMIT, [key, windowSeconds], { prepare: true });
    return { count: row.count, windowStart: row.window_start };
  }
}
