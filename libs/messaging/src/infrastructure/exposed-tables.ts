import { tableDefinition } from '@engage/platform';
import { column, COMMON_COLUMNS, declareTable } from '@engage/shared-kernel';
import { SCHEDULED_MESSAGES } from '../outbound/scheduled-messages';

// The messaging tables the data API serves read-only (/rest/v1): no record writer is registered,
// so writes go through the messaging endpoints. Every column is declared once (a test compares the
// declarations with the database); the channel's token hash is declared hidden, so it is never
// served, nor are a channel's sealed access token and mail passwords.

const { uuid, uuidOrNull, text, textOrNull, at, atOrNull } = COMMON_COLUMNS;

export const CHANNEL_ACCOUNTS = declareTable({
  name: 'channel_accounts',
  columns: {
    id: uuid,
    organization_id: uuid,
    kind: text,
    name: text,
    is_active: column('boolean'),
    auto_created: column('boolean'),
    inbound_token_hash: column('bytea', { nullable: true, api: 'hidden' }),
    created_at: at,
    updated_at: at,
    external_account_id: textOrNull,
    access_token_sealed: column('text', { nullable: true, api: 'hidden' }),
    // SMS: the provider's account sid (the sender number is external_account_id).
    provider_account_id: textOrNull,
    // Email: host, port, TLS and user of IMAP and SMTP, and the address (no passwords); each password sealed and hidden.
    email_settings: column('jsonb', { nullable: true }),
    imap_password_sealed: column('text', { nullable: true, api: 'hidden' }),
    smtp_password_sealed: column('text', { nullable: true, api: 'hidden' }),
    // The paced queue: the pacing overrides over the kind's defaults, and whether (and why) it is paused.
    pacing: column('jsonb'),
    paused_at: atOrNull,
    paused_reason: textOrNull,
    // The queue's own bookkeeping (not served): the run of provider failures, the next send and the sender's lease.
    consecutive_failures: column('integer', { api: 'hidden' }),
    next_send_at: column('timestamptz', { nullable: true, api: 'hidden' }),
    queue_lease_until: column('timestamptz', { nullable: true, api: 'hidden' }),
  },
});

export const CONVERSATIONS = declareTable({
  name: 'conversations',
  columns: {
    id: uuid,
    organization_id: uuid,
    contact_id: uuid,
    channel_account_id: uuid,
    status: text,
    snoozed_until: atOrNull,
    assignee_id: uuidOrNull,
    last_message_at: atOrNull,
    unread_count: column('integer'),
    created_at: at,
    updated_at: at,
    channel_kind: text,
    last_customer_message_at: atOrNull,
    window_closes_at: atOrNull,
    // Kept for reports, read through the published views (messaging_conversation_facts), not served here.
    resolved_at: column('timestamptz', { nullable: true, api: 'hidden' }),
    // Email: the thread's subject without Re:/Fwd: prefixes.
    email_subject: textOrNull,
  },
});

export const MESSAGES = declareTable({
  name: 'messages',
  columns: {
    id: uuid,
    organization_id: uuid,
    conversation_id: uuid,
    contact_id: uuid,
    channel_account_id: uuid,
    direction: text,
    status: text,
    content: text,
    media: column('jsonb'),
    external_id: textOrNull,
    metadata: column('jsonb'),
    error: textOrNull,
    created_at: at,
    updated_at: at,
    // Kept for reports, read through the published views (messaging_message_facts), not served here.
    first_reply_at: column('timestamptz', { nullable: true, api: 'hidden' }),
    // Email: the mail's Message-ID, kept for threading only; not served, so a message read through
    // the data API and the same message in a webhook's data have the same fields.
    email_message_id: column('text', { nullable: true, api: 'hidden' }),
    // Who wrote it (customer, agent, api, api_queued, scheduled, rule, bot, sequence, broadcast,
    // reengagement) and the source it came from (docs/messaging.md, "Who wrote a message").
    origin: text,
    origin_id: uuidOrNull,
    // The paced queue: when a QUEUED message is expected to go (null for messages that never waited).
    scheduled_for: atOrNull,
    // When it was handed to the provider; the caps count it (internal to the queue, not served).
    dispatched_at: column('timestamptz', { nullable: true, api: 'hidden' }),
  },
});

export const MESSAGING_TABLES = {
  channelAccounts: tableDefinition(CHANNEL_ACCOUNTS),
  conversations: tableDefinition(CONVERSATIONS, {
    foreignKeys: [
      { name: 'conversations_contact_fkey', column: 'contact_id', references: { table: 'contacts', column: 'id' } },
      { name: 'conversations_channel_account_fkey', column: 'channel_account_id', references: { table: 'channel_accounts', column: 'id' } },
      { name: 'conversations_assignee_fkey', column: 'assignee_id', references: { table: 'profiles', column: 'id' } },
    ],
  }),
  messages: tableDefinition(MESSAGES, {
    foreignKeys: [
      { name: 'messages_conversation_fkey', column: 'conversation_id', references: { table: 'conversations', column: 'id' } },
      { name: 'messages_contact_fkey', column: 'contact_id', references: { table: 'contacts', column: 'id' } },
      { name: 'messages_channel_account_fkey', column: 'channel_account_id', references: { table: 'channel_accounts', column: 'id' } },
    ],
  }),
  // Scheduled sends (outbound/scheduled-messages.ts declares the columns).
  scheduledMessages: tableDefinition(SCHEDULED_MESSAGES, {
    foreignKeys: [{ name: 'scheduled_messages_conversation_fkey', column: 'conversation_id', references: { table: 'conversations', column: 'id' } }],
  }),
};
