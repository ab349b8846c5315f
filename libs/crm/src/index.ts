import type { MigrationClass } from '@engage/platform';

export { CrmModule } from './crm.module';

export const crmMigrations: MigrationClass[] = [];
