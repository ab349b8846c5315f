import type { MigrationInterface, QueryRunner } from 'typeorm';

// Profiles are written through the data API in the caller's tenant transaction: a user may change
// onboarding_completed too, and, whatever the application does, only their own row (every update
// of users in a tenant transaction is of the signed-in user: profile, presence).
export class LetUsersWriteOwnProfile1763800001007 implements MigrationInterface {
  name = 'LetUsersWriteOwnProfile1763800001007';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      GRANT UPDATE (onboarding_completed) ON users TO app_tenant;
      CREATE POLICY users_update_own ON users AS RESTRICTIVE FOR UPDATE TO app_tenant
        USING (id = nullif(current_setting('app.user_id', true), '')::uuid);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP POLICY users_update_own ON users;
      REVOKE UPDATE (onboarding_completed) ON users FROM app_tenant;
    `);
  }
}
