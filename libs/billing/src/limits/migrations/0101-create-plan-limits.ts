import type { MigrationInterface, QueryRunner } from 'typeorm';
import { PLAN_LIMITS_DOWN, PLAN_LIMITS_FUNCTIONS, PLAN_LIMITS_TRIGGERS } from './plan-limits.sql';

// Plan limits enforced by the database, so every path that creates a contact, a conversation or a
// member (the data API, the record proxy, sends, inbound messages, CSV imports, invitations) meets
// the same rule without knowing billing (docs/plan-limits.md).
//
// plan_usage holds one row of counters per organization WITH a subscription, kept by statement
// triggers: a batch of 500 rows costs one update, and an organization without a subscription (no
// row) costs one index probe per statement. The counter row's lock also serialises concurrent
// creations of one limited organization, so two of them cannot both take the last place.
export class CreatePlanLimits1763800005101 implements MigrationInterface {
  name = 'CreatePlanLimits1763800005101';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE plan_usage (
        organization_id uuid PRIMARY KEY REFERENCES organizations(id) ON DELETE CASCADE,
        contacts integer NOT NULL DEFAULT 0,
        team_members integer NOT NULL DEFAULT 0,
        -- Conversations opened in [period_start, period_end): the subscription's current period, or
        -- the calendar month when it has none running.
        conversations integer NOT NULL DEFAULT 0,
        period_start timestamptz NOT NULL,
        period_end timestamptz NOT NULL,
        -- The last time a write was kept past a limit (an inbound customer message is never refused).
        over_limit_at timestamptz,
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      SELECT enable_tenant_rls('plan_usage');
      -- Written only by the triggers (SECURITY DEFINER); members read it.
      REVOKE INSERT, UPDATE, DELETE ON plan_usage FROM app_tenant;
    `);
    await q.query(PLAN_LIMITS_FUNCTIONS);
    await q.query(PLAN_LIMITS_TRIGGERS);
    // Organizations that already have a subscription start with exact counters.
    await q.query(`SELECT plan_usage_recount(organization_id) FROM subscriptions`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(PLAN_LIMITS_DOWN);
  }
}
