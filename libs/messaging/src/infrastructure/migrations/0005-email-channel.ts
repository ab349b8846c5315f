import type { MigrationInterface, QueryRunner } from 'typeorm';

// The email channel. An email channel account keeps its address (as external_account_id, so one
// mailbox is connected once across the installation), its IMAP and SMTP settings without passwords
// (email_settings) and each password sealed with ENCRYPTION_KEY. email_mailboxes holds what the
// mailbox reader needs between runs: the UID high-water mark with its UIDVALIDITY, and the lease that
// lets exactly one worker read a mailbox at a time, when a run was last queued (one queued run per
// mailbox, however busy the workers are), and the mail that failed to store (and how many
// runs it failed) so one that can never be stored does not stop the mailbox for ever. Messages keep their Message-ID (threading; inbound ones also as
// external_id, which de-duplicates them), conversations the thread's subject without Re:/Fwd: prefixes (the fallback rule).
export class EmailChannel1763800003005 implements MigrationInterface {
  name = 'EmailChannel1763800003005';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE channel_accounts
        ADD COLUMN email_settings jsonb,
        ADD COLUMN imap_password_sealed text,
        ADD COLUMN smtp_password_sealed text;
      -- Email senders are known by their address (up to 320 characters).
      ALTER TABLE channel_contacts DROP CONSTRAINT channel_contacts_external_user_id_check,
        ADD CONSTRAINT channel_contacts_external_user_id_check CHECK (length(external_user_id) BETWEEN 1 AND 320);

      ALTER TABLE conversations ADD COLUMN email_subject text CHECK (length(email_subject) <= 1000);
      CREATE INDEX conversations_email_subject_idx ON conversations (organization_id, channel_account_id, contact_id, lower(email_subject))
        WHERE email_subject IS NOT NULL;

      ALTER TABLE messages ADD COLUMN email_message_id text CHECK (length(email_message_id) BETWEEN 1 AND 1000);
      CREATE INDEX messages_email_message_id_idx ON messages (organization_id, channel_account_id, email_message_id)
        WHERE email_message_id IS NOT NULL;

      CREATE TABLE email_mailboxes (
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        channel_account_id uuid NOT NULL,
        uid_validity bigint,
        last_uid bigint NOT NULL DEFAULT 0,
        lease_token uuid,
        lease_until timestamptz,
        last_error text,
        last_synced_at timestamptz,
        queued_at timestamptz,
        failed_uid bigint,
        failed_runs integer NOT NULL DEFAULT 0,
        PRIMARY KEY (organization_id, channel_account_id),
        CONSTRAINT email_mailboxes_channel_fkey FOREIGN KEY (organization_id, channel_account_id)
          REFERENCES channel_accounts (organization_id, id) ON DELETE CASCADE
      );
      SELECT enable_tenant_rls('email_mailboxes');
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TABLE email_mailboxes;
      ALTER TABLE messages DROP COLUMN email_message_id;
      ALTER TABLE conversations DROP COLUMN email_subject;
      ALTER TABLE channel_contacts DROP CONSTRAINT channel_contacts_external_user_id_check,
        ADD CONSTRAINT channel_contacts_external_user_id_check CHECK (length(external_user_id) BETWEEN 1 AND 100) NOT VALID;
      ALTER TABLE channel_accounts DROP COLUMN email_settings, DROP COLUMN imap_password_sealed, DROP COLUMN smtp_password_sealed;
    `);
  }
}
