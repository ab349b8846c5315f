import { randomUUID } from 'node:crypto';
import type { INestApplicationContext } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { RequestContext, Role } from '@engage/shared-kernel';
import { ApiKeyService } from '../application/api-key.service';
import { OrganizationService } from '../application/organization.service';
import { SessionService } from '../application/session.service';

export interface TestTenant {
  ctx: RequestContext;
  email: string;
  password: string;
  // Headers that authenticate as the OWNER (session) or as the organization (API key).
  session: Record<string, string>;
  key: Record<string, string>;
}

// A fresh organization with a signed-in OWNER and an API key, for tests of other contexts.
export async function createTestTenant(app: INestApplicationContext, name = 'Test org'): Promise<TestTenant> {
  const email = `owner.${randomUUID()}@example.com`;
  const password = 'owner password 1';
  const org = await app.get(OrganizationService).createOrganization({ name, ownerEmail: email, ownerPassword: password });
  const ctx: RequestContext = { organizationId: org.organization_id, userId: org.owner_user_id, role: 'OWNER', requestId: 'test' };
  const session = await app.get(SessionService).signInWithPassword(email, password, `test-${randomUUID()}`);
  const key = await app.get(ApiKeyService).create({ ...ctx, role: 'SYSTEM' }, 'test');
  return { ctx, email, password, session: { authorization: `Bearer ${session.access_token}` }, key: { 'x-api-key': key.api_key } };
}

// A signed-in member of the tenant's organization with the given role: the headers of its session.
export async function memberHeaders(app: NestFastifyApplication, tenant: TestTenant, role: Role): Promise<Record<string, string>> {
  const email = `${role.toLowerCase()}.${randomUUID()}@example.com`;
  const password = 'member password 1';
  await app.get(OrganizationService).createUser({ organizationId: tenant.ctx.organizationId, email, password, role });
  const login = await app.inject({ method: 'POST', url: '/auth/v1/token?grant_type=password', payload: { email, password } });
  if (login.statusCode !== 200) throw new Error(`login failed: ${login.body}`);
  return { authorization: `Bearer ${login.json().access_token}` };
}
