import type { ConversationRow, MessageRow } from '../infrastructure/messaging.sql';

// Records as plain objects for responses and event payloads (no internal columns).
// A mail's Message-ID is kept for threading only (not served by the data API either).
export type MessageView = Omit<MessageRow, 'created_at' | 'updated_at' | 'email_message_id' | 'dispatched_at' | 'scheduled_for'> & {
  created_at: string;
  updated_at: string;
  // A QUEUED message: when it is expected to go.
  scheduled_for: string | null;
};
export type ConversationView = Omit<
  ConversationRow,
  'created_at' | 'updated_at' | 'last_message_at' | 'snoozed_until' | 'last_customer_message_at' | 'window_closes_at'
> & {
  created_at: string;
  updated_at: string;
  last_message_at: string | null;
  snoozed_until: string | null;
  last_customer_message_at: string | null;
  // When the channel's free-form window closes (null: the channel has no window).
  window_closes_at: string | null;
};

const iso = (d: Date | string | null): string | null => (d === null ? null : new Date(d).toISOString());

export function toMessageView(row: MessageRow): MessageView {
  const { id, organization_id, conversation_id, contact_id, channel_account_id, direction, status, content, media, external_id, metadata, error } = row;
  return {
    id,
    organization_id,
    conversation_id,
    contact_id,
    channel_account_id,
    direction,
    status,
    content,
    media,
    external_id,
    metadata,
    error,
    origin: row.origin,
    origin_id: row.origin_id ?? null,
    scheduled_for: iso(row.scheduled_for ?? null),
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}

export function toConversationView(row: ConversationRow): ConversationView {
  const { id, organization_id, contact_id, channel_account_id, channel_kind, status, assignee_id, unread_count } = row;
  return {
    id,
    organization_id,
    contact_id,
    channel_account_id,
    channel_kind,
    status,
    assignee_id,
    unread_count,
    email_subject: row.email_subject ?? null,
    last_customer_message_at: iso(row.last_customer_message_at ?? null),
    window_closes_at: iso(row.window_closes_at ?? null),
    snoozed_until: iso(row.snoozed_until),
    last_message_at: iso(row.last_message_at),
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}
