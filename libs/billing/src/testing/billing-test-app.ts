import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { crmMigrations } from '@engage/crm';
import { DataApiModule } from '@engage/data-api';
import { identityManifest, identityMigrations } from '@engage/identity';
import { createTestTenant, memberHeaders, type TestTenant } from '@engage/identity/testing';
import { messagingMigrations } from '@engage/messaging';
import { startTestApp } from '@engage/platform/testing';
import { billingManifest, billingMigrations, BillingModule } from '../index';
import { signBody } from '../domain/signature';

export const SECRET = 'billing-secret-current-0123456789';
export const PREVIOUS_SECRET = 'billing-secret-previous-0123456789';

// The api with identity, the billing context and the data API over their tables; the CRM's and
// messaging's schemas are there for the usage counts.
export async function startBillingApp(env: Record<string, string> = { BILLING_WEBHOOK_SECRET: SECRET, BILLING_WEBHOOK_SECRET_PREVIOUS: PREVIOUS_SECRET }) {
  return startTestApp([BillingModule, DataApiModule.forRoot([...identityManifest.tables, ...billingManifest.tables])], {
    migrations: [...identityMigrations, ...crmMigrations, ...messagingMigrations, ...billingMigrations],
    env,
    events: [...identityManifest.publishes, ...billingManifest.publishes],
  });
}

export type BillingApp = Awaited<ReturnType<typeof startBillingApp>>;

export const event = (organizationId: string, overrides: Record<string, unknown> = {}) => ({
  organization_id: organizationId,
  plan_id: 'starter',
  storefront_store_id: `store-${organizationId}`,
  status: 'active',
  current_period_start: '2026-01-01T00:00:00Z',
  current_period_end: '2026-02-01T00:00:00Z',
  ...overrides,
});

// A delivery as the integration sends it: the body's exact bytes, signed with `secret`.
export function post(app: NestFastifyApplication, payload: string, signature: string | null, headers: Record<string, string> = {}) {
  return app.inject({
    method: 'POST',
    url: '/functions/v1/storefront-billing-webhook',
    headers: { 'content-type': 'application/json', ...(signature === null ? {} : { 'x-billing-signature': signature }), ...headers },
    payload,
  });
}

export function postSigned(app: NestFastifyApplication, body: unknown, secret = SECRET) {
  const payload = typeof body === 'string' ? body : JSON.stringify(body);
  return post(app, payload, `sha256=${signBody(payload, secret)}`);
}

export { createTestTenant, memberHeaders, type TestTenant };
