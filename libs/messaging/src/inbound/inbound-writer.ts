import type { Database } from '@engage/platform';
import { SYSTEM_AUTH_AND_STORE_INBOUND, SYSTEM_AUTH_AND_STORE_INBOUND_MANY } from './inbound.sql';
import { GroupedWrites } from './grouped-writes';

export interface InboundWrite {
  channelId: string;
  tokenHash: Buffer | null;
  payload: string | null; // JSON; null: only authenticate
}
// The channel as found (absent: no such channel) and the stored event's id (null: nothing stored).
export interface InboundWritten {
  organization_id: string;
  inbound_token_hash: Buffer | null;
  is_active: boolean;
  id: string | null;
}

// Statements on their way at once, and requests in one statement at most.
const MAX_IN_FLIGHT = 2;
const MAX_GROUP = 200;

// The chat-app receiver's writes, group-committed (GroupedWrites): each request authenticates its
// channel and stores its event in the statement that holds it.
export class InboundWriter {
  private readonly writes: GroupedWrites<InboundWrite, InboundWritten | undefined>;

  constructor(private readonly db: Database) {
    this.writes = new GroupedWrites({
      maxInFlight: MAX_IN_FLIGHT,
      weight: () => 1,
      maxWeight: MAX_GROUP,
      many: async (writes) => {
        const rows = await this.db.systemQuery<InboundWritten>(
          SYSTEM_AUTH_AND_STORE_INBOUND_MANY,
          [writes.map((w) => w.channelId), writes.map((w) => w.tokenHash), writes.map((w) => w.payload)],
          { prepare: true },
        );
        return rows.map((row) => (row.organization_id === null ? undefined : row));
      },
      one: async (w) => {
        const [row] = await this.db.systemQuery<InboundWritten>(SYSTEM_AUTH_AND_STORE_INBOUND, [w.channelId, w.tokenHash, w.payload], { prepare: true });
        return row;
      },
    });
  }

  write(write: InboundWrite): Promise<InboundWritten | undefined> {
    return this.writes.write(write);
  }
}
