import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { INestApplicationContext } from '@nestjs/common';
import { ApiKeyService, OrganizationService } from '@engage/identity';
import { type Config, Database, ensureDataDir } from '@engage/platform';

export interface DemoCredentials {
  organization_id: string;
  owner_email: string;
  owner_password: string;
  api_key: string;
}

// created: this process made the demo organization and wrote `file`. here: it exists and `file` (in
// this DATA_DIR) holds its credentials. elsewhere: another process made it (another replica, another
// DATA_DIR) and wrote its credentials to `file` on that process's host (null: not recorded).
// skipped: another process held the seeding lock too long; this one starts without looking.
export type DemoSeed =
  { state: 'created' | 'here'; file: string } | { state: 'elsewhere'; file: string | null; organizationId: string | null } | { state: 'skipped' };

export const DEMO_OWNER_EMAIL = 'owner@demo.local';
// A session advisory lock around check-and-create, so that replicas starting together against one
// database make one demo organization. Any constant every replica shares, distinct from the
// migrations' (7_345_221_001) and the outbox relay's (7_345_221_002).
const DEMO_SEED_LOCK = 7_345_221_003;
// Seeding takes a few hundred milliseconds; a holder past this is stuck, and this start goes on without it.
const DEMO_SEED_LOCK_TIMEOUT = '30s';
// Where the creating process wrote the credentials, kept on the organization (an undeclared
// setting: never shown or settable over HTTP or the admin CLI's set-org-setting).
const CREDENTIALS_FILE_SETTING = 'demo_credentials_file';

// Outside production: a demo organization whose OWNER can sign in at once, made once per database
// (not per process or DATA_DIR), its credentials written to DATA_DIR/demo-credentials.json (0600).
export async function seedDemo(app: INestApplicationContext, config: Config): Promise<DemoSeed> {
  const db = app.get(Database);
  const dataDir = resolve(config.DATA_DIR);
  const file = join(dataDir, 'demo-credentials.json');
  const session = await db.openDedicatedSession();
  try {
    await session.query(`SET lock_timeout = '${DEMO_SEED_LOCK_TIMEOUT}'`);
    try {
      await session.query(`SELECT pg_advisory_lock(${DEMO_SEED_LOCK})`);
    } catch (error) {
      if ((error as { code?: string }).code === '55P03') return { state: 'skipped' };
      throw error;
    }
    try {
      const existing = await findDemo(db);
      if (existing) {
        if (existing.organizationId !== null && readCredentials(file)?.organization_id === existing.organizationId) return { state: 'here', file };
        return { state: 'elsewhere', file: existing.file, organizationId: existing.organizationId };
      }
      await createDemo(app, db, dataDir, file);
      return { state: 'created', file };
    } finally {
      await session.query(`SELECT pg_advisory_unlock(${DEMO_SEED_LOCK})`);
    }
  } finally {
    await session.end().catch(() => undefined);
  }
}

// The demo owner, looked up by email: createOrganization refuses it once the user exists, whatever
// became of its organization.
async function findDemo(db: Database): Promise<{ organizationId: string | null; file: string | null } | undefined> {
  const [row] = await db.systemQuery<{ organization_id: string | null; file: string | null }>(
    `SELECT o.id AS organization_id, o.settings->>'${CREDENTIALS_FILE_SETTING}' AS file
       FROM users u
       LEFT JOIN memberships m ON m.user_id = u.id AND m.role = 'OWNER'
       LEFT JOIN organizations o ON o.id = m.organization_id
      WHERE u.email = $1
      ORDER BY o.created_at NULLS LAST
      LIMIT 1`,
    [DEMO_OWNER_EMAIL],
  );
  return row ? { organizationId: row.organization_id, file: row.file } : undefined;
}

function readCredentials(file: string): DemoCredentials | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as DemoCredentials;
  } catch {
    return undefined;
  }
}

async function createDemo(app: INestApplicationContext, db: Database, dataDir: string, file: string): Promise<void> {
  const password = randomBytes(12).toString('base64url');
  const organizations = app.get(OrganizationService);
  const org = await organizations.createOrganization({
    name: 'Demo Organization',
    ownerEmail: DEMO_OWNER_EMAIL,
    ownerPassword: password,
    ownerFirstName: 'Demo',
  });
  // Call recordings upload under the organization's suite id (docs/calls.md).
  await organizations.setSetting(org.organization_id, 'suite_id', 'demo');
  const key = await app.get(ApiKeyService).create({ organizationId: org.organization_id, userId: null, role: 'SYSTEM', requestId: 'demo-seed' }, 'Demo key');
  const credentials: DemoCredentials = { organization_id: org.organization_id, owner_email: DEMO_OWNER_EMAIL, owner_password: password, api_key: key.api_key };
  // DATA_DIR need not exist yet: with DATABASE_URL, JWT_SECRET and ENCRYPTION_KEY given, nothing before made it.
  ensureDataDir(dataDir);
  writeFileSync(file, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  await db.asSystem((tx) =>
    tx.query(`UPDATE organizations SET settings = jsonb_set(settings, ARRAY[$2::text], to_jsonb($3::text)) WHERE id = $1`, [
      org.organization_id,
      CREDENTIALS_FILE_SETTING,
      file,
    ]),
  );
}
