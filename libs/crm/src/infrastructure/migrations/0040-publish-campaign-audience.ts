import type { MigrationInterface, QueryRunner } from 'typeorm';

// The contacts as campaigns read them (docs/crm.md, "Published read views"): every column the data
// API serves, under their own names, so a segment's filter (the data API's grammar, compiled by its
// SQL builder) runs over it set-wise with the reader's row-level security.
export class PublishCampaignAudience1763800002040 implements MigrationInterface {
  name = 'PublishCampaignAudience1763800002040';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE VIEW crm_campaign_contacts WITH (security_invoker = true) AS
        SELECT id, organization_id, first_name, last_name, phones, emails, tags, description, company_id, assignee_id, source,
               opt_in_status, custom_fields, created_at, updated_at
        FROM contacts;
      GRANT SELECT ON crm_campaign_contacts TO app_tenant;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP VIEW crm_campaign_contacts`);
  }
}
