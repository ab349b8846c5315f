import type { Database, DedicatedSession } from '@engage/platform';
import { CHANGES_CHANNEL, type ChangeNotice, parseChangeNotice } from '../domain/change-notice';

// The session's 'notification' event carries pg's Notification; the platform's type names the
// event without its argument (its other listeners only need the wake-up).
type NotifyingSession = DedicatedSession & { on(event: 'notification', handler: (message: { payload?: string }) => void): unknown };

const RETRY_MS = [250, 500, 1000, 2000, 5000];

// One LISTEN per api process, on a session of its own (not from the pool), opened when the first
// channel joins. A lost session (a database restart) is reopened with backoff; changes committed
// while it was down are not replayed (docs/realtime.md, "Delivery").
export class ChangeListener {
  private session: DedicatedSession | undefined;
  private opening: Promise<void> | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private failures = 0;
  private closed = false;

  constructor(
    private readonly db: Database,
    private readonly onChange: (notice: ChangeNotice) => void,
    private readonly onLost: (error: unknown) => void = () => undefined,
  ) {}

  get listening(): boolean {
    return this.session !== undefined;
  }

  // Resolves once LISTEN is in place, so a join answered after it misses no later commit.
  ensure(): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the change listener is closed'));
    if (this.session) return Promise.resolve();
    this.opening ??= this.open().finally(() => (this.opening = undefined));
    return this.opening;
  }

  private async open(): Promise<void> {
    const client = (await this.db.openDedicatedSession()) as NotifyingSession;
    const lost = (error?: unknown) => {
      if (this.session !== client) return;
      this.session = undefined;
      client.removeAllListeners('notification');
      void client.end().catch(() => undefined);
      this.onLost(error);
      this.scheduleRetry();
    };
    client.on('notification', (message) => {
      const notice = parseChangeNotice(message.payload);
      if (notice) this.onChange(notice);
    });
    client.on('error', lost);
    client.on('end', lost);
    try {
      await client.query(`LISTEN ${CHANGES_CHANNEL}`);
    } catch (error) {
      client.removeAllListeners('notification');
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.session = client;
    this.failures = 0;
  }

  private scheduleRetry(): void {
    if (this.closed || this.retryTimer) return;
    const delay = RETRY_MS[Math.min(this.failures, RETRY_MS.length - 1)];
    this.failures++;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.ensure().catch(() => this.scheduleRetry());
    }, delay);
    this.retryTimer.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    const client = this.session;
    this.session = undefined;
    if (!client) return;
    client.removeAllListeners('notification');
    await client.end().catch(() => undefined);
  }
}
