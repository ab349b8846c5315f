import type { MigrationInterface, QueryRunner } from 'typeorm';

// Channels other than the chat app: a Meta channel account keeps its page (or Instagram account)
// id, by which webhook events are routed to it (one account per id across the installation), and
// its page access token sealed with ENCRYPTION_KEY. Customers there are known by a page-scoped id
// (channel_contacts). Conversations carry their channel's kind and the time the customer last wrote,
// from which the Meta window's closing time follows.
export class ChannelAdapters1763800003004 implements MigrationInterface {
  name = 'ChannelAdapters1763800003004';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE channel_accounts
        ADD COLUMN external_account_id text CHECK (length(external_account_id) BETWEEN 1 AND 100),
        ADD COLUMN access_token_sealed text;
      CREATE UNIQUE INDEX channel_accounts_external_idx ON channel_accounts (kind, external_account_id) WHERE external_account_id IS NOT NULL;

      CREATE TABLE channel_contacts (
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        channel_account_id uuid NOT NULL,
        external_user_id text NOT NULL CHECK (length(external_user_id) BETWEEN 1 AND 100),
        contact_id uuid NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (organization_id, channel_account_id, external_user_id),
        CONSTRAINT channel_contacts_channel_fkey FOREIGN KEY (organization_id, channel_account_id)
          REFERENCES channel_accounts (organization_id, id) ON DELETE CASCADE,
        CONSTRAINT channel_contacts_contact_fkey FOREIGN KEY (organization_id, contact_id) REFERENCES contacts (organization_id, id) ON DELETE CASCADE
      );
      CREATE INDEX channel_contacts_contact_idx ON channel_contacts (organization_id, contact_id);
      SELECT enable_tenant_rls('channel_contacts');

      ALTER TABLE conversations
        ADD COLUMN channel_kind text,
        ADD COLUMN last_customer_message_at timestamptz,
        ADD COLUMN window_closes_at timestamptz;
      UPDATE conversations c SET channel_kind = a.kind FROM channel_accounts a WHERE a.organization_id = c.organization_id AND a.id = c.channel_account_id;
      ALTER TABLE conversations ALTER COLUMN channel_kind SET NOT NULL;
      CREATE FUNCTION conversation_channel_kind() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        SELECT kind INTO NEW.channel_kind FROM channel_accounts WHERE organization_id = NEW.organization_id AND id = NEW.channel_account_id;
        RETURN NEW;
      END $$;
      CREATE TRIGGER conversations_channel_kind BEFORE INSERT ON conversations FOR EACH ROW EXECUTE FUNCTION conversation_channel_kind();
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TRIGGER conversations_channel_kind ON conversations;
      DROP FUNCTION conversation_channel_kind();
      ALTER TABLE conversations DROP COLUMN channel_kind, DROP COLUMN last_customer_message_at, DROP COLUMN window_closes_at;
      DROP TABLE channel_contacts;
      DROP INDEX channel_accounts_external_idx;
      ALTER TABLE channel_accounts DROP COLUMN external_account_id, DROP COLUMN access_token_sealed;
    `);
  }
}
