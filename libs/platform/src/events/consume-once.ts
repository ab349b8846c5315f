import type { DomainEvent } from '@engage/shared-kernel';
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
