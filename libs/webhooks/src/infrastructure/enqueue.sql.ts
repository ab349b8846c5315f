// A batch of events of one organization: one delivery per event and active configuration
// subscribed to its kind, none twice (a redelivered event adds none); due a microsecond apart in
// the events' order, so the oldest-first claim keeps that order. $4: the batch's time.
export const ENQUEUE_FOR_EVENTS = `
  INSERT INTO webhook_deliveries (organization_id, webhook_id, event_id, event, body, next_attempt_at)
  SELECT c.organization_id, c.id, k.event_id, k.event, k.body, $4::timestamptz + (k.n - 1) * interval '1 microsecond'
  FROM unnest($1::uuid[], $2::text[], $3::text[]) WITH ORDINALITY AS k(event_id, event, body, n)
  JOIN webhook_configurations c ON c.is_active AND c.events @> ARRAY[k.event]
  ORDER BY k.n, c.id
  ON CONFLICT (webhook_id, event_id) DO NOTHING RETURNING id`;
