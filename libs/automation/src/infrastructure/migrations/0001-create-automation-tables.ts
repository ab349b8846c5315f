import type { MigrationInterface, QueryRunner } from 'typeorm';

// Automation (docs/automation.md): rules as validated data, and the run log the rule engine writes
// (one run per rule and event, held by a unique key whatever process ran it; kept 30 days, hence
// the index on started_at). The JSON columns' shapes are the validator's; the table holds their
// sizes and the closed vocabularies.
export class CreateAutomationTables1763800016001 implements MigrationInterface {
  name = 'CreateAutomationTables1763800016001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE automation_rules (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        name text NOT NULL CONSTRAINT automation_rules_name_length CHECK (length(name) BETWEEN 1 AND 200),
        description text NOT NULL DEFAULT '' CONSTRAINT automation_rules_description_length CHECK (length(description) <= 2000),
        event text NOT NULL CONSTRAINT automation_rules_event_known CHECK (event IN (
          'message.received', 'conversation.created', 'conversation.status.changed', 'conversation.assigned', 'contact.created',
          'contact.updated', 'deal.created', 'deal.stage.changed', 'call.analyzed', 'broadcast.response', 'conversation.unanswered',
          'conversation.customer_silent')),
        event_options jsonb NOT NULL DEFAULT '{}' CONSTRAINT automation_rules_event_options_object CHECK (jsonb_typeof(event_options) = 'object'),
        conditions jsonb NOT NULL DEFAULT '{"all": []}'
          CONSTRAINT automation_rules_conditions_size CHECK (jsonb_typeof(conditions) = 'object' AND pg_column_size(conditions) <= 262144),
        actions jsonb NOT NULL CONSTRAINT automation_rules_actions_size CHECK (jsonb_typeof(actions) = 'array' AND pg_column_size(actions) <= 262144),
        action_secrets jsonb NOT NULL DEFAULT '[]' CONSTRAINT automation_rules_action_secrets_array CHECK (jsonb_typeof(action_secrets) = 'array'),
        is_active boolean NOT NULL DEFAULT true,
        position integer NOT NULL DEFAULT 0 CONSTRAINT automation_rules_position_range CHECK (position BETWEEN 0 AND 1000000),
        created_by uuid,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (organization_id, id)
      );
      -- The engine's read: an organization's active rules for an event, in order.
      CREATE INDEX automation_rules_org_event_idx ON automation_rules (organization_id, event, position, created_at) WHERE is_active;
      SELECT enable_tenant_rls('automation_rules');

      CREATE TABLE automation_runs (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        rule_id uuid NOT NULL,
        event text NOT NULL CONSTRAINT automation_runs_event_length CHECK (length(event) <= 100),
        event_id uuid NOT NULL,
        subject_type text NOT NULL CONSTRAINT automation_runs_subject_type_known
          CHECK (subject_type IN ('message', 'conversation', 'contact', 'deal', 'call')),
        subject_id uuid NOT NULL,
        status text NOT NULL CONSTRAINT automation_runs_status_known CHECK (status IN ('succeeded', 'failed', 'partially_failed', 'skipped')),
        skip_reason text CONSTRAINT automation_runs_skip_reason_length CHECK (length(skip_reason) <= 200),
        actions jsonb NOT NULL DEFAULT '[]' CONSTRAINT automation_runs_actions_array CHECK (jsonb_typeof(actions) = 'array'),
        depth integer NOT NULL DEFAULT 0 CONSTRAINT automation_runs_depth_range CHECK (depth BETWEEN 0 AND 100),
        started_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz,
        CONSTRAINT automation_runs_once_per_event UNIQUE (organization_id, rule_id, event_id),
        -- A deleted rule's runs go with it.
        CONSTRAINT automation_runs_rule_fkey FOREIGN KEY (organization_id, rule_id) REFERENCES automation_rules (organization_id, id) ON DELETE CASCADE
      );
      CREATE INDEX automation_runs_org_started_idx ON automation_runs (organization_id, started_at DESC, id);
      CREATE INDEX automation_runs_started_idx ON automation_runs (started_at);
      SELECT enable_tenant_rls('automation_runs');
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE automation_runs; DROP TABLE automation_rules;`);
  }
}
