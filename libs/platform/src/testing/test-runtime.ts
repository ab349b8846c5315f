import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RequestContext } from '@engage/shared-kernel';
import { loadConfig } from '../config/load-config';
import type { MigrationClass } from '../database/data-source';
import { startPlatform, type PlatformRuntime, type ProcessRole } from '../runtime/platform-runtime';

export function testDatabaseUrl(): string {
  const url = process.env.ENGAGE_TEST_DATABASE_URL;
  if (!url) throw new Error('no test database: add the platform jest global setup to this project');
  return url;
}

// A runtime on the run's test database; events use Kafka only when a test asks for it.
export async function startTestRuntime(options: { role?: ProcessRole; migrations?: MigrationClass[]; env?: Record<string, string> } = {}): Promise<PlatformRuntime> {
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    DATABASE_URL: testDatabaseUrl(),
    DATA_DIR: mkdtempSync(join(tmpdir(), 'engage-data-')),
    OUTBOX_POLL_MS: '50',
    DATABASE_POOL_SIZE: '8',
    ...options.env,
  });
  return startPlatform(config, { role: options.role ?? 'all', migrations: options.migrations });
}

// Inserts a real organization row (as the system) and returns a request context for it.
export async function makeOrganization(runtime: PlatformRuntime, name = 'Test org'): Promise<RequestContext> {
  const id = randomUUID();
  await runtime.db.asSystem((tx) => tx.query('INSERT INTO organizations (id, name) VALUES ($1, $2)', [id, name]));
  return { organizationId: id, userId: null, role: 'OWNER', requestId: randomUUID() };
}
