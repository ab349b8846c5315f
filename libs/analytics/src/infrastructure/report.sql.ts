import { customerMessage, DAYS, hours, localDay, METRICS_TAIL, sla } from './analytics.sql';
import { both, type ResponseRule } from './response.sql';

// Metrics and inbox from the rollups (docs/analytics.md, "Rollups"): the quarter hours in
// :rs..:re (whole, rolled, not stale) from analytics_message_rollups, everything else (:ds..:de:
// the live tail, partial quarter hours at the edges, stale quarter hours) from
// messaging_message_facts, one row per message. Both give the same additive parts, so the figures
// equal the direct statements of analytics.sql.ts.
// A rolled quarter hour ended before :due (at least the target before :now), so every unanswered
// customer message in it is past the target: all its customer messages are judged.
// The message view's assignee (its LEFT JOIN: no conversation is no assignee), one key look-up per
// customer message: the tail is small, and a join would make the planner hash every conversation.
const UNASSIGNED = `coalesce((SELECT c.assignee_id IS NULL FROM messaging_conversation_facts c WHERE c.id = f.conversation_id), true)`;
const parts = (rule: ResponseRule) => `
  parts AS (
    SELECT r.bucket AS at, r.messages, r.answered, r.response_seconds, r.answered_in_target AS met, r.customer_messages AS judged, r.unassigned
    FROM unnest(:rs::timestamptz[], :re::timestamptz[]) k(s, e)
    JOIN analytics_message_rollups r ON r.bucket >= k.s AND r.bucket < k.e
    WHERE r.bucket <> ALL (:stale::timestamptz[])
    UNION ALL
    SELECT f.created_at, 1, (x.response_seconds IS NOT NULL)::int, x.response_seconds, (x.met IS TRUE)::int, (x.met IS NOT NULL)::int,
           CASE WHEN f.direction = 'INBOUND' THEN ${UNASSIGNED}::int ELSE 0 END
    FROM unnest(:ds::timestamptz[], :de::timestamptz[]) k(s, e)
    JOIN messaging_message_facts f ON f.created_at >= k.s AND f.created_at < k.e
    CROSS JOIN LATERAL (SELECT ${customerMessage(rule)}) x
  )`;

const rt = (filter: string) => `sum(response_seconds) ${filter} / nullif(sum(answered) ${filter}, 0)`;
const total = (column: string, filter = '') => `coalesce(sum(${column}) ${filter}, 0)`;
const CUR = 'FILTER (WHERE at >= :start)';
const PREV = 'FILTER (WHERE at < :start)';

export const ROLLUP_METRICS = both(
  (rule) => `
  WITH ${parts(rule)}, g AS (
    SELECT ${total('messages', CUR)} AS messages, ${total('messages', PREV)} AS messages_prev, ${rt(CUR)} AS rt, ${rt(PREV)} AS rt_prev,
           ${total('met', CUR)} AS met, ${total('judged', CUR)} AS judged, ${total('met', PREV)} AS met_prev, ${total('judged', PREV)} AS judged_prev
    FROM parts
  ), ${METRICS_TAIL}`,
);

export const ROLLUP_METRICS_BY_DAY = both(
  (rule) => `
  WITH days AS (${DAYS}), ${parts(rule)}, g AS (
    SELECT ${localDay('at')} AS day, sum(messages) AS messages, ${rt('')} AS rt, sum(met) AS met, sum(judged) AS judged FROM parts GROUP BY 1
  ), c AS (
    SELECT ${localDay('created_at')} AS day, count(*) AS contacts FROM crm_contact_facts WHERE created_at >= :start AND created_at < :end GROUP BY 1
  )
  SELECT to_char(days.day, 'YYYY-MM-DD') AS date, coalesce(g.messages, 0)::int AS total_messages, ${hours('g.rt')} AS average_response_time,
         ${sla('g.met', 'g.judged')} AS sla_compliance, coalesce(c.contacts, 0)::int AS total_contacts
  FROM days LEFT JOIN g ON g.day = days.day LEFT JOIN c ON c.day = days.day ORDER BY days.day`,
);

// Overdue: conversations not resolved with a customer message of the period unanswered past the
// target; read from the unanswered customer messages only (messages_unanswered_idx, in conversation
// order), then joined to the conversations (no conversation: not counted, as in the view).
const overdue = (rule: ResponseRule) => `
  SELECT count(*) FROM (
    SELECT DISTINCT f.conversation_id FROM messaging_message_facts f
    WHERE f.direction = 'INBOUND' AND f.first_reply_at IS NULL AND f.created_at >= :start AND f.created_at < :end
      AND ${rule.past}
  ) u JOIN messaging_conversation_facts c ON c.id = u.conversation_id WHERE c.status <> 'RESOLVED'`;

export const ROLLUP_INBOX = both(
  (rule) => `
  WITH ${parts(rule)}, g AS (
    SELECT ${rt('')} AS rt, ${total('met')} AS met, ${total('judged')} AS judged, ${total('unassigned')} AS unassigned FROM parts
  )
  SELECT ${hours('rt')} AS average_response_time, ${sla('met', 'judged')} AS sla_compliance,
         (SELECT count(*) FROM messaging_conversation_facts WHERE resolved_at >= :start AND resolved_at < :end)::int AS resolved_conversations,
         unassigned::int AS unassigned_messages, (${overdue(rule)})::int AS overdue_conversations
  FROM g`,
);

export const ROLLUP_INBOX_BY_DAY = both(
  (rule) => `
  WITH days AS (${DAYS}), ${parts(rule)}, g AS (
    SELECT ${localDay('at')} AS day, ${rt('')} AS rt, sum(met) AS met, sum(judged) AS judged, sum(unassigned) AS unassigned FROM parts GROUP BY 1
  ), r AS (
    SELECT ${localDay('resolved_at')} AS day, count(*) AS resolved FROM messaging_conversation_facts
    WHERE resolved_at >= :start AND resolved_at < :end GROUP BY 1
  )
  SELECT to_char(days.day, 'YYYY-MM-DD') AS date, ${hours('g.rt')} AS average_response_time, ${sla('g.met', 'g.judged')} AS sla_compliance,
         coalesce(r.resolved, 0)::int AS resolved_conversations, coalesce(g.unassigned, 0)::int AS unassigned_messages
  FROM days LEFT JOIN g ON g.day = days.day LEFT JOIN r ON r.day = days.day ORDER BY days.day`,
);

// The rolled quarter hours of :rs..:re a change made after their rollup (or that have no row).
export const STALE_BUCKETS = `
  SELECT c.bucket FROM unnest(:rs::timestamptz[], :re::timestamptz[]) k(s, e)
  JOIN messaging_message_fact_changes c ON c.bucket >= k.s AND c.bucket < k.e
  LEFT JOIN analytics_message_rollups r ON r.organization_id = c.organization_id AND r.bucket = c.bucket
  WHERE r.bucket IS NULL OR NOT pg_visible_in_snapshot(c.changed_xid, r.rolled_in)`;

export const ROLLUP_STATE = `SELECT rolled_until, target_minutes, schedule FROM analytics_rollup_state`;

// Local midnights strictly inside the period (by day only): quarter hours must not straddle them.
export const DAY_BOUNDS = `
  SELECT coalesce(array_agg(d::date::timestamp AT TIME ZONE :tz ORDER BY d), '{}') AS bounds
  FROM generate_series(:first::date + 1, :last::date, interval '1 day') d`;
