import { defineContext, type MigrationClass } from '@engage/platform';
import { RulesWriter } from './application/automation.record-writers';
import { automationSchedules } from './application/run-log-purge.job';
import { AutomationModule } from './automation.module';
import { AUTOMATION_PERMISSIONS } from './automation.permissions';
import { AUTOMATION_TABLES } from './infrastructure/exposed-tables';
import { CreateAutomationTables1763800016001 } from './infrastructure/migrations/0001-create-automation-tables';

export { AutomationModule } from './automation.module';
export { AUTOMATION_TABLES } from './infrastructure/exposed-tables';
export { AUTOMATION_RULES_MANAGE } from './automation.permissions';
export { automationSchedules, RunLogPurge } from './application/run-log-purge.job';

export const automationMigrations: MigrationClass[] = [CreateAutomationTables1763800016001];

// Automation as the composition sees it (docs/automation.md): rules written through the data API
// by their validator, the run log read-only there (purged after 30 days), and the dry run. The rule engine (event
// consumption, timers, actions) is not built yet: it consumes nothing so far.
export const automationManifest = defineContext({
  name: 'automation',
  module: AutomationModule,
  migrations: automationMigrations,
  tables: [{ table: AUTOMATION_TABLES.rules, writer: RulesWriter }, { table: AUTOMATION_TABLES.runs }],
  publishes: [],
  consumes: {},
  jobs: { schedules: automationSchedules },
  permissions: AUTOMATION_PERMISSIONS,
});
