import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DynamicModule, Type } from '@nestjs/common';
import type { EventContract, RequestContext } from '@engage/shared-kernel';
import { EventCatalogueModule } from '../context/event-catalogue';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createHttpApp } from '../http/create-http-app';
import { PlatformModule } from '../runtime/platform.module';
import { loadConfig } from '../config/load-config';
import type { MigrationClass } from '../database/data-source';
import { JobsModule, type JobRegistrations } from '../jobs/jobs.module';
import { createTestDatabase, dropTestDatabase } from './test-database';
import type { DatabaseProxy } from './database-proxy';
import { startPlatform, type PlatformRuntime, type ProcessRole } from '../runtime/platform-runtime';

export function testAdminUrl(): string {
  const url = process.env.ENGAGE_TEST_ADMIN_URL;
  if (!url) throw new Error('no test database server: add the platform jest global setup to this project');
  return url;
}

// A runtime on a fresh database of its own (so relays of parallel test files never see each
// other's outbox); events use Kafka only when a test asks for it. close() drops the database.
// proxy: the runtime reaches its database through it (started here), so a test can cut it off.
export async function startTestRuntime(
  options: { role?: ProcessRole; migrations?: MigrationClass[]; env?: Record<string, string>; proxy?: DatabaseProxy } = {},
): Promise<PlatformRuntime> {
  const adminUrl = testAdminUrl();
  const databaseUrl = await createTestDatabase(adminUrl);
  if (options.proxy) await options.proxy.start();
  const dataDir = mkdtempSync(join(tmpdir(), 'engage-data-'));
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    DATABASE_URL: options.proxy ? options.proxy.urlOf(databaseUrl) : databaseUrl,
    DATA_DIR: dataDir,
    OUTBOX_POLL_MS: '50',
    DATABASE_POOL_SIZE: '8',
    ...options.env,
  });
  const runtime = await startPlatform(config, { role: options.role ?? 'all', migrations: options.migrations });
  const close = runtime.close.bind(runtime);
  runtime.close = async () => {
    await close();
    await options.proxy?.stop();
    await dropTestDatabase(adminUrl, databaseUrl);
    rmSync(dataDir, { recursive: true, force: true });
  };
  return runtime;
}

// Inserts a real organization row (as the system) and returns a request context for it.
export async function makeOrganization(runtime: PlatformRuntime, name = 'Test org'): Promise<RequestContext> {
  const id = randomUUID();
  await runtime.db.asSystem((tx) => tx.query('INSERT INTO organizations (id, name) VALUES ($1, $2)', [id, name]));
  return { organizationId: id, userId: null, role: 'OWNER', requestId: randomUUID() };
}

// A module tree for context tests: the platform plus the modules under test, and the job runner
// with the jobs, schedules and queues given (in worker and all-in-one processes, as the apps do).
// `events`: the event catalogue the modules see (declarations of the producers under test).
export function testRootModule(
  runtime: PlatformRuntime,
  modules: (Type | DynamicModule)[],
  events: readonly EventContract[] = [],
  jobs?: Partial<JobRegistrations>,
): DynamicModule {
  const runner = jobs ? [JobsModule.forRoot(runtime, { jobs: [], schedules: [], ...jobs })] : [];
  return { module: TestRootModule, imports: [PlatformModule.forRoot(runtime), EventCatalogueModule.forRoot(events), ...modules, ...runner] };
}

class TestRootModule {}

// The usual start of an HTTP test: a runtime on a fresh database and the app serving `modules`.
export async function startTestApp(
  modules: (Type | DynamicModule)[],
  options: Parameters<typeof startTestRuntime>[0] & { events?: readonly EventContract[]; jobs?: Partial<JobRegistrations> } = {},
): Promise<{ runtime: PlatformRuntime; app: NestFastifyApplication; close(): Promise<void> }> {
  const runtime = await startTestRuntime({ role: 'api', ...options });
  const app = await createHttpApp(runtime, testRootModule(runtime, modules, options.events, options.jobs));
  return {
    runtime,
    app,
    async close() {
      await app.close();
      await runtime.close();
    },
  };
}
