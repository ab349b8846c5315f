import type { MigrationInterface, QueryRunner } from 'typeorm';

// The hook every tenant transaction asks whether its organization may write (Database.inTenant).
// The platform answers "yes" for everyone; the billing context replaces the function with its
// rule (an ended subscription makes the organization read-only), so the platform never reads
// billing's tables and an installation without billing keeps writing.
export class CreateWriteBlockHook1763800000005 implements MigrationInterface {
  name = 'CreateWriteBlockHook1763800000005';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE FUNCTION organization_writes_blocked(org uuid) RETURNS boolean LANGUAGE sql STABLE AS 'SELECT false'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION organization_writes_blocked(uuid)`);
  }
}
