import { column, COMMON_COLUMNS, declareTable, type RowOf, type ViewOf } from '@engage/shared-kernel';

// A call record (spec §2, §3), every column declared once: the data API serves the table read-only
// and a test compares the declaration with the migrated database.

export const CALL_STATUSES = ['received', 'transcribing', 'analyzing', 'completed', 'failed', 'transcription_unavailable'] as const;
export type CallStatus = (typeof CALL_STATUSES)[number];
export const CALL_SOURCES = ['mobile', 'meeting'] as const;
export type CallSource = (typeof CALL_SOURCES)[number];
export const CALL_DIRECTIONS = ['inbound', 'outbound'] as const;
export type CallDirection = (typeof CALL_DIRECTIONS)[number];

// The column limits of the migration, for the request's validation.
export const CALL_LIMITS = { customerPhone: 64, agentIdentifier: 320, notes: 10000, recordingUrl: 2048, maxDurationSeconds: 86400 } as const;

const { uuid, uuidOrNull, text, textOrNull, at, atOrNull } = COMMON_COLUMNS;

export const CALL_RECORDS = declareTable({
  name: 'call_records',
  columns: {
    id: uuid,
    organization_id: uuid,
    status: text,
    failure_reason: textOrNull,
    source: text,
    contact_id: uuidOrNull,
    customer_phone: textOrNull,
    agent_identifier: textOrNull,
    agent_user_id: uuidOrNull,
    duration_seconds: column('integer', { nullable: true }),
    call_timestamp: at,
    direction: text,
    notes: textOrNull,
    recording_url: textOrNull,
    recording_key: textOrNull,
    recording_content_type: textOrNull,
    recording_bytes: column('bigint', { nullable: true }),
    transcription: textOrNull,
    analysis: column('jsonb', { nullable: true }),
    meeting: column('jsonb', { nullable: true }),
    attempts: column('integer'),
    processing_started_at: atOrNull,
    completed_at: atOrNull,
    created_at: at,
    updated_at: at,
  },
});

export type CallRecordRow = RowOf<typeof CALL_RECORDS>;
export type CallRecordView = ViewOf<typeof CALL_RECORDS>;
