import type { MigrationInterface, QueryRunner } from 'typeorm';

// The duplicate-detection keys of each company (normalised name, website domain, phones, email
// domains), computed by the domain code and kept with the row version (xmin) they were computed
// from: find-duplicate-companies refreshes only the companies written since (any write path,
// even plain SQL, changes xmin) and lets PostgreSQL group the keys, so a request no longer
// normalises every company. Filled on the first request; no backfill needed.
export class CreateCompanyDuplicateKeys1763800002010 implements MigrationInterface {
  name = 'CreateCompanyDuplicateKeys1763800002010';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE company_duplicate_keys (
        organization_id uuid NOT NULL,
        company_id uuid NOT NULL,
        version bigint NOT NULL,
        keys text[] NOT NULL,
        PRIMARY KEY (organization_id, company_id),
        CONSTRAINT company_duplicate_keys_company_fkey FOREIGN KEY (organization_id, company_id)
          REFERENCES companies (organization_id, id) ON DELETE CASCADE
      );
      SELECT enable_tenant_rls('company_duplicate_keys');
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE company_duplicate_keys`);
  }
}
