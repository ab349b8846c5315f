import { randomUUID } from 'node:crypto';
import type { INestApplicationContext } from '@nestjs/common';
import type { RequestContext } from '@engage/shared-kernel';
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
