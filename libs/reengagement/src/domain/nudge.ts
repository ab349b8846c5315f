import { column, COMMON_COLUMNS, declareTable, type RowOf, type ViewOf } from '@engage/shared-kernel';

// A nudge's life (docs/reengagement.md, the spec's §3): `drafting` while the AI writes it, `draft`
// when it waits for an agent's approval (approval mode), `queued` while its message waits in the
// account's paced queue (most leave at once), then `sent`, `skipped`, `expired` (the
// window closed first), `failed` (no usable text, or the send was refused), or `user_replied` (the
// customer wrote while it was open).
export const NUDGE_STATUSES = ['drafting', 'draft', 'queued', 'sent', 'skipped', 'expired', 'failed', 'user_replied'] as const;
export type NudgeStatus = (typeof NUDGE_STATUSES)[number];

export const isNudgeStatus = (value: unknown): value is NudgeStatus => NUDGE_STATUSES.includes(value as NudgeStatus);

const { uuid, uuidOrNull, text, textOrNull, at, atOrNull } = COMMON_COLUMNS;

// Served read-only by the data API to the organization's members.
export const REENGAGEMENT_NUDGES = declareTable({
  name: 'reengagement_nudges',
  columns: {
    id: uuid,
    organization_id: uuid,
    conversation_id: uuid,
    contact_id: uuid,
    status: text,
    text: textOrNull,
    provider: textOrNull,
    fallback_reason: textOrNull,
    failure_reason: textOrNull,
    last_customer_message_at: at,
    window_closes_at: at,
    message_id: uuidOrNull,
    reviewed_by: uuidOrNull,
    created_at: at,
    updated_at: at,
    sent_at: atOrNull,
    replied_at: atOrNull,
  },
});

// Per conversation: consecutive unanswered nudges and whether re-engagement is off there.
export const REENGAGEMENT_CONVERSATIONS = declareTable({
  name: 'reengagement_conversations',
  columns: {
    id: uuid,
    organization_id: uuid,
    conversation_id: uuid,
    unanswered_count: column('integer'),
    disabled_at: atOrNull,
    disabled_reason: textOrNull,
    updated_at: at,
  },
});

export type NudgeRow = RowOf<typeof REENGAGEMENT_NUDGES>;
export type NudgeView = ViewOf<typeof REENGAGEMENT_NUDGES>;

// After this many consecutive unanswered nudges a conversation is not nudged again (§8).
export const MAX_UNANSWERED = 3;
