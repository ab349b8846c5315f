import type { MigrationInterface, QueryRunner } from 'typeorm';

// Nudges go through messaging's paced queue: a nudge is `queued` while its message waits there (most
// leave at once), then `sent`, `failed` or `expired` by the message's outcome.
export class QueuedNudges1763800012003 implements MigrationInterface {
  name = 'QueuedNudges1763800012003';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE reengagement_nudges DROP CONSTRAINT reengagement_nudges_status_known,
        ADD CONSTRAINT reengagement_nudges_status_known
          CHECK (status IN ('drafting', 'draft', 'queued', 'sent', 'skipped', 'expired', 'failed', 'user_replied'));
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      UPDATE reengagement_nudges SET status = 'sent', sent_at = coalesce(sent_at, updated_at) WHERE status = 'queued';
      ALTER TABLE reengagement_nudges DROP CONSTRAINT reengagement_nudges_status_known,
        ADD CONSTRAINT reengagement_nudges_status_known
          CHECK (status IN ('drafting', 'draft', 'sent', 'skipped', 'expired', 'failed', 'user_replied'));
    `);
  }
}
