import { both, type ResponseRule } from './response.sql';

// The rollup job's statements (docs/analytics.md, "Rollups"), as the system with the organization
// named in each. Quarter hours are 15-minute UTC buckets.
export const bucketOf = (column: string) => `date_bin(interval '15 minutes', ${column}, timestamptz '1970-01-01 00:00:00+00')`;

// Mirrors analytics.sql.ts's customerMessage: answered counts the messages with a response time.
// count(f.id): a stale quarter hour re-rolled with no message left gets a row of zeros.
const figures = (rule: ResponseRule) => `
  count(f.id) AS messages, count(f.id) FILTER (WHERE f.direction = 'INBOUND') AS customer_messages,
  count(f.first_reply_at - f.created_at) AS answered, coalesce(sum(${rule.seconds}), 0) AS response_seconds,
  count(f.id) FILTER (WHERE f.direction = 'INBOUND' AND ${rule.within}) AS answered_in_target,
  count(f.id) FILTER (WHERE f.direction = 'INBOUND' AND f.first_reply_at IS NULL) AS unanswered,
  count(f.id) FILTER (WHERE f.direction = 'INBOUND' AND f.assignee_id IS NULL) AS unassigned,
  pg_current_snapshot() AS rolled_in`;

const UPSERT = `
  INSERT INTO analytics_message_rollups
    (organization_id, bucket, messages, customer_messages, answered, response_seconds, answered_in_target, unanswered, unassigned, rolled_in)`;
const ON_CONFLICT = `
  ON CONFLICT (organization_id, bucket) DO UPDATE SET messages = EXCLUDED.messages, customer_messages = EXCLUDED.customer_messages,
    answered = EXCLUDED.answered, response_seconds = EXCLUDED.response_seconds, answered_in_target = EXCLUDED.answered_in_target,
    unanswered = EXCLUDED.unanswered, unassigned = EXCLUDED.unassigned, rolled_in = EXCLUDED.rolled_in`;

// The organizations with messages: one index probe each (a loose index scan).
export const ORGANIZATIONS = `
  WITH RECURSIVE o(id) AS (
    (SELECT organization_id FROM messaging_message_facts ORDER BY organization_id LIMIT 1)
    UNION ALL
    SELECT (SELECT f.organization_id FROM messaging_message_facts f WHERE f.organization_id > o.id ORDER BY f.organization_id LIMIT 1)
    FROM o WHERE o.id IS NOT NULL
  )
  SELECT id FROM o WHERE id IS NOT NULL`;

// The organization's state, locked: two runners roll an organization one after the other.
export const ENSURE_STATE = `
  INSERT INTO analytics_rollup_state (organization_id, target_minutes, schedule) VALUES (:org, :minutes, :schedule) ON CONFLICT DO NOTHING`;
export const READ_STATE = `SELECT rolled_until, target_minutes, schedule FROM analytics_rollup_state WHERE organization_id = :org FOR UPDATE`;

// Another target changes answered_in_target of every quarter hour, another schedule (business
// hours and the time zone they are read in) the response seconds too: start again from the first.
export const RESET = `DELETE FROM analytics_message_rollups WHERE organization_id = :org`;
export const FIRST_BUCKET = `SELECT ${bucketOf('min(created_at)')} AS first FROM messaging_message_facts WHERE organization_id = :org`;

// The quarter hours of [from, to) that have messages.
export const ROLL_RANGE = both(
  (rule) => `
  ${UPSERT}
  SELECT :org::uuid, ${bucketOf('f.created_at')}, ${figures(rule)}
  FROM messaging_message_facts f WHERE f.organization_id = :org AND f.created_at >= :from AND f.created_at < :to
  GROUP BY 2
  ${ON_CONFLICT}`,
);

export const SAVE_STATE = `
  UPDATE analytics_rollup_state SET rolled_until = :to, target_minutes = :minutes, schedule = :schedule, updated_at = now() WHERE organization_id = :org`;

// Rolled quarter hours a change was recorded for after (or without) their row.
export const STALE = `
  SELECT c.bucket FROM messaging_message_fact_changes c
  LEFT JOIN analytics_message_rollups r ON r.organization_id = c.organization_id AND r.bucket = c.bucket
  WHERE c.organization_id = :org AND c.bucket < :until AND (r.bucket IS NULL OR NOT pg_visible_in_snapshot(c.changed_xid, r.rolled_in))
  ORDER BY c.bucket LIMIT :limit`;

export const REROLL = both(
  (rule) => `
  ${UPSERT}
  SELECT :org::uuid, b.bucket, ${figures(rule)}
  FROM unnest(:buckets::timestamptz[]) b(bucket)
  LEFT JOIN messaging_message_facts f ON f.organization_id = :org AND f.created_at >= b.bucket AND f.created_at < b.bucket + interval '15 minutes'
  GROUP BY b.bucket
  ${ON_CONFLICT}`,
);
