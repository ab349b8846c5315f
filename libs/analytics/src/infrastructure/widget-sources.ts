import type { ColumnType, TableDefinition } from '@engage/platform';
import type { WidgetSourceShape } from '../domain/widget-config';
import { both, type RuleName } from './response.sql';

// The only tables a widget may read: the published views of messaging and the CRM, under the
// names a widget config uses, each with the columns it may filter and aggregate. A name or column
// not here is refused before any SQL is built; values only ever reach SQL as parameters.
// Placeholders: :target (the response target), :now, and with business hours :tz, :hours and
// :due (response.sql.ts), bound by the caller.

interface WidgetSource extends WidgetSourceShape {
  definition: TableDefinition;
  // By response rule (response.sql.ts): only messages' response figures depend on it.
  from: Record<RuleName, string>;
}

function source(name: string, columns: Record<string, ColumnType>, from: string | Record<RuleName, string>, defaultTime: string): WidgetSource {
  const names = Object.keys(columns);
  return {
    definition: { name, columns, readable: names },
    from: typeof from === 'string' ? { every: from, business: from } : from,
    columns: names,
    numeric: names.filter((column) => columns[column] === 'int' || columns[column] === 'numeric'),
    times: names.filter((column) => columns[column] === 'timestamptz'),
    defaultTime,
  };
}

export const WIDGET_SOURCES: Readonly<Record<string, WidgetSource>> = {
  messages: source(
    'messages',
    {
      id: 'uuid', conversation_id: 'uuid', contact_id: 'uuid', channel_kind: 'text', direction: 'text', sender_type: 'text', status: 'text',
      created_at: 'timestamptz', assignee_id: 'uuid', conversation_status: 'text', first_reply_at: 'timestamptz',
      response_seconds: 'numeric', sla_met_percent: 'int',
    },
    both((rule) => `
     SELECT f.id, f.conversation_id, f.contact_id, f.channel_kind, f.direction, f.sender_type, f.status, f.created_at, f.assignee_id,
            f.conversation_status, f.first_reply_at, ${rule.seconds} AS response_seconds,
            CASE WHEN f.direction <> 'INBOUND' THEN NULL
                 WHEN f.first_reply_at IS NOT NULL THEN CASE WHEN ${rule.within} THEN 100 ELSE 0 END
                 WHEN ${rule.past} THEN 0 END AS sla_met_percent
     FROM messaging_message_facts f`),
    'created_at',
  ),
  conversations: source(
    'conversations',
    {
      id: 'uuid', contact_id: 'uuid', channel_kind: 'text', status: 'text', assignee_id: 'uuid', created_at: 'timestamptz',
      last_message_at: 'timestamptz', last_customer_message_at: 'timestamptz', resolved_at: 'timestamptz',
    },
    `SELECT id, contact_id, channel_kind, status, assignee_id, created_at, last_message_at, last_customer_message_at, resolved_at
     FROM messaging_conversation_facts`,
    'created_at',
  ),
  deals: source(
    'deals',
    {
      id: 'uuid', pipeline_id: 'uuid', pipeline_name: 'text', stage: 'text', stage_name: 'text', outcome: 'text', value: 'numeric',
      currency: 'text', owner_id: 'uuid', created_at: 'timestamptz', closed_at: 'timestamptz',
    },
    `SELECT id, pipeline_id, pipeline_name, stage, stage_name, outcome, value, currency, owner_id, created_at, closed_at FROM crm_deal_facts`,
    'created_at',
  ),
  contacts: source(
    'contacts',
    { id: 'uuid', company_id: 'uuid', assignee_id: 'uuid', source: 'text', created_at: 'timestamptz' },
    `SELECT id, company_id, assignee_id, source, created_at FROM crm_contact_facts`,
    'created_at',
  ),
};

// A built-in widget as a custom one: its table, aggregation, column, fixed filter and time column
// (none: a state now, whatever the date range).
export interface BuiltIn {
  table: string;
  aggregation: 'Count' | 'Sum' | 'Average';
  column?: string;
  filter: string;
  time: string | null;
}

export const BUILT_INS: Readonly<Record<string, BuiltIn>> = {
  incoming_messages: { table: 'messages', aggregation: 'Count', filter: 'direction=eq.INBOUND', time: 'created_at' },
  open_conversations: { table: 'conversations', aggregation: 'Count', filter: 'status=neq.RESOLVED', time: null },
  response_time: { table: 'messages', aggregation: 'Average', column: 'response_seconds', filter: 'direction=eq.INBOUND', time: 'created_at' },
  sla: { table: 'messages', aggregation: 'Average', column: 'sla_met_percent', filter: 'direction=eq.INBOUND', time: 'created_at' },
  pipeline_value: { table: 'deals', aggregation: 'Sum', column: 'value', filter: 'closed_at=is.null', time: null },
  deals_won: { table: 'deals', aggregation: 'Count', filter: 'outcome=eq.won', time: 'closed_at' },
  new_contacts: { table: 'contacts', aggregation: 'Count', filter: '', time: 'created_at' },
};
