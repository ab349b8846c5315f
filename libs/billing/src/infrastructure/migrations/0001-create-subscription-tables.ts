import type { MigrationInterface, QueryRunner } from 'typeorm';

// Plans are global (every organization chooses among the same ones); subscriptions are tenant rows.
// One subscription per organization (organization_id UNIQUE): the bridge keys its upsert on the
// store, and an organization is billed through one store. Limits: NULL means unlimited.
export class CreateSubscriptionTables1763800005001 implements MigrationInterface {
  name = 'CreateSubscriptionTables1763800005001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE subscription_plans (
        id text PRIMARY KEY CHECK (id ~ '^[a-z0-9][a-z0-9_-]{0,62}$'),
        name text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
        description text NOT NULL DEFAULT '' CHECK (length(description) <= 1000),
        price numeric(12, 2) NOT NULL CHECK (price >= 0),
        currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
        interval text NOT NULL CHECK (interval IN ('month', 'year')),
        limit_contacts integer CHECK (limit_contacts >= 0),
        limit_conversations_per_month integer CHECK (limit_conversations_per_month >= 0),
        limit_team_members integer CHECK (limit_team_members >= 1),
        product_lookup_id text CHECK (length(product_lookup_id) <= 255),
        price_lookup_id text CHECK (length(price_lookup_id) <= 255),
        is_active boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      -- Readable by every signed-in caller; written only by migrations and the admin CLI.
      GRANT SELECT ON subscription_plans TO app_tenant;

      INSERT INTO subscription_plans (id, name, description, price, currency, interval, limit_contacts,
                                      limit_conversations_per_month, limit_team_members, product_lookup_id, price_lookup_id)
      VALUES
        ('free', 'Free trial', 'Try the inbox, CRM and automations with a small team.', 0, 'USD', 'month',
         250, 100, 2, 'engage_free', 'engage_free_monthly'),
        ('starter', 'Starter', 'For small teams answering customers on a few channels.', 29, 'USD', 'month',
         2500, 1000, 3, 'engage_starter', 'engage_starter_monthly'),
        ('growth', 'Growth', 'For growing teams with automations and broadcasts.', 79, 'USD', 'month',
         10000, 5000, 10, 'engage_growth', 'engage_growth_monthly'),
        ('business', 'Business', 'For larger teams: unlimited seats and high volumes.', 199, 'USD', 'month',
         50000, 25000, NULL, 'engage_business', 'engage_business_monthly');

      CREATE TABLE subscriptions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL UNIQUE REFERENCES organizations(id) ON DELETE CASCADE,
        plan_id text NOT NULL REFERENCES subscription_plans(id) ON UPDATE CASCADE,
        billing_provider text NOT NULL DEFAULT 'storefront' CHECK (length(billing_provider) BETWEEN 1 AND 50),
        storefront_store_id text UNIQUE CHECK (length(storefront_store_id) BETWEEN 1 AND 255),
        shop_domain text CHECK (length(shop_domain) <= 255),
        status text NOT NULL CHECK (status IN ('trialing', 'active', 'past_due', 'canceled')),
        current_period_start timestamptz,
        current_period_end timestamptz,
        trial_start timestamptz,
        trial_end timestamptz,
        cancel_at_period_end boolean NOT NULL DEFAULT false,
        -- Internal: the plan's product and price lookup ids at the time of the last applied event.
        metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
        owner_id uuid REFERENCES users(id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX subscriptions_plan_idx ON subscriptions (plan_id);
      SELECT enable_tenant_rls('subscriptions');
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE subscriptions, subscription_plans`);
  }
}
