import { createPool, Database, type PlatformRuntime } from '@engage/platform';
import { makeOrganization, startTestRuntime } from '@engage/platform/testing';
import type { RequestContext } from '@engage/shared-kernel';
import { executeRead } from './read';
import { asPostgrestError } from './sqlstate';
import { CREATE_ITEMS, ITEMS_A, seedItems } from './testing/items.fixture';
import { itemsRegistry } from './testing/items.registry';
import { answer } from './testing/respond';

// Errors PostgreSQL raises for a request keep their SQLSTATE as `code` with PostgREST's status (or
// 503 for a statement timeout), as the controller maps them: never a 500 for what a request provokes.
describe('PostgreSQL errors of data API reads', () => {
  let runtime: PlatformRuntime;
  let org: RequestContext;

  beforeAll(async () => {
    runtime = await startTestRuntime();
    await runtime.db.asSystem((tx) => tx.query(CREATE_ITEMS));
    org = await makeOrganization(runtime, 'A');
    await seedItems(runtime, org.organizationId, ITEMS_A);
  });
  // Databases of their own (other limits), on pools of their own, ended with the runtime.
  const owned: Database[] = [];
  const own = (db: Database) => (owned.push(db), db);
  afterAll(async () => {
    await Promise.all(owned.map((db) => db.close()));
    await runtime.close();
  });

  const read = (query: string, db: Database = runtime.db) =>
    answer(() =>
      db
        .inTenant(org, (tx) => executeRead(tx, itemsRegistry, { method: 'GET', table: 'dataapi_items', query, headers: {} }))
        .catch((error: unknown) => {
          throw asPostgrestError(error);
        }),
    );

  it.each([
    ['an unknown text search configuration (42704)', 'body=fts(nosuchconfig).x', 400, '42704', /text search configuration "nosuchconfig" does not exist/],
    ['an invalid regular expression (2201B)', 'name=match.(', 400, '2201B', /invalid regular expression/],
    ['a malformed tsquery (42601)', 'body=fts.a%20b', 400, '42601', /syntax error in tsquery/],
  ])('should answer %s with its SQLSTATE and a 4xx', async (_title, query, status, code, message) => {
    const response = await read(query);
    expect(response.status).toBe(status);
    expect(response.body).toMatchObject({ code, message: expect.stringMatching(message) });
  });

  it('should cancel a statement past the statement timeout and answer 503 with a hint, the connection still usable', async () => {
    const hasty = own(new Database({ pool: createPool({ url: runtime.config.DATABASE_URL }, 2) }, undefined, { statementTimeoutMs: 1, workMemKb: 4096 }));
    // A regular expression over 200,000 rows, sorted: far beyond a millisecond.
    await runtime.db.asSystem((tx) =>
      tx.query(`INSERT INTO dataapi_items (organization_id, name) SELECT $1, 'bulk ' || n FROM generate_series(1, 200000) n`, [org.organizationId]),
    );
    const response = await read('name=imatch.^(bulk)+.*9$&select=name&order=name.desc', hasty);
    expect(response.status).toBe(503);
    expect(response.body).toMatchObject({
      code: '57014',
      message: 'canceling statement due to statement timeout',
      hint: expect.stringContaining('statement timeout'),
    });
    expect((await read('name=eq.Apple&select=name')).body).toEqual([{ name: 'Apple' }]);
  });

  it('should set the statement timeout and work_mem of tenant transactions only', async () => {
    const settings = "SELECT current_setting('statement_timeout') AS timeout, current_setting('work_mem') AS mem";
    const tenant = own(new Database({ pool: createPool({ url: runtime.config.DATABASE_URL }, 2) }, undefined, { statementTimeoutMs: 1234, workMemKb: 2048 }));
    expect(await tenant.inTenant(org, (tx) => tx.query(settings))).toEqual([{ timeout: '1234ms', mem: '2MB' }]);
    expect(await tenant.asSystem((tx) => tx.query(settings))).toEqual([{ timeout: '0', mem: '4MB' }]);
  });
});
