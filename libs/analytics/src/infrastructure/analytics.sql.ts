import { both, type ResponseRule } from './response.sql';

// The figures of docs/analytics.md, computed in SQL over the published views of messaging and the
// CRM (never their tables), under the caller's row-level security. Reports serve metrics and inbox
// from rollups (report.sql.ts); these direct statements are the definition they must equal (tests).
// Named parameters (sql-params.ts): start, end, prev (the previous period's start), target (the
// response target, an interval), now; by day also tz (the time zone), first and last (local days);
// with business hours also tz, hours and due (response.sql.ts). Each statement comes in both forms.

// Per customer message: its response time (seconds) when answered, and whether it met the target
// (true), missed it (false: answered late, or unanswered past the target) or is still pending
// (null; also for agent messages, whose first_reply_at is always null). Measured by `rule`.
export const customerMessage = (rule: ResponseRule) => `
  ${rule.seconds} AS response_seconds,
  CASE WHEN f.direction <> 'INBOUND' THEN NULL
       WHEN f.first_reply_at IS NOT NULL THEN ${rule.within}
       WHEN ${rule.past} THEN false END AS met`;

// Percent change of a figure against the previous period; null when the previous one is 0 or unknown.
export const change = (current: string, previous: string) =>
  `round(((${current}) - (${previous}))::numeric * 100 / nullif((${previous})::numeric, 0), 2)::float8`;
export const hours = (seconds: string) => `to_char(round((${seconds})::numeric / 3600, 2), 'FM9999999990.00')`;
export const sla = (met: string, judged: string) => `round((${met})::numeric * 100 / nullif(${judged}, 0), 2)::float8`;

// The end of both metrics statements (direct and rollups), after their message figures `g`: the
// contacts of both periods, the SLA percentages and the answer's row.
export const METRICS_TAIL = `
  c AS (
    SELECT count(*) FILTER (WHERE created_at >= :start) AS contacts, count(*) FILTER (WHERE created_at < :start) AS contacts_prev
    FROM crm_contact_facts WHERE created_at >= :prev AND created_at < :end
  ), r AS (
    SELECT g.*, c.*, ${sla('met', 'judged')} AS sla, ${sla('met_prev', 'judged_prev')} AS sla_prev FROM g, c
  )
  SELECT messages::int AS total_messages, ${hours('rt')} AS average_response_time, sla AS sla_compliance, contacts::int AS total_contacts,
         ${change('messages', 'messages_prev')} AS messages_change, ${change('rt', 'rt_prev')} AS response_time_change,
         ${change('sla', 'sla_prev')} AS sla_change, ${change('contacts', 'contacts_prev')} AS contacts_change
  FROM r`;

export const METRICS = both(
  (rule) => `
  WITH m AS (
    SELECT f.created_at >= :start AS cur, ${customerMessage(rule)}
    FROM messaging_message_facts f WHERE f.created_at >= :prev AND f.created_at < :end
  ), g AS (
    SELECT count(*) FILTER (WHERE cur) AS messages, count(*) FILTER (WHERE NOT cur) AS messages_prev,
           avg(response_seconds) FILTER (WHERE cur) AS rt, avg(response_seconds) FILTER (WHERE NOT cur) AS rt_prev,
           count(*) FILTER (WHERE cur AND met) AS met, count(met) FILTER (WHERE cur) AS judged,
           count(*) FILTER (WHERE NOT cur AND met) AS met_prev, count(met) FILTER (WHERE NOT cur) AS judged_prev
    FROM m
  ), ${METRICS_TAIL}`,
);

export const DAYS = `SELECT d::date AS day FROM generate_series(:first::date, :last::date, interval '1 day') d`;
export const localDay = (column: string) => `(${column} AT TIME ZONE :tz)::date`;

export const METRICS_BY_DAY = both(
  (rule) => `
  WITH days AS (${DAYS}), m AS (
    SELECT ${localDay('f.created_at')} AS day, ${customerMessage(rule)}
    FROM messaging_message_facts f WHERE f.created_at >= :start AND f.created_at < :end
  ), g AS (
    SELECT day, count(*) AS messages, avg(response_seconds) AS rt, count(*) FILTER (WHERE met) AS met, count(met) AS judged FROM m GROUP BY day
  ), c AS (
    SELECT ${localDay('created_at')} AS day, count(*) AS contacts FROM crm_contact_facts WHERE created_at >= :start AND created_at < :end GROUP BY 1
  )
  SELECT to_char(days.day, 'YYYY-MM-DD') AS date, coalesce(g.messages, 0)::int AS total_messages, ${hours('g.rt')} AS average_response_time,
         ${sla('g.met', 'g.judged')} AS sla_compliance, coalesce(c.contacts, 0)::int AS total_contacts
  FROM days LEFT JOIN g ON g.day = days.day LEFT JOIN c ON c.day = days.day ORDER BY days.day`,
);

export const INBOX = both(
  (rule) => `
  WITH m AS (
    SELECT f.conversation_id, f.assignee_id, f.conversation_status, f.first_reply_at, ${customerMessage(rule)}
    FROM messaging_message_facts f WHERE f.direction = 'INBOUND' AND f.created_at >= :start AND f.created_at < :end
  ), g AS (
    SELECT avg(response_seconds) AS rt, count(*) FILTER (WHERE met) AS met, count(met) AS judged,
           count(*) FILTER (WHERE assignee_id IS NULL) AS unassigned,
           count(DISTINCT conversation_id) FILTER (WHERE conversation_status <> 'RESOLVED' AND first_reply_at IS NULL AND met = false) AS overdue
    FROM m
  )
  SELECT ${hours('rt')} AS average_response_time, ${sla('met', 'judged')} AS sla_compliance,
         (SELECT count(*) FROM messaging_conversation_facts WHERE resolved_at >= :start AND resolved_at < :end)::int AS resolved_conversations,
         unassigned::int AS unassigned_messages, overdue::int AS overdue_conversations
  FROM g`,
);

export const INBOX_BY_DAY = both(
  (rule) => `
  WITH days AS (${DAYS}), m AS (
    SELECT ${localDay('f.created_at')} AS day, f.assignee_id, ${customerMessage(rule)}
    FROM messaging_message_facts f WHERE f.direction = 'INBOUND' AND f.created_at >= :start AND f.created_at < :end
  ), g AS (
    SELECT day, avg(response_seconds) AS rt, count(*) FILTER (WHERE met) AS met, count(met) AS judged,
           count(*) FILTER (WHERE assignee_id IS NULL) AS unassigned FROM m GROUP BY day
  ), r AS (
    SELECT ${localDay('resolved_at')} AS day, count(*) AS resolved FROM messaging_conversation_facts
    WHERE resolved_at >= :start AND resolved_at < :end GROUP BY 1
  )
  SELECT to_char(days.day, 'YYYY-MM-DD') AS date, ${hours('g.rt')} AS average_response_time, ${sla('g.met', 'g.judged')} AS sla_compliance,
         coalesce(r.resolved, 0)::int AS resolved_conversations, coalesce(g.unassigned, 0)::int AS unassigned_messages
  FROM days LEFT JOIN g ON g.day = days.day LEFT JOIN r ON r.day = days.day ORDER BY days.day`,
);
