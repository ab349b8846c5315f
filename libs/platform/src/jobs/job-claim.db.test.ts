import type { PlatformRuntime } from '../runtime/platform-runtime';
import { startTestRuntime } from '../testing';
import { COMPLETE_AND_CLAIM } from './jobs.sql';

// A claim takes at most its limit. With statistics saying `jobs` is (nearly) empty, as ANALYZE or
// autovacuum record on an idle queue, the planner may join the due rows in a nested loop that runs
// the `LIMIT ... FOR UPDATE SKIP LOCKED` subquery again for each row, claiming every due job.
describe('claiming due jobs', () => {
  let runtime: PlatformRuntime;

  beforeAll(async () => {
    runtime = await startTestRuntime({ role: 'worker' });
  });
  afterAll(() => runtime.close());

  it('should claim no more than the free capacity when the table was analyzed empty and then filled', async () => {
    const system = <R>(text: string, params: unknown[] = []) => runtime.db.systemQuery<R>(text, params);
    await system(`DELETE FROM jobs`);
    await system(`ANALYZE jobs`);
    await system(`INSERT INTO jobs (name, payload, run_at, max_attempts) SELECT 'test.claim', jsonb_build_object('n', n), now() - interval '1 second', 3
      FROM generate_series(1, 200) n`);

    const claimed: string[] = [];
    for (let round = 0; round < 5; round++) {
      const rows = await system<{ id: string }>(COMPLETE_AND_CLAIM, ['claimer', ['test.claim'], 4, [60_000], []]);
      expect(rows.length).toBe(4);
      claimed.push(...rows.map((row) => row.id));
    }
    expect(new Set(claimed).size).toBe(20);
    const [running] = await system<{ n: number }>(`SELECT count(*)::int AS n FROM jobs WHERE state = 'running'`);
    expect(running.n).toBe(20);
  });

  it('should claim no more than its limit when the planner may only use nested loops', async () => {
    const system = <R>(text: string, params: unknown[] = []) => runtime.db.systemQuery<R>(text, params);
    await system(`DELETE FROM jobs`);
    await system(
      `INSERT INTO jobs (name, payload, run_at, max_attempts) SELECT 'test.claim', '{}', now() - interval '1 second', 3 FROM generate_series(1, 200) n`,
    );
    const rows = await runtime.db.asSystem(async (tx) => {
      for (const setting of ['enable_hashjoin', 'enable_mergejoin', 'enable_material', 'enable_indexscan', 'enable_bitmapscan']) {
        await tx.query(`SET LOCAL ${setting} = off`);
      }
      return tx.query<{ id: string }>(COMPLETE_AND_CLAIM, ['claimer', ['test.claim'], 4, [60_000], []]);
    });
    expect(rows.length).toBe(4);
  });
});
