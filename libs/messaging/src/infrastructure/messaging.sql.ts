import { rowList } from '@engage/platform';
import type { MessageOrigin } from '../domain/message-origin';
import { CONVERSATIONS, MESSAGES } from './exposed-tables';

// SQL of channel accounts, conversations and messages. Every statement runs inside
// Database.inTenant (row-level security applies) unless its name says SYSTEM.

// Whole rows, for the statements the send path runs named.
const CONVERSATION_ROW = rowList(CONVERSATIONS);
const MESSAGE_ROW = rowList(MESSAGES);

export interface ConversationRow {
  id: string;
  organization_id: string;
  contact_id: string;
  channel_account_id: string;
  status: string;
  snoozed_until: Date | null;
  assignee_id: string | null;
  last_message_at: Date | null;
  unread_count: number;
  channel_kind: string;
  last_customer_message_at: Date | null;
  window_closes_at: Date | null;
  email_subject: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface MessageRow {
  id: string;
  organization_id: string;
  conversation_id: string;
  contact_id: string;
  channel_account_id: string;
  direction: 'OUTBOUND' | 'INBOUND';
  status: string;
  content: string;
  media: { url: string; kind: string }[];
  external_id: string | null;
  metadata: Record<string, unknown>;
  error: string | null;
  email_message_id: string | null;
  origin: MessageOrigin;
  origin_id: string | null;
  scheduled_for: Date | null;
  dispatched_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface ChannelAccountRow {
  id: string;
  organization_id: string;
  kind: string;
  name: string;
  is_active: boolean;
  auto_created: boolean;
  external_account_id: string | null;
  provider_account_id: string | null;
  email_settings: Record<string, unknown> | null;
  // The paced queue: pacing overrides (over the kind's defaults), and whether and why it is paused.
  pacing: Record<string, unknown>;
  paused_at: Date | null;
  paused_reason: string | null;
  created_at: Date;
  updated_at: Date;
}

export const CHANNEL_ACCOUNT_COLUMNS =
  'id, organization_id, kind, name, is_active, auto_created, external_account_id, provider_account_id, email_settings, pacing, paused_at, paused_reason, ' +
  'created_at, updated_at';

// §4.1 step 6: the most recent active chat-app account.
export const FIRST_ACTIVE_CHANNEL = `
  SELECT ${CHANNEL_ACCOUNT_COLUMNS} FROM channel_accounts
  WHERE organization_id = app_org_id() AND is_active AND kind = 'chat_app' ORDER BY created_at DESC, id LIMIT 1`;

// The unique partial index makes concurrent first sends create one account; the loser reads it.
export const CREATE_AUTO_CHANNEL = `
  INSERT INTO channel_accounts (organization_id, kind, name, auto_created)
  VALUES (app_org_id(), 'chat_app', 'Chat app', true)
  ON CONFLICT (organization_id) WHERE auto_created DO NOTHING
  RETURNING ${CHANNEL_ACCOUNT_COLUMNS}`;

export const AUTO_CHANNEL = `SELECT ${CHANNEL_ACCOUNT_COLUMNS} FROM channel_accounts WHERE organization_id = app_org_id() AND auto_created`;

export const CHANNEL_BY_ID = `SELECT ${CHANNEL_ACCOUNT_COLUMNS} FROM channel_accounts WHERE id = $1`;

export const INSERT_CHANNEL = `
  INSERT INTO channel_accounts (organization_id, kind, name, inbound_token_hash) VALUES (app_org_id(), $1, $2, $3)
  RETURNING ${CHANNEL_ACCOUNT_COLUMNS}`;

export const INSERT_META_CHANNEL = `
  INSERT INTO channel_accounts (organization_id, kind, name, external_account_id, access_token_sealed) VALUES (app_org_id(), $1, $2, $3, $4)
  RETURNING ${CHANNEL_ACCOUNT_COLUMNS}`;

// The sealed access token: read only by the adapter that sends with it.
export const CHANNEL_SECRET = `SELECT external_account_id, access_token_sealed, is_active FROM channel_accounts WHERE id = $1`;

export const SET_CHANNEL_ACTIVE = `UPDATE channel_accounts SET is_active = $2, updated_at = now() WHERE id = $1 RETURNING ${CHANNEL_ACCOUNT_COLUMNS}`;

export const CHANNEL_KIND = `SELECT kind FROM channel_accounts WHERE id = $1`;
export const SET_CHANNEL_TOKEN = `UPDATE channel_accounts SET inbound_token_hash = $2, updated_at = now() WHERE id = $1 RETURNING ${CHANNEL_ACCOUNT_COLUMNS}`;

export const LIST_CHANNELS = `SELECT ${CHANNEL_ACCOUNT_COLUMNS} FROM channel_accounts ORDER BY created_at DESC, id`;

// One statement, race-free: the unresolved conversation of (contact, channel), created when missing.
// `created` tells which happened (xmax is 0 only on a freshly inserted row).
// $4 as UPSERT_CONVERSATIONS' (inbound-batch.sql.ts).
export const UPSERT_CONVERSATION = `
  INSERT INTO conversations (organization_id, contact_id, channel_account_id, last_message_at, unread_count, last_customer_message_at)
  VALUES (app_org_id(), $1, $2, now(), $3, CASE WHEN $4::boolean AND $3 > 0 THEN now() END)
  ON CONFLICT (organization_id, contact_id, channel_account_id) WHERE status <> 'RESOLVED'
  DO UPDATE SET last_message_at = now(), unread_count = conversations.unread_count + EXCLUDED.unread_count, updated_at = now(),
    last_customer_message_at = CASE WHEN $4::boolean AND EXCLUDED.unread_count > 0 THEN now() ELSE conversations.last_customer_message_at END
  RETURNING ${CONVERSATION_ROW}, (xmax = 0) AS created`;

export const TOUCH_CONVERSATION = `
  UPDATE conversations SET last_message_at = now(), unread_count = unread_count + $2, updated_at = now() WHERE id = $1 RETURNING *`;

export const CONVERSATION_BY_ID = `SELECT * FROM conversations WHERE id = $1`;
export const CONVERSATION_FOR_UPDATE = `SELECT * FROM conversations WHERE id = $1 FOR UPDATE`;

// A provider id seen before on the channel (a provider answering with a non-unique id) gives no
// row; the caller stores the message without it rather than lose it.
// $11, $12: who wrote it (origin, origin_id).
export const INSERT_MESSAGE = `
  INSERT INTO messages (organization_id, conversation_id, contact_id, channel_account_id, direction, status, content, media, external_id, metadata, error,
                        origin, origin_id)
  VALUES (app_org_id(), $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
  ON CONFLICT (organization_id, channel_account_id, external_id) WHERE external_id IS NOT NULL DO NOTHING
  RETURNING ${MESSAGE_ROW}`;

// A send's outcome. The provider id is kept only when no other message of the channel has it (a
// provider answering with a non-unique id); the row is then kept without it, the id in metadata.
export const FINISH_SEND = `
  UPDATE messages m SET status = $2, error = $3, updated_at = now(),
         external_id = CASE WHEN $4::text IS NULL OR EXISTS (SELECT 1 FROM messages o WHERE o.organization_id = m.organization_id
                                  AND o.channel_account_id = m.channel_account_id AND o.external_id = $4 AND o.id <> m.id) THEN NULL ELSE $4 END,
         metadata = m.metadata || $5::jsonb
                    || CASE WHEN $4::text IS NOT NULL AND EXISTS (SELECT 1 FROM messages o WHERE o.organization_id = m.organization_id
                                  AND o.channel_account_id = m.channel_account_id AND o.external_id = $4 AND o.id <> m.id)
                            THEN jsonb_build_object('duplicate_external_id', $4::text) ELSE '{}'::jsonb END
  WHERE m.id = $1 AND m.status = 'PENDING'
  RETURNING ${rowList(MESSAGES, 'm')}`;

// SYSTEM: outbound messages left PENDING (a process died between storing and finishing a send).
// `queued`: it went through the paced queue (it has a scheduled_for).
export const SYSTEM_STALE_PENDING = `
  SELECT id, organization_id, scheduled_for IS NOT NULL AS queued FROM messages
  WHERE status = 'PENDING' AND direction = 'OUTBOUND' AND dispatched_at < $1 ORDER BY dispatched_at, id LIMIT $2`;

export const FAIL_STALE_PENDING = `
  UPDATE messages SET status = 'FAILED', error = $2, metadata = metadata || jsonb_build_object('failure_reason', $2::text), updated_at = now()
  WHERE id = $1 AND status = 'PENDING' RETURNING *`;

// Inbound de-duplication: a provider id already stored gives no row.
export const INSERT_INBOUND_MESSAGE = `
  INSERT INTO messages (organization_id, conversation_id, contact_id, channel_account_id, direction, status, content, media, external_id, metadata, origin)
  VALUES (app_org_id(), $1, $2, $3, 'INBOUND', 'DELIVERED', $4, $5, $6, $7, 'customer')
  ON CONFLICT (organization_id, channel_account_id, external_id) WHERE external_id IS NOT NULL DO NOTHING
  RETURNING ${MESSAGE_ROW}`;

export const INBOUND_EXISTS = `SELECT 1 FROM messages WHERE channel_account_id = $1 AND external_id = $2`;

export const MESSAGE_BY_EXTERNAL_ID = `SELECT * FROM messages WHERE channel_account_id = $1 AND external_id = $2 FOR UPDATE`;

export const SET_MESSAGE_STATUS = `UPDATE messages SET status = $2, error = coalesce($3, error), updated_at = now() WHERE id = $1 RETURNING *`;

export const LAST_OUTBOUND = `
  SELECT * FROM messages WHERE conversation_id = $1 AND direction = 'OUTBOUND' ORDER BY created_at DESC, id LIMIT 1`;

export const LIST_CONVERSATIONS = `
  SELECT (SELECT count(*) FROM conversations c WHERE ($3::text IS NULL OR c.status = $3) AND ($4::uuid IS NULL OR c.assignee_id = $4) AND (NOT $5 OR c.assignee_id IS NULL))::int AS total,
         coalesce((SELECT json_agg(page ORDER BY page.last_message_at DESC NULLS LAST, page.id)
                   FROM (SELECT c.* FROM conversations c
                         WHERE ($3::text IS NULL OR c.status = $3) AND ($4::uuid IS NULL OR c.assignee_id = $4) AND (NOT $5 OR c.assignee_id IS NULL)
                         ORDER BY c.last_message_at DESC NULLS LAST, c.id LIMIT $1 OFFSET $2) page), '[]'::json) AS conversations`;

export const CONVERSATION_MESSAGES = `
  SELECT * FROM (SELECT * FROM messages WHERE conversation_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3) m ORDER BY created_at, id`;

export const UNREAD_COUNTS = `
  SELECT coalesce(sum(unread_count), 0)::int AS total, count(*) FILTER (WHERE unread_count > 0)::int AS conversations,
         (SELECT coalesce(json_object_agg(status, n), '{}'::json) FROM (SELECT status, sum(unread_count)::int AS n FROM conversations GROUP BY status) s) AS by_status
  FROM conversations WHERE ($1::uuid IS NULL OR assignee_id = $1)`;

export const SET_CONVERSATION_STATUS = `
  UPDATE conversations SET status = $2, snoozed_until = $3, updated_at = now() WHERE id = $1 RETURNING *`;

export const SET_CONVERSATION_ASSIGNEE = `UPDATE conversations SET assignee_id = $2, updated_at = now() WHERE id = $1 RETURNING *`;

export const MARK_CONVERSATION_READ = `UPDATE conversations SET unread_count = 0, updated_at = now() WHERE id = $1 RETURNING *`;
