import type { MigrationInterface, QueryRunner } from 'typeorm';

// The profiles of §2 as the data API reads them (e.g. deals embedding their owner through
// deals_owner_id_fkey). security_invoker: the caller's row-level security on memberships and users
// applies, so a profile shows only to members of the same organization (PostgreSQL 15+).
export class CreateProfilesView1763800001005 implements MigrationInterface {
  name = 'CreateProfilesView1763800001005';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE VIEW profiles WITH (security_invoker = true) AS
        SELECT u.id, m.organization_id, u.first_name, u.last_name, u.email, m.role, u.avatar_url, u.onboarding_completed,
               (u.email_confirmed_at IS NOT NULL) AS email_confirmed, u.is_online, u.created_at
        FROM memberships m JOIN users u ON u.id = m.user_id;
      GRANT SELECT ON profiles TO app_tenant;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP VIEW profiles`);
  }
}
