import type { MigrationInterface, QueryRunner } from 'typeorm';

// What other contexts may read of who owns an organization (docs/identity.md, "What other contexts
// read"): its OWNER, the earliest one when there are several. A view, so the billing bridge keeps its
// facts in one statement; security_invoker, so a tenant reader sees its own organization only.
export class PublishOrganizationOwners1763800001008 implements MigrationInterface {
  name = 'PublishOrganizationOwners1763800001008';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE VIEW identity_organization_owners WITH (security_invoker = true) AS
        SELECT DISTINCT ON (organization_id) organization_id, user_id AS owner_id
        FROM memberships WHERE role = 'OWNER' ORDER BY organization_id, created_at, user_id;
      GRANT SELECT ON identity_organization_owners TO app_tenant;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP VIEW identity_organization_owners`);
  }
}
