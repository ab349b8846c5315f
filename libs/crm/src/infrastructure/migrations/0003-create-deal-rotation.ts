import type { MigrationInterface, QueryRunner } from 'typeorm';

// Where the round-robin of deal auto-reassignment stopped, per organization, so the spread stays
// fair across runs and worker replicas.
export class CreateDealRotation1763800002003 implements MigrationInterface {
  name = 'CreateDealRotation1763800002003';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE deal_rotation (
        organization_id uuid PRIMARY KEY REFERENCES organizations(id) ON DELETE CASCADE,
        last_user_id uuid,
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      SELECT enable_tenant_rls('deal_rotation');
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE deal_rotation`);
  }
}
