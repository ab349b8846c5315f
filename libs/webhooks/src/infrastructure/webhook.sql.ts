// SQL of the webhooks context. Tenant statements run inside inTenant (RLS); system ones say so.

export interface ConfigurationRow {
  id: string;
  organization_id: string;
  name: string;
  url: string;
  events: string[];
  secret: string | null;
  secret_sealed: string | null;
  is_active: boolean;
  disabled_reason: string | null;
  failing_since: Date | null;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
}

export const INSERT_CONFIGURATION = `
  INSERT INTO webhook_configurations (organization_id, name, url, events, secret, secret_sealed, is_active, created_by)
  VALUES (app_org_id(), $1, $2, $3, $4, $5, $6, $7) RETURNING *`;

export const CONFIGURATION_FOR_UPDATE = `SELECT * FROM webhook_configurations WHERE id = $1 FOR UPDATE`;

export const CONFIGURATION_BY_ID = `SELECT * FROM webhook_configurations WHERE id = $1`;

// is_active set to true (again) clears why it was disabled and the failure streak.
export const UPDATE_CONFIGURATION = `
  UPDATE webhook_configurations SET name = $2, url = $3, events = $4, secret = $5, secret_sealed = $6, is_active = $7,
    disabled_reason = CASE WHEN $7 AND NOT is_active THEN NULL ELSE disabled_reason END,
    failing_since = CASE WHEN $7 AND NOT is_active THEN NULL ELSE failing_since END,
    updated_at = now()
  WHERE id = $1 RETURNING *`;

export const DELETE_CONFIGURATION = `DELETE FROM webhook_configurations WHERE id = $1`;

// A delivery being attempted, with what the sender needs from its configuration.
export interface DeliveryJob {
  id: string;
  organization_id: string;
  webhook_id: string;
  event: string;
  body: string;
  attempts: number;
  automatic: boolean;
  url: string;
  webhook_name: string;
  secret_sealed: string | null;
}

const JOB_COLUMNS = `d.id, d.organization_id, d.webhook_id, d.event, d.body, d.attempts, d.automatic, c.url, c.name AS webhook_name, c.secret_sealed`;

// system: the claim, in one statement. Endpoints with queued deliveries are found by skipping
// through the in-flight index (one probe per endpoint, however long its backlog); for each active
// one with fewer than $3 deliveries in flight (leases not expired), its oldest due rows fill the free
// slots; rows other claimers hold are skipped. Of those, the $2 oldest due are leased ($4) and their
// attempt counted. Cost grows with the number of endpoints, never with the backlog.
export const CLAIM = `
  WITH RECURSIVE queued(webhook_id) AS (
    (SELECT webhook_id FROM webhook_deliveries WHERE status IN ('pending', 'retrying') ORDER BY webhook_id LIMIT 1)
    UNION ALL
    SELECT (SELECT d.webhook_id FROM webhook_deliveries d
            WHERE d.status IN ('pending', 'retrying') AND d.webhook_id > q.webhook_id ORDER BY d.webhook_id LIMIT 1)
    FROM queued q WHERE q.webhook_id IS NOT NULL
  ), open AS (
    SELECT q.webhook_id, $3::int - f.n AS free
    FROM queued q
    JOIN webhook_configurations c ON c.id = q.webhook_id AND c.is_active
    CROSS JOIN LATERAL (
      SELECT count(*)::int AS n FROM webhook_deliveries x
      WHERE x.webhook_id = q.webhook_id AND x.status IN ('pending', 'retrying') AND x.locked_until > $1
    ) f
    WHERE f.n < $3::int
  ), chosen AS (
    SELECT due.id FROM open o
    CROSS JOIN LATERAL (
      SELECT d.id, d.next_attempt_at, d.created_at FROM webhook_deliveries d
      WHERE d.webhook_id = o.webhook_id AND d.status IN ('pending', 'retrying') AND d.next_attempt_at <= $1
        AND (d.locked_until IS NULL OR d.locked_until <= $1)
      ORDER BY d.next_attempt_at, d.created_at
      LIMIT o.free
      FOR UPDATE SKIP LOCKED
    ) due
    ORDER BY due.next_attempt_at, due.created_at
    LIMIT $2
  )
  UPDATE webhook_deliveries d SET locked_until = $4, attempts = d.attempts + 1, updated_at = $1
  FROM chosen, webhook_configurations c WHERE d.id = chosen.id AND c.id = d.webhook_id
  RETURNING ${JOB_COLUMNS}`;

// tenant: the lease on one delivery (manual retry, test action), unless an attempt is under way.
export const LEASE_ONE = `
  UPDATE webhook_deliveries d SET locked_until = $2, attempts = d.attempts + 1, updated_at = $3
  FROM webhook_configurations c WHERE d.id = $1 AND c.id = d.webhook_id AND (d.locked_until IS NULL OR d.locked_until <= $3)
  RETURNING ${JOB_COLUMNS}`;

