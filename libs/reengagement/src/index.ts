import type { MigrationClass } from '@engage/platform';

export { ReengagementModule } from './reengagement.module';

export const reengagementMigrations: MigrationClass[] = [];
