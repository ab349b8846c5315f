import { startTestRuntime } from '../testing/test-runtime';
import type { PlatformRuntime } from '../runtime/platform-runtime';
import { sqlStateOf } from './constraint-violation';
import { DatabaseFailure } from './database-failure';

// V8's longest string (2^29 - 24 characters): a value longer than that makes pg-protocol throw
// ERR_STRING_TOO_LONG while it parses the socket's data, inside the socket's 'data' handler, where
// nothing catches it and the process exits (api, worker and every organization with it). It must
// cost that query and that connection only.
const OVER_STRING_LIMIT = 536_870_888 + 16;

describe('errors thrown by the database driver', () => {
  let runtime: PlatformRuntime;

  beforeAll(async () => {
    runtime = await startTestRuntime({ role: 'api', env: { DATABASE_POOL_SIZE: '2' } });
  });
  afterAll(() => runtime.close());

  // Slow (about 15 s here): PostgreSQL builds and sends the half-gigabyte value for real.
  it('should fail only the query whose value the driver cannot parse, and serve the next ones on a new connection', async () => {
    const failed = await runtime.db.asSystem((tx) => tx.query(`SELECT repeat('x', ${OVER_STRING_LIMIT}) AS v`)).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(DatabaseFailure);
    expect(failed).toMatchObject({ code: 'ERR_STRING_TOO_LONG', severity: undefined });
    expect(sqlStateOf(failed)).toBeUndefined();
    // The broken connection is gone from the pool; the process and the pool keep serving.
    expect(runtime.pool.totalCount).toBeLessThanOrEqual(1);
    expect(await runtime.db.systemQuery('SELECT 1 AS ok')).toEqual([{ ok: 1 }]);
    expect(await runtime.db.asSystem((tx) => tx.query('SELECT 2 AS ok'))).toEqual([{ ok: 2 }]);
    // Both connections of the pool at once: the pool is whole again.
    const both = await Promise.all([1, 2].map((n) => runtime.db.asSystem((tx) => tx.query<{ n: number }>('SELECT $1::int AS n, pg_sleep(0.05)', [n]))));
    expect(both.flat().map((row) => row.n)).toEqual([1, 2]);
  }, 60_000);
});
