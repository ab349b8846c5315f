import type { Database } from '@engage/platform';
import type { MetaEvent } from '../domain/meta-webhook';
import { SYSTEM_STORE_META_EVENTS } from '../infrastructure/inbound.sql';

interface Waiting {
  events: MetaEvent[];
  resolve: (stored: boolean[]) => void;
  reject: (error: unknown) => void;
}

const MAX_IN_FLIGHT = 2;
const MAX_EVENTS = 500;

// The Meta webhook's writes, grouped as the chat-app receiver's are (InboundWriter): a request goes
// to the database at once while fewer than two statements are on their way, otherwise with the
// others that arrived meanwhile in the next one. Each request is answered after its statement
// committed; a group the database refuses is retried request by request.
export class MetaEventWriter {
  private waiting: Waiting[] = [];
  private inFlight = 0;

  constructor(private readonly db: Database) {}

  // Whether each event was stored (false: no active channel account holds its id).
  write(events: MetaEvent[]): Promise<boolean[]> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ events, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < MAX_IN_FLIGHT && this.waiting.length > 0) {
      const group: Waiting[] = [];
      let size = 0;
      while (this.waiting.length > 0 && (group.length === 0 || size + this.waiting[0].events.length <= MAX_EVENTS)) {
        const next = this.waiting.shift()!;
        size += next.events.length;
        group.push(next);
      }
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
        const stored = await this.store(group.flatMap((w) => w.events));
        let at = 0;
        for (const w of group) {
          w.resolve(stored.slice(at, at + w.events.length));
          at += w.events.length;
        }
        return;
      } catch {
        // One request the database refuses must not fail the others: each goes alone.
      }
    }
    await Promise.all(group.map((w) => this.store(w.events).then(w.resolve, w.reject)));
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
