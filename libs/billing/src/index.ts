import type { MigrationClass } from '@engage/platform';

export { BillingModule } from './billing.module';

export const billingMigrations: MigrationClass[] = [];
