import { defineContext, type MigrationClass } from '@engage/platform';
import { ReengagementModule } from './reengagement.module';

export { ReengagementModule } from './reengagement.module';

export const reengagementMigrations: MigrationClass[] = [];

// Created empty: its issue fills the manifest.
export const reengagementManifest = defineContext({
  name: 'reengagement', module: ReengagementModule, migrations: reengagementMigrations, tables: [], publishes: [], consumes: {},
});
