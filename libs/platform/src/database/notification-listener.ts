import type { Database, DedicatedSession } from './database';

// LISTENs on one channel on a session of its own (outside the pool the work shares) and calls
// onNotify for each notification. A session lost to a killed backend or a database restart also
// calls onNotify, so the owner looks at once and reopens it with ensure() on its next pass.
export class NotificationListener {
  private session: DedicatedSession | undefined;

  constructor(
    private readonly db: Database,
    private readonly channel: string,
    private readonly onNotify: () => void,
  ) {}

  get listening(): boolean {
    return this.session !== undefined;
  }

  async ensure(): Promise<void> {
    if (this.session) return;
    const client = await this.db.openDedicatedSession();
    const lost = () => {
      if (this.session !== client) return;
      this.session = undefined;
      client.removeAllListeners('notification');
      void client.end().catch(() => undefined);
      this.onNotify();
    };
    client.on('notification', this.onNotify);
    client.on('error', lost);
    client.on('end', lost);
    try {
      await client.query(`LISTEN ${this.channel}`);
    } catch (error) {
      client.removeAllListeners('notification');
      await client.end().catch(() => undefined);
      throw error;
    }
    this.session = client;
  }

  async close(): Promise<void> {
    const client = this.session;
    if (!client) return;
    this.session = undefined;
    client.removeAllListeners('notification');
    await client.end().catch(() => undefined);
  }
}
