import { column, COMMON_COLUMNS, declareTable, type RowOf } from '@engage/shared-kernel';

const { uuid, uuidOrNull, text, textOrNull, at, atOrNull } = COMMON_COLUMNS;
const write = { api: 'write' } as const;

// Segments: a name and a filter over contacts in the data API's grammar, checked when saved (the
// writer), run with the reader's row-level security.
export const SEGMENTS = declareTable({
  name: 'segments',
  columns: {
    id: uuid,
    organization_id: uuid,
    name: column('text', write),
    filter: column('text', write),
    created_by: uuidOrNull,
    created_at: at,
    updated_at: at,
  },
});

// One row per contact of a started broadcast, written once when it starts; read-only through the
// data API. `queued_at` is when the recipient's message was stored in messaging's paced queue (null:
// not handed over yet).
export const BROADCAST_RECIPIENTS = declareTable({
  name: 'broadcast_recipients',
  columns: {
    id: uuid,
    organization_id: uuid,
    broadcast_id: uuid,
    contact_id: uuid,
    phone: textOrNull,
    message_id: uuidOrNull,
    status: text,
    error: textOrNull,
    queued_at: atOrNull,
    sent_at: atOrNull,
    delivered_at: atOrNull,
    read_at: atOrNull,
    failed_at: atOrNull,
    replied_at: atOrNull,
    created_at: at,
    updated_at: at,
  },
});

export type SegmentRow = RowOf<typeof SEGMENTS>;
export type RecipientRow = RowOf<typeof BROADCAST_RECIPIENTS>;
