import type { EventBus } from '@engage/shared-kernel';
import type { Database } from '../database/database';
import { NotificationListener } from '../database/notification-listener';
import { QueueLoop } from '../jobs/queue-loop';
import type { OutboxSignal } from './outbox-signal';
import { CLAIM_PENDING, MARK_FAILED, MARK_PUBLISHED, type OutboxRow, RELAY_LOCK, toDomainEvent } from './outbox.sql';

export interface RelayOptions {
  pollMs: number;
  batchSize?: number;
  log?: (message: string, error?: unknown) => void;
  // Test seam: runs after the bus accepted a batch and before the rows are marked sent.
  afterPublish?: () => Promise<void>;
}

// Publishes committed outbox rows to the bus and marks them sent. At-least-once: a crash between
// publishing and marking republishes the batch, and idempotent consumers drop the repeat. Its
// passes run on the platform's queue loop: at once on a commit of this process (the signal) or of
// another (NOTIFY outbox_written), again at once after a full batch, else every pollMs; after a
// failure it backs off.
export class OutboxRelay {
  private readonly loop: QueueLoop;
  private readonly listener: NotificationListener;
  private readonly kick = () => this.loop.wake();

  constructor(
    private readonly db: Database,
    private readonly bus: EventBus,
    private readonly signal: OutboxSignal,
    private readonly options: RelayOptions,
  ) {
    this.listener = new NotificationListener(db, 'outbox_written', this.kick);
    this.loop = new QueueLoop(() => this.pass(), {
      pollMs: options.pollMs,
      onError: (error) => this.options.log?.('outbox relay could not publish; events stay in the outbox and will be retried', error),
    });
  }

  async start(): Promise<void> {
    if (this.loop.running) return;
    this.signal.on('written', this.kick);
    await this.listener.ensure().catch((error) => this.options.log?.('outbox relay cannot LISTEN; polling until it can', error));
    this.loop.start();
  }

  // True while the LISTEN connection is up (notifications from other processes wake the relay).
  get listening(): boolean {
    return this.listener.listening;
  }

  async stop(): Promise<void> {
    this.signal.off('written', this.kick);
    await this.loop.stop();
    await this.listener.close();
  }

  // One batch; returns how many events were published (0 when another relay holds the turn).
  async drainOnce(): Promise<number> {
    const batchSize = this.options.batchSize ?? 200;
    let claimed: OutboxRow[] = [];
    try {
      return await this.db.asSystem(async (tx) => {
        const [turn] = await tx.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS locked', [RELAY_LOCK]);
        if (!turn.locked) return 0;
        claimed = await tx.query<OutboxRow>(CLAIM_PENDING, [batchSize], { prepare: true });
        if (claimed.length === 0) return 0;
        await this.bus.publish(claimed.map(toDomainEvent));
        await this.options.afterPublish?.();
        await tx.query(MARK_PUBLISHED, [claimed.map((row) => row.seq)], { prepare: true });
        return claimed.length;
      });
    } catch (error) {
      if (claimed.length > 0) {
        const reason = error instanceof Error ? error.message : String(error);
        await this.db.asSystem((tx) => tx.query(MARK_FAILED, [claimed.map((row) => row.seq), reason.slice(0, 1000)])).catch(() => undefined);
      }
      throw error;
    }
  }

  private async pass(): Promise<number | undefined> {
    // A LISTEN connection lost to a killed session or a database restart is opened again.
    if (!this.listener.listening) await this.listener.ensure().catch((error) => this.options.log?.('outbox relay cannot LISTEN; polling until it can', error));
    const published = await this.drainOnce();
    return published >= (this.options.batchSize ?? 200) ? 0 : undefined;
  }
}
