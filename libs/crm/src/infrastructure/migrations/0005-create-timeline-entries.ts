import type { MigrationInterface, QueryRunner } from 'typeorm';

// The activity timeline of contacts and deals, written by the CRM's event consumer: one row per
// event (a deal event of a contact's deal shows on both timelines). Deleting the contact or deal
// unlinks the row instead of losing the other side's history.
export class CreateTimelineEntries1763800002005 implements MigrationInterface {
  name = 'CreateTimelineEntries1763800002005';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE timeline_entries (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        event_id uuid NOT NULL,
        type text NOT NULL CHECK (length(type) BETWEEN 1 AND 100),
        source text NOT NULL CHECK (length(source) BETWEEN 1 AND 50),
        occurred_at timestamptz NOT NULL,
        actor_id uuid,
        contact_id uuid,
        deal_id uuid,
        summary text NOT NULL CHECK (length(summary) <= 500),
        data jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT timeline_entries_event_key UNIQUE (organization_id, event_id),
        CONSTRAINT timeline_entries_contact_fkey FOREIGN KEY (organization_id, contact_id) REFERENCES contacts (organization_id, id) ON DELETE SET NULL (contact_id),
        CONSTRAINT timeline_entries_deal_fkey FOREIGN KEY (organization_id, deal_id) REFERENCES deals (organization_id, id) ON DELETE SET NULL (deal_id)
      );
      CREATE INDEX timeline_entries_contact_idx ON timeline_entries (organization_id, contact_id, occurred_at DESC, id DESC) WHERE contact_id IS NOT NULL;
      CREATE INDEX timeline_entries_deal_idx ON timeline_entries (organization_id, deal_id, occurred_at DESC, id DESC) WHERE deal_id IS NOT NULL;
      SELECT enable_tenant_rls('timeline_entries');
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE timeline_entries`);
  }
}
