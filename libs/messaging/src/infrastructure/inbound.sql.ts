// SQL of the inbound receiver and its worker.

export interface InboundEventRow {
  id: string;
  organization_id: string;
  channel_account_id: string;
  payload: Record<string, unknown>;
  attempts: number;
}

// SYSTEM: the receiver stores the raw event of an authenticated channel (one statement).
export const SYSTEM_STORE_INBOUND = `
  INSERT INTO inbound_events (organization_id, channel_account_id, payload) VALUES ($1, $2, $3) RETURNING id`;

// SYSTEM: events due for processing, across organizations; each is then claimed inside its tenant.
// The payload comes along so media downloads need no extra round trip (the claim re-reads it).
export const SYSTEM_DUE_INBOUND = `
  SELECT id, organization_id, payload FROM inbound_events WHERE processed_at IS NULL AND next_attempt_at <= now() ORDER BY next_attempt_at, id LIMIT $1`;

// The claim: a row another worker holds is skipped, a processed one is gone.
export const CLAIM_INBOUND = `
  SELECT id, organization_id, channel_account_id, payload, attempts FROM inbound_events
  WHERE id = $1 AND processed_at IS NULL FOR UPDATE SKIP LOCKED`;

export const MARK_INBOUND_DONE = `UPDATE inbound_events SET processed_at = now(), attempts = attempts + 1, last_error = $2 WHERE id = $1`;

// Exponential back-off; after the last attempt the event stays, processed, with its error.
export const MARK_INBOUND_RETRY = `
  UPDATE inbound_events SET attempts = attempts + 1, last_error = $2,
         next_attempt_at = now() + make_interval(secs => least(300, power(2, attempts))),
         processed_at = CASE WHEN attempts + 1 >= $3 THEN now() END
  WHERE id = $1 AND processed_at IS NULL`;

// SYSTEM: the payload, read before the claim to download its media outside the transaction.
export const SYSTEM_INBOUND_PAYLOAD = `SELECT payload FROM inbound_events WHERE id = $1 AND processed_at IS NULL`;
