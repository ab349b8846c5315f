import type { MigrationInterface, QueryRunner } from 'typeorm';

// Company timelines: an entry may also link to a company (a deal of the company, a note or task on
// it). Deleting the company unlinks the entry, as for contacts and deals.
export class AddTimelineCompany1763800002007 implements MigrationInterface {
  name = 'AddTimelineCompany1763800002007';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE timeline_entries ADD COLUMN company_id uuid,
        ADD CONSTRAINT timeline_entries_company_fkey FOREIGN KEY (organization_id, company_id) REFERENCES companies (organization_id, id) ON DELETE SET NULL (company_id);
      CREATE INDEX timeline_entries_company_idx ON timeline_entries (organization_id, company_id, occurred_at DESC, id DESC) WHERE company_id IS NOT NULL;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX timeline_entries_company_idx; ALTER TABLE timeline_entries DROP COLUMN company_id`);
  }
}
