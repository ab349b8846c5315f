import type { MigrationInterface, QueryRunner } from 'typeorm';

// Sends are stored PENDING before the provider is called; the sweeper looks for the ones a crash
// left behind. Few rows are PENDING at any time, so a partial index keeps that look-up cheap.
export class IndexPendingMessages1763800003002 implements MigrationInterface {
  name = 'IndexPendingMessages1763800003002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX messages_pending_idx ON messages (created_at, id) WHERE status = 'PENDING' AND direction = 'OUTBOUND'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX messages_pending_idx`);
  }
}
