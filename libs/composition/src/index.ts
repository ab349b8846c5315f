import { BillingModule, billingMigrations } from '@engage/billing';
import { CrmModule, crmMigrations } from '@engage/crm';
import { IdentityModule, identityMigrations } from '@engage/identity';
import { MessagingModule, messagingMigrations } from '@engage/messaging';
import type { MigrationClass } from '@engage/platform';
import { ReengagementModule, reengagementMigrations } from '@engage/reengagement';

// The bounded contexts both apps compose. The api serves their controllers; the worker runs their
// event consumers and jobs. Migrations are listed once so api and worker apply the same schema.
export const CONTEXT_MODULES = [IdentityModule, CrmModule, MessagingModule, BillingModule, ReengagementModule];

export const CONTEXT_MIGRATIONS: MigrationClass[] = [...identityMigrations, ...crmMigrations, ...messagingMigrations, ...billingMigrations, ...reengagementMigrations];
