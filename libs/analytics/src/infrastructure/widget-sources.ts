import { type Registry, registryFor, type TableDefinition } from '@engage/data-api';
import type { ColumnType } from '@engage/platform';
import type { WidgetSourceShape } from '../domain/widget-config';
import { both, type RuleName } from './response.sql';

// The tables a widget may read, by the names the data API serves them under. A widget may use every
// column the data API serves for its table to the member (the owner's declaration, declareTable,
// narrowed by the member's role), with the data API's operators, plus the figures analytics derives
// from messaging's and the CRM's published views (response_seconds, outcome, closed_at...), which
// the data API does not serve. A name or column outside that set is refused before any SQL is
// built; values only ever reach SQL as parameters.
// Placeholders of the facts: :target (the response target), :now, and with business hours :tz,
// :hours and :due (response.sql.ts), bound by the caller.

// A table's facts: the published view's columns (with what analytics derives from them).
interface Facts {
  columns: Record<string, ColumnType>;
  // By response rule (response.sql.ts): only messages' response figures depend on it.
  from: Record<RuleName, string>;
}

const facts = (columns: Record<string, ColumnType>, from: string | Record<RuleName, string>): Facts => ({
  columns,
  from: typeof from === 'string' ? { every: from, business: from } : from,
});

const FACTS: Readonly<Record<string, Facts>> = {
  messages: facts(
    {
      id: 'uuid',
      conversation_id: 'uuid',
      contact_id: 'uuid',
      channel_kind: 'text',
      direction: 'text',
      sender_type: 'text',
      status: 'text',
      created_at: 'timestamptz',
      assignee_id: 'uuid',
      conversation_status: 'text',
      first_reply_at: 'timestamptz',
      response_seconds: 'numeric',
      sla_met_percent: 'int',
    },
    both(
      (rule) => `
     SELECT f.id, f.conversation_id, f.contact_id, f.channel_kind, f.direction, f.sender_type, f.status, f.created_at, f.assignee_id,
            f.conversation_status, f.first_reply_at, ${rule.seconds} AS response_seconds,
            CASE WHEN f.direction <> 'INBOUND' THEN NULL
                 WHEN f.first_reply_at IS NOT NULL THEN CASE WHEN ${rule.within} THEN 100 ELSE 0 END
                 WHEN ${rule.past} THEN 0 END AS sla_met_percent
     FROM messaging_message_facts f`,
    ),
  ),
  conversations: facts(
    {
      id: 'uuid',
      contact_id: 'uuid',
      channel_kind: 'text',
      status: 'text',
      assignee_id: 'uuid',
      created_at: 'timestamptz',
      last_message_at: 'timestamptz',
      last_customer_message_at: 'timestamptz',
      resolved_at: 'timestamptz',
    },
    `SELECT id, contact_id, channel_kind, status, assignee_id, created_at, last_message_at, last_customer_message_at, resolved_at
     FROM messaging_conversation_facts`,
  ),
  deals: facts(
    {
      id: 'uuid',
      pipeline_id: 'uuid',
      pipeline_name: 'text',
      stage: 'text',
      stage_name: 'text',
      outcome: 'text',
      value: 'numeric',
      currency: 'text',
      owner_id: 'uuid',
      created_at: 'timestamptz',
      closed_at: 'timestamptz',
    },
    `SELECT id, pipeline_id, pipeline_name, stage, stage_name, outcome, value, currency, owner_id, created_at, closed_at FROM crm_deal_facts`,
  ),
  contacts: facts(
    { id: 'uuid', company_id: 'uuid', assignee_id: 'uuid', source: 'text', created_at: 'timestamptz' },
    `SELECT id, company_id, assignee_id, source, created_at FROM crm_contact_facts`,
  ),
};

// A widget table as one member sees it.
export interface WidgetSource extends WidgetSourceShape {
  // The data API's name of the table.
  table: string;
  // What the data API's parser checks a widget's filters against: the served columns the member
  // reads and the derived ones, with the table's value normalisers (contacts.phones).
  definition: TableDefinition;
  facts: Facts;
  // Columns only the data API's table has (read from it, joined by id, when a widget names one).
  served: ReadonlySet<string>;
  // Columns of the table the member's role does not read (others may): part of a cached value's key.
  hidden: string;
}

const byRole = new WeakMap<Registry, Map<string, Readonly<Record<string, WidgetSource>>>>();

// The widget tables for a member of `role`: the data API's columns of each (none when the app serves
// no such table) and the facts' columns it does not serve. Built once per registry and role.
export function widgetSources(registry: Registry, role: string): Readonly<Record<string, WidgetSource>> {
  let roles = byRole.get(registry);
  if (!roles) byRole.set(registry, (roles = new Map()));
  let sources = roles.get(role);
  if (!sources) roles.set(role, (sources = build(registry, registryFor(registry, role))));
  return sources;
}

function build(all: Registry, mine: Registry): Record<string, WidgetSource> {
  const sources: Record<string, WidgetSource> = {};
  for (const [name, own] of Object.entries(FACTS)) {
    const table = mine.tables.get(name);
    const servedColumns = all.tables.get(name)?.columns ?? {};
    const readable = table?.readable ?? [];
    const derived = Object.keys(own.columns).filter((column) => !(column in servedColumns));
    const columns: Record<string, ColumnType> = { ...Object.fromEntries(readable.map((column) => [column, servedColumns[column]])) };
    for (const column of derived) columns[column] = own.columns[column];
    const names = Object.keys(columns);
    sources[name] = {
      table: name,
      definition: { name, columns, readable: names, normalizers: table?.normalizers },
      facts: own,
      served: new Set(readable.filter((column) => !(column in own.columns))),
      hidden: Object.keys(servedColumns)
        .filter((column) => !readable.includes(column))
        .join(','),
      columns: names,
      numeric: names.filter((column) => columns[column] === 'int' || columns[column] === 'numeric'),
      times: names.filter((column) => columns[column] === 'timestamptz'),
      defaultTime: 'created_at',
    };
  }
  return sources;
}

// The rows a widget reads, with every column it names: the facts, joined by id to the data API's
// table (the same rows, under the same row-level security) only when it names a column only the
// table has, so the built-in figures keep their plans. Identifiers come from the registry.
export function sourceSql(source: WidgetSource, named: Iterable<string>, rule: RuleName): string {
  const extra = [...new Set(named)].filter((column) => source.served.has(column));
  const from = source.facts.from[rule];
  if (extra.length === 0) return from;
  return `SELECT f.*, ${extra.map((column) => `d."${column}"`).join(', ')} FROM (${from}) f JOIN "${source.table}" d ON d.id = f.id`;
}

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
