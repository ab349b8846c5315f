import { defineContext, type MigrationClass } from '@engage/platform';
import { RulesWriter } from './application/automation.record-writers';
import { automationSchedules } from './application/automation-schedules';
import { AutomationModule } from './automation.module';
import { AUTOMATION_PERMISSIONS } from './automation.permissions';
import { AUTOMATION_TABLES } from './infrastructure/exposed-tables';
import { CreateAutomationTables1763800016001 } from './infrastructure/migrations/0001-create-automation-tables';
import { AllowRunningRuns1763800016002 } from './infrastructure/migrations/0002-allow-running-runs';
import { ConversationTimersAndWaits1763800016003 } from './infrastructure/migrations/0003-conversation-timers-and-waits';
import { RULE_ENGINE_EVENTS } from './automation.events';
import { BotFlowsWriter } from './bots/application/bot-flows.service';
import { BOT_EVENTS, botSchedules } from './bots/application/bot.consumer';
import { BOT_TABLES } from './bots/infrastructure/exposed-tables';
import { CreateBotTables1763800016004 } from './infrastructure/migrations/0004-create-bot-tables';
import { DeliveringRuns1763800016005 } from './infrastructure/migrations/0005-delivering-runs';
import { RULE_WEBHOOK_JOB } from './application/rule-webhook.job';

export { AutomationModule } from './automation.module';
export { AUTOMATION_TABLES } from './infrastructure/exposed-tables';
export { AUTOMATION_RULES_MANAGE, AUTOMATION_BOTS_MANAGE } from './automation.permissions';
export { BOT_TABLES } from './bots/infrastructure/exposed-tables';
export { BotRuntime } from './bots/application/bot-runtime';
export { BOT_CONSUMER, botSchedules } from './bots/application/bot.consumer';
export { RunLogPurge } from './application/run-log-purge.job';
export { automationSchedules } from './application/automation-schedules';
export { TimerPass } from './application/timer-pass.job';

export const automationMigrations: MigrationClass[] = [
  CreateAutomationTables1763800016001,
  AllowRunningRuns1763800016002,
  ConversationTimersAndWaits1763800016003,
  // Bot flows, their versions and sessions (docs/automation.md, "Bot flows").
  CreateBotTables1763800016004,
  // A run whose webhooks are still being delivered by their jobs.
  DeliveringRuns1763800016005,
];
export { RuleEngine, ENGINE_EVENTS, type DueTimer } from './application/rule-engine';
export { RULE_ENGINE_CONSUMER } from './application/rule-engine.consumer';
export { RULE_WEBHOOK_TIMING, type WebhookTiming } from './application/rule-webhook';
export { RULE_WEBHOOK_JOB } from './application/rule-webhook.job';

// Automation as the composition sees it (docs/automation.md): rules written through the data API
// by their validator, the run log read-only there (purged after 30 days), the dry run, and the rule
// engine consuming messaging's, the CRM's and calls' events, with its timers and its webhook
// deliveries (jobs), and bot flows with their sessions.
export const automationManifest = defineContext({
  name: 'automation',
  module: AutomationModule,
  migrations: automationMigrations,
  tables: [
    { table: AUTOMATION_TABLES.rules, writer: RulesWriter },
    { table: AUTOMATION_TABLES.runs },
    { table: BOT_TABLES.flows, writer: BotFlowsWriter },
    { table: BOT_TABLES.versions },
    { table: BOT_TABLES.sessions },
  ],
  publishes: [],
  consumes: { events: [...RULE_ENGINE_EVENTS, ...BOT_EVENTS.filter((contract) => !RULE_ENGINE_EVENTS.includes(contract))] },
  jobs: { jobs: [RULE_WEBHOOK_JOB], schedules: [...automationSchedules, ...botSchedules] },
  permissions: AUTOMATION_PERMISSIONS,
});
