import type { MigrationInterface, QueryRunner } from 'typeorm';

// Tasks and notes on contacts, companies and deals. A row links to at least one of the three and
// may link to several (a call-back task on a deal and its contact). The links are composite keys,
// so nothing points into another organization; deleting a linked record deletes its tasks and notes.
export class CreateTasksAndNotes1763800002004 implements MigrationInterface {
  name = 'CreateTasksAndNotes1763800002004';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE tasks (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        title text NOT NULL CHECK (length(title) BETWEEN 1 AND 200),
        description text NOT NULL DEFAULT '' CHECK (length(description) <= 5000),
        due_at timestamptz,
        assignee_id uuid,
        done boolean NOT NULL DEFAULT false,
        done_at timestamptz,
        contact_id uuid,
        company_id uuid,
        deal_id uuid,
        created_by uuid,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (organization_id, id),
        CONSTRAINT tasks_linked_check CHECK (num_nonnulls(contact_id, company_id, deal_id) >= 1),
        CONSTRAINT tasks_done_at_check CHECK (done = (done_at IS NOT NULL)),
        CONSTRAINT tasks_assignee_fkey FOREIGN KEY (organization_id, assignee_id) REFERENCES memberships (organization_id, user_id) ON DELETE SET NULL (assignee_id),
        CONSTRAINT tasks_contact_fkey FOREIGN KEY (organization_id, contact_id) REFERENCES contacts (organization_id, id) ON DELETE CASCADE,
        CONSTRAINT tasks_company_fkey FOREIGN KEY (organization_id, company_id) REFERENCES companies (organization_id, id) ON DELETE CASCADE,
        CONSTRAINT tasks_deal_fkey FOREIGN KEY (organization_id, deal_id) REFERENCES deals (organization_id, id) ON DELETE CASCADE
      );
      CREATE INDEX tasks_contact_idx ON tasks (organization_id, contact_id) WHERE contact_id IS NOT NULL;
      CREATE INDEX tasks_company_idx ON tasks (organization_id, company_id) WHERE company_id IS NOT NULL;
      CREATE INDEX tasks_deal_idx ON tasks (organization_id, deal_id) WHERE deal_id IS NOT NULL;
      CREATE INDEX tasks_open_due_idx ON tasks (organization_id, assignee_id, due_at) WHERE NOT done;
      SELECT enable_tenant_rls('tasks');

      CREATE TABLE notes (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        body text NOT NULL CHECK (length(body) BETWEEN 1 AND 10000),
        author_id uuid,
        contact_id uuid,
        company_id uuid,
        deal_id uuid,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (organization_id, id),
        CONSTRAINT notes_linked_check CHECK (num_nonnulls(contact_id, company_id, deal_id) >= 1),
        CONSTRAINT notes_author_fkey FOREIGN KEY (organization_id, author_id) REFERENCES memberships (organization_id, user_id) ON DELETE SET NULL (author_id),
        CONSTRAINT notes_contact_fkey FOREIGN KEY (organization_id, contact_id) REFERENCES contacts (organization_id, id) ON DELETE CASCADE,
        CONSTRAINT notes_company_fkey FOREIGN KEY (organization_id, company_id) REFERENCES companies (organization_id, id) ON DELETE CASCADE,
        CONSTRAINT notes_deal_fkey FOREIGN KEY (organization_id, deal_id) REFERENCES deals (organization_id, id) ON DELETE CASCADE
      );
      CREATE INDEX notes_contact_idx ON notes (organization_id, contact_id, created_at DESC) WHERE contact_id IS NOT NULL;
      CREATE INDEX notes_company_idx ON notes (organization_id, company_id, created_at DESC) WHERE company_id IS NOT NULL;
      CREATE INDEX notes_deal_idx ON notes (organization_id, deal_id, created_at DESC) WHERE deal_id IS NOT NULL;
      SELECT enable_tenant_rls('notes');
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE notes, tasks`);
  }
}
