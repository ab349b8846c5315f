import type { MigrationInterface, QueryRunner } from 'typeorm';

// The completion guard asks billing's published view whether the organization is subscribed,
// instead of billing's private subscriptions table (docs/architecture.md, "Reading another
// context's data"). Same rule: a trialing or active subscription counts.
export class ReadBillingView1763800011002 implements MigrationInterface {
  name = 'ReadBillingView1763800011002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(guard('SELECT 1 FROM billing_subscription_states WHERE organization_id = org AND subscribed'));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(guard(`SELECT 1 FROM subscriptions WHERE organization_id = org AND status IN ('trialing', 'active')`));
  }
}

const guard = (subscribed: string) => `
  CREATE OR REPLACE FUNCTION onboarding_guard_completion() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
  DECLARE
    org uuid := nullif(current_setting('app.org_id', true), '')::uuid;
    missing text;
  BEGIN
    IF NEW.email_confirmed_at IS NULL THEN
      missing := 'verify_email';
    ELSIF org IS NOT NULL AND NOT EXISTS (${subscribed}) THEN
      missing := 'select_plan';
    ELSE
      RETURN NEW;
    END IF;
    RAISE EXCEPTION USING ERRCODE = 'EG409',
      MESSAGE = format('Onboarding cannot be completed: the step %s is not done', missing),
      DETAIL = json_build_object('code', 'onboarding.step_missing', 'missing_step', missing)::text,
      HINT = 'GET /functions/v1/onboarding shows the missing steps';
  END $$`;
