import type { MigrationInterface, QueryRunner } from 'typeorm';

// What other contexts may read of billing (docs/billing.md, "Published read models"): the
// subscription's plan and whether it is in good standing, and the plans on offer. Views with
// security_invoker, so the reader's row-level security applies; the tables stay billing's own.
export class PublishBillingReadModels1763800005002 implements MigrationInterface {
  name = 'PublishBillingReadModels1763800005002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE VIEW billing_subscription_states WITH (security_invoker = true) AS
        SELECT organization_id, plan_id, status IN ('trialing', 'active') AS subscribed FROM subscriptions;
      CREATE VIEW billing_offered_plans WITH (security_invoker = true) AS
        SELECT id, name, description, price, currency, interval FROM subscription_plans WHERE is_active;
      GRANT SELECT ON billing_subscription_states, billing_offered_plans TO app_tenant;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP VIEW billing_offered_plans; DROP VIEW billing_subscription_states`);
  }
}
