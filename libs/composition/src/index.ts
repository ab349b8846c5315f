import { BillingModule, billingMigrations } from '@engage/billing';
import { CRM_TABLES, CrmModule, crmMigrations } from '@engage/crm';
import { DataApiModule, type TableDefinition } from '@engage/data-api';
import { IDENTITY_TABLES, IdentityModule, identityMigrations } from '@engage/identity';
import { MESSAGING_TABLES, MessagingModule, messagingMigrations } from '@engage/messaging';
import type { MigrationClass } from '@engage/platform';
import { ReengagementModule, reengagementMigrations } from '@engage/reengagement';
import { WEBHOOK_TABLES, WebhooksModule, webhooksMigrations } from '@engage/webhooks';

// The bounded contexts both apps compose. The api serves their controllers; the worker runs their
// event consumers and jobs. Migrations are listed once so api and worker apply the same schema.
// The tables the data API serves, declared by the contexts that own them.
const EXPOSED_TABLES = [...IDENTITY_TABLES, ...CRM_TABLES, ...MESSAGING_TABLES, ...WEBHOOK_TABLES] as TableDefinition[];

export const CONTEXT_MODULES = [IdentityModule, CrmModule, MessagingModule, BillingModule, ReengagementModule, WebhooksModule, DataApiModule.forRoot(EXPOSED_TABLES)];

export const CONTEXT_MIGRATIONS: MigrationClass[] = [...identityMigrations, ...crmMigrations, ...messagingMigrations, ...billingMigrations, ...reengagementMigrations, ...webhooksMigrations];
export { CONTEXT_JOBS } from './context-jobs';
