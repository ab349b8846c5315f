import type { DataSource } from 'typeorm';

// Any constant works as long as every replica uses the same one.
const MIGRATION_LOCK = 7_345_221_001;

export class MigrationLockTimeout extends Error {}

// Applies pending migrations under a session advisory lock held on a dedicated connection, so that
// replicas starting together take turns; the others then find nothing left to do.
export async function runMigrations(dataSource: DataSource, lockTimeoutMs = 60_000): Promise<string[]> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    const deadline = Date.now() + lockTimeoutMs;
    for (;;) {
      const [row] = await runner.query('SELECT pg_try_advisory_lock($1) AS locked', [MIGRATION_LOCK]);
      if (row.locked) break;
      if (Date.now() > deadline) {
        throw new MigrationLockTimeout(`another instance has held the migration lock for over ${lockTimeoutMs} ms`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    try {
      const applied = await dataSource.runMigrations({ transaction: 'each' });
      return applied.map((migration) => migration.name);
    } finally {
      await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } finally {
    await runner.release();
  }
}
