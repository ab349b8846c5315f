import type { MigrationInterface, QueryRunner } from 'typeorm';

// The nudges' statuses as the interface spec (§3) names them: a nudge waiting for an agent's
// approval is `draft` (it was `awaiting_approval`), and one the AI is still writing is `drafting`
// (it was `draft`). Existing rows are renamed by one statement, each row once, so no waiting nudge
// can be taken for one being written; the CHECK constraint, the column's default and the partial
// index of the nudges that may still expire follow.
export class RenameNudgeStatuses1763800012002 implements MigrationInterface {
  name = 'RenameNudgeStatuses1763800012002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE reengagement_nudges DROP CONSTRAINT reengagement_nudges_status_known;
      UPDATE reengagement_nudges SET status = CASE status WHEN 'draft' THEN 'drafting' ELSE 'draft' END
      WHERE status IN ('draft', 'awaiting_approval');
      ALTER TABLE reengagement_nudges ALTER COLUMN status SET DEFAULT 'drafting',
        ADD CONSTRAINT reengagement_nudges_status_known
          CHECK (status IN ('drafting', 'draft', 'sent', 'skipped', 'expired', 'failed', 'user_replied'));
      DROP INDEX reengagement_nudges_awaiting_idx;
      CREATE INDEX reengagement_nudges_awaiting_idx ON reengagement_nudges (window_closes_at) WHERE status IN ('drafting', 'draft');
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE reengagement_nudges DROP CONSTRAINT reengagement_nudges_status_known;
      UPDATE reengagement_nudges SET status = CASE status WHEN 'draft' THEN 'awaiting_approval' ELSE 'draft' END
      WHERE status IN ('drafting', 'draft');
      ALTER TABLE reengagement_nudges ALTER COLUMN status SET DEFAULT 'draft',
        ADD CONSTRAINT reengagement_nudges_status_known
          CHECK (status IN ('draft', 'awaiting_approval', 'sent', 'skipped', 'expired', 'failed', 'user_replied'));
      DROP INDEX reengagement_nudges_awaiting_idx;
      CREATE INDEX reengagement_nudges_awaiting_idx ON reengagement_nudges (window_closes_at) WHERE status IN ('draft', 'awaiting_approval');
    `);
  }
}
