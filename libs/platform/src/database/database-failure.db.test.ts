import { Client } from 'pg';
import { makeOrganization, startTestRuntime, testAdminUrl } from '../testing/test-runtime';
import type { PlatformRuntime } from '../runtime/platform-runtime';
import { ConstraintViolationError, isUniqueViolation, sqlStateOf } from './constraint-violation';
import { DatabaseFailure } from './database-failure';

// What fails in the database reaches callers in one shape, whichever way the statement ran: the
// fields of PostgreSQL's report on the error itself, no driver's error inside a library's wrapper.
describe('database failures', () => {
  let runtime: PlatformRuntime;

  beforeAll(async () => {
    runtime = await startTestRuntime({ role: 'api' });
    await runtime.db.systemQuery('CREATE TABLE failure_probe (id int PRIMARY KEY, organization_id uuid)');
    await runtime.db.systemQuery(`GRANT SELECT, INSERT ON failure_probe TO app_tenant`);
    await runtime.db.systemQuery('INSERT INTO failure_probe VALUES (1)');
  });
  afterAll(() => runtime.close());

  const INSERT = 'INSERT INTO failure_probe (id) VALUES ($1)';

  it('should give a unique violation its SQLSTATE 23505 and its constraint, the same from every way of running a statement', async () => {
    const ctx = await makeOrganization(runtime);
    const ways = [
      () => runtime.db.systemQuery(INSERT, [1]),
      () => runtime.db.systemQuery(INSERT, [1], { prepare: true }),
      () => runtime.db.asSystem((tx) => tx.query(INSERT, [1])),
      () => runtime.db.asSystem((tx) => tx.execute(INSERT, [1], { prepare: true })),
      () => runtime.db.inTenant(ctx, (tx) => tx.query(INSERT, [1])),
    ];
    for (const way of ways) {
      const error = await way().then(
        () => undefined,
        (caught: unknown) => caught,
      );
      // Unmapped by the statement: a ConstraintViolationError, read as a DatabaseFailure is.
      expect(error).toBeInstanceOf(ConstraintViolationError);
      expect(error).toMatchObject({ code: '23505', constraint: 'failure_probe_pkey' });
      expect(error).not.toHaveProperty('driverError');
      expect(sqlStateOf(error)).toBe('23505');
      expect(isUniqueViolation(error)).toBe(true);
      // What PostgreSQL reported, with the statement's text and none of its parameters.
      const failure = (error as Error).cause;
      expect(failure).toBeInstanceOf(DatabaseFailure);
      expect(failure).toMatchObject({ code: '23505', severity: 'ERROR', constraint: 'failure_probe_pkey', table: 'failure_probe', query: INSERT });
      expect(failure).not.toHaveProperty('parameters');
    }
  });

  it('should throw any other refusal of PostgreSQL as a DatabaseFailure with its SQLSTATE', async () => {
    const ctx = await makeOrganization(runtime);
    const cases: [() => Promise<unknown>, string][] = [
      [() => runtime.db.systemQuery('SELECT 1/0'), '22012'],
      [() => runtime.db.asSystem((tx) => tx.query('SELECT $1::int', ['x'])), '22P02'],
      [() => runtime.db.inTenant(ctx, (tx) => tx.query('DELETE FROM failure_probe')), '42501'],
    ];
    for (const [run, code] of cases) {
      const error = await run().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(DatabaseFailure);
      expect(error).toMatchObject({ code, severity: 'ERROR' });
      expect(sqlStateOf(error)).toBe(code);
      expect(isUniqueViolation(error)).toBe(false);
    }
  });
});

describe('the platform pool', () => {
  it("should be ended by the platform shutdown, with its sessions and the migrations' data source", async () => {
    const runtime = await startTestRuntime({ role: 'api' });
    const [{ database }] = await runtime.db.systemQuery<{ database: string }>('SELECT current_database() AS database');
    await Promise.all([1, 2, 3].map(() => runtime.db.asSystem((tx) => tx.query('SELECT pg_sleep(0.02)'))));
    expect(runtime.pool.totalCount).toBeGreaterThan(0);

    const admin = new Client({ connectionString: testAdminUrl() });
    await admin.connect();
    const sessions = async () =>
      (await admin.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND application_name = 'engage-api'`, [database]))
        .rows[0].n;
    try {
      expect(await sessions()).toBeGreaterThan(0);
      await runtime.db.close();
      expect(runtime.pool.ended).toBe(true);
      expect(runtime.pool.totalCount).toBe(0);
      // The server lets a closed session go a moment after its client ends it.
      for (let i = 0; i < 100 && (await sessions()) > 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await sessions()).toBe(0);
      await expect(runtime.db.systemQuery('SELECT 1')).rejects.toBeInstanceOf(DatabaseFailure);
      await expect(runtime.db.openDedicatedSession()).rejects.toBeInstanceOf(DatabaseFailure);
    } finally {
      await admin.end();
      // Closing again (the shutdown after the Database's own close) is harmless.
      await runtime.close();
    }
    expect(runtime.dataSource.isInitialized).toBe(false);
  });

  it('should end the pool when the platform shuts down', async () => {
    const runtime = await startTestRuntime({ role: 'worker' });
    await runtime.db.ping();
    await runtime.close();
    expect(runtime.pool.ended).toBe(true);
    await expect(runtime.db.ping()).rejects.toBeInstanceOf(DatabaseFailure);
  });
});
