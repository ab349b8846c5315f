import type { Database } from '@engage/platform';
import { PURGE_PROCESSED_INBOUND } from '../infrastructure/inbound.sql';
import { PeriodicDuty } from './periodic';

const SLICE = 5000;

// Processed inbound events are kept INBOUND_RETENTION_DAYS (what a provider sent, to look into a
// complaint or replay a fix), then deleted in slices, oldest first, so the table does not keep every
// event ever received. Events not yet processed are never deleted.
export class InboundPurge extends PeriodicDuty {
  constructor(
    private readonly db: Database,
    private readonly options: { retentionDays: number; everyMs: number; enabled: boolean },
    onError: (error: unknown) => void = () => undefined,
  ) {
    super(options, onError);
  }

  protected runOnce(): Promise<number> {
    return this.purge();
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
