import type { MigrationInterface, QueryRunner } from 'typeorm';

// A deal keeps its closed_at (docs/crm.md, "Published read views") instead of crm_deal_facts
// searching the stage history for it on every read: when it last entered its current stage while
// that stage's outcome is won or lost (its creation when it was created there), null while open.
// Kept by triggers, so every writer (service, data API, imports, SQL) agrees: a stage change
// recomputes it, and a history row (written after the stage change) moves it to the row's time.
// It is not served by the data API (hidden in the declaration): the view publishes it.
// Stage outcomes are never edited, so the stage's outcome at the change is its outcome now.
// Indexed for the reports' ranges: closed deals by closed_at, open deals by created_at.
export class KeepDealClosedAt1763800002030 implements MigrationInterface {
  name = 'KeepDealClosedAt1763800002030';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE deals ADD COLUMN closed_at timestamptz;
      CREATE FUNCTION deal_closed_at(org uuid, deal uuid, stage_id uuid, stage text, created timestamptz) RETURNS timestamptz
      LANGUAGE sql STABLE AS $$
        SELECT CASE WHEN s.outcome <> 'open' THEN coalesce((
          SELECT max(h.changed_at) FROM deal_stage_history h WHERE h.organization_id = org AND h.deal_id = deal AND h.to_stage = stage), created) END
        FROM pipeline_stages s WHERE s.organization_id = org AND s.id = stage_id
      $$;
      CREATE FUNCTION deal_stage_closed_at() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.closed_at := deal_closed_at(NEW.organization_id, NEW.id, NEW.stage_id, NEW.stage, NEW.created_at);
        RETURN NEW;
      END $$;
      CREATE TRIGGER deals_closed_at BEFORE INSERT OR UPDATE OF stage_id, stage, created_at ON deals
        FOR EACH ROW EXECUTE FUNCTION deal_stage_closed_at();
      CREATE FUNCTION deal_history_closed_at() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE deals d SET closed_at = deal_closed_at(d.organization_id, d.id, d.stage_id, d.stage, d.created_at)
        WHERE d.organization_id = NEW.organization_id AND d.id = NEW.deal_id AND d.stage = NEW.to_stage
          AND d.closed_at IS DISTINCT FROM deal_closed_at(d.organization_id, d.id, d.stage_id, d.stage, d.created_at);
        RETURN NULL;
      END $$;
      CREATE TRIGGER deal_stage_history_closed_at AFTER INSERT ON deal_stage_history FOR EACH ROW EXECUTE FUNCTION deal_history_closed_at();
      UPDATE deals SET closed_at = deal_closed_at(organization_id, id, stage_id, stage, created_at);
      CREATE INDEX deals_closed_idx ON deals (organization_id, closed_at) INCLUDE (stage_id, value) WHERE closed_at IS NOT NULL;
      CREATE INDEX deals_open_idx ON deals (organization_id, created_at) INCLUDE (stage_id, value) WHERE closed_at IS NULL;
      CREATE INDEX deals_org_created_idx ON deals (organization_id, created_at) INCLUDE (stage_id);

      -- The stage by a LEFT JOIN and the pipeline's name by a subquery (every deal has both, each
      -- unique on (organization_id, id)): a report that reads neither pays for neither, and the
      -- report's ranges stay index conditions (with an outer join to pipelines they did not).
      CREATE OR REPLACE VIEW crm_deal_facts WITH (security_invoker = true) AS
      SELECT d.id, d.organization_id, d.pipeline_id,
             (SELECT p.name FROM pipelines p WHERE p.organization_id = d.organization_id AND p.id = d.pipeline_id) AS pipeline_name,
             d.stage, s.name AS stage_name, s.outcome, d.value, d.currency, d.owner_id, d.created_at, d.closed_at
      FROM deals d
      LEFT JOIN pipeline_stages s ON s.organization_id = d.organization_id AND s.id = d.stage_id;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE OR REPLACE VIEW crm_deal_facts WITH (security_invoker = true) AS
      SELECT d.id, d.organization_id, d.pipeline_id, p.name AS pipeline_name, d.stage, s.name AS stage_name, s.outcome,
             d.value, d.currency, d.owner_id, d.created_at,
             CASE WHEN s.outcome <> 'open' THEN coalesce((
               SELECT max(h.changed_at) FROM deal_stage_history h
               WHERE h.organization_id = d.organization_id AND h.deal_id = d.id AND h.to_stage = d.stage), d.created_at) END AS closed_at
      FROM deals d
      JOIN pipeline_stages s ON s.organization_id = d.organization_id AND s.id = d.stage_id
      JOIN pipelines p ON p.organization_id = d.organization_id AND p.id = d.pipeline_id;
      DROP TRIGGER deal_stage_history_closed_at ON deal_stage_history;
      DROP TRIGGER deals_closed_at ON deals;
      DROP FUNCTION deal_history_closed_at(), deal_stage_closed_at(), deal_closed_at(uuid, uuid, uuid, text, timestamptz);
      DROP INDEX deals_closed_idx, deals_open_idx, deals_org_created_idx;
      ALTER TABLE deals DROP COLUMN closed_at;
    `);
  }
}
