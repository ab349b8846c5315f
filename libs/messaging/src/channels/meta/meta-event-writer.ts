import type { Database } from '@engage/platform';
import type { MetaEvent } from './meta-webhook';
import { SYSTEM_STORE_META_EVENTS } from '../../inbound/inbound.sql';
import { GroupedWrites } from '../../inbound/grouped-writes';

const MAX_IN_FLIGHT = 2;
const MAX_EVENTS = 500;

// The Meta webhook's writes, grouped as the chat-app receiver's are (GroupedWrites): a request's
// events are stored in one statement with those of the requests that arrived meanwhile.
export class MetaEventWriter {
  private readonly writes: GroupedWrites<MetaEvent[], boolean[]>;

  constructor(private readonly db: Database) {
    this.writes = new GroupedWrites({
      maxInFlight: MAX_IN_FLIGHT,
      weight: (events) => events.length,
      maxWeight: MAX_EVENTS,
      many: async (requests) => {
        const stored = await this.store(requests.flat());
        let at = 0;
        return requests.map((events) => stored.slice(at, (at += events.length)));
      },
      one: (events) => this.store(events),
    });
  }

  // Whether each event was stored (false: no active channel account holds its id).
  write(events: MetaEvent[]): Promise<boolean[]> {
    return this.writes.write(events);
  }

  private async store(events: MetaEvent[]): Promise<boolean[]> {
    const rows = await this.db.systemQuery<{ stored: boolean }>(
      SYSTEM_STORE_META_EVENTS,
      [events.map((e) => e.kind), events.map((e) => e.accountId), events.map((e) => JSON.stringify(e.payload))],
      { prepare: true },
    );
    return rows.map((r) => r.stored);
  }
}
