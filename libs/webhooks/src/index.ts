import { defineContext, type MigrationClass } from '@engage/platform';
import { ConfigurationsWriter } from './application/webhooks.record-writers';
import { WEBHOOK_TABLES } from './infrastructure/exposed-tables';
import { WebhooksModule } from './webhooks.module';
import { WEBHOOK_SETTINGS } from './webhooks.settings';
import { WEBHOOKS_PERMISSIONS } from './webhooks.permissions';
import { webhooksQueues } from './application/delivery.worker';
import { webhooksSchedules } from './application/webhook-log-purge.job';
import { CreateWebhookTables1763800004001 } from './infrastructure/migrations/0001-create-webhook-tables';
import { IndexDueDeliveriesPerEndpoint1763800004002 } from './infrastructure/migrations/0002-index-due-deliveries-per-endpoint';

export { WebhooksModule } from './webhooks.module';
export { webhooksSchedules } from './application/webhook-log-purge.job';
export { webhooksQueues } from './application/delivery.worker';

export const webhooksMigrations: MigrationClass[] = [CreateWebhookTables1763800004001, IndexDueDeliveriesPerEndpoint1763800004002];

// Outbound webhooks as the composition sees it: deliveries follow every event declared with a
// webhook contract (the catalogue), so no producer is named here.
export const webhooksManifest = defineContext({
  name: 'webhooks',
  module: WebhooksModule,
  migrations: webhooksMigrations,
  tables: [{ table: WEBHOOK_TABLES.configurations, writer: ConfigurationsWriter }, { table: WEBHOOK_TABLES.logs }],
  publishes: [],
  consumes: { contracts: ['webhook'] },
  settings: WEBHOOK_SETTINGS,
  jobs: { schedules: webhooksSchedules, queues: webhooksQueues },
  permissions: WEBHOOKS_PERMISSIONS,
});
export { WEBHOOKS_MANAGE } from './webhooks.permissions';
export { WEBHOOK_SETTINGS } from './webhooks.settings';
