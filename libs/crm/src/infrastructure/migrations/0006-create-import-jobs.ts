import type { MigrationInterface, QueryRunner } from 'typeorm';

// CSV imports: one row per job with its progress, updated as batches commit, and the first errors
// with their line numbers. Companies get array indexes so an import can match by phone or email.
export class CreateImportJobs1763800002006 implements MigrationInterface {
  name = 'CreateImportJobs1763800002006';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE import_jobs (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        entity text NOT NULL CHECK (entity IN ('contacts', 'companies')),
        status text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'completed', 'failed')),
        processed integer NOT NULL DEFAULT 0,
        created integer NOT NULL DEFAULT 0,
        updated integer NOT NULL DEFAULT 0,
        failed integer NOT NULL DEFAULT 0,
        errors jsonb NOT NULL DEFAULT '[]'::jsonb,
        error text,
        created_by uuid,
        created_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz
      );
      CREATE INDEX import_jobs_org_created_idx ON import_jobs (organization_id, created_at DESC);
      SELECT enable_tenant_rls('import_jobs');

      CREATE INDEX companies_phones_idx ON companies USING gin (phones);
      CREATE INDEX companies_emails_idx ON companies USING gin (emails);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX companies_emails_idx, companies_phones_idx; DROP TABLE import_jobs`);
  }
}
