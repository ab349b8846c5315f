import { type Database, defineJob, type JobHandler } from '@engage/platform';
import { PURGE_PROCESSED_INBOUND } from './inbound.sql';

const SLICE = 5000;

// Processed inbound events are kept INBOUND_RETENTION_DAYS (what a provider sent, to look into a
// complaint or replay a fix), then deleted in slices, oldest first, so the table does not keep every
// event ever received. Events not yet processed are never deleted. Hourly (messagingSchedules).
export class InboundPurge implements JobHandler {
  constructor(
    private readonly db: Database,
    private readonly options: { retentionDays: number },
  ) {}

  async handle(): Promise<void> {
    await this.purge();
  }

  // Returns how many events it deleted.
  async purge(): Promise<number> {
    let total = 0;
    for (;;) {
      const [{ n }] = await this.db.systemQuery<{ n: number }>(PURGE_PROCESSED_INBOUND, [this.options.retentionDays, SLICE]);
      total += n;
      if (n < SLICE) return total;
    }
  }
}

export const inboundPurgeJob = defineJob({ name: 'messaging.inbound-purge', handler: InboundPurge });
