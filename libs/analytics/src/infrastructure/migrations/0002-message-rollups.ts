import type { MigrationInterface, QueryRunner } from 'typeorm';

// Per organization and 15-minute UTC quarter hour, the additive figures of messaging_message_facts
// the reports read (docs/analytics.md, "Rollups"): all messages, customer messages, answered ones
// with the sum of their response seconds, answered within the target the rollup was made for,
// unanswered ones and customer messages of unassigned conversations. rolled_in is the snapshot the
// row was computed in: a change recorded by a transaction it does not see makes the row stale.
// analytics_rollup_state holds how far an organization is rolled and for which target.
export class MessageRollups1763800014002 implements MigrationInterface {
  name = 'MessageRollups1763800014002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE analytics_message_rollups (
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        bucket timestamptz NOT NULL,
        messages integer NOT NULL,
        customer_messages integer NOT NULL,
        answered integer NOT NULL,
        response_seconds numeric NOT NULL,
        answered_in_target integer NOT NULL,
        unanswered integer NOT NULL,
        unassigned integer NOT NULL,
        rolled_in pg_snapshot NOT NULL,
        PRIMARY KEY (organization_id, bucket)
      );
      SELECT enable_tenant_rls('analytics_message_rollups');
      CREATE TABLE analytics_rollup_state (
        organization_id uuid PRIMARY KEY REFERENCES organizations(id) ON DELETE CASCADE,
        rolled_until timestamptz,
        target_minutes integer NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      SELECT enable_tenant_rls('analytics_rollup_state');
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE analytics_rollup_state, analytics_message_rollups`);
  }
}
