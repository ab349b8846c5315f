import type { EventBus } from '@engage/shared-kernel';
import type { Database, DedicatedSession } from '../database/database';
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
// publishing and marking republishes the batch, and idempotent consumers drop the repeat.
export class OutboxRelay {
  private stopped = true;
  private wake: (() => void) | undefined;
  private loopDone: Promise<void> | undefined;
  private listener: DedicatedSession | undefined;
  private failures = 0;
  // Set by a kick that arrives while a batch is being drained, so the loop goes round again at once
  // instead of sleeping through it (a commit during a drain, a lost LISTEN connection).
  private kicked = false;
  private readonly kick = () => {
    this.kicked = true;
    this.wake?.();
  };

  constructor(
    private readonly db: Database,
    private readonly bus: EventBus,
    private readonly signal: OutboxSignal,
    private readonly options: RelayOptions,
  ) {}

  async start(): Promise<void> {
    if (!this.stopped) return;
    this.stopped = false;
    this.signal.on('written', this.kick);
    await this.listen();
    this.loopDone = this.loop();
  }

  // True while the LISTEN connection is up (notifications from other processes wake the relay).
  get listening(): boolean {
    return this.listener !== undefined;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.signal.off('written', this.kick);
    this.kick();
    await this.loopDone;
    if (this.listener) {
      const client = this.listener;
      this.listener = undefined;
      client.removeAllListeners('notification');
      await client.end().catch(() => undefined);
    }
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

  private async loop(): Promise<void> {
    const batchSize = this.options.batchSize ?? 200;
    while (!this.stopped) {
      // A LISTEN connection lost to a killed session or a database restart is opened again.
      this.kicked = false;
      if (!this.listener) await this.listen().catch((error) => this.options.log?.('outbox relay cannot LISTEN; polling until it can', error));
      let published = 0;
      try {
        published = await this.drainOnce();
        this.failures = 0;
      } catch (error) {
        this.failures += 1;
        this.options.log?.('outbox relay could not publish; events stay in the outbox and will be retried', error);
      }
      if (published >= batchSize || this.stopped) continue;
      const backoff = this.failures === 0 ? this.options.pollMs : Math.min(30_000, 250 * 2 ** Math.min(this.failures, 7));
      await new Promise<void>((resolve) => {
        if (this.kicked && this.failures === 0) return resolve();
        const timer = setTimeout(resolve, backoff);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
  }

  // Other processes (an api replica) notify at commit; polling covers a lost notification. On a
  // session of its own, outside the pool the batches and their in-process consumers share.
  private async listen(): Promise<void> {
    const client = await this.db.openDedicatedSession();
    const lost = () => {
      if (this.listener !== client) return;
      this.listener = undefined;
      client.removeAllListeners('notification');
      void client.end().catch(() => undefined);
      this.kick();
    };
    client.on('notification', this.kick);
    client.on('error', lost);
    client.on('end', lost);
    try {
      await client.query('LISTEN outbox_written');
    } catch (error) {
      client.removeAllListeners('notification');
      await client.end().catch(() => undefined);
      throw error;
    }
    this.listener = client;
  }
}
