import { defineContext, type MigrationClass } from '@engage/platform';
import { BillingModule } from './billing.module';
import { CreateSubscriptionTables1763800005001 } from './infrastructure/migrations/0001-create-subscription-tables';
import { CreatePlanLimits1763800005101 } from './limits/migrations/0101-create-plan-limits';

export { BillingModule } from './billing.module';

export const billingMigrations: MigrationClass[] = [
  CreateSubscriptionTables1763800005001,
  // Plan limits (docs/plan-limits.md).
  CreatePlanLimits1763800005101,
];

// Created empty: its issue fills the manifest.
export const billingManifest = defineContext({
  name: 'billing', module: BillingModule, migrations: billingMigrations, tables: [], publishes: [], consumes: {},
});
