import type { PlatformRuntime } from '@engage/platform';
import { makeOrganization, startTestRuntime } from '@engage/platform/testing';
import type { RequestContext } from '@engage/shared-kernel';
import { ESTIMATE_ABOVE, executeRead } from './read';
import { CREATE_ITEMS } from './testing/items.fixture';
import { itemsRegistry } from './testing/items.registry';

// count=planned reads the planner's estimate (EXPLAIN, row-level security included); count=estimated
// is exact up to ESTIMATE_ABOVE rows and planned beyond, as PostgREST does with db-max-rows.
describe('Prefer: count=planned|estimated', () => {
  let runtime: PlatformRuntime;
  let orgA: RequestContext;
  const ROWS = 3000;

  beforeAll(async () => {
    runtime = await startTestRuntime();
    await runtime.db.asSystem((tx) => tx.query(CREATE_ITEMS));
    orgA = await makeOrganization(runtime, 'A');
    const orgB = await makeOrganization(runtime, 'B');
    await runtime.db.asSystem(async (tx) => {
      await tx.query(`INSERT INTO dataapi_items (organization_id, name, qty) SELECT $1, 'item ' || n, n % 10 FROM generate_series(1, ${ROWS}) n`, [
        orgA.organizationId,
      ]);
      await tx.query(`INSERT INTO dataapi_items (organization_id, name, qty) SELECT $1, 'other ' || n, 1 FROM generate_series(1, 500) n`, [
        orgB.organizationId,
      ]);
    });
    await runtime.db.asSystem((tx) => tx.query('ANALYZE dataapi_items'));
  });
  afterAll(() => runtime.close());

  const read = (query: string, count: string) =>
    runtime.db.inTenant(orgA, (tx) => executeRead(tx, itemsRegistry, { method: 'HEAD', table: 'dataapi_items', query, headers: { prefer: `count=${count}` } }));
  const totalOf = (range: string) => Number(range.split('/')[1]);

  it('should answer the planner estimate for count=planned, near the true count', async () => {
    const response = await read('limit=10', 'planned');
    expect(response.headers['preference-applied']).toBe('count=planned');
    expect(response.status).toBe(206);
    const total = totalOf(response.headers['content-range']);
    expect(total).toBeGreaterThan(ROWS * 0.8);
    expect(total).toBeLessThan(ROWS * 1.2);
    const filtered = totalOf((await read('qty=eq.3', 'planned')).headers['content-range']);
    expect(filtered).toBeGreaterThan(ROWS / 10 / 2);
    expect(filtered).toBeLessThan((ROWS / 10) * 2);
  });

  it('should count exactly up to the threshold for count=estimated, and estimate beyond', async () => {
    expect((await read('qty=eq.3', 'estimated')).headers['content-range']).toBe(`0-${ROWS / 10 - 1}/${ROWS / 10}`);
    expect((await read('name=eq.item%207', 'estimated')).headers['content-range']).toBe('0-0/1');
    const beyond = totalOf((await read('', 'estimated')).headers['content-range']);
    expect(ROWS).toBeGreaterThan(ESTIMATE_ABOVE);
    expect(beyond).toBeGreaterThan(ROWS * 0.8);
    expect(beyond).toBeLessThan(ROWS * 1.2);
  });

  it('should answer the exact count for count=exact, the page cut to DATA_API_MAX_ROWS', async () => {
    const response = await read('', 'exact');
    expect(response.headers['content-range']).toBe(`0-999/${ROWS}`);
    expect(response.status).toBe(206);
    expect((await read('limit=5000&offset=2500', 'exact')).headers['content-range']).toBe(`2500-2999/${ROWS}`);
  });
});
