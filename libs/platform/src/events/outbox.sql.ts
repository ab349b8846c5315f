import type { DomainEvent, EventCause } from '@engage/shared-kernel';

interface Querier {
  query(sql: string, params?: unknown[]): Promise<unknown>;
}

export interface OutboxRow {
  seq: string;
  id: string;
  organization_id: string;
  source: string;
  type: string;
  aggregate_id: string;
  payload: Record<string, unknown>;
  schema_version: number;
  occurred_at: Date;
  cause: EventCause | null;
}

// One statement for any number of events; pg_notify wakes relays in other processes at commit.
export async function insertOutboxEvents(db: Querier, events: DomainEvent[]): Promise<void> {
  await db.query(
    `WITH written AS (
       INSERT INTO outbox (id, organization_id, source, type, aggregate_id, payload, schema_version, occurred_at, cause)
       SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::jsonb[], $7::int[], $8::timestamptz[], $9::jsonb[])
     )
     SELECT pg_notify('outbox_written', '')`,
    [
      events.map((e) => e.id),
      events.map((e) => e.organizationId),
      events.map((e) => e.source),
      events.map((e) => e.type),
      events.map((e) => e.aggregateId),
      events.map((e) => JSON.stringify(e.payload)),
      events.map((e) => e.schemaVersion),
      events.map((e) => e.occurredAt),
      events.map((e) => (e.cause ? JSON.stringify(e.cause) : null)),
    ],
  );
}

export function toDomainEvent(row: OutboxRow): DomainEvent {
  return {
    id: row.id,
    type: row.type,
    source: row.source,
    organizationId: row.organization_id,
    aggregateId: row.aggregate_id,
    occurredAt: row.occurred_at.toISOString(),
    schemaVersion: row.schema_version,
    payload: row.payload,
    ...(row.cause ? { cause: row.cause } : {}),
  };
}

// Only one relay publishes at a time (transaction-scoped lock), which keeps each organization's
// events in commit order on the bus even with several worker replicas.
export const RELAY_LOCK = 7_345_221_002;

export const CLAIM_PENDING = `
  SELECT seq, id, organization_id, source, type, aggregate_id, payload, schema_version, occurred_at, cause
  FROM outbox WHERE published_at IS NULL ORDER BY seq LIMIT $1`;

export const MARK_PUBLISHED = `UPDATE outbox SET published_at = now(), attempts = attempts + 1, last_error = NULL WHERE seq = ANY($1::bigint[])`;

export const MARK_FAILED = `UPDATE outbox SET attempts = attempts + 1, last_error = $2 WHERE seq = ANY($1::bigint[])`;

export const OUTBOX_LAG = `
  SELECT count(*)::int AS pending, coalesce(extract(epoch FROM now() - min(created_at)), 0)::float AS oldest_seconds
  FROM outbox WHERE published_at IS NULL`;

export const PURGE_PUBLISHED = `DELETE FROM outbox WHERE published_at < now() - make_interval(days => $1)`;
