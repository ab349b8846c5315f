import { CrmModule, crmManifest, crmMigrations } from '@engage/crm';
import { DataApiModule } from '@engage/data-api';
import { identityManifest, identityMigrations } from '@engage/identity';
import { createTestTenant, memberHeaders, type TestTenant } from '@engage/identity/testing';
import type { ProcessRole } from '@engage/platform';
import { type DatabaseProxy, startTestApp } from '@engage/platform/testing';
import { webhooksManifest, webhooksMigrations, WebhooksModule, webhooksQueues } from '../index';

// The api with identity, CRM (event producers), webhooks and the data API over their tables.
// proxy: the app reaches its database through it, so a test can cut it off.
export async function startWebhooksApp(options: { role?: ProcessRole; env?: Record<string, string>; proxy?: DatabaseProxy } = {}) {
  return startTestApp([CrmModule, WebhooksModule, DataApiModule.forRoot([...identityManifest.tables, ...crmManifest.tables, ...webhooksManifest.tables])], {
    role: options.role ?? 'api',
    migrations: [...identityMigrations, ...crmMigrations, ...webhooksMigrations],
    env: options.env,
    proxy: options.proxy,
    // The catalogue: the CRM is the producer these tests use.
    events: [...identityManifest.publishes, ...crmManifest.publishes],
    // Deliveries are sent by the runner's queue, in worker and all-in-one processes only.
    jobs: { queues: webhooksQueues },
  });
}

export { createTestTenant, memberHeaders, type TestTenant };
