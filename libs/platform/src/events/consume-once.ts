import { type DomainEvent, groupBy } from '@engage/shared-kernel';
import type { Database, Tx } from '../database/database';

// Runs a consumer's effect at most once per (consumer, event): the processed_events row commits in
// the same transaction as the effect, so a redelivered event finds it and does nothing.
export async function consumeOnce(db: Database, consumer: string, event: DomainEvent, effect: (tx: Tx) => Promise<void>): Promise<boolean> {
  return db.inTenant({ organizationId: event.organizationId, userId: null, role: 'SYSTEM', requestId: event.id }, async (tx) => {
    const inserted = await tx.query(
      `INSERT INTO processed_events (consumer, event_id, organization_id) VALUES ($1, $2, $3)
       ON CONFLICT (consumer, event_id) DO NOTHING RETURNING 1`,
      [consumer, event.id, event.organizationId],
    );
    if (inserted.length === 0) return false;
    await effect(tx);
    return true;
  });
}

// consumeOnce for a batch: one transaction per organization, whose events not yet consumed (by
// this consumer) are marked consumed and handed to the effect together, in order. Answers those.
export async function consumeOnceBatch(
  db: Database,
  consumer: string,
  events: DomainEvent[],
  effect: (tx: Tx, fresh: DomainEvent[]) => Promise<void>,
): Promise<DomainEvent[]> {
  const consumed: DomainEvent[] = [];
  for (const [organizationId, list] of groupBy(events, (event) => event.organizationId)) {
    const batch = [...new Map(list.map((event) => [event.id, event])).values()]; // a repeat within the batch counts once
    const fresh = await db.inTenant({ organizationId, userId: null, role: 'SYSTEM', requestId: batch[0].id }, async (tx) => {
      const rows = await tx.query<{ event_id: string }>(
        `INSERT INTO processed_events (consumer, event_id, organization_id) SELECT $1, k.id, $3 FROM unnest($2::uuid[]) AS k(id)
         ON CONFLICT (consumer, event_id) DO NOTHING RETURNING event_id`,
        [consumer, batch.map((event) => event.id), organizationId],
        { prepare: true },
      );
      const inserted = new Set(rows.map((row) => row.event_id));
      const todo = batch.filter((event) => inserted.has(event.id));
      if (todo.length > 0) await effect(tx, todo);
      return todo;
    });
    consumed.push(...fresh);
  }
  return consumed;
}

// For a consumer whose effect is idempotent by a unique key of its own (an insert ... ON CONFLICT
// DO NOTHING keyed by the event id, a monotone update): no processed_events row, which would only
// double the writes and grow without end. The events of each organization in one transaction, in
// order, a repeat within the batch once.
export async function consumeIdempotentBatch(db: Database, events: DomainEvent[], effect: (tx: Tx, events: DomainEvent[]) => Promise<void>): Promise<void> {
  for (const [organizationId, list] of groupBy(events, (event) => event.organizationId)) {
    const batch = [...new Map(list.map((event) => [event.id, event])).values()];
    await db.inTenant({ organizationId, userId: null, role: 'SYSTEM', requestId: batch[0].id }, (tx) => effect(tx, batch));
  }
}
