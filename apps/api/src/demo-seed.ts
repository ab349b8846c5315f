import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { INestApplicationContext } from '@nestjs/common';
import { ApiKeyService, OrganizationService } from '@engage/identity';
import type { Config } from '@engage/platform';

export interface DemoCredentials {
  organization_id: string;
  owner_email: string;
  owner_password: string;
  api_key: string;
}

// On the first start outside production: a demo organization whose OWNER can sign in at once.
export async function seedDemo(app: INestApplicationContext, config: Config): Promise<{ file: string; created: boolean }> {
  const file = join(resolve(config.DATA_DIR), 'demo-credentials.json');
  if (existsSync(file)) return { file, created: false };
  const password = randomBytes(12).toString('base64url');
  const email = 'owner@demo.local';
  const org = await app
    .get(OrganizationService)
    .createOrganization({ name: 'Demo Organization', ownerEmail: email, ownerPassword: password, ownerFirstName: 'Demo' });
  // Call recordings upload under the organization's suite id (docs/calls.md).
  await app.get(OrganizationService).setSetting(org.organization_id, 'suite_id', 'demo');
  const key = await app.get(ApiKeyService).create({ organizationId: org.organization_id, userId: null, role: 'SYSTEM', requestId: 'demo-seed' }, 'Demo key');
  const credentials: DemoCredentials = { organization_id: org.organization_id, owner_email: email, owner_password: password, api_key: key.api_key };
  writeFileSync(file, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return { file, created: true };
}
