import type { MigrationInterface, QueryRunner } from 'typeorm';

// What onboarding records of its own (the plan chosen, channel setup skipped), per user and
// organization; and the rule that onboarding_completed turns true only after the required steps,
// held by the database so every writer of profiles (the data API's PATCH included) meets it
// without identity knowing onboarding. The refusal raises EG409, a 409 naming the missing step.
export class CreateOnboarding1763800011001 implements MigrationInterface {
  name = 'CreateOnboarding1763800011001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE onboarding_progress (
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        selected_plan_id text REFERENCES subscription_plans(id) ON UPDATE CASCADE ON DELETE SET NULL,
        plan_selected_at timestamptz,
        channels_skipped_at timestamptz,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (organization_id, user_id)
      );
      SELECT enable_tenant_rls('onboarding_progress');

      CREATE FUNCTION onboarding_guard_completion() RETURNS trigger
      LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
      DECLARE
        org uuid := nullif(current_setting('app.org_id', true), '')::uuid;
        missing text;
      BEGIN
        IF NEW.email_confirmed_at IS NULL THEN
          missing := 'verify_email';
        ELSIF org IS NOT NULL AND NOT EXISTS (SELECT 1 FROM subscriptions WHERE organization_id = org AND status IN ('trialing', 'active')) THEN
          missing := 'select_plan';
        ELSE
          RETURN NEW;
        END IF;
        RAISE EXCEPTION USING ERRCODE = 'EG409',
          MESSAGE = format('Onboarding cannot be completed: the step %s is not done', missing),
          DETAIL = json_build_object('code', 'onboarding.step_missing', 'missing_step', missing)::text,
          HINT = 'GET /functions/v1/onboarding shows the missing steps';
      END $$;
      CREATE TRIGGER users_onboarding_completion BEFORE UPDATE OF onboarding_completed ON users
        FOR EACH ROW WHEN (NEW.onboarding_completed AND NOT OLD.onboarding_completed) EXECUTE FUNCTION onboarding_guard_completion();
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER users_onboarding_completion ON users; DROP FUNCTION onboarding_guard_completion(); DROP TABLE onboarding_progress;`);
  }
}
