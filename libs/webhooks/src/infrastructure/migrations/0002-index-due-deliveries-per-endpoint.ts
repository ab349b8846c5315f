import type { MigrationInterface, QueryRunner } from 'typeorm';

// Claims walk the endpoints with queued deliveries and take each one's oldest due rows through this
// index, so a claim costs per endpoint, not per queued row; the global due index it replaces made
// every claim sort the whole backlog.
export class IndexDueDeliveriesPerEndpoint1763800004002 implements MigrationInterface {
  name = 'IndexDueDeliveriesPerEndpoint1763800004002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE INDEX webhook_deliveries_due_per_endpoint_idx ON webhook_deliveries (webhook_id, next_attempt_at, created_at)
        WHERE status IN ('pending', 'retrying');
      DROP INDEX webhook_deliveries_due_idx;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status IN ('pending', 'retrying');
      DROP INDEX webhook_deliveries_due_per_endpoint_idx;
    `);
  }
}
