import { rowList } from '@engage/platform';
import type { RowOf } from '@engage/shared-kernel';
import { CHANNEL_ACCOUNTS } from '../infrastructure/exposed-tables';
import { queuedWithTurns, SERVING_ORDER } from './queue.sql';

// SQL of the queue's endpoints (docs/messaging.md, "The queue's endpoints"). Every statement runs
// inside Database.inTenant: row-level security keeps each organization to its own accounts.

export type QueueAccountRecord = RowOf<typeof CHANNEL_ACCOUNTS>;

const ACCOUNT = rowList(CHANNEL_ACCOUNTS);

export const QUEUE_ACCOUNT_BY_ID = `SELECT ${ACCOUNT} FROM channel_accounts WHERE id = $1`;
export const QUEUE_ACCOUNT_FOR_UPDATE = `SELECT ${ACCOUNT} FROM channel_accounts WHERE id = $1 FOR UPDATE`;
export const QUEUE_ACCOUNTS = `SELECT ${ACCOUNT} FROM channel_accounts ORDER BY created_at, id`;

// $2: the checked overrides to merge over the stored ones; $3 true: drop every stored override first.
// The queue's sleep is cleared, so its next send is weighed under the new policy.
export const SET_PACING = `
  UPDATE channel_accounts SET pacing = CASE WHEN $3 THEN '{}'::jsonb ELSE pacing END || $2::jsonb, next_send_at = NULL, updated_at = now()
  WHERE id = $1 RETURNING ${ACCOUNT}`;

export const SET_ACTIVE = `UPDATE channel_accounts SET is_active = $2, updated_at = now() WHERE id = $1 RETURNING ${ACCOUNT}`;

// A manual pause keeps the moment of the first pause; the reason is the latest one given.
export const PAUSE_ACCOUNT = `
  UPDATE channel_accounts SET paused_at = coalesce(paused_at, now()), paused_reason = $2, updated_at = now()
  WHERE id = $1 RETURNING ${ACCOUNT}`;

// Resumed: the run of failures and the queue's sleep start afresh, so the next pass may send.
export const RESUME_ACCOUNT = `
  UPDATE channel_accounts SET paused_at = NULL, paused_reason = NULL, consecutive_failures = 0, next_send_at = NULL, updated_at = now()
  WHERE id = $1 RETURNING ${ACCOUNT}`;

// Queued messages by account and origin, with how many go to a recipient who has not written for
// 24 h (cold: the longer gap).
export const QUEUE_DEPTHS = `
  SELECT m.channel_account_id, m.origin, count(*)::int AS queued,
         count(*) FILTER (WHERE c.last_customer_message_at IS NULL OR c.last_customer_message_at <= $1::timestamptz - interval '24 hours')::int AS cold
  FROM messages m JOIN conversations c ON c.id = m.conversation_id
  WHERE m.status = 'QUEUED' GROUP BY m.channel_account_id, m.origin`;

// What the caps count (as the queue's ACCOUNT_SENDS): the accounts' sends handed to the provider in
// the 24 h before $2, which of them automated.
export const RECENT_SENDS = `
  SELECT channel_account_id, dispatched_at AS at, origin NOT IN ('agent', 'api', 'scheduled') AS automated FROM messages
  WHERE channel_account_id = ANY($1::uuid[]) AND dispatched_at > $2::timestamptz - interval '24 hours' AND dispatched_at <= $2::timestamptz`;

export interface QueueItemRow {
  id: string;
  channel_account_id: string;
  conversation_id: string;
  contact_id: string;
  status: string;
  origin: string;
  origin_id: string | null;
  content: string;
  media: unknown;
  scheduled_for: Date | null;
  created_at: Date;
  position: string;
}

// Messages of status $2 in the queue's serving order (SERVING_ORDER, the worker's), each with its
// position in its account's whole queue, so a filter by origin keeps the positions; then the page,
// the k-th of every account before the k+1-th. $1 the account or null, $3 the origin or null,
// $4 limit, $5 offset.
const RANKED = `
  SELECT m.id, m.channel_account_id, m.conversation_id, m.contact_id, m.status, m.origin, m.origin_id, m.content, m.media, m.scheduled_for,
         m.created_at, row_number() OVER (PARTITION BY m.channel_account_id ORDER BY ${SERVING_ORDER}) AS position
  FROM (${queuedWithTurns(
    "q.status = $2 AND q.direction = 'OUTBOUND' AND ($1::uuid IS NULL OR q.channel_account_id = $1::uuid)",
    '($1::uuid IS NULL OR channel_account_id = $1::uuid)',
    'now()',
  )}) m`;

export const QUEUE_ITEMS = `
  SELECT id, channel_account_id, conversation_id, contact_id, status, origin, origin_id, content, media, scheduled_for, created_at, position
  FROM (${RANKED}) ranked WHERE ($3::text IS NULL OR origin = $3)
  ORDER BY position, channel_account_id LIMIT $4 OFFSET $5`;

export const QUEUE_ITEMS_TOTAL = `
  SELECT count(*)::int AS total FROM messages
  WHERE status = $2 AND direction = 'OUTBOUND' AND ($1::uuid IS NULL OR channel_account_id = $1::uuid) AND ($3::text IS NULL OR origin = $3)`;
