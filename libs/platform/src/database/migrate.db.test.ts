import { Client } from 'pg';
import { createTestDatabase, dropTestDatabase } from '../testing/test-database';
import { testAdminUrl } from '../testing/test-runtime';
import { createDataSource } from './data-source';
import { platformMigrations } from './migrations';
import { MigrationLockTimeout, runMigrations } from './migrate';

describe('migrations', () => {
  it('should apply each migration once when three replicas start together', async () => {
    const adminUrl = testAdminUrl();
    const url = await createTestDatabase(adminUrl);
    const replicas = [1, 2, 3].map(() => createDataSource({ url }, platformMigrations, 3));
    try {
      await Promise.all(replicas.map((ds) => ds.initialize()));
      const results = await Promise.all(replicas.map((ds) => runMigrations(ds)));
      const applied = results.flat();
      expect(applied).toEqual(platformMigrations.map((m) => new m().name));
      expect(results.filter((r) => r.length === 0)).toHaveLength(2);
      const [row] = await replicas[0].query('SELECT count(*)::int AS n FROM schema_migrations');
      expect(row.n).toBe(platformMigrations.length);
    } finally {
      await Promise.all(replicas.map((ds) => (ds.isInitialized ? ds.destroy() : undefined)));
      await dropTestDatabase(adminUrl, url);
    }
  });

  it('should give up with a clear error when another instance holds the lock too long', async () => {
    const adminUrl = testAdminUrl();
    const url = await createTestDatabase(adminUrl);
    const holder = new Client({ connectionString: url });
    const ds = createDataSource({ url }, platformMigrations, 2);
    try {
      await holder.connect();
      await holder.query('SELECT pg_advisory_lock(7345221001)');
      await ds.initialize();
      await expect(runMigrations(ds, 300)).rejects.toBeInstanceOf(MigrationLockTimeout);
      await holder.query('SELECT pg_advisory_unlock(7345221001)');
      expect(await runMigrations(ds, 300)).toHaveLength(platformMigrations.length);
    } finally {
      await holder.end();
      if (ds.isInitialized) await ds.destroy();
      await dropTestDatabase(adminUrl, url);
    }
  });
});
