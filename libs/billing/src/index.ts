import { defineContext, type MigrationClass } from '@engage/platform';
import { BillingModule } from './billing.module';
import { BILLING_EVENTS } from './application/billing-events';
import { BILLING_SETTINGS } from './billing.settings';
import { BILLING_TABLES } from './infrastructure/exposed-tables';
import { CreateSubscriptionTables1763800005001 } from './infrastructure/migrations/0001-create-subscription-tables';
import { PublishBillingReadModels1763800005002 } from './infrastructure/migrations/0002-publish-read-models';
import { CreatePlanLimits1763800005101 } from './limits/migrations/0101-create-plan-limits';

export { BillingModule } from './billing.module';
export { BILLING_SETTINGS } from './billing.settings';
export { BILLING_EVENTS, SUBSCRIPTION_CHANGED, type SubscriptionChangedPayload, type SubscriptionRecord } from './application/billing-events';
export { SUBSCRIPTION_STATUSES, type SubscriptionStatus } from './domain/billing-event';
export { signBody } from './domain/signature';
export { setPlan, type PlanInput } from './application/set-plan';

export const billingMigrations: MigrationClass[] = [
  CreateSubscriptionTables1763800005001,
  // What other contexts may read (docs/billing.md).
  PublishBillingReadModels1763800005002,
  // Plan limits (docs/plan-limits.md).
  CreatePlanLimits1763800005101,
];

// The billing bridge, plans and subscription view as the composition sees them (docs/billing.md).
export const billingManifest = defineContext({
  name: 'billing',
  module: BillingModule,
  migrations: billingMigrations,
  tables: [{ table: BILLING_TABLES.plans }, { table: BILLING_TABLES.subscriptions }],
  publishes: BILLING_EVENTS,
  consumes: {},
  settings: BILLING_SETTINGS,
});