// tenant: the outcome of attempt number $5, unless the delivery has been claimed again since.
export const FINISH_DELIVERY = `
  UPDATE webhook_deliveries SET status = $2, next_attempt_at = coalesce($3, next_attempt_at), locked_until = NULL, updated_at = $4
  WHERE id = $1 AND attempts = $5`;

// tenant: successful attempts in one statement: each delivery finished (unless claimed again since,
// as FINISH_DELIVERY, or recorded already), one log row per attempt of a delivery that still exists,
// and the failure streak of the configurations in $8 cleared. Delivery ids are distinct. `freed`:
// this attempt held the delivery's lease (not a late record), so its endpoint's slot is free now.
export const FINISH_SUCCESSES = `
  WITH input AS (
    SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::int[], $5::int[], $6::int[])
      AS t(delivery_id, webhook_id, event, response_code, duration_ms, attempt)
  ), finished AS (
    UPDATE webhook_deliveries d SET status = 'success', locked_until = NULL, updated_at = $7
    FROM input i WHERE d.id = i.delivery_id AND d.attempts = i.attempt AND d.locked_until IS NOT NULL
    RETURNING d.id
  ), cleared AS (
    UPDATE webhook_configurations SET failing_since = NULL WHERE id = ANY($8::uuid[]) AND failing_since IS NOT NULL
  ), logged AS (
    INSERT INTO webhook_logs (organization_id, webhook_id, delivery_id, event, status, response_code, error_message, duration_ms, attempt, created_at)
    SELECT app_org_id(), i.webhook_id, i.delivery_id, i.event, 'success', i.response_code, NULL, i.duration_ms, i.attempt, $7
    FROM input i JOIN webhook_deliveries d ON d.id = i.delivery_id
    RETURNING id, delivery_id
  )
  SELECT l.id, l.delivery_id, l.delivery_id IN (SELECT id FROM finished) AS freed FROM logged l`;

// tenant: the slots the attempts of a record freed ($1: their endpoints, one entry per slot) handed
// to each endpoint's next due deliveries in the same transaction, leased ($3) as CLAIM does. The
// endpoint's in-flight count stays the same (one lease ends, one begins), so no claim lock is
// needed; rows another claimer holds are skipped, and an inactive endpoint gets none.
export const HAND_OVER = `
  WITH freed AS (
    SELECT webhook_id, count(*)::int AS n FROM unnest($1::uuid[]) AS f(webhook_id) GROUP BY webhook_id
  ), chosen AS MATERIALIZED (
    SELECT due.id FROM freed f
    JOIN webhook_configurations c ON c.id = f.webhook_id AND c.is_active
    CROSS JOIN LATERAL (
      SELECT d.id FROM webhook_deliveries d
      WHERE d.webhook_id = f.webhook_id AND d.status IN ('pending', 'retrying') AND d.next_attempt_at <= $2
        AND (d.locked_until IS NULL OR d.locked_until <= $2)
      ORDER BY d.next_attempt_at, d.created_at
      LIMIT f.n
      FOR UPDATE SKIP LOCKED
    ) due
  )
  UPDATE webhook_deliveries d SET locked_until = $3, attempts = d.attempts + 1, updated_at = $2
  FROM chosen, webhook_configurations c WHERE d.id = chosen.id AND c.id = d.webhook_id
  RETURNING ${JOB_COLUMNS}`;

export const INSERT_LOG = `
  INSERT INTO webhook_logs (organization_id, webhook_id, delivery_id, event, status, response_code, error_message, duration_ms, attempt, created_at)
  VALUES (app_org_id(), $1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`;

// tenant: attempts logged since $3 of deliveries $2 (configurations $1: the log's index leads with them).
export const LOGGED_ATTEMPTS = `
  SELECT id, delivery_id, attempt, status FROM webhook_logs
  WHERE webhook_id = ANY($1::uuid[]) AND created_at >= $3 AND delivery_id = ANY($2::uuid[])`;

export const CLEAR_FAILING = `UPDATE webhook_configurations SET failing_since = NULL WHERE id = $1 AND failing_since IS NOT NULL`;

export const MARK_FAILING = `
  UPDATE webhook_configurations SET failing_since = coalesce(failing_since, $2) WHERE id = $1 RETURNING failing_since, is_active`;

export const DISABLE_CONFIGURATION = `
  UPDATE webhook_configurations SET is_active = false, disabled_reason = $2, updated_at = $3 WHERE id = $1 AND is_active RETURNING id`;

export const LOG_DELIVERY = `SELECT delivery_id FROM webhook_logs WHERE id = $1`;

export const INSERT_TEST_DELIVERY = `
  INSERT INTO webhook_deliveries (organization_id, webhook_id, event, body, status, automatic, next_attempt_at)
  VALUES (app_org_id(), $1, $2, $3, 'pending', false, $4) RETURNING id`;

// system: retention. Logs older than the cutoff, and deliveries finished (or never sent) before it.
export const PURGE_LOGS = `DELETE FROM webhook_logs WHERE created_at < $1`;
export const PURGE_DELIVERIES = `DELETE FROM webhook_deliveries WHERE updated_at < $1 AND (status IN ('success', 'failed') OR locked_until IS NULL OR locked_until < $1)`;
