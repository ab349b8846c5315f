import type { MigrationInterface, QueryRunner } from 'typeorm';

// Bot flows (docs/automation.md, "Bot flows"): a flow as validated data, its published versions
// (immutable: a running session keeps the version it started on), and the sessions, one open
// (active or waiting) per conversation at a time.
export class CreateBotTables1763800016004 implements MigrationInterface {
  name = 'CreateBotTables1763800016004';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE bot_flows (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        name text NOT NULL CONSTRAINT bot_flows_name_length CHECK (length(name) BETWEEN 1 AND 200),
        channel_account_ids text[] NOT NULL CONSTRAINT bot_flows_channel_accounts_count CHECK (cardinality(channel_account_ids) BETWEEN 1 AND 50),
        trigger jsonb NOT NULL CONSTRAINT bot_flows_trigger_object CHECK (jsonb_typeof(trigger) = 'object'),
        definition jsonb NOT NULL
          CONSTRAINT bot_flows_definition_size CHECK (jsonb_typeof(definition) = 'object' AND pg_column_size(definition) <= 524288),
        is_active boolean NOT NULL DEFAULT true,
        settings jsonb NOT NULL CONSTRAINT bot_flows_settings_object CHECK (jsonb_typeof(settings) = 'object'),
        published_version integer,
        published_at timestamptz,
        created_by uuid,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (organization_id, id)
      );
      -- The runtime's read: an organization's active published flows on a channel account.
      CREATE INDEX bot_flows_org_accounts_idx ON bot_flows USING gin (channel_account_ids) WHERE is_active AND published_version IS NOT NULL;
      SELECT enable_tenant_rls('bot_flows');

      CREATE TABLE bot_flow_versions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        bot_flow_id uuid NOT NULL,
        version integer NOT NULL CONSTRAINT bot_flow_versions_version_positive CHECK (version >= 1),
        definition jsonb NOT NULL,
        settings jsonb NOT NULL,
        published_by uuid,
        published_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT bot_flow_versions_once UNIQUE (organization_id, bot_flow_id, version),
        CONSTRAINT bot_flow_versions_flow_fkey FOREIGN KEY (organization_id, bot_flow_id) REFERENCES bot_flows (organization_id, id) ON DELETE CASCADE
      );
      SELECT enable_tenant_rls('bot_flow_versions');
      -- A published version never changes.
      CREATE FUNCTION bot_flow_versions_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'a published bot flow version cannot be changed' USING ERRCODE = 'integrity_constraint_violation';
      END $$;
      CREATE TRIGGER bot_flow_versions_immutable BEFORE UPDATE ON bot_flow_versions FOR EACH ROW EXECUTE FUNCTION bot_flow_versions_immutable();

      CREATE TABLE bot_sessions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        conversation_id uuid NOT NULL,
        contact_id uuid,
        bot_flow_id uuid NOT NULL,
        version integer NOT NULL,
        status text NOT NULL CONSTRAINT bot_sessions_status_known
          CHECK (status IN ('active', 'waiting', 'handed_off', 'completed', 'expired', 'stopped')),
        end_reason text CONSTRAINT bot_sessions_end_reason_length CHECK (length(end_reason) <= 200),
        current_node text,
        variables jsonb NOT NULL DEFAULT '{}' CONSTRAINT bot_sessions_variables_object CHECK (jsonb_typeof(variables) = 'object'),
        retries integer NOT NULL DEFAULT 0,
        handed_to uuid,
        -- The customer's messages of the answer being gathered (a burst within a second is one answer).
        pending jsonb NOT NULL DEFAULT '[]',
        answer_due_at timestamptz,
        waiting_since timestamptz,
        timeout_at timestamptz,
        expires_at timestamptz NOT NULL,
        started_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT bot_sessions_version_fkey FOREIGN KEY (organization_id, bot_flow_id, version)
          REFERENCES bot_flow_versions (organization_id, bot_flow_id, version) ON DELETE CASCADE
      );
      -- One open session per conversation.
      CREATE UNIQUE INDEX bot_sessions_one_open ON bot_sessions (organization_id, conversation_id) WHERE status IN ('active', 'waiting');
      CREATE INDEX bot_sessions_conversation_idx ON bot_sessions (organization_id, conversation_id, started_at DESC);
      CREATE INDEX bot_sessions_flow_idx ON bot_sessions (organization_id, bot_flow_id, updated_at DESC);
      -- The periodic pass: open sessions by their deadlines.
      CREATE INDEX bot_sessions_expires_idx ON bot_sessions (expires_at) WHERE status IN ('active', 'waiting');
      CREATE INDEX bot_sessions_due_idx ON bot_sessions (least(answer_due_at, timeout_at)) WHERE status = 'waiting';
      SELECT enable_tenant_rls('bot_sessions');
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE bot_sessions; DROP TABLE bot_flow_versions; DROP FUNCTION bot_flow_versions_immutable(); DROP TABLE bot_flows;`);
  }
}
