// The facts a billing event needs, in one round trip: does the organization exist, its OWNER (the
// earliest one when there are several: identity's published view) and the plan's lookup ids (NULL: no such plan).
export const EVENT_FACTS = `
  SELECT EXISTS (SELECT 1 FROM organizations WHERE id = $1) AS organization_exists,
         (SELECT owner_id FROM identity_organization_owners WHERE organization_id = $1) AS owner_id,
         (SELECT jsonb_build_object('product_lookup_id', product_lookup_id, 'price_lookup_id', price_lookup_id)
            FROM subscription_plans WHERE id = $2) AS plan_metadata`;

// The stale rule lives in the conflict clause, so the comparison and the write are one atomic step
// on the locked row: concurrent deliveries cannot interleave. No row comes back when the stored
// period starts later (stale), or when the event has no period start and the row has one (it
// cannot be ordered). Optional fields not sent ($ flags false, or NULL) keep the stored values.
export const UPSERT_SUBSCRIPTION = `
  INSERT INTO subscriptions AS s (organization_id, plan_id, billing_provider, storefront_store_id, shop_domain, status, current_period_start,
                                  current_period_end, trial_start, trial_end, cancel_at_period_end, metadata, owner_id)
  VALUES ($1, $2, 'storefront', $3, $4, $5, $6, $7, $8, $9, coalesce($10::boolean, false), $11, $12)
  ON CONFLICT (storefront_store_id) DO UPDATE SET
    plan_id = excluded.plan_id,
    billing_provider = 'storefront',
    status = excluded.status,
    shop_domain = coalesce(excluded.shop_domain, s.shop_domain),
    current_period_start = coalesce(excluded.current_period_start, s.current_period_start),
    current_period_end = coalesce(excluded.current_period_end, s.current_period_end),
    trial_start = CASE WHEN $13::boolean THEN excluded.trial_start ELSE s.trial_start END,
    trial_end = CASE WHEN $14::boolean THEN excluded.trial_end ELSE s.trial_end END,
    cancel_at_period_end = coalesce($10::boolean, s.cancel_at_period_end),
    metadata = s.metadata || excluded.metadata,
    owner_id = excluded.owner_id,
    updated_at = now()
  WHERE s.current_period_start IS NULL OR excluded.current_period_start >= s.current_period_start
  RETURNING s.id, s.organization_id, s.plan_id, s.billing_provider, s.storefront_store_id, s.status, s.current_period_start,
            s.current_period_end, s.trial_start, s.trial_end, s.cancel_at_period_end, (s.xmax = 0) AS created`;

export const STORED_STATUS = `SELECT status FROM subscriptions WHERE storefront_store_id = $1`;

// The organization's subscription with its plan, and its usage, under the caller's row-level
// security. Usage is plan_usage_of's (docs/plan-limits.md), the same counts the limits enforce:
// conversations count from the current period's start (the calendar month's in UTC without one).
export const SUBSCRIPTION_AND_USAGE = `
  WITH sub AS (
    SELECT s.status, s.current_period_end, s.trial_end, s.cancel_at_period_end,
           jsonb_build_object('id', p.id, 'name', p.name, 'description', p.description, 'price', p.price::text, 'currency', p.currency,
                              'interval', p.interval, 'limit_contacts', p.limit_contacts,
                              'limit_conversations_per_month', p.limit_conversations_per_month, 'limit_team_members', p.limit_team_members) AS plan
    FROM subscriptions s JOIN subscription_plans p ON p.id = s.plan_id
    WHERE s.organization_id = app_org_id()
  )
  SELECT sub.status, sub.current_period_end, sub.trial_end, sub.cancel_at_period_end, sub.plan,
         usage.contacts_used AS contacts, usage.conversations_used AS conversations, usage.team_members_used AS team_members
  FROM plan_usage_of(app_org_id()) AS usage LEFT JOIN sub ON true`;
