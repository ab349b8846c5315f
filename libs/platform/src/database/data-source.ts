import { DataSource, type MigrationInterface } from 'typeorm';
import { GuardedClient } from './guarded-client';

export interface DatabaseTarget {
  url?: string;
  host?: string;
  port?: number;
  user?: string;
  database?: string;
}

export type MigrationClass = new () => MigrationInterface;

// Told when a pooled connection breaks (session killed, database restarted, network cut).
export type ConnectionErrorHandler = (error: Error) => void;

interface ErrorEmitter {
  on(event: 'error', listener: (error: Error) => void): unknown;
}

export function createDataSource(
  target: DatabaseTarget,
  migrations: MigrationClass[],
  poolSize: number,
  onConnectionError: ConnectionErrorHandler = () => undefined,
  applicationName = 'engage',
): DataSource {
  return new DataSource({
    type: 'postgres',
    // Shown in pg_stat_activity, so an operator can tell the api's sessions from the worker's.
    applicationName,
    ...(target.url ? { url: target.url } : { host: target.host, port: target.port, username: target.user, database: target.database }),
    migrations,
    migrationsTableName: 'schema_migrations',
    migrationsRun: false,
    synchronize: false,
    logging: false,
    // Errors of idle clients reach the pool, which drops them.
    poolErrorHandler: onConnectionError,
    extra: {
      // pg pool options: bounded waits so a starved pool fails clearly instead of hanging.
      max: poolSize,
      // A driver error while parsing the server's data fails that connection, not the process.
      Client: GuardedClient,
      connectionTimeoutMillis: 10_000,
      idleTimeoutMillis: 30_000,
      // Every client gets a listener of its own for its whole life: a client that is checked out but
      // between owners, or held outside a query runner (the relay's LISTEN session), would otherwise
      // raise an unhandled 'error' event and end the process when its session dies. A broken client
      // is not queryable, so the pool removes it when it comes back instead of reusing it.
      onConnect: (client: ErrorEmitter) => {
        client.on('error', onConnectionError);
      },
    },
  });
}
