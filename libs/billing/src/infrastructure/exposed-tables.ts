// The billing tables the data API serves, read-only: plans are written by migrations and the admin
// CLI, subscriptions by the billing bridge.
const timestamps = { created_at: 'timestamptz', updated_at: 'timestamptz' } as const;

const plans = {
  name: 'subscription_plans',
  columns: {
    id: 'text', name: 'text', description: 'text', price: 'numeric', currency: 'text', interval: 'text', limit_contacts: 'int',
    limit_conversations_per_month: 'int', limit_team_members: 'int', product_lookup_id: 'text', price_lookup_id: 'text', is_active: 'bool', ...timestamps,
  },
} as const;

const subscriptions = {
  name: 'subscriptions',
  columns: {
    id: 'uuid', organization_id: 'uuid', plan_id: 'text', billing_provider: 'text', storefront_store_id: 'text', shop_domain: 'text', status: 'text',
    current_period_start: 'timestamptz', current_period_end: 'timestamptz', trial_start: 'timestamptz', trial_end: 'timestamptz',
    cancel_at_period_end: 'bool', metadata: 'jsonb', owner_id: 'uuid', ...timestamps,
  },
  foreignKeys: [{ name: 'subscriptions_plan_id_fkey', column: 'plan_id', references: { table: 'subscription_plans', column: 'id' } }],
} as const;

// Members other than OWNER and ADMIN (and the organization's API keys) read which plan and in
// which status, nothing else.
const FOR_ALL_MEMBERS: readonly string[] = ['id', 'organization_id', 'plan_id', 'status'];
const restricted = {
  columns: Object.keys(subscriptions.columns).filter((column) => !FOR_ALL_MEMBERS.includes(column)),
  roles: ['OWNER', 'ADMIN', 'SYSTEM'] as const,
};

export const BILLING_TABLES = {
  plans: { ...plans, readable: Object.keys(plans.columns) },
  subscriptions: { ...subscriptions, readable: Object.keys(subscriptions.columns), restricted },
};
