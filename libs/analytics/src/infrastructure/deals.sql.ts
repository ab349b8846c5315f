import { customerMessage } from './analytics.sql';
import { both } from './response.sql';

// Deal figures over the CRM's crm_deal_facts (docs/analytics.md): active = open now and created
// before the period ends; conversion = won / closed (won or lost) among deals closed in the period.
// A deal is open exactly when its closed_at is null (the view's contract), and the CRM indexes
// closed_at and the open deals' created_at, so each part is a range scan of one index.
export const DEALS = `
  WITH active AS (
    SELECT count(*) AS n, coalesce(sum(value), 0) AS value FROM crm_deal_facts WHERE closed_at IS NULL AND created_at < :end
  ), closed AS (
    SELECT count(*) FILTER (WHERE outcome = 'won') AS won, count(*) AS closed FROM crm_deal_facts WHERE closed_at >= :start AND closed_at < :end
  ), stages AS (
    SELECT coalesce(jsonb_object_agg(stage_name, n ORDER BY stage_name), '{}'::jsonb) AS distribution
    FROM (SELECT stage_name, count(*) AS n FROM crm_deal_facts WHERE created_at < :end GROUP BY stage_name) s
  )
  SELECT active.n::int AS active_deals_count, active.value::float8 AS pipeline_value,
         round(closed.won::numeric * 100 / nullif(closed.closed, 0), 2)::float8 AS conversion_rate, stages.distribution AS stage_distribution
  FROM active, closed, stages`;

export const DEALS_BY_DAY = `
  WITH days AS (SELECT d::date AS day FROM generate_series(:first::date, :last::date, interval '1 day') d), created AS (
    SELECT (created_at AT TIME ZONE :tz)::date AS day, count(*) AS n FROM crm_deal_facts WHERE created_at >= :start AND created_at < :end GROUP BY 1
  ), closed AS (
    SELECT (closed_at AT TIME ZONE :tz)::date AS day, count(*) FILTER (WHERE outcome = 'won') AS won, count(*) FILTER (WHERE outcome = 'lost') AS lost,
           coalesce(sum(value) FILTER (WHERE outcome = 'won'), 0) AS won_value
    FROM crm_deal_facts WHERE closed_at >= :start AND closed_at < :end GROUP BY 1
  )
  SELECT to_char(days.day, 'YYYY-MM-DD') AS date, coalesce(created.n, 0)::int AS new_deals, coalesce(closed.won, 0)::int AS deals_won,
         coalesce(closed.lost, 0)::int AS deals_lost, coalesce(closed.won_value, 0)::float8 AS won_value,
         round(closed.won::numeric * 100 / nullif(closed.won + closed.lost, 0), 2)::float8 AS conversion_rate
  FROM days LEFT JOIN created ON created.day = days.day LEFT JOIN closed ON closed.day = days.day ORDER BY days.day`;

// One row per conversation with messages in the period (the export's drill-down), a page of
// conversations at a time in id order after :after: candidates are those whose life overlaps the
// period, then their messages in it are counted through the reply index. Response times by the rule.
export const CONVERSATION_DETAIL_PAGE = both(
  (rule) => `
  WITH page AS (
    SELECT id, channel_kind, status, assignee_id, created_at, resolved_at FROM messaging_conversation_facts
    WHERE created_at < :end AND last_message_at >= :start AND id > :after::uuid ORDER BY id LIMIT :limit
  ), m AS (
    SELECT f.conversation_id, f.sender_type, f.status,
           ${customerMessage(rule)}
    FROM page JOIN messaging_message_facts f ON f.conversation_id = page.id WHERE f.created_at >= :start AND f.created_at < :end
  )
  SELECT page.id AS conversation_id, page.channel_kind, page.status, page.assignee_id, page.created_at, page.resolved_at,
         count(m.*) FILTER (WHERE m.sender_type = 'customer')::int AS customer_messages,
         count(m.*) FILTER (WHERE m.sender_type = 'agent' AND m.status <> 'FAILED')::int AS agent_messages,
         to_char(round((avg(m.response_seconds))::numeric / 3600, 2), 'FM9999999990.00') AS average_response_time,
         count(*) FILTER (WHERE m.met)::int AS sla_met, count(*) FILTER (WHERE NOT m.met)::int AS sla_missed,
         count(m.*) > 0 AS active
  FROM page LEFT JOIN m ON m.conversation_id = page.id
  GROUP BY page.id, page.channel_kind, page.status, page.assignee_id, page.created_at, page.resolved_at ORDER BY page.id`,
);
