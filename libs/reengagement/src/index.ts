import { defineContext, type MigrationClass } from '@engage/platform';
import { ReengagementModule } from './reengagement.module';
import { REENGAGEMENT_TABLES } from './infrastructure/exposed-tables';
import { CreateReengagementTables1763800012001 } from './infrastructure/migrations/0001-create-reengagement-tables';

export { ReengagementModule } from './reengagement.module';
export { REENGAGEMENT_TABLES } from './infrastructure/exposed-tables';

export const reengagementMigrations: MigrationClass[] = [CreateReengagementTables1763800012001];

// AI re-engagement (docs/reengagement.md). Its nudges and per-conversation state are read-only
// through the data API.
export const reengagementManifest = defineContext({
  name: 'reengagement',
  module: ReengagementModule,
  migrations: reengagementMigrations,
  tables: [{ table: REENGAGEMENT_TABLES.nudges }, { table: REENGAGEMENT_TABLES.conversations }],
  publishes: [],
  consumes: {},
});
