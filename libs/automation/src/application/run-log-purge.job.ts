import { Inject, Injectable } from '@nestjs/common';
import { Database, type JobHandler } from '@engage/platform';
import { CLOCK, type Clock } from '@engage/shared-kernel';
import { PURGE_RUNS } from '../infrastructure/automation.sql';

// Runs are kept 30 days (issue 36); older ones go, hourly, in batches so that no one statement
// holds a long lock on a large log.
export const RUN_RETENTION_DAYS = 30;
const BATCH = 10_000;

@Injectable()
export class RunLogPurge implements JobHandler {
  constructor(
    private readonly db: Database,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  // The number of runs deleted, across organizations.
  async handle(): Promise<number> {
    const cutoff = new Date(this.clock.now().getTime() - RUN_RETENTION_DAYS * 86_400_000);
    let total = 0;
    for (;;) {
      const deleted = await this.db.asSystem((tx) => tx.execute(PURGE_RUNS, [cutoff, BATCH]));
      total += deleted;
      if (deleted < BATCH) return total;
    }
  }
}
