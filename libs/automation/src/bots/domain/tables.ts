import { column, COMMON_COLUMNS, declareTable, type RowOf } from '@engage/shared-kernel';

const { uuid, uuidOrNull, textOrNull, at, atOrNull } = COMMON_COLUMNS;
const write = { api: 'write' } as const;

// Bot flows, written through /rest/v1/bot_flows by OWNER and ADMIN (checked by the flow validator),
// read by every member. `published_version` is set by publishing (POST .../bots/<id>/publish).
export const BOT_FLOWS = declareTable({
  name: 'bot_flows',
  columns: {
    id: uuid,
    organization_id: uuid,
    name: column('text', write),
    channel_account_ids: column('text[]', write),
    trigger: column('jsonb', write),
    definition: column('jsonb', write),
    is_active: column('boolean', write),
    settings: column('jsonb', write),
    published_version: column('integer', { nullable: true }),
    published_at: atOrNull,
    created_by: uuidOrNull,
    created_at: at,
    updated_at: at,
  },
});

// Each published version of a flow, immutable; read-only through the data API.
export const BOT_FLOW_VERSIONS = declareTable({
  name: 'bot_flow_versions',
  columns: {
    id: uuid,
    organization_id: uuid,
    bot_flow_id: uuid,
    version: column('integer'),
    definition: column('jsonb'),
    settings: column('jsonb'),
    published_by: uuidOrNull,
    published_at: at,
  },
});

export const SESSION_STATUSES = ['active', 'waiting', 'handed_off', 'completed', 'expired', 'stopped'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];
export const OPEN_STATUSES: readonly SessionStatus[] = ['active', 'waiting'];

// A conversation's run of a flow's version; read-only through the data API. The answer being
// gathered and the deadlines are the runtime's (hidden).
export const BOT_SESSIONS = declareTable({
  name: 'bot_sessions',
  columns: {
    id: uuid,
    organization_id: uuid,
    conversation_id: uuid,
    contact_id: uuidOrNull,
    bot_flow_id: uuid,
    version: column('integer'),
    status: column('text'),
    end_reason: textOrNull,
    current_node: textOrNull,
    variables: column('jsonb'),
    retries: column('integer'),
    handed_to: uuidOrNull,
    pending: column('jsonb', { api: 'hidden' }),
    answer_due_at: column('timestamptz', { nullable: true, api: 'hidden' }),
    waiting_since: column('timestamptz', { nullable: true, api: 'hidden' }),
    timeout_at: atOrNull,
    expires_at: at,
    started_at: at,
    updated_at: at,
  },
});

export type BotFlowRow = RowOf<typeof BOT_FLOWS>;
export type BotSessionRow = RowOf<typeof BOT_SESSIONS>;
