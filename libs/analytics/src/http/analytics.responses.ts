import { json } from '@engage/platform';

const { text, number, integer, nullable, object, arrayOf } = json;

// Hours with two decimals ("1.50"), null when no customer message of the period was answered.
const HOURS = nullable(text);
const PERCENT = nullable(number);
const DATE = { type: 'string', format: 'date' };

export const METRICS_ANSWER = object(
  {
    metrics: object({
      total_messages: integer,
      average_response_time: HOURS,
      sla_compliance: PERCENT,
      total_contacts: integer,
      period_comparison: object({ messages_change: PERCENT, response_time_change: PERCENT, sla_change: PERCENT, contacts_change: PERCENT }),
    }),
    series: arrayOf(object({ date: DATE, total_messages: integer, average_response_time: HOURS, sla_compliance: PERCENT, total_contacts: integer })),
  },
  ['series'],
);

export const INBOX_ANSWER = object(
  {
    inbox_metrics: object({
      average_response_time: HOURS,
      sla_compliance: PERCENT,
      resolved_conversations: integer,
      unassigned_messages: integer,
      overdue_conversations: integer,
    }),
    series: arrayOf(
      object({ date: DATE, average_response_time: HOURS, sla_compliance: PERCENT, resolved_conversations: integer, unassigned_messages: integer }),
    ),
  },
  ['series'],
);

export const DEALS_ANSWER = object(
  {
    deals_metrics: object({
      active_deals_count: integer,
      pipeline_value: number,
      conversion_rate: PERCENT,
      stage_distribution: { type: 'object', additionalProperties: integer },
    }),
    series: arrayOf(object({ date: DATE, new_deals: integer, deals_won: integer, deals_lost: integer, won_value: number, conversion_rate: PERCENT })),
  },
  ['series'],
);
