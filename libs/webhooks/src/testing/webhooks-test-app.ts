import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { CrmModule, crmManifest, crmMigrations } from '@engage/crm';
import { DataApiModule } from '@engage/data-api';
import { identityManifest, identityMigrations, OrganizationService } from '@engage/identity';
import { createTestTenant, type TestTenant } from '@engage/identity/testing';
import type { ProcessRole } from '@engage/platform';
import { startTestApp } from '@engage/platform/testing';
import { webhooksManifest, webhooksMigrations, WebhooksModule, webhooksQueues } from '../index';

export type Role = 'OWNER' | 'ADMIN' | 'AGENT' | 'PROJECT_MANAGER' | 'TEAM_ADMIN';

// The api with identity, CRM (event producers), webhooks and the data API over their tables.
export async function startWebhooksApp(options: { role?: ProcessRole; env?: Record<string, string> } = {}) {
  return startTestApp([CrmModule, WebhooksModule, DataApiModule.forRoot([...identityManifest.tables, ...crmManifest.tables, ...webhooksManifest.tables])], {
    role: options.role ?? 'api',
    migrations: [...identityMigrations, ...crmMigrations, ...webhooksMigrations],
    env: options.env,
    // The catalogue: the CRM is the producer these tests use.
    events: [...identityManifest.publishes, ...crmManifest.publishes],
    // Deliveries are sent by the runner's queue, in worker and all-in-one processes only.
    jobs: { queues: webhooksQueues },
  });
}

// A signed-in member of the tenant's organization with the given role.
export async function memberHeaders(app: NestFastifyApplication, tenant: TestTenant, role: Role): Promise<Record<string, string>> {
  const email = `${role.toLowerCase()}.${randomUUID()}@example.com`;
  const password = 'member password 1';
  await app.get(OrganizationService).createUser({ organizationId: tenant.ctx.organizationId, email, password, role });
  const login = await app.inject({ method: 'POST', url: '/auth/v1/token?grant_type=password', payload: { email, password } });
  if (login.statusCode !== 200) throw new Error(`login failed: ${login.body}`);
  return { authorization: `Bearer ${login.json().access_token}` };
}

export { createTestTenant, type TestTenant };
