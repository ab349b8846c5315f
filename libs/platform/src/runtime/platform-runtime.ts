import { type EventBus } from '@engage/shared-kernel';
import { join } from 'node:path';
import type { Pool } from 'pg';
import type { DataSource } from 'typeorm';
import { ensureDataDir, resolveSecrets, type Secrets } from '../config/secrets';
import type { Config } from '../config/settings';
import { createDataSource, createPool, type DatabaseTarget, MIGRATION_POOL_SIZE, type MigrationClass } from '../database/data-source';
import { Database } from '../database/database';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../database/embedded-postgres';
import { runMigrations } from '../database/migrate';
import { InProcessEventBus } from '../events/in-process-event-bus';
import { KafkaEventBus } from '../events/kafka-event-bus';
import { OutboxSignal } from '../events/outbox-signal';
import { platformMigrations } from '../database/migrations';
import { createLogger } from './log';
import { asDatabaseFailure } from '../database/database-failure';
import { type Reachability } from '../database/reachability';

// api: HTTP only (events stay in the outbox for a worker); worker: relay + consumers; all: both.
export type ProcessRole = 'api' | 'worker' | 'all';

export interface PlatformRuntime {
  role: ProcessRole;
  config: Config;
  secrets: Secrets;
  // TypeORM's data source: the migrations' (runMigrations), with a small pool of its own.
  dataSource: DataSource;
  // The platform's pool (DATABASE_POOL_SIZE), which db runs on and owns; close() ends it.
  pool: Pool;
  db: Database;
  signal: OutboxSignal;
  bus: EventBus;
  embedded: EmbeddedPostgres | undefined;
  appliedMigrations: string[];
  migrated: boolean;
  close(): Promise<void>;
}

export interface StartOptions {
  role: ProcessRole;
  migrations?: MigrationClass[];
  log?: (line: string) => void;
}

// Everything that must exist before Nest builds its modules: database (embedded or given), schema, bus.
export async function startPlatform(config: Config, options: StartOptions): Promise<PlatformRuntime> {
  const secrets = resolveSecrets(config);
  let embedded: EmbeddedPostgres | undefined;
  let target: DatabaseTarget;
  if (config.DATABASE_URL) {
    target = { url: config.DATABASE_URL };
  } else {
    embedded = await startEmbeddedPostgres({ dataDir: join(ensureDataDir(config.DATA_DIR), 'pg'), log: options.log });
    target = { host: embedded.host, port: embedded.port, user: embedded.user, database: embedded.database };
  }
  // A lost connection costs the work that was on it (that work fails and is retried by its caller);
  // the process keeps running and the pool opens a new one.
  const log = createLogger(config.LOG_LEVEL);
  // A lost idle connection is told once per outage (the database's reachability), not once per connection.
  const seen: { reachability?: Reachability } = {};
  const onConnectionError = (error: Error) => {
    log.debug({ err: error }, 'database connection lost; the pool drops it');
    seen.reachability?.failed(asDatabaseFailure(error));
  };
  const applicationName = `engage-${options.role}`;
  const migrations = [...platformMigrations, ...(options.migrations ?? [])];
  const dataSource = createDataSource(target, migrations, MIGRATION_POOL_SIZE, onConnectionError, applicationName);
  const pool = createPool(target, config.DATABASE_POOL_SIZE, onConnectionError, applicationName);
  const signal = new OutboxSignal();
  const db = new Database({ pool }, signal, { statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS, workMemKb: config.DATABASE_WORK_MEM_KB });
  seen.reachability = db.reachability;
  db.reachability.onChange((reachable, error) => {
    if (reachable) log.info('database reachable again');
    else log.error({ err: error }, 'database unreachable: requests answer 503 until it is back');
  });
  try {
    await dataSource.initialize();
    const appliedMigrations = await runMigrations(dataSource);
    const bus: EventBus =
      config.KAFKA_BROKERS.length > 0 ? new KafkaEventBus({ brokers: config.KAFKA_BROKERS, clientId: `engage-${options.role}` }) : new InProcessEventBus();
    return {
      role: options.role,
      config,
      secrets,
      dataSource,
      pool,
      db,
      signal,
      bus,
      embedded,
      appliedMigrations,
      migrated: !(await dataSource.showMigrations()),
      async close() {
        await bus.stop().catch(() => undefined);
        await db.close();
        if (dataSource.isInitialized) await dataSource.destroy();
        await embedded?.stop();
      },
    };
  } catch (error) {
    await db.close().catch(() => undefined);
    if (dataSource.isInitialized) await dataSource.destroy().catch(() => undefined);
    await embedded?.stop();
    throw error;
  }
}
