import type { RequestContext } from '@engage/shared-kernel';
import type { Database } from '@engage/platform';

// Users with no heartbeat for this long count as offline (deal auto-reassignment relies on it).
export const PRESENCE_TIMEOUT_MINUTES = 5;

export class PresenceService {
  constructor(private readonly db: Database) {}

  async heartbeat(ctx: RequestContext, online: boolean): Promise<{ is_online: boolean; last_seen_at: string }> {
    const [row] = await this.db.inTenant(ctx, (tx) =>
      tx.query<{ is_online: boolean; last_seen_at: Date }>(
        'UPDATE users SET is_online = $2, last_seen_at = now(), updated_at = now() WHERE id = $1 RETURNING is_online, last_seen_at',
        [ctx.userId, online],
      ),
    );
    return { is_online: row.is_online, last_seen_at: row.last_seen_at.toISOString() };
  }

  // Run by the worker: whoever stopped sending heartbeats is offline.
  async expireStale(): Promise<number> {
    return this.db.asSystem((tx) =>
      tx.execute(`UPDATE users SET is_online = false WHERE is_online AND (last_seen_at IS NULL OR last_seen_at < now() - make_interval(mins => $1))`, [
        PRESENCE_TIMEOUT_MINUTES,
      ]),
    );
  }
}
