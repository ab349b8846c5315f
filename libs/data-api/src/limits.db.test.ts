import type { PlatformRuntime } from '@engage/platform';
import { makeOrganization, startTestRuntime } from '@engage/platform/testing';
import type { RequestContext } from '@engage/shared-kernel';
import { type ReadLimits, SHAPE_LIMITS } from './limits';
import { executeRead, FETCH_BATCH } from './read';
import { CREATE_EMBED_TABLES, embedRegistry } from './testing/embed.fixture';
import { CREATE_ITEMS } from './testing/items.fixture';
import { answer } from './testing/respond';

// The requests that took the service down, at a scale that proves each limit: one GET whose body
// outgrew the driver's string limit (one column under hundreds of aliases), and embeds hundreds of
// levels deep that exhausted PostgreSQL's memory. Every one is a 400 naming its limit, before or
// instead of building the body, and the next read works.
describe('read limits against PostgreSQL', () => {
  let runtime: PlatformRuntime;
  let org: RequestContext;
  const ROWS = 300;
  const FIELD = 'x'.repeat(16 * 1024);

  beforeAll(async () => {
    runtime = await startTestRuntime();
    await runtime.db.asSystem((tx) => tx.query(CREATE_ITEMS));
    await runtime.db.asSystem((tx) => tx.query(CREATE_EMBED_TABLES));
    org = await makeOrganization(runtime, 'Limits');
    await runtime.db.asSystem((tx) =>
      tx.query(
        `INSERT INTO dataapi_items (organization_id, name, qty, meta)
         SELECT $1, 'item ' || n, n, jsonb_build_object('f', $2::text) FROM generate_series(1, $3::int) n`,
        [org.organizationId, FIELD, ROWS],
      ),
    );
  });
  afterAll(() => runtime.close());

  const get = (query: string, limits?: ReadLimits, table = 'dataapi_items', headers: Record<string, string> = {}) =>
    answer(() => runtime.db.inTenant(org, (tx) => executeRead(tx, embedRegistry, { method: 'GET', table, query, headers }, limits)));
  const aliases = (n: number, column: string) => Array.from({ length: n }, (_, i) => `a${i}:${column}`).join(',');

  it("should refuse the issue's alias request (700 aliases of one column) as too wide, before any SQL", async () => {
    const response = await get(`meta=not.eq.{}&select=${aliases(700, 'meta')}`);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'data_api.select_too_large', hint: expect.stringContaining('fewer columns') });
  });

  it('should refuse one column under more aliases than the repeat limit, JSON paths of it included', async () => {
    for (const column of ['meta', 'meta->f', 'meta->>f']) {
      const response = await get(`select=${aliases(SHAPE_LIMITS.repeats + 1, column)}`);
      expect(response.body).toMatchObject({ code: 'data_api.select_repeated', message: expect.stringContaining(`more than ${SHAPE_LIMITS.repeats} times`) });
    }
    expect((await get(`select=${aliases(SHAPE_LIMITS.repeats, 'qty')}&limit=1`)).status).toBe(200);
  });

  it.each([
    ['a page read in one statement', 'limit=100', 1000],
    ['a page read through the cursor', '', 5000],
  ])('should stop a response over the byte cap and answer 400 instead of building it: %s', async (_title, paging, maxRows) => {
    const response = await get(`select=${aliases(4, 'meta')}&order=qty&${paging}`, { maxRows, maxResponseBytes: 1024 * 1024 });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'data_api.response_too_large', message: 'The response would be larger than 1048576 bytes' });
    // Within the cap the same read answers.
    const fits = await get(`select=id,meta&order=qty&limit=50`, { maxRows: 1000, maxResponseBytes: 1024 * 1024 });
    expect(fits.status).toBe(200);
    expect(fits.body).toHaveLength(50);
  });

  it('should read pages larger than a cursor batch whole and in order, and stop one over the cap', async () => {
    const many = await makeOrganization(runtime, 'Many rows');
    await runtime.db.asSystem((tx) =>
      tx.query(`INSERT INTO dataapi_items (organization_id, name, qty) SELECT $1, 'n' || n, n FROM generate_series(1, $2::int) n`, [
        many.organizationId,
        FETCH_BATCH * 2 + 500,
      ]),
    );
    const read = (limits: ReadLimits) =>
      answer(() =>
        runtime.db.inTenant(many, (tx) =>
          executeRead(tx, embedRegistry, { method: 'GET', table: 'dataapi_items', query: 'select=qty&order=qty', headers: {} }, limits),
        ),
      );
    const whole = await read({ maxRows: 10_000, maxResponseBytes: 1024 * 1024 });
    expect((whole.body as { qty: number }[]).map((row) => row.qty)).toEqual(Array.from({ length: FETCH_BATCH * 2 + 500 }, (_, i) => i + 1));
    expect(whole.headers['content-range']).toBe(`0-${FETCH_BATCH * 2 + 499}/*`);
    expect((await read({ maxRows: 10_000, maxResponseBytes: 20_000 })).body).toMatchObject({ code: 'data_api.response_too_large' });
  });

  it('should cut a larger limit to the row cap, Content-Range telling the rows sent, and read past it with offset', async () => {
    const limits = { maxRows: 120, maxResponseBytes: 64 * 1024 * 1024 };
    const first = await get('select=qty&order=qty&limit=1000', limits, 'dataapi_items', { prefer: 'count=exact' });
    expect(first.status).toBe(206);
    expect(first.headers['content-range']).toBe(`0-119/${ROWS}`);
    expect(first.body).toHaveLength(120);
    const unlimited = await get('select=qty&order=qty&offset=250', limits);
    expect(unlimited.headers['content-range']).toBe(`250-${ROWS - 1}/*`);
    expect((unlimited.body as { qty: number }[]).map((row) => row.qty)).toEqual(Array.from({ length: ROWS - 250 }, (_, i) => 251 + i));
  });

  it('should cut every embedded array to the row cap too', async () => {
    const owner = '00000000-0000-4000-9000-00000000a001';
    await runtime.db.asSystem(async (tx) => {
      await tx.query(`INSERT INTO dataapi_owners (id, organization_id, name) VALUES ($1, $2, 'Many')`, [owner, org.organizationId]);
      await tx.query(
        `INSERT INTO dataapi_notes (id, organization_id, title, owner_id) SELECT gen_random_uuid(), $1, 'n' || n, $2 FROM generate_series(1, 30) n`,
        [org.organizationId, owner],
      );
    });
    const response = await get('select=name,dataapi_notes(title)&dataapi_notes.limit=500', { maxRows: 10, maxResponseBytes: 1024 * 1024 }, 'dataapi_owners');
    expect((response.body as { dataapi_notes: unknown[] }[])[0].dataapi_notes).toHaveLength(10);
  });

  // owners -> notes (one-to-many) -> owners (to-one) -> notes ...
  const nest = (levels: number): string => {
    let inner = 'id';
    for (let level = levels; level >= 1; level--) inner = `id,${level % 2 === 1 ? 'dataapi_notes' : 'dataapi_owners'}(${inner})`;
    return inner;
  };

  it('should answer embeds up to the depth limit and refuse one level more', async () => {
    // No owner matches: the 30 notes of the test above would make the nested arrays grow as 30^4.
    expect(await get(`select=${nest(SHAPE_LIMITS.embedDepth)}&name=eq.nobody`, undefined, 'dataapi_owners')).toMatchObject({ status: 200, body: [] });
    const deeper = await get(`select=${nest(SHAPE_LIMITS.embedDepth + 1)}`, undefined, 'dataapi_owners');
    expect(deeper.status).toBe(400);
    expect(deeper.body).toMatchObject({ code: 'data_api.embed_too_deep', hint: expect.stringContaining('level 9') });
  });

  it("should refuse the issue's 400-pair-deep embed and a 900-deep one with 400, not 500", async () => {
    for (const levels of [800, 900]) {
      const response = await get(`select=${nest(levels)}`, undefined, 'dataapi_owners');
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ code: 'data_api.query_too_long' });
    }
  });

  const tree = (depth: number): string => {
    let inner = 'qty.eq.1';
    for (let level = 1; level < depth; level++) inner = `${level % 2 ? 'and' : 'or'}(${inner},qty.eq.${level})`;
    return `(${inner})`;
  };

  it('should answer logic trees up to the depth and term limits and refuse beyond them', async () => {
    expect((await get(`or=${tree(SHAPE_LIMITS.logicDepth)}&select=qty`)).status).toBe(200);
    expect((await get(`or=${tree(SHAPE_LIMITS.logicDepth + 1)}&select=qty`)).body).toMatchObject({ code: 'data_api.logic_too_deep' });
    const terms = (n: number) => `or=(${Array.from({ length: n }, (_, i) => `qty.eq.${i}`).join(',')})&select=qty`;
    expect((await get(terms(SHAPE_LIMITS.logicTerms))).status).toBe(200);
    expect((await get(terms(SHAPE_LIMITS.logicTerms + 1))).body).toMatchObject({ code: 'data_api.logic_too_large' });
  });

  it('should refuse or= nested 2,000 deep with 400, and a query string over the length limit', async () => {
    expect((await get(`or=${tree(2000)}`)).body).toMatchObject({ code: 'data_api.query_too_long' });
    const long = await get(`select=qty&name=in.(${'a,'.repeat(SHAPE_LIMITS.queryLength / 2)}b)`);
    expect(long.status).toBe(400);
    expect(long.body).toMatchObject({ code: 'data_api.query_too_long', details: expect.stringMatching(/^\d+ characters$/) });
  });

  it('should refuse a select of more items than the limit, embeds included', async () => {
    const columns = Array.from({ length: SHAPE_LIMITS.selectItems + 1 }, (_, i) => `c${i}:meta->k${i}`).join(',');
    expect((await get(`select=${columns}`)).body).toMatchObject({ code: 'data_api.select_too_large' });
  });
});
