import type { MigrationInterface, QueryRunner } from 'typeorm';

// Pipelines with ordered stages, deals on them, and the two histories of §2/§3. Every key between
// tenant rows includes organization_id. deals.owner_id -> members is named deals_owner_id_fkey.
export class CreatePipelinesAndDeals1763800002002 implements MigrationInterface {
  name = 'CreatePipelinesAndDeals1763800002002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE pipelines (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        name text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
        is_default boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (organization_id, id)
      );
      CREATE UNIQUE INDEX pipelines_one_default_idx ON pipelines (organization_id) WHERE is_default;
      SELECT enable_tenant_rls('pipelines');

      CREATE TABLE pipeline_stages (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL,
        pipeline_id uuid NOT NULL,
        key text NOT NULL CHECK (key ~ '^[A-Z][A-Z0-9_]{0,49}$'),
        name text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
        color text NOT NULL DEFAULT '#64748b' CHECK (color ~ '^#[0-9a-fA-F]{6}$'),
        position integer NOT NULL,
        default_probability integer CHECK (default_probability BETWEEN 0 AND 100),
        outcome text NOT NULL DEFAULT 'open' CHECK (outcome IN ('open', 'won', 'lost')),
        UNIQUE (organization_id, id),
        UNIQUE (pipeline_id, key),
        CONSTRAINT pipeline_stages_pipeline_fkey FOREIGN KEY (organization_id, pipeline_id) REFERENCES pipelines (organization_id, id) ON DELETE CASCADE
      );
      SELECT enable_tenant_rls('pipeline_stages');

      CREATE TABLE deals (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        title text NOT NULL CHECK (length(title) BETWEEN 1 AND 200),
        description text NOT NULL DEFAULT '',
        pipeline_id uuid NOT NULL,
        stage_id uuid NOT NULL,
        stage text NOT NULL,
        contact_id uuid,
        company_id uuid,
        owner_id uuid,
        value numeric(18, 2) NOT NULL DEFAULT 0 CHECK (value >= 0),
        currency text NOT NULL DEFAULT 'USD' CHECK (currency ~ '^[A-Z]{3}$'),
        probability integer NOT NULL DEFAULT 0 CHECK (probability BETWEEN 0 AND 100),
        priority text NOT NULL DEFAULT 'medium' CHECK (priority IN ('low', 'medium', 'high', 'urgent')),
        source text NOT NULL DEFAULT '',
        expected_close_date date,
        notes text NOT NULL DEFAULT '',
        tags text[] NOT NULL DEFAULT '{}',
        custom_fields jsonb NOT NULL DEFAULT '{}'::jsonb,
        position double precision NOT NULL DEFAULT 0,
        last_activity_at timestamptz NOT NULL DEFAULT now(),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (organization_id, id),
        CONSTRAINT deals_pipeline_fkey FOREIGN KEY (organization_id, pipeline_id) REFERENCES pipelines (organization_id, id),
        CONSTRAINT deals_stage_fkey FOREIGN KEY (organization_id, stage_id) REFERENCES pipeline_stages (organization_id, id),
        CONSTRAINT deals_contact_fkey FOREIGN KEY (organization_id, contact_id) REFERENCES contacts (organization_id, id) ON DELETE SET NULL (contact_id),
        CONSTRAINT deals_company_fkey FOREIGN KEY (organization_id, company_id) REFERENCES companies (organization_id, id) ON DELETE SET NULL (company_id),
        CONSTRAINT deals_owner_id_fkey FOREIGN KEY (organization_id, owner_id) REFERENCES memberships (organization_id, user_id) ON DELETE SET NULL (owner_id)
      );
      CREATE INDEX deals_board_idx ON deals (organization_id, pipeline_id, stage_id, position);
      CREATE INDEX deals_activity_idx ON deals (organization_id, last_activity_at) WHERE owner_id IS NOT NULL;
      CREATE INDEX deals_contact_idx ON deals (organization_id, contact_id);
      CREATE INDEX deals_company_idx ON deals (organization_id, company_id);
      SELECT enable_tenant_rls('deals');

      CREATE TABLE deal_stage_history (
        id bigserial PRIMARY KEY,
        organization_id uuid NOT NULL,
        deal_id uuid NOT NULL,
        from_stage text,
        to_stage text NOT NULL,
        changed_by uuid,
        changed_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT deal_stage_history_deal_fkey FOREIGN KEY (organization_id, deal_id) REFERENCES deals (organization_id, id) ON DELETE CASCADE
      );
      CREATE INDEX deal_stage_history_deal_idx ON deal_stage_history (organization_id, deal_id, changed_at);
      SELECT enable_tenant_rls('deal_stage_history');

      CREATE TABLE deal_owner_history (
        id bigserial PRIMARY KEY,
        organization_id uuid NOT NULL,
        deal_id uuid NOT NULL,
        owner_id uuid,
        started_at timestamptz NOT NULL DEFAULT now(),
        ended_at timestamptz,
        duration_seconds bigint GENERATED ALWAYS AS (floor(extract(epoch FROM ended_at - started_at))::bigint) STORED,
        reason text NOT NULL CHECK (reason IN ('Initial assignment', 'Reassigned', 'Unassigned', 'Auto-reassigned')),
        changed_by uuid,
        CONSTRAINT deal_owner_history_deal_fkey FOREIGN KEY (organization_id, deal_id) REFERENCES deals (organization_id, id) ON DELETE CASCADE
      );
      CREATE UNIQUE INDEX deal_owner_history_open_idx ON deal_owner_history (deal_id) WHERE ended_at IS NULL;
      SELECT enable_tenant_rls('deal_owner_history');
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE deal_owner_history, deal_stage_history, deals, pipeline_stages, pipelines`);
  }
}
