import { type ClientBase, type ClientConfig, Pool, type PoolConfig } from 'pg';
import { DataSource, type MigrationInterface } from 'typeorm';
import { GuardedClient } from './guarded-client';

export interface DatabaseTarget {
  url?: string;
  host?: string;
  port?: number;
  user?: string;
  password?: string;
  database?: string;
}

export type MigrationClass = new () => MigrationInterface;

// Told when a pooled connection breaks (session killed, database restarted, network cut).
export type ConnectionErrorHandler = (error: Error) => void;

// TypeORM's data source is for the migrations only (the migration lock's session and their runner):
// two connections, closed soon after start-up since nothing else uses them.
export const MIGRATION_POOL_SIZE = 2;
const MIGRATION_IDLE_MS = 1_000;

// How every pooled client behaves, in the platform's pool and the migrations' alike.
function pooledClients(poolSize: number, onConnectionError: ConnectionErrorHandler, idleTimeoutMillis = 30_000): PoolConfig {
  return {
    // pg pool options: bounded waits so a starved pool fails clearly instead of hanging.
    max: poolSize,
    // A driver error while parsing the server's data fails that connection, not the process.
    Client: GuardedClient,
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis,
    // Every client gets a listener of its own for its whole life: a client that is checked out but
    // between owners, or held by its borrower outside a statement (a LISTEN), would otherwise raise an
    // unhandled 'error' event and end the process when its session dies. A broken client is not
    // queryable, so the pool removes it when it comes back instead of reusing it.
    onConnect: (client: ClientBase) => {
      client.on('error', onConnectionError);
    },
  };
}

// The connection settings of a target, as pg takes them. Shown in pg_stat_activity: the
// application name, so an operator can tell the api's sessions from the worker's.
export function connectionSettings(target: DatabaseTarget, applicationName = 'engage'): ClientConfig {
  const { url, host, port, user, password, database } = target;
  return { ...(url ? { connectionString: url } : { host, port, user, password, database }), application_name: applicationName };
}

// The platform's pool (DATABASE_POOL_SIZE connections): every statement of Database runs on it,
// tenant and system transactions and single system statements. Its owner ends it (Database.close,
// from the runtime's close).
export function createPool(
  target: DatabaseTarget,
  poolSize: number,
  onConnectionError: ConnectionErrorHandler = () => undefined,
  applicationName = 'engage',
): Pool {
  const pool = new Pool({ ...connectionSettings(target, applicationName), ...pooledClients(poolSize, onConnectionError) });
  // Errors of idle clients reach the pool, which drops them.
  pool.on('error', onConnectionError);
  return pool;
}

// TypeORM's data source, for the migrations (runMigrations, a migration's own runner in a test).
// Its pool is its own and small (MIGRATION_POOL_SIZE); no work of the application runs on it.
export function createDataSource(
  target: DatabaseTarget,
  migrations: MigrationClass[],
  poolSize = MIGRATION_POOL_SIZE,
  onConnectionError: ConnectionErrorHandler = () => undefined,
  applicationName = 'engage',
): DataSource {
  const { url, host, port, user, password, database } = target;
  return new DataSource({
    type: 'postgres',
    applicationName,
    ...(url ? { url } : { host, port, username: user, password, database }),
    migrations,
    migrationsTableName: 'schema_migrations',
    migrationsRun: false,
    synchronize: false,
    logging: false,
    // Errors of idle clients reach the pool, which drops them.
    poolErrorHandler: onConnectionError,
    extra: pooledClients(poolSize, onConnectionError, MIGRATION_IDLE_MS),
  });
}
