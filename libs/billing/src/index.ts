import { defineContext, type MigrationClass } from '@engage/platform';
import { BillingModule } from './billing.module';

export { BillingModule } from './billing.module';

export const billingMigrations: MigrationClass[] = [];

// Created empty: its issue fills the manifest.
export const billingManifest = defineContext({
  name: 'billing', module: BillingModule, migrations: billingMigrations, tables: [], publishes: [], consumes: {},
});
