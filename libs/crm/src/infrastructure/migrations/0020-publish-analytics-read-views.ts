import type { MigrationInterface, QueryRunner } from 'typeorm';

// The CRM's published read model for reporting (docs/crm.md, "Published read views"): other
// contexts read these views, never the tables. security_invoker makes the caller's row-level
// security apply. A deal is closed while its stage's outcome is won or lost; closed_at is when it
// last entered that stage (its creation when it was created there).
export class PublishAnalyticsReadViews1763800002020 implements MigrationInterface {
  name = 'PublishAnalyticsReadViews1763800002020';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE VIEW crm_deal_facts WITH (security_invoker = true) AS
      SELECT d.id, d.organization_id, d.pipeline_id, p.name AS pipeline_name, d.stage, s.name AS stage_name, s.outcome,
             d.value, d.currency, d.owner_id, d.created_at,
             CASE WHEN s.outcome <> 'open' THEN coalesce((
               SELECT max(h.changed_at) FROM deal_stage_history h
               WHERE h.organization_id = d.organization_id AND h.deal_id = d.id AND h.to_stage = d.stage), d.created_at) END AS closed_at
      FROM deals d
      JOIN pipeline_stages s ON s.organization_id = d.organization_id AND s.id = d.stage_id
      JOIN pipelines p ON p.organization_id = d.organization_id AND p.id = d.pipeline_id;

      CREATE VIEW crm_contact_facts WITH (security_invoker = true) AS
      SELECT id, organization_id, company_id, assignee_id, source, created_at FROM contacts;

      GRANT SELECT ON crm_deal_facts, crm_contact_facts TO app_tenant;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP VIEW crm_contact_facts, crm_deal_facts`);
  }
}
