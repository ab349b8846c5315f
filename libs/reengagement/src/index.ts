import { defineContext, type MigrationClass } from '@engage/platform';
import { MESSAGE_RECEIVED } from '@engage/messaging';
import { ReengagementModule } from './reengagement.module';
import { REENGAGEMENT_PERMISSIONS } from './reengagement.permissions';
import { AI_REENGAGEMENT_SENT } from './application/reengagement-events';
import { reengagementSchedules } from './application/scheduler';
import { REENGAGEMENT_TABLES } from './infrastructure/exposed-tables';
import { CreateReengagementTables1763800012001 } from './infrastructure/migrations/0001-create-reengagement-tables';
import { RenameNudgeStatuses1763800012002 } from './infrastructure/migrations/0002-rename-nudge-statuses';
import { QueuedNudges1763800012003 } from './infrastructure/migrations/0003-queued-nudges';

export { ReengagementModule, REENGAGEMENT_OUTBOUND } from './reengagement.module';
export { REENGAGEMENT_TABLES } from './infrastructure/exposed-tables';
export { AI_REENGAGEMENT_SENT, type NudgePayload } from './application/reengagement-events';
export { ReengagementScheduler, reengagementPassJob, reengagementSchedules } from './application/scheduler';

export const reengagementMigrations: MigrationClass[] = [CreateReengagementTables1763800012001, RenameNudgeStatuses1763800012002, QueuedNudges1763800012003];

// AI re-engagement (docs/reengagement.md). Its nudges and per-conversation state are read-only
// through the data API; a scheduler pass each minute; customers' replies come from messaging.
export const reengagementManifest = defineContext({
  name: 'reengagement',
  module: ReengagementModule,
  migrations: reengagementMigrations,
  tables: [{ table: REENGAGEMENT_TABLES.nudges }, { table: REENGAGEMENT_TABLES.conversations }],
  publishes: [AI_REENGAGEMENT_SENT],
  consumes: { events: [MESSAGE_RECEIVED] },
  jobs: { schedules: reengagementSchedules },
  permissions: REENGAGEMENT_PERMISSIONS,
});
