import type { MigrationInterface, QueryRunner } from 'typeorm';

// One row per (organization, lower-cased email, contact): the indexed lookup of contacts by email
// (an import matches a batch of emails with one index probe each, however many contacts exist).
// Unlike phones an email does not identify a contact (two contacts may share one; a match picks
// the oldest), so the key includes the contact. Kept in step with contacts.emails by the CRM's
// writes, as contact_phones is; existing contacts are backfilled here.
export class CreateContactEmails1763800002009 implements MigrationInterface {
  name = 'CreateContactEmails1763800002009';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE contact_emails (
        organization_id uuid NOT NULL,
        email text NOT NULL,
        contact_id uuid NOT NULL,
        PRIMARY KEY (organization_id, email, contact_id),
        CONSTRAINT contact_emails_contact_fkey FOREIGN KEY (organization_id, contact_id)
          REFERENCES contacts (organization_id, id) ON DELETE CASCADE
      );
      CREATE INDEX contact_emails_contact_idx ON contact_emails (organization_id, contact_id);
      SELECT enable_tenant_rls('contact_emails');
      INSERT INTO contact_emails (organization_id, email, contact_id)
      SELECT DISTINCT c.organization_id, lower(e.email), c.id FROM contacts c CROSS JOIN LATERAL unnest(c.emails) AS e(email)
      ON CONFLICT DO NOTHING;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE contact_emails`);
  }
}
