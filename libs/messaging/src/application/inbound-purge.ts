import type { OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import type { Database } from '@engage/platform';
import { PURGE_PROCESSED_INBOUND } from '../infrastructure/inbound.sql';

const SLICE = 5000;

// Processed inbound events are kept INBOUND_RETENTION_DAYS (what a provider sent, to look into a
// complaint or replay a fix), then deleted in slices, oldest first, so the table does not keep every
// event ever received. Events not yet processed are never deleted.
export class InboundPurge implements OnApplicationBootstrap, OnModuleDestroy {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;

  constructor(
    private readonly db: Database,
    private readonly options: { retentionDays: number; everyMs: number; enabled: boolean },
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.options.enabled) return;
    this.timer = setInterval(() => {
      this.running ??= this.purge()
        .catch(this.onError)
        .finally(() => (this.running = undefined));
    }, this.options.everyMs);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
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
