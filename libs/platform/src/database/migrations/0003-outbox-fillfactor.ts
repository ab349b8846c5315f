import type { MigrationInterface, QueryRunner } from 'typeorm';

// The relay marks every outbox row published shortly after it is written. Pages filled to half
// leave room for that new row version on the row's own page, and PostgreSQL then logs only the
// changed bytes of the row (published_at, attempts) instead of the whole row with its payload:
// the mark was the largest writer of WAL at 1,000 inbound messages a second.
export class OutboxFillfactor1763800000003 implements MigrationInterface {
  name = 'OutboxFillfactor1763800000003';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE outbox SET (fillfactor = 50)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE outbox RESET (fillfactor)`);
  }
}
