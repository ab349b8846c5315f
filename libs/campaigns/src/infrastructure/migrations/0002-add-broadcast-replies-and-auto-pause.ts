import type { MigrationInterface, QueryRunner } from 'typeorm';

// Replies and auto-pause of broadcasts (docs/campaigns.md): how long after its send a recipient's
// reply counts (`reply_window_hours`, and `replied_at` on the recipient), and how many provider
// failures in a row pause the broadcast (`auto_pause_after_failures`, 0: never), with the running
// count and the reason shown while it is paused.
export class AddBroadcastRepliesAndAutoPause1763800017002 implements MigrationInterface {
  name = 'AddBroadcastRepliesAndAutoPause1763800017002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE broadcasts
        ADD COLUMN reply_window_hours integer NOT NULL DEFAULT 72
          CONSTRAINT broadcasts_reply_window_range CHECK (reply_window_hours BETWEEN 1 AND 720),
        ADD COLUMN auto_pause_after_failures integer NOT NULL DEFAULT 5
          CONSTRAINT broadcasts_auto_pause_range CHECK (auto_pause_after_failures BETWEEN 0 AND 1000),
        ADD COLUMN failures_in_a_row integer NOT NULL DEFAULT 0,
        ADD COLUMN pause_reason text CONSTRAINT broadcasts_pause_reason_length CHECK (length(pause_reason) <= 2000);
      ALTER TABLE broadcast_recipients ADD COLUMN replied_at timestamptz;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE broadcast_recipients DROP COLUMN replied_at;
      ALTER TABLE broadcasts DROP COLUMN reply_window_hours, DROP COLUMN auto_pause_after_failures, DROP COLUMN failures_in_a_row, DROP COLUMN pause_reason;
    `);
  }
}
