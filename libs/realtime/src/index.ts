import { defineContext, type MigrationClass } from '@engage/platform';
import { NotifyRowChanges1763800015001 } from './infrastructure/migrations/0001-notify-row-changes';
import { NotifyWatchedOrganizations1763800015002 } from './infrastructure/migrations/0002-notify-watched-organizations';
import { RealtimeModule } from './realtime.module';
import { REALTIME_SETTINGS } from './realtime.settings';

export { RealtimeModule } from './realtime.module';
export { REALTIME_SETTINGS } from './realtime.settings';
export { REALTIME_PATH } from './http/realtime-gateway';
export { REALTIME_TABLES } from './infrastructure/realtime-tables';

export const realtimeMigrations: MigrationClass[] = [NotifyRowChanges1763800015001, NotifyWatchedOrganizations1763800015002];

// Supabase Realtime's postgres_changes over the data API's tables (docs/realtime.md): no tables or
// events of its own; its migration adds the change triggers on the tables it publishes.
export const realtimeManifest = defineContext({
  name: 'realtime',
  module: RealtimeModule,
  migrations: realtimeMigrations,
  tables: [],
  publishes: [],
  consumes: {},
  settings: REALTIME_SETTINGS,
});
