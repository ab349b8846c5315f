import { tableDefinition } from '@engage/platform';
import { column, COMMON_COLUMNS, declareTable } from '@engage/shared-kernel';

// The webhook tables the data API serves, every column declared once (a test compares the
// declarations with the database). The configuration's `secret` column holds only the mask (e.g.
// whsec_****abcd); the sealed secret is declared hidden, so no request can read it.

const { uuid, textOrNull, at } = COMMON_COLUMNS;
const write = { api: 'write' } as const;

export const WEBHOOK_CONFIGURATIONS = declareTable({
  name: 'webhook_configurations',
  columns: {
    id: uuid,
    organization_id: uuid,
    name: column('text', write),
    url: column('text', write),
    events: column('text[]', write),
    secret: column('text', { nullable: true, api: 'write' }),
    secret_sealed: column('text', { nullable: true, api: 'hidden' }),
    is_active: column('boolean', write),
    disabled_reason: textOrNull,
    failing_since: column('timestamptz', { nullable: true }),
    created_by: column('uuid', { nullable: true }),
    created_at: at,
    updated_at: at,
  },
});

export const WEBHOOK_LOGS = declareTable({
  name: 'webhook_logs',
  columns: {
    id: uuid,
    organization_id: uuid,
    webhook_id: uuid,
    delivery_id: column('uuid', { nullable: true }),
    event: column('text'),
    status: column('text'),
    response_code: column('integer', { nullable: true }),
    error_message: textOrNull,
    duration_ms: column('integer', { nullable: true }),
    attempt: column('integer', { nullable: true }),
    created_at: at,
  },
});

export const WEBHOOK_TABLES = {
  // A generated secret is answered in full once, by the POST that creates it.
  configurations: tableDefinition(WEBHOOK_CONFIGURATIONS, { writable: true, revealOnCreate: ['secret'] }),
  logs: tableDefinition(WEBHOOK_LOGS, {
    foreignKeys: [{ name: 'webhook_logs_webhook_fkey', column: 'webhook_id', references: { table: 'webhook_configurations', column: 'id' } }],
  }),
};
