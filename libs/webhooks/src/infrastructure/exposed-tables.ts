// The webhook tables the data API serves. The configuration's `secret` column holds only the mask
// (e.g. whsec_****abcd); the sealed secret is not declared here, so no request can read it.
const configurations = {
  name: 'webhook_configurations',
  writable: true,
  columns: {
    id: 'uuid', organization_id: 'uuid', name: 'text', url: 'text', events: 'text[]', secret: 'text', is_active: 'bool', disabled_reason: 'text',
    failing_since: 'timestamptz', created_by: 'uuid', created_at: 'timestamptz', updated_at: 'timestamptz',
  },
  // A generated secret is answered in full once, by the POST that creates it.
  revealOnCreate: ['secret'],
} as const;

const logs = {
  name: 'webhook_logs',
  columns: {
    id: 'uuid', organization_id: 'uuid', webhook_id: 'uuid', delivery_id: 'uuid', event: 'text', status: 'text', response_code: 'int', error_message: 'text',
    duration_ms: 'int', attempt: 'int', created_at: 'timestamptz',
  },
  foreignKeys: [{ name: 'webhook_logs_webhook_fkey', column: 'webhook_id', references: { table: 'webhook_configurations', column: 'id' } }],
} as const;

type Exposed = { name: string; columns: Record<string, string>; foreignKeys?: readonly unknown[]; revealOnCreate?: readonly string[] };
const readableAll = <T extends Exposed>(table: T) => ({ ...table, readable: Object.keys(table.columns) });

export const WEBHOOK_TABLES = { configurations: readableAll(configurations), logs: readableAll(logs) };
