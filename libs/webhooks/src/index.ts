import type { MigrationClass } from '@engage/platform';
import { CreateWebhookTables1763800004001 } from './infrastructure/migrations/0001-create-webhook-tables';
import { IndexDueDeliveriesPerEndpoint1763800004002 } from './infrastructure/migrations/0002-index-due-deliveries-per-endpoint';

export { WebhooksModule } from './webhooks.module';
export { WEBHOOK_EVENT_KINDS, type WebhookEventKind } from './domain/event-kinds';
export { WEBHOOK_TABLES } from './infrastructure/exposed-tables';
export { webhooksSchedules } from './application/webhook-log-purge.job';

export const webhooksMigrations: MigrationClass[] = [CreateWebhookTables1763800004001, IndexDueDeliveriesPerEndpoint1763800004002];
