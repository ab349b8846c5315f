import type { MigrationInterface, QueryRunner } from 'typeorm';

// What caused an event when a rule's action did: {rule_id, run_id, depth} (automation's loop
// guard, docs/events.md). Null for events of people, providers and timers (depth 0).
export class AddOutboxCause1763800000006 implements MigrationInterface {
  name = 'AddOutboxCause1763800000006';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE outbox ADD COLUMN cause jsonb`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE outbox DROP COLUMN cause`);
  }
}
