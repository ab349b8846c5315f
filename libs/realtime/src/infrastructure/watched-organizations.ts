import type { Database } from '@engage/platform';

// How long a mark lasts, and how often this process renews the marks of its subscribed
// organizations (well inside it, so a busy process never lets one lapse).
export const WATCH_SECONDS = 120;
export const RENEW_MS = 30_000;

const WATCH = `
  INSERT INTO realtime_watched (organization_id, until)
  SELECT unnest($1::uuid[]), now() + make_interval(secs => $2)
  ON CONFLICT (organization_id) DO UPDATE SET until = GREATEST(realtime_watched.until, EXCLUDED.until)`;
const FORGET_EXPIRED = `DELETE FROM realtime_watched WHERE until < now() - interval '1 hour'`;

// The organizations whose changes the database announces (the trigger skips the others, so
// organizations nobody watches pay no NOTIFY): marked before a join is answered, renewed while
// this process holds subscribers of them, left to lapse when it holds none.
export class WatchedOrganizations {
  constructor(private readonly db: Database) {}

  async watch(organizationIds: string[]): Promise<void> {
    if (organizationIds.length === 0) return;
    await this.db.systemQuery(WATCH, [organizationIds, WATCH_SECONDS]);
  }

  async forgetExpired(): Promise<void> {
    await this.db.systemQuery(FORGET_EXPIRED);
  }
}
