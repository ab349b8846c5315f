import type { MigrationInterface, QueryRunner } from 'typeorm';

// The profile of §2: onboarding_completed is set by onboarding (through identity) and by the user.
export class AddProfileFields1763800001004 implements MigrationInterface {
  name = 'AddProfileFields1763800001004';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE users ADD COLUMN onboarding_completed boolean NOT NULL DEFAULT false;
      GRANT SELECT (onboarding_completed) ON users TO app_tenant;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE users DROP COLUMN onboarding_completed`);
  }
}
