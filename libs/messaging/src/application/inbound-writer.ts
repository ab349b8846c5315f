import type { Database } from '@engage/platform';
import { SYSTEM_AUTH_AND_STORE_INBOUND, SYSTEM_AUTH_AND_STORE_INBOUND_MANY } from '../infrastructure/inbound.sql';

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

interface Waiting {
  write: InboundWrite;
  resolve: (row: InboundWritten | undefined) => void;
  reject: (error: unknown) => void;
}

// Statements on their way at once, and requests in one statement at most.
const MAX_IN_FLIGHT = 2;
const MAX_GROUP = 200;

// The receiver's writes. A request goes to the database at once while fewer than MAX_IN_FLIGHT
// statements are on their way; otherwise it waits for the next one, together with the others
// that arrived meanwhile, in one statement. A quiet receiver pays one statement per request; a busy
// one pays one per group, which keeps the database's share of each acknowledgement small. Each
// request is answered only after the statement holding it has committed.
export class InboundWriter {
  private waiting: Waiting[] = [];
  private inFlight = 0;

  constructor(private readonly db: Database) {}

  write(write: InboundWrite): Promise<InboundWritten | undefined> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ write, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < MAX_IN_FLIGHT && this.waiting.length > 0) {
      const group = this.waiting.splice(0, MAX_GROUP);
      this.inFlight++;
      void this.run(group).finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
  }

  private async run(group: Waiting[]): Promise<void> {
    if (group.length > 1) {
      try {
        const rows = await this.db.systemQuery<InboundWritten>(SYSTEM_AUTH_AND_STORE_INBOUND_MANY, [
          group.map((w) => w.write.channelId),
          group.map((w) => w.write.tokenHash),
          group.map((w) => w.write.payload),
        ], { prepare: true });
        group.forEach((w, i) => w.resolve(rows[i].organization_id === null ? undefined : rows[i]));
        return;
      } catch {
        // One request the database refuses must not fail the others: each goes alone.
      }
    }
    await Promise.all(
      group.map(async (w) => {
        try {
          const [row] = await this.db.systemQuery<InboundWritten>(SYSTEM_AUTH_AND_STORE_INBOUND, [w.write.channelId, w.write.tokenHash, w.write.payload], { prepare: true });
          w.resolve(row);
        } catch (error) {
          w.reject(error);
        }
      }),
    );
  }
}
