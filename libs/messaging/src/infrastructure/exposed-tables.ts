// The messaging tables the data API serves read-only (/rest/v1): no record writer is registered,
// so writes go through the messaging endpoints. The channel's token hash is never exposed.

const channelAccounts = {
  name: 'channel_accounts',
  columns: { id: 'uuid', organization_id: 'uuid', kind: 'text', name: 'text', is_active: 'bool', auto_created: 'bool', created_at: 'timestamptz', updated_at: 'timestamptz' },
} as const;

const conversations = {
  name: 'conversations',
  columns: {
    id: 'uuid', organization_id: 'uuid', contact_id: 'uuid', channel_account_id: 'uuid', status: 'text', snoozed_until: 'timestamptz', assignee_id: 'uuid',
    last_message_at: 'timestamptz', unread_count: 'int', created_at: 'timestamptz', updated_at: 'timestamptz',
  },
  foreignKeys: [
    { name: 'conversations_contact_fkey', column: 'contact_id', references: { table: 'contacts', column: 'id' } },
    { name: 'conversations_channel_account_fkey', column: 'channel_account_id', references: { table: 'channel_accounts', column: 'id' } },
    { name: 'conversations_assignee_fkey', column: 'assignee_id', references: { table: 'profiles', column: 'id' } },
  ],
} as const;

const messages = {
  name: 'messages',
  columns: {
    id: 'uuid', organization_id: 'uuid', conversation_id: 'uuid', contact_id: 'uuid', channel_account_id: 'uuid', direction: 'text', status: 'text', content: 'text',
    media: 'jsonb', external_id: 'text', metadata: 'jsonb', error: 'text', created_at: 'timestamptz', updated_at: 'timestamptz',
  },
  foreignKeys: [
    { name: 'messages_conversation_fkey', column: 'conversation_id', references: { table: 'conversations', column: 'id' } },
    { name: 'messages_contact_fkey', column: 'contact_id', references: { table: 'contacts', column: 'id' } },
    { name: 'messages_channel_account_fkey', column: 'channel_account_id', references: { table: 'channel_accounts', column: 'id' } },
  ],
} as const;

type Exposed = { name: string; columns: Record<string, string>; foreignKeys?: readonly unknown[] };
const readableAll = <T extends Exposed>(table: T) => ({ ...table, readable: Object.keys(table.columns) });

export const MESSAGING_TABLES = { channelAccounts: readableAll(channelAccounts), conversations: readableAll(conversations), messages: readableAll(messages) };
