import type { MigrationInterface, QueryRunner } from 'typeorm';

// Channel accounts, conversations, messages and the raw inbound events awaiting processing.
// Foreign keys include organization_id, so nothing can point into another organization.
export class CreateMessagingTables1763800003001 implements MigrationInterface {
  name = 'CreateMessagingTables1763800003001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE channel_accounts (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('chat_app', 'instagram', 'messenger', 'email', 'sms')),
        name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
        is_active boolean NOT NULL DEFAULT true,
        -- The account the send path creates when the organization has none: at most one per organization.
        auto_created boolean NOT NULL DEFAULT false,
        -- SHA-256 of the secret token the provider presents on the inbound receiver; the token itself is shown once.
        inbound_token_hash bytea,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (organization_id, id)
      );
      CREATE UNIQUE INDEX channel_accounts_one_auto_idx ON channel_accounts (organization_id) WHERE auto_created;
      CREATE INDEX channel_accounts_org_active_idx ON channel_accounts (organization_id, created_at DESC) WHERE is_active;
      SELECT enable_tenant_rls('channel_accounts');

      CREATE TABLE conversations (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        contact_id uuid NOT NULL,
        channel_account_id uuid NOT NULL,
        status text NOT NULL DEFAULT 'OPEN' CHECK (status IN ('OPEN', 'PENDING', 'SNOOZED', 'RESOLVED')),
        snoozed_until timestamptz,
        assignee_id uuid,
        last_message_at timestamptz,
        unread_count integer NOT NULL DEFAULT 0 CHECK (unread_count >= 0),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (organization_id, id),
        CONSTRAINT conversations_snooze_check CHECK ((status = 'SNOOZED') = (snoozed_until IS NOT NULL)),
        CONSTRAINT conversations_contact_fkey FOREIGN KEY (organization_id, contact_id) REFERENCES contacts (organization_id, id) ON DELETE CASCADE,
        CONSTRAINT conversations_channel_account_fkey FOREIGN KEY (organization_id, channel_account_id) REFERENCES channel_accounts (organization_id, id) ON DELETE CASCADE,
        CONSTRAINT conversations_assignee_fkey FOREIGN KEY (organization_id, assignee_id) REFERENCES memberships (organization_id, user_id) ON DELETE SET NULL (assignee_id)
      );
      -- One unresolved conversation per contact and channel: concurrent sends upsert into it.
      CREATE UNIQUE INDEX conversations_one_open_idx ON conversations (organization_id, contact_id, channel_account_id) WHERE status <> 'RESOLVED';
      CREATE INDEX conversations_org_last_message_idx ON conversations (organization_id, last_message_at DESC NULLS LAST, id);
      CREATE INDEX conversations_org_assignee_idx ON conversations (organization_id, assignee_id);
      SELECT enable_tenant_rls('conversations');

      CREATE TABLE messages (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        conversation_id uuid NOT NULL,
        contact_id uuid NOT NULL,
        channel_account_id uuid NOT NULL,
        direction text NOT NULL CHECK (direction IN ('OUTBOUND', 'INBOUND')),
        status text NOT NULL CHECK (status IN ('PENDING', 'SENT', 'DELIVERED', 'READ', 'FAILED')),
        content text NOT NULL DEFAULT '',
        media jsonb NOT NULL DEFAULT '[]'::jsonb,
        external_id text CHECK (length(external_id) <= 200),
        metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
        error text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (organization_id, id),
        CONSTRAINT messages_conversation_fkey FOREIGN KEY (organization_id, conversation_id) REFERENCES conversations (organization_id, id) ON DELETE CASCADE,
        CONSTRAINT messages_contact_fkey FOREIGN KEY (organization_id, contact_id) REFERENCES contacts (organization_id, id) ON DELETE CASCADE,
        CONSTRAINT messages_channel_account_fkey FOREIGN KEY (organization_id, channel_account_id) REFERENCES channel_accounts (organization_id, id) ON DELETE CASCADE
      );
      -- The provider's message id is unique per channel: inbound de-duplication and status callbacks use it.
      CREATE UNIQUE INDEX messages_external_id_idx ON messages (organization_id, channel_account_id, external_id) WHERE external_id IS NOT NULL;
      CREATE INDEX messages_conversation_idx ON messages (organization_id, conversation_id, created_at DESC, id);
      SELECT enable_tenant_rls('messages');

      -- Raw provider payloads, stored before the receiver answers; a worker claims them (SKIP LOCKED).
      CREATE TABLE inbound_events (
        id bigserial PRIMARY KEY,
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        channel_account_id uuid NOT NULL,
        payload jsonb NOT NULL,
        received_at timestamptz NOT NULL DEFAULT now(),
        processed_at timestamptz,
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        last_error text,
        CONSTRAINT inbound_events_channel_account_fkey FOREIGN KEY (organization_id, channel_account_id) REFERENCES channel_accounts (organization_id, id) ON DELETE CASCADE
      );
      CREATE INDEX inbound_events_pending_idx ON inbound_events (next_attempt_at, id) WHERE processed_at IS NULL;
      SELECT enable_tenant_rls('inbound_events');
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE inbound_events, messages, conversations, channel_accounts`);
  }
}
