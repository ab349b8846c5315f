import { DataSource, type MigrationInterface } from 'typeorm';

export interface DatabaseTarget {
  url?: string;
  host?: string;
  port?: number;
  user?: string;
  database?: string;
}

export type MigrationClass = new () => MigrationInterface;

export function createDataSource(target: DatabaseTarget, migrations: MigrationClass[], poolSize: number): DataSource {
  return new DataSource({
    type: 'postgres',
    ...(target.url ? { url: target.url } : { host: target.host, port: target.port, username: target.user, database: target.database }),
    migrations,
    migrationsTableName: 'schema_migrations',
    migrationsRun: false,
    synchronize: false,
    logging: false,
    // pg pool options: bounded waits so a starved pool fails clearly instead of hanging.
    extra: { max: poolSize, connectionTimeoutMillis: 10_000, idleTimeoutMillis: 30_000 },
  });
}
