import { Client } from 'pg';
import { startTestRuntime, testAdminUrl } from '../testing/test-runtime';
import type { PlatformRuntime } from '../runtime/platform-runtime';

// A database session killed under the process (an operator, a failover, a restart) must cost at most
// the work that was on it: no unhandled 'error' event (which would end the process; under jest it
// fails the test), and the next query gets a fresh connection.
describe('pool errors', () => {
  let runtime: PlatformRuntime;
  let admin: Client;
  let database: string;

  beforeAll(async () => {
    admin = new Client({ connectionString: testAdminUrl() });
    await admin.connect();
    runtime = await startTestRuntime({ role: 'api', env: { DATABASE_POOL_SIZE: '3' } });
    [{ database }] = await runtime.db.systemQuery<{ database: string }>('SELECT current_database() AS database');
  });
  afterAll(async () => {
    await runtime.close();
    await admin.end();
  });

  const killAll = async (): Promise<number> => {
    const { rows } = await admin.query<{ pid: number }>(`SELECT pg_terminate_backend(pid) AS killed, pid FROM pg_stat_activity WHERE datname = $1`, [database]);
    return rows.length;
  };
  // Lets the socket events of the killed sessions arrive before the next step.
  const settle = () => new Promise((resolve) => setTimeout(resolve, 200));
  const pid = async () => (await runtime.db.systemQuery<{ pid: number }>('SELECT pg_backend_pid() AS pid'))[0].pid;

  it('should survive the kill of idle pooled connections and serve the next query on a new one', async () => {
    const before = await pid();
    expect(await killAll()).toBeGreaterThan(0);
    await settle();
    const after = await pid();
    expect(after).not.toBe(before);
    expect(await runtime.db.systemQuery('SELECT 1 AS ok')).toEqual([{ ok: 1 }]);
  });

  it('should survive the kill of a pooled connection held outside any statement (a LISTEN session)', async () => {
    const client = await runtime.pool.connect();
    await client.query('LISTEN pool_errors_test');
    await killAll();
    await settle();
    await expect(client.query('SELECT 1')).rejects.toThrow();
    client.release(new Error('killed'));
    expect(await runtime.db.systemQuery('SELECT 5 AS ok')).toEqual([{ ok: 5 }]);
  });

  it('should fail only the transaction whose session is killed while it waits between statements', async () => {
    const work = runtime.db.asSystem(async (tx) => {
      await tx.query('SELECT 1');
      await killAll();
      await settle(); // idle in transaction when the session dies: no query is there to get the error
      return tx.query('SELECT 2');
    });
    await expect(work).rejects.toThrow();
    await settle();
    expect(await runtime.db.asSystem((tx) => tx.query('SELECT 3 AS ok'))).toEqual([{ ok: 3 }]);
  });

  it('should fail only the statement running when its session is killed', async () => {
    const work = runtime.db.asSystem((tx) => tx.query('SELECT pg_sleep(5)'));
    // Wait until the sleep is running, then kill it.
    for (let i = 0; i < 100; i++) {
      const { rows } = await admin.query(`SELECT 1 FROM pg_stat_activity WHERE datname = $1 AND query LIKE 'SELECT pg_sleep%' AND state = 'active'`, [
        database,
      ]);
      if (rows.length > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await killAll();
    await expect(work).rejects.toThrow();
    await settle();
    expect(await runtime.db.systemQuery('SELECT 4 AS ok')).toEqual([{ ok: 4 }]);
  });

  it('should name its sessions after the process role, so an operator can tell them apart in pg_stat_activity', async () => {
    const [{ name }] = await runtime.db.systemQuery<{ name: string }>(`SELECT application_name AS name FROM pg_stat_activity WHERE pid = pg_backend_pid()`);
    expect(name).toBe('engage-api');
  });
});
