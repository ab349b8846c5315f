// Read in the caller's tenant transaction: row-level security limits every table to the caller's organization.
// Other contexts' facts come from their published views (docs/architecture.md, "Reading another context's data"):
// identity's profiles, billing's billing_subscription_states, messaging's messaging_channel_accounts.
export const ONBOARDING_FACTS = `
  SELECT coalesce((SELECT email_confirmed FROM profiles WHERE id = $1), false) AS email_verified,
         EXISTS (SELECT 1 FROM billing_subscription_states WHERE subscribed) AS subscribed,
         EXISTS (SELECT 1 FROM messaging_channel_accounts)
           OR EXISTS (SELECT 1 FROM onboarding_progress WHERE user_id = $1 AND channels_skipped_at IS NOT NULL) AS channels_ready,
         coalesce((SELECT onboarding_completed FROM profiles WHERE id = $1), false) AS completed,
         (SELECT selected_plan_id FROM onboarding_progress WHERE user_id = $1) AS selected_plan_id`;

export interface FactsRow {
  email_verified: boolean;
  subscribed: boolean;
  channels_ready: boolean;
  completed: boolean;
  selected_plan_id: string | null;
}

export const ACTIVE_PLAN = `SELECT id, name, description, price::float8 AS price, currency, interval FROM billing_offered_plans WHERE id = $1`;

export const SUBSCRIPTION_STATE = `SELECT plan_id, subscribed FROM billing_subscription_states`;

export const RECORD_PLAN_CHOICE = `
  INSERT INTO onboarding_progress (organization_id, user_id, selected_plan_id, plan_selected_at) VALUES (app_org_id(), $1, $2, now())
  ON CONFLICT (organization_id, user_id) DO UPDATE SET selected_plan_id = excluded.selected_plan_id, plan_selected_at = now(), updated_at = now()`;

export const RECORD_CHANNELS_SKIPPED = `
  INSERT INTO onboarding_progress (organization_id, user_id, channels_skipped_at) VALUES (app_org_id(), $1, now())
  ON CONFLICT (organization_id, user_id) DO UPDATE SET channels_skipped_at = coalesce(onboarding_progress.channels_skipped_at, now()), updated_at = now()`;
