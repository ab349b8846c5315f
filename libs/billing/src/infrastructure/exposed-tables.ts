import { tableDefinition } from '@engage/platform';
import { column, COMMON_COLUMNS, declareTable } from '@engage/shared-kernel';

// The billing tables the data API serves, read-only (plans are written by migrations and the admin
// CLI, subscriptions by the billing bridge), every column declared once (a test compares the
// declarations with the database).
const { uuid, text, textOrNull, at, atOrNull } = COMMON_COLUMNS;
const limit = column('integer', { nullable: true });

export const SUBSCRIPTION_PLANS = declareTable({
  name: 'subscription_plans',
  columns: {
    id: text,
    name: text,
    description: text,
    price: column('numeric'),
    currency: text,
    interval: text,
    limit_contacts: limit,
    limit_conversations_per_month: limit,
    limit_team_members: limit,
    product_lookup_id: textOrNull,
    price_lookup_id: textOrNull,
    is_active: column('boolean'),
    created_at: at,
    updated_at: at,
  },
});

export const SUBSCRIPTIONS = declareTable({
  name: 'subscriptions',
  columns: {
    id: uuid,
    organization_id: uuid,
    plan_id: text,
    billing_provider: text,
    storefront_store_id: textOrNull,
    shop_domain: textOrNull,
    status: text,
    current_period_start: atOrNull,
    current_period_end: atOrNull,
    trial_start: atOrNull,
    trial_end: atOrNull,
    cancel_at_period_end: column('boolean'),
    metadata: column('jsonb'),
    owner_id: column('uuid', { nullable: true }),
    created_at: at,
    updated_at: at,
  },
});

// Members other than OWNER and ADMIN (and the organization's API keys) read which plan and in
// which status, nothing else.
const FOR_ALL_MEMBERS: readonly string[] = ['id', 'organization_id', 'plan_id', 'status'];
const restricted = {
  columns: Object.keys(SUBSCRIPTIONS.columns).filter((name) => !FOR_ALL_MEMBERS.includes(name)),
  roles: ['OWNER', 'ADMIN', 'SYSTEM'] as const,
};

export const BILLING_TABLES = {
  plans: tableDefinition(SUBSCRIPTION_PLANS),
  subscriptions: tableDefinition(SUBSCRIPTIONS, {
    foreignKeys: [{ name: 'subscriptions_plan_id_fkey', column: 'plan_id', references: { table: 'subscription_plans', column: 'id' } }],
    restricted,
  }),
};
