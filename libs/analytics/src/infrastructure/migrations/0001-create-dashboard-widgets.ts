import type { MigrationInterface, QueryRunner } from 'typeorm';

// Each member's dashboard: widgets belong to a user within an organization. Row-level security
// adds to the organization's policy a restrictive one on the user, so a member sees and writes only
// their own widgets. dashboard_seeded records that a member's default set was created once, so
// removing every widget does not bring the defaults back.
export class CreateDashboardWidgets1763800014001 implements MigrationInterface {
  name = 'CreateDashboardWidgets1763800014001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE dashboard_widgets (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        user_id uuid NOT NULL,
        widget_type text NOT NULL CHECK (widget_type IN
          ('incoming_messages', 'open_conversations', 'response_time', 'sla', 'pipeline_value', 'deals_won', 'new_contacts', 'custom')),
        widget_config jsonb NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(widget_config) = 'object'),
        position integer NOT NULL DEFAULT 0 CHECK (position BETWEEN 0 AND 1000),
        is_visible boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT dashboard_widgets_user_fkey FOREIGN KEY (organization_id, user_id) REFERENCES memberships (organization_id, user_id) ON DELETE CASCADE
      );
      CREATE INDEX dashboard_widgets_user_idx ON dashboard_widgets (organization_id, user_id, position, created_at);
      SELECT enable_tenant_rls('dashboard_widgets');
      CREATE POLICY dashboard_widgets_own_user ON dashboard_widgets AS RESTRICTIVE TO app_tenant
        USING (user_id = nullif(current_setting('app.user_id', true), '')::uuid)
        WITH CHECK (user_id = nullif(current_setting('app.user_id', true), '')::uuid);

      CREATE TABLE dashboard_seeded (
        organization_id uuid NOT NULL,
        user_id uuid NOT NULL,
        seeded_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (organization_id, user_id),
        CONSTRAINT dashboard_seeded_user_fkey FOREIGN KEY (organization_id, user_id) REFERENCES memberships (organization_id, user_id) ON DELETE CASCADE
      );
      SELECT enable_tenant_rls('dashboard_seeded');
      CREATE POLICY dashboard_seeded_own_user ON dashboard_seeded AS RESTRICTIVE TO app_tenant
        USING (user_id = nullif(current_setting('app.user_id', true), '')::uuid)
        WITH CHECK (user_id = nullif(current_setting('app.user_id', true), '')::uuid);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE dashboard_seeded, dashboard_widgets`);
  }
}
