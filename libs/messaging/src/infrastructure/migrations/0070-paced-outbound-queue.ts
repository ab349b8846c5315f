import type { MigrationInterface, QueryRunner } from 'typeorm';

// The paced send queue (docs/messaging.md, "The paced send queue"). A message of an automated origin
// is stored QUEUED with when it is expected to go (scheduled_for) and waits for its channel
// account's pacing; dispatched_at is when it was handed to the provider (a send's PENDING moment),
// which the caps count and the pending-send sweeper measures staleness from. A channel account
// keeps its pacing overrides (over the kind's defaults), whether it is paused and why, its run of
// provider failures, when the queue may next send on it, and the lease of the worker sending on it
// (one provider call in flight per account).
export class PacedOutboundQueue1763800003070 implements MigrationInterface {
  name = 'PacedOutboundQueue1763800003070';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE messages DROP CONSTRAINT messages_status_check,
        ADD CONSTRAINT messages_status_check CHECK (status IN ('QUEUED', 'PENDING', 'SENT', 'DELIVERED', 'READ', 'FAILED')),
        ADD COLUMN scheduled_for timestamptz,
        ADD COLUMN dispatched_at timestamptz`);
    await q.query(`UPDATE messages SET dispatched_at = created_at WHERE direction = 'OUTBOUND'`);
    await q.query(`CREATE INDEX messages_queued_idx ON messages (channel_account_id, created_at, id) WHERE status = 'QUEUED'`);
    await q.query(`CREATE INDEX messages_dispatched_idx ON messages (channel_account_id, dispatched_at) WHERE dispatched_at IS NOT NULL`);
    await q.query(`DROP INDEX messages_pending_idx`);
    await q.query(`CREATE INDEX messages_pending_idx ON messages (dispatched_at, id) WHERE status = 'PENDING' AND direction = 'OUTBOUND'`);
    await q.query(`
      ALTER TABLE channel_accounts
        ADD COLUMN pacing jsonb NOT NULL DEFAULT '{}'::jsonb,
        ADD COLUMN paused_at timestamptz,
        ADD COLUMN paused_reason text,
        ADD COLUMN consecutive_failures integer NOT NULL DEFAULT 0,
        ADD COLUMN next_send_at timestamptz,
        ADD COLUMN queue_lease_until timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE channel_accounts DROP COLUMN pacing, DROP COLUMN paused_at, DROP COLUMN paused_reason, DROP COLUMN consecutive_failures,
        DROP COLUMN next_send_at, DROP COLUMN queue_lease_until`);
    await q.query(`DROP INDEX messages_pending_idx`);
    await q.query(`DROP INDEX messages_dispatched_idx`);
    await q.query(`DROP INDEX messages_queued_idx`);
    await q.query(`UPDATE messages SET status = 'FAILED', error = 'queue removed' WHERE status = 'QUEUED'`);
    await q.query(`
      ALTER TABLE messages DROP COLUMN scheduled_for, DROP COLUMN dispatched_at, DROP CONSTRAINT messages_status_check,
        ADD CONSTRAINT messages_status_check CHECK (status IN ('PENDING', 'SENT', 'DELIVERED', 'READ', 'FAILED'))`);
    await q.query(`CREATE INDEX messages_pending_idx ON messages (created_at, id) WHERE status = 'PENDING' AND direction = 'OUTBOUND'`);
  }
}
