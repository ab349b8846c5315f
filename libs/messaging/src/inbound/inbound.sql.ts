// SQL of the inbound receiver and its worker.

export interface InboundEventRow {
  id: string;
  organization_id: string;
  channel_account_id: string;
  payload: Record<string, unknown>;
  attempts: number;
  channel_exists?: boolean; // CLAIM_INBOUND only
}

// SYSTEM: the receiver's one round trip: the channel's credentials, and the event stored only when
// the channel is active and the token's SHA-256 matches ($2). `id` is null when nothing was stored
// (also for a null payload $3: an invalid one, authenticated before its 400);
// the receiver then tells why from the channel columns.
export const SYSTEM_AUTH_AND_STORE_INBOUND = `
  WITH channel AS (SELECT organization_id, inbound_token_hash, is_active FROM channel_accounts WHERE id = $1),
  stored AS (
    INSERT INTO inbound_events (organization_id, channel_account_id, payload)
    SELECT organization_id, $1, $3::jsonb FROM channel WHERE is_active AND inbound_token_hash = $2 AND $3::jsonb IS NOT NULL
    RETURNING id)
  SELECT channel.organization_id, channel.inbound_token_hash, channel.is_active, (SELECT id FROM stored) AS id FROM channel`;

// SYSTEM: events due for processing, across organizations; each is then claimed inside its tenant.
// The payload comes along so media downloads need no extra round trip (the claim re-reads it).
export const SYSTEM_DUE_INBOUND = `
  SELECT id, organization_id, payload FROM inbound_events WHERE processed_at IS NULL AND next_attempt_at <= now() ORDER BY next_attempt_at, id LIMIT $1`;

// The claim: a row another worker holds is skipped, a processed one is gone. The event has no
// foreign key to its channel (see migration 0003): whether the channel still exists comes along.
export const CLAIM_INBOUND = `
  SELECT e.id, e.organization_id, e.channel_account_id, e.payload, e.attempts,
         EXISTS (SELECT 1 FROM channel_accounts c WHERE c.organization_id = e.organization_id AND c.id = e.channel_account_id) AS channel_exists
  FROM inbound_events e
  WHERE e.id = $1 AND e.processed_at IS NULL FOR UPDATE OF e SKIP LOCKED`;

export const MARK_INBOUND_DONE = `UPDATE inbound_events SET processed_at = now(), attempts = attempts + 1, last_error = $2 WHERE id = $1`;

// Exponential back-off; after the last attempt the event stays, processed, with its error.
export const MARK_INBOUND_RETRY = `
  UPDATE inbound_events SET attempts = attempts + 1, last_error = $2,
         next_attempt_at = now() + make_interval(secs => least(300, power(2, attempts))),
         processed_at = CASE WHEN attempts + 1 >= $3 THEN now() END
  WHERE id = $1 AND processed_at IS NULL`;

// SYSTEM: SYSTEM_AUTH_AND_STORE_INBOUND for many requests at once (the receiver groups the requests
// that arrive while a statement is on its way). Ids are drawn before the insert so every answer,
// returned in the order asked ($1..$3 aligned), says which event it stored.
export const SYSTEM_AUTH_AND_STORE_INBOUND_MANY = `
  WITH asked AS MATERIALIZED (
    SELECT k.n, k.channel_id, k.payload, c.organization_id, c.inbound_token_hash, c.is_active,
           CASE WHEN c.is_active AND c.inbound_token_hash = k.token_hash AND k.payload IS NOT NULL THEN nextval('inbound_events_id_seq') END AS id
    FROM unnest($1::uuid[], $2::bytea[], $3::jsonb[]) WITH ORDINALITY AS k(channel_id, token_hash, payload, n)
    LEFT JOIN channel_accounts c ON c.id = k.channel_id),
  stored AS (
    INSERT INTO inbound_events (id, organization_id, channel_account_id, payload)
    SELECT id, organization_id, channel_id, payload FROM asked WHERE id IS NOT NULL ORDER BY n)
  SELECT organization_id, inbound_token_hash, is_active, id FROM asked ORDER BY n`;

// SYSTEM: of the oldest $2 events (by id, the primary key: the order they were stored in), delete
// those processed more than $1 days after they arrived. Bounded work whatever the table's size: the
// caller stops at the first slice not deleted whole (the rest is younger, or not processed yet).
export const PURGE_PROCESSED_INBOUND = `
  WITH head AS (SELECT id, processed_at, received_at FROM inbound_events ORDER BY id LIMIT $2),
  gone AS (
    DELETE FROM inbound_events e USING head h
    WHERE e.id = h.id AND h.processed_at IS NOT NULL AND h.received_at < now() - make_interval(days => $1)
    RETURNING 1)
  SELECT count(*)::int AS n FROM gone`;

// SYSTEM: the events of verified Meta webhook requests ($1..$3 aligned), each routed to the active
// channel account of its kind holding the page (or Instagram account) id. Answers, in the order
// asked, whether each event was stored (false: no such account).
export const SYSTEM_STORE_META_EVENTS = `
  WITH k AS (SELECT * FROM unnest($1::text[], $2::text[], $3::jsonb[]) WITH ORDINALITY AS k(kind, account, payload, n)),
  routed AS MATERIALIZED (
    SELECT k.n, c.organization_id, c.id AS channel_id, k.payload
    FROM k JOIN channel_accounts c ON c.kind = k.kind AND c.external_account_id = k.account AND c.is_active),
  stored AS (INSERT INTO inbound_events (organization_id, channel_account_id, payload) SELECT organization_id, channel_id, payload FROM routed ORDER BY n)
  SELECT (r.n IS NOT NULL) AS stored FROM k LEFT JOIN routed r ON r.n = k.n ORDER BY k.n`;
