import { column, COMMON_COLUMNS, declareTable, type RowOf } from '@engage/shared-kernel';

const { uuid, uuidOrNull, text, textOrNull, at, atOrNull } = COMMON_COLUMNS;
const integer = column('integer');
const jsonb = column('jsonb');

// Sequences, read-only through the data API (written through /functions/v1/campaigns/sequences):
// the current version's steps and exits.
export const SEQUENCES = declareTable({
  name: 'sequences',
  columns: {
    id: uuid,
    organization_id: uuid,
    name: text,
    channel_account_id: uuid,
    channel_kind: text,
    status: text,
    version: integer,
    steps: jsonb,
    exit_on: jsonb,
    activated_at: atOrNull,
    paused_at: atOrNull,
    created_by: uuidOrNull,
    created_at: at,
    updated_at: at,
  },
});

// One row per contact's run through a sequence, on the version it was enrolled on; read-only through
// the data API. `current_step` is the number of steps handed to the queue.
export const SEQUENCE_ENROLLMENTS = declareTable({
  name: 'sequence_enrollments',
  columns: {
    id: uuid,
    organization_id: uuid,
    sequence_id: uuid,
    version: integer,
    contact_id: uuid,
    status: text,
    exit_reason: textOrNull,
    current_step: integer,
    next_step_at: atOrNull,
    enrolled_at: at,
    last_step_at: atOrNull,
    completed_at: atOrNull,
    exited_at: atOrNull,
    created_at: at,
    updated_at: at,
  },
});

export type EnrollmentRow = RowOf<typeof SEQUENCE_ENROLLMENTS>;
