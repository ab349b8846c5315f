import type { MigrationInterface, QueryRunner } from 'typeorm';

// AI re-engagement (docs/reengagement.md): one settings row per organization (the customer's AI
// key sealed with ENCRYPTION_KEY, only its last four characters in clear), the nudges (at most one
// per conversation and 24-hour window, held by a unique key), and per-conversation state (the
// unanswered counter and whether re-engagement is disabled there).
export class CreateReengagementTables1763800012001 implements MigrationInterface {
  name = 'CreateReengagementTables1763800012001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE reengagement_settings (
        organization_id uuid PRIMARY KEY REFERENCES organizations(id) ON DELETE CASCADE,
        enabled boolean NOT NULL DEFAULT false,
        provider text NOT NULL DEFAULT 'default' CONSTRAINT reengagement_settings_provider_known CHECK (provider IN ('default', 'custom')),
        custom_key_sealed text CONSTRAINT reengagement_settings_key_length CHECK (length(custom_key_sealed) <= 8192),
        custom_key_last4 text CONSTRAINT reengagement_settings_last4_length CHECK (length(custom_key_last4) <= 4),
        custom_base_url text CONSTRAINT reengagement_settings_base_url_length CHECK (length(custom_base_url) <= 2048),
        key_scope text NOT NULL DEFAULT 'reengagement' CONSTRAINT reengagement_settings_scope_known CHECK (key_scope IN ('all', 'reengagement')),
        fallback_to_default boolean NOT NULL DEFAULT true,
        approval_mode boolean NOT NULL DEFAULT true,
        trigger_hours integer NOT NULL DEFAULT 20 CONSTRAINT reengagement_settings_trigger_range CHECK (trigger_hours BETWEEN 12 AND 23),
        channels text[] NOT NULL DEFAULT '{messenger,instagram}',
        guidelines text NOT NULL DEFAULT '' CONSTRAINT reengagement_settings_guidelines_length CHECK (length(guidelines) <= 4000),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT reengagement_settings_key_pair CHECK ((custom_key_sealed IS NULL) = (custom_key_last4 IS NULL))
      );
      CREATE INDEX reengagement_settings_enabled_idx ON reengagement_settings (organization_id) WHERE enabled;
      SELECT enable_tenant_rls('reengagement_settings');

      CREATE TABLE reengagement_nudges (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        conversation_id uuid NOT NULL,
        contact_id uuid NOT NULL,
        status text NOT NULL DEFAULT 'draft' CONSTRAINT reengagement_nudges_status_known
          CHECK (status IN ('draft', 'awaiting_approval', 'sent', 'skipped', 'expired', 'failed', 'user_replied')),
        text text CONSTRAINT reengagement_nudges_text_length CHECK (length(text) <= 4096),
        provider text CONSTRAINT reengagement_nudges_provider_known CHECK (provider IN ('default', 'custom')),
        fallback_reason text CONSTRAINT reengagement_nudges_fallback_length CHECK (length(fallback_reason) <= 500),
        failure_reason text CONSTRAINT reengagement_nudges_failure_length CHECK (length(failure_reason) <= 500),
        last_customer_message_at timestamptz NOT NULL,
        window_closes_at timestamptz NOT NULL,
        message_id uuid,
        reviewed_by uuid,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        sent_at timestamptz,
        replied_at timestamptz,
        UNIQUE (organization_id, id),
        -- One nudge per conversation and 24-hour window, whatever process wrote it.
        CONSTRAINT reengagement_nudges_one_per_window UNIQUE (organization_id, conversation_id, last_customer_message_at),
        CONSTRAINT reengagement_nudges_conversation_fkey FOREIGN KEY (organization_id, conversation_id)
          REFERENCES conversations (organization_id, id) ON DELETE CASCADE,
        CONSTRAINT reengagement_nudges_contact_fkey FOREIGN KEY (organization_id, contact_id) REFERENCES contacts (organization_id, id) ON DELETE CASCADE
      );
      CREATE INDEX reengagement_nudges_org_status_idx ON reengagement_nudges (organization_id, status, created_at DESC, id);
      CREATE INDEX reengagement_nudges_awaiting_idx ON reengagement_nudges (window_closes_at) WHERE status IN ('draft', 'awaiting_approval');
      SELECT enable_tenant_rls('reengagement_nudges');

      CREATE TABLE reengagement_conversations (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        conversation_id uuid NOT NULL,
        unanswered_count integer NOT NULL DEFAULT 0 CONSTRAINT reengagement_conversations_count_range CHECK (unanswered_count >= 0),
        disabled_at timestamptz,
        disabled_reason text CONSTRAINT reengagement_conversations_reason_length CHECK (length(disabled_reason) <= 200),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT reengagement_conversations_one_per_conversation UNIQUE (organization_id, conversation_id),
        CONSTRAINT reengagement_conversations_conversation_fkey FOREIGN KEY (organization_id, conversation_id)
          REFERENCES conversations (organization_id, id) ON DELETE CASCADE
      );
      SELECT enable_tenant_rls('reengagement_conversations');
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE reengagement_conversations; DROP TABLE reengagement_nudges; DROP TABLE reengagement_settings;`);
  }
}
