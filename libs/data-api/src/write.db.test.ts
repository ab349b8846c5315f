import type { PlatformRuntime } from '@engage/platform';
import { makeOrganization, startTestRuntime } from '@engage/platform/testing';
import type { RequestContext } from '@engage/shared-kernel';
import { executeRead } from './read';
import { defineRegistry } from './registry';
import { CREATE_ITEMS, ITEMS_A } from './testing/items.fixture';
import { itemsRegistry } from './testing/items.registry';
import { itemsWriters, itemsWritersWithIds } from './testing/items.writer';
import { type Answer, answer } from './testing/respond';
import { executeWrite, type WriteRequest } from './write';

type Method = WriteRequest['method'];
type Headers = Record<string, string>;

// Each case gets its own organization holding the six items of ITEMS_A (Apple, Banana, Cherry,
// Date, eggplant, Fig), so cases cannot see each other's writes.
describe('executeWrite (PostgREST write options) against PostgreSQL', () => {
  let runtime: PlatformRuntime;
  let orgB: RequestContext;
  const writers = itemsWriters();

  beforeAll(async () => {
    runtime = await startTestRuntime();
    await runtime.db.asSystem((tx) => tx.query(`${CREATE_ITEMS}; CREATE UNIQUE INDEX dataapi_items_name_key ON dataapi_items (organization_id, name);`));
    orgB = await freshOrg('B');
  });
  afterAll(() => runtime.close());

  async function freshOrg(name = 'A'): Promise<RequestContext> {
    const ctx = await makeOrganization(runtime, name);
    await runtime.db.asSystem(async (tx) => {
      for (const item of ITEMS_A) {
        await tx.query('INSERT INTO dataapi_items (organization_id, name, qty, tags) VALUES ($1, $2, $3, $4)', [
          ctx.organizationId,
          item.name,
          item.qty,
          item.tags,
        ]);
      }
    });
    return ctx;
  }

  const write = (ctx: RequestContext, method: Method, query: string, headers: Headers = {}, body?: unknown): Promise<Answer> =>
    answer(() =>
      runtime.db.inTenant(ctx, (tx) =>
        executeWrite(tx, itemsRegistry, writers, ctx, { method, table: 'dataapi_items', query, headers, body, representationByDefault: false }),
      ),
    );
  const state = async (ctx: RequestContext) =>
    JSON.parse(
      (
        await runtime.db.inTenant(ctx, (tx) =>
          executeRead(tx, itemsRegistry, { method: 'GET', table: 'dataapi_items', query: 'select=name,qty&order=name', headers: {} }),
        )
      ).body,
    ) as { name: string; qty: number | null }[];
  const events = async (ctx: RequestContext) =>
    (
      await runtime.db.asSystem((tx) => tx.query<{ type: string }>('SELECT type FROM outbox WHERE organization_id = $1 ORDER BY seq', [ctx.organizationId]))
    ).map((row) => row.type);
  const ORIGINAL = ITEMS_A.map((item) => ({ name: item.name, qty: item.qty })).sort((a, b) => (a.name < b.name ? -1 : 1));

  interface Case {
    method: Method;
    query: string;
    headers?: Headers;
    body?: unknown;
    status: number;
    responseHeaders?: Headers;
    response?: unknown;
    // The organization's rows (name, qty, by name) afterwards; ORIGINAL when nothing may change.
    after?: { name: string; qty: number | null }[];
    events?: string[];
  }

  const withQty = (changes: Record<string, number | null>, removed: string[] = [], added: { name: string; qty: number | null }[] = []) =>
    [...ORIGINAL.filter((row) => !removed.includes(row.name)).map((row) => (row.name in changes ? { ...row, qty: changes[row.name] } : row)), ...added].sort(
      (a, b) => (a.name < b.name ? -1 : 1),
    );
  const rep = { prefer: 'return=representation' };
  const object = { accept: 'application/vnd.pgrst.object+json' };

  const cases: [string, Case][] = [
    [
      'POST minimal: 201, no body, */*',
      {
        method: 'POST',
        query: '',
        body: { name: 'Kiwi', qty: 1 },
        status: 201,
        responseHeaders: { 'content-range': '*/*' },
        response: '',
        after: withQty({}, [], [{ name: 'Kiwi', qty: 1 }]),
        events: ['item.created'],
      },
    ],
    [
      'POST representation shaped by select',
      {
        method: 'POST',
        query: 'select=name,q:qty',
        headers: rep,
        body: { name: ' Kiwi ', qty: 1 },
        status: 201,
        responseHeaders: { 'preference-applied': 'return=representation' },
        response: [{ name: 'Kiwi', q: 1 }],
      },
    ],
    [
      'POST bulk in order',
      { method: 'POST', query: 'select=name', headers: rep, body: [{ name: 'Z1' }, { name: 'A1' }], status: 201, response: [{ name: 'Z1' }, { name: 'A1' }] },
    ],
    [
      'POST columns= ignores other keys, absent ones are null',
      {
        method: 'POST',
        query: 'columns="name","qty"&select=name,qty,active',
        headers: rep,
        body: [{ name: 'K1', qty: 2, active: true }, { name: 'K2' }],
        status: 201,
        response: [
          { name: 'K1', qty: 2, active: null },
          { name: 'K2', qty: null, active: null },
        ],
      },
    ],
    [
      'POST columns= with missing=default keeps the default',
      {
        method: 'POST',
        query: 'columns=name,tags&select=name,tags',
        headers: { prefer: 'missing=default, return=representation' },
        body: [{ name: 'K1', tags: ['x'] }, { name: 'K2' }],
        status: 201,
        responseHeaders: { 'preference-applied': 'missing=default, return=representation' },
        response: [
          { name: 'K1', tags: ['x'] },
          { name: 'K2', tags: [] },
        ],
      },
    ],
    [
      'POST unknown key: PGRST204',
      {
        method: 'POST',
        query: '',
        body: { name: 'K', nope: 1 },
        status: 400,
        response: { code: 'PGRST204', message: "Could not find the 'nope' column of 'dataapi_items' in the schema cache", details: null, hint: null },
        after: ORIGINAL,
      },
    ],
    ['POST unknown columns=: PGRST204', { method: 'POST', query: 'columns=name,nope', body: { name: 'K' }, status: 400, response: { code: 'PGRST204' } }],
    ['POST empty columns=: PGRST100', { method: 'POST', query: 'columns=', body: { name: 'K' }, status: 400, response: { code: 'PGRST100' } }],
    [
      'POST array with different keys: PGRST102',
      {
        method: 'POST',
        query: '',
        body: [{ name: 'K1' }, { name: 'K2', qty: 1 }],
        status: 400,
        response: { code: 'PGRST102', message: 'All object keys must match' },
        after: ORIGINAL,
      },
    ],
    [
      'POST a row the context refuses: nothing inserted',
      { method: 'POST', query: '', body: [{ name: 'K1' }, { name: ' ' }], status: 400, response: { code: 'item.name_required' }, after: ORIGINAL, events: [] },
    ],
    [
      'POST headers-only: 201 with Location',
      {
        method: 'POST',
        query: '',
        headers: { prefer: 'return=headers-only' },
        body: { name: 'Kiwi' },
        status: 201,
        responseHeaders: { location: expect.stringMatching(/^\/dataapi_items\?id=eq\.[0-9a-f-]{36}$/), 'preference-applied': 'return=headers-only' },
        response: '',
      },
    ],
    [
      'upsert merge on on_conflict=name, only updates: 200',
      {
        method: 'POST',
        query: 'on_conflict=name&select=name,qty',
        headers: { prefer: 'resolution=merge-duplicates,return=representation' },
        body: { name: 'Apple', qty: 50 },
        status: 200,
        responseHeaders: { 'preference-applied': 'resolution=merge-duplicates, return=representation' },
        response: [{ name: 'Apple', qty: 50 }],
        after: withQty({ Apple: 50 }),
        events: ['item.updated'],
      },
    ],
    [
      'upsert merge, one new and one existing: 201',
      {
        method: 'POST',
        query: 'on_conflict=name&columns=name,qty&select=name,qty',
        headers: { prefer: 'resolution=merge-duplicates, return=representation' },
        body: [
          { name: 'Apple', qty: 51 },
          { name: 'Kiwi', qty: 3 },
        ],
        status: 201,
        response: [
          { name: 'Apple', qty: 51 },
          { name: 'Kiwi', qty: 3 },
        ],
        after: withQty({ Apple: 51 }, [], [{ name: 'Kiwi', qty: 3 }]),
        events: ['item.updated', 'item.created'],
      },
    ],
    [
      'upsert ignore-duplicates skips existing rows',
      {
        method: 'POST',
        query: 'on_conflict=name&select=name,qty',
        headers: { prefer: 'resolution=ignore-duplicates, return=representation' },
        body: [
          { name: 'Apple', qty: 99 },
          { name: 'Kiwi', qty: 3 },
        ],
        status: 201,
        response: [{ name: 'Kiwi', qty: 3 }],
        after: withQty({}, [], [{ name: 'Kiwi', qty: 3 }]),
        events: ['item.created'],
      },
    ],
    [
      'upsert minimal: 201 empty',
      {
        method: 'POST',
        query: 'on_conflict=name',
        headers: { prefer: 'resolution=merge-duplicates' },
        body: { name: 'Kiwi', qty: 3 },
        status: 201,
        response: '',
      },
    ],
    [
      'upsert on a column without a unique index: 42P10',
      {
        method: 'POST',
        query: 'on_conflict=qty',
        headers: { prefer: 'resolution=merge-duplicates' },
        body: { name: 'Apple', qty: 5 },
        status: 400,
        response: { code: '42P10' },
        after: ORIGINAL,
      },
    ],
    [
      'upsert on an unknown column: 42703',
      {
        method: 'POST',
        query: 'on_conflict=nope',
        headers: { prefer: 'resolution=merge-duplicates' },
        body: { name: 'Apple' },
        status: 400,
        response: { code: '42703' },
      },
    ],
    [
      'tx=rollback answers the rows and keeps nothing',
      {
        method: 'POST',
        query: 'select=name',
        headers: { prefer: 'return=representation, tx=rollback' },
        body: { name: 'Ghost' },
        status: 201,
        responseHeaders: { 'preference-applied': 'return=representation, tx=rollback' },
        response: [{ name: 'Ghost' }],
        after: ORIGINAL,
        events: [],
      },
    ],
    [
      'tx=rollback on PATCH',
      {
        method: 'PATCH',
        query: 'name=eq.Apple&select=qty',
        headers: { prefer: 'tx=rollback,return=representation' },
        body: { qty: 1000 },
        status: 200,
        response: [{ qty: 1000 }],
        after: ORIGINAL,
        events: [],
      },
    ],
    [
      'handling=strict refuses unknown preferences: PGRST122',
      {
        method: 'POST',
        query: '',
        headers: { prefer: 'handling=strict, foo, return=nope' },
        body: { name: 'K' },
        status: 400,
        response: { code: 'PGRST122', details: 'Invalid preferences: foo, return=nope' },
        after: ORIGINAL,
      },
    ],
    [
      'handling=lenient ignores them',
      {
        method: 'POST',
        query: '',
        headers: { prefer: 'handling=lenient, foo' },
        body: { name: 'K' },
        status: 201,
        responseHeaders: { 'preference-applied': 'handling=lenient' },
      },
    ],
    [
      'max-affected exceeded under strict: PGRST124, nothing changed',
      {
        method: 'PATCH',
        query: 'qty=gte.5',
        headers: { prefer: 'handling=strict, max-affected=2' },
        body: { qty: 0 },
        status: 400,
        response: { code: 'PGRST124', message: 'Query result exceeds max-affected preference constraint', details: 'The query affects 3 rows' },
        after: ORIGINAL,
        events: [],
      },
    ],
    [
      'max-affected on DELETE under strict',
      {
        method: 'DELETE',
        query: 'qty=gte.5',
        headers: { prefer: 'handling=strict, max-affected=1' },
        status: 400,
        response: { code: 'PGRST124' },
        after: ORIGINAL,
      },
    ],
    [
      'max-affected respected',
      {
        method: 'PATCH',
        query: 'qty=gte.5',
        headers: { prefer: 'handling=strict,max-affected=3' },
        body: { qty: 1 },
        status: 204,
        responseHeaders: { 'preference-applied': 'handling=strict, max-affected=3' },
        after: withQty({ Apple: 1, Banana: 1, eggplant: 1 }),
      },
    ],
    [
      'max-affected without strict is ignored',
      {
        method: 'PATCH',
        query: 'qty=gte.5',
        headers: { prefer: 'max-affected=1' },
        body: { qty: 1 },
        status: 204,
        after: withQty({ Apple: 1, Banana: 1, eggplant: 1 }),
      },
    ],
    [
      'singular PATCH hitting 3 rows: 406, rolled back',
      {
        method: 'PATCH',
        query: 'qty=gte.5',
        headers: object,
        body: { qty: 0 },
        status: 406,
        response: { code: 'PGRST116', details: 'The result contains 3 rows' },
        after: ORIGINAL,
        events: [],
      },
    ],
    [
      'singular PATCH hitting one row answers an object',
      {
        method: 'PATCH',
        query: 'name=eq.Apple&select=name,qty',
        headers: { ...object, ...rep },
        body: { qty: 6 },
        status: 200,
        responseHeaders: { 'content-type': 'application/vnd.pgrst.object+json; charset=utf-8' },
        response: { name: 'Apple', qty: 6 },
      },
    ],
    [
      'singular DELETE hitting no row: 406',
      { method: 'DELETE', query: 'name=eq.Nope', headers: object, status: 406, response: { code: 'PGRST116', details: 'The result contains 0 rows' } },
    ],
    [
      'singular POST of two rows: 406, nothing inserted',
      {
        method: 'POST',
        query: '',
        headers: object,
        body: [{ name: 'K1' }, { name: 'K2' }],
        status: 406,
        response: { code: 'PGRST116' },
        after: ORIGINAL,
        events: [],
      },
    ],
    [
      'PATCH Content-Range 0-(n-1)/*',
      {
        method: 'PATCH',
        query: 'tags=cs.{fruit}',
        body: { qty: 2 },
        status: 204,
        responseHeaders: { 'content-range': '0-2/*' },
        after: withQty({ Apple: 2, Banana: 2, Cherry: 2 }),
        events: ['item.updated', 'item.updated', 'item.updated'],
      },
    ],
    [
      'PATCH with count=exact',
      {
        method: 'PATCH',
        query: 'tags=cs.{fruit}',
        headers: { prefer: 'count=exact' },
        body: { qty: 2 },
        status: 204,
        responseHeaders: { 'content-range': '0-2/3', 'preference-applied': 'count=exact' },
      },
    ],
    [
      'PATCH matching nothing: 204',
      { method: 'PATCH', query: 'name=eq.Nope', body: { qty: 2 }, status: 204, responseHeaders: { 'content-range': '*/*' }, after: ORIGINAL },
    ],
    ['PATCH unknown column: PGRST204', { method: 'PATCH', query: 'name=eq.Apple', body: { nope: 2 }, status: 400, response: { code: 'PGRST204' } }],
    [
      'PATCH with order and limit changes only those rows',
      { method: 'PATCH', query: 'qty=not.is.null&order=qty.desc&limit=2', body: { qty: 100 }, status: 204, after: withQty({ Banana: 100, eggplant: 100 }) },
    ],
    [
      'DELETE with order, limit and offset',
      { method: 'DELETE', query: 'qty=not.is.null&order=qty&limit=1&offset=1', status: 204, after: withQty({}, ['Fig']) },
    ],
    ['Content-Profile: public is the one schema', { method: 'POST', query: '', headers: { 'content-profile': 'public' }, body: { name: 'K' }, status: 201 }],
    [
      'another Content-Profile: 406 PGRST106',
      {
        method: 'POST',
        query: '',
        headers: { 'Content-Profile': 'crm' },
        body: { name: 'K' },
        status: 406,
        response: { code: 'PGRST106', message: 'Invalid schema: crm', hint: 'Only the following schemas are exposed: public' },
        after: ORIGINAL,
      },
    ],
    [
      'DELETE representation answers the rows as they were',
      {
        method: 'DELETE',
        query: 'qty=lte.3&select=name,qty&order=name',
        headers: rep,
        status: 200,
        responseHeaders: { 'content-range': '*/*' },
        response: [
          { name: 'Date', qty: 0 },
          { name: 'Fig', qty: 3 },
        ],
        after: withQty({}, ['Date', 'Fig']),
        events: ['item.deleted', 'item.deleted'],
      },
    ],
  ];

  it.each(cases)('%s', async (_title, c) => {
    const ctx = await freshOrg();
    const response = await write(ctx, c.method, c.query, c.headers, c.body);
    expect(response.status).toBe(c.status);
    if (c.responseHeaders) expect(response.headers).toMatchObject(c.responseHeaders);
    if (c.response !== undefined) {
      if (typeof c.response === 'object' && !Array.isArray(c.response) && c.status >= 400) expect(response.body).toMatchObject(c.response as object);
      else expect(response.body).toEqual(c.response);
    }
    if (c.after) expect(await state(ctx)).toEqual(c.after);
    if (c.events) expect(await events(ctx)).toEqual(c.events);
    // Organization B is never touched.
    expect(await state(orgB)).toEqual(ORIGINAL);
  });

  it('should upsert by the primary key by default', async () => {
    const ctx = await freshOrg();
    const [apple] = JSON.parse(
      (
        await runtime.db.inTenant(ctx, (tx) =>
          executeRead(tx, itemsRegistry, { method: 'GET', table: 'dataapi_items', query: 'name=eq.Apple&select=id', headers: {} }),
        )
      ).body,
    ) as { id: string }[];
    const response = await write(
      ctx,
      'POST',
      'select=id,name,qty',
      { prefer: 'resolution=merge-duplicates,return=representation' },
      { id: apple.id, name: 'Apple', qty: 42 },
    );
    expect(response).toMatchObject({ status: 200, body: [{ id: apple.id, name: 'Apple', qty: 42 }] });
  });

  it('should refuse an upsert on an unknown id unless the writer takes client-chosen ids', async () => {
    const ctx = await freshOrg();
    const id = '00000000-0000-4000-8000-00000000beef';
    const refused = await write(ctx, 'POST', '', { prefer: 'resolution=merge-duplicates' }, { id, name: 'New' });
    expect(refused).toMatchObject({ status: 404, body: { code: 'data_api.upsert_unknown_id', hint: expect.stringContaining('leave id out') } });
    expect(await state(ctx)).toEqual(ORIGINAL);
    const withIds = itemsWritersWithIds();
    const upsert = () =>
      answer(() =>
        runtime.db.inTenant(ctx, (tx) =>
          executeWrite(tx, itemsRegistry, withIds, ctx, {
            method: 'POST',
            table: 'dataapi_items',
            query: 'select=id,name',
            headers: { prefer: 'resolution=merge-duplicates,return=representation' },
            body: { id, name: 'New' },
            representationByDefault: false,
          }),
        ),
      );
    expect(await upsert()).toMatchObject({ status: 201, body: [{ id, name: 'New' }] });
    // Repeating it updates the same row.
    expect(await upsert()).toMatchObject({ status: 200, body: [{ id, name: 'New' }] });
    expect((await state(ctx)).filter((row) => row.name === 'New')).toHaveLength(1);
  });

  it('should serialise concurrent upserts of the same new key into one row', async () => {
    const ctx = await freshOrg();
    const results = await Promise.all(
      [1, 2, 3, 4, 5].map((qty) => write(ctx, 'POST', 'on_conflict=name', { prefer: 'resolution=merge-duplicates' }, { name: 'Mango', qty })),
    );
    expect(results.map((result) => result.status).sort()).toEqual([200, 200, 200, 200, 201]);
    const mangos = (await state(ctx)).filter((row) => row.name === 'Mango');
    expect(mangos).toHaveLength(1);
    expect(await events(ctx)).toEqual(['item.created', 'item.updated', 'item.updated', 'item.updated', 'item.updated']);
  });

  it('should upsert only into the caller’s organization, even on a key another organization holds', async () => {
    const ctx = await freshOrg();
    const response = await write(
      ctx,
      'POST',
      'on_conflict=name&select=name,qty',
      { prefer: 'resolution=merge-duplicates,return=representation' },
      { name: 'Apple', qty: 7 },
    );
    expect(response.body).toEqual([{ name: 'Apple', qty: 7 }]);
    expect(await state(orgB)).toEqual(ORIGINAL);
    const bare = await write(ctx, 'POST', 'on_conflict=name', { prefer: 'resolution=merge-duplicates' }, { name: 'Only A' });
    expect(bare.status).toBe(201);
    expect((await state(orgB)).map((row) => row.name)).not.toContain('Only A');
  });

  it('should let only the table’s writeRoles write, and everyone read', async () => {
    const ctx = await freshOrg();
    const items = itemsRegistry.tables.get('dataapi_items')!;
    const guarded = defineRegistry([{ ...items, writeRoles: ['OWNER', 'ADMIN'] }]);
    const as = (role: RequestContext['role'], method: Method, query: string, body?: unknown) =>
      answer(() =>
        runtime.db.inTenant({ ...ctx, role }, (tx) =>
          executeWrite(tx, guarded, writers, { ...ctx, role }, { method, table: 'dataapi_items', query, headers: {}, body, representationByDefault: false }),
        ),
      );
    for (const [method, query, body] of [
      ['POST', '', { name: 'K' }],
      ['PATCH', 'name=eq.Apple', { qty: 1 }],
      ['DELETE', 'name=eq.Apple', undefined],
    ] as const) {
      expect(await as('AGENT', method, query, body)).toMatchObject({
        status: 403,
        body: { code: '42501', message: 'permission denied for table dataapi_items' },
      });
      expect(await as('SYSTEM', method, query, body)).toMatchObject({ status: 403 });
    }
    expect(await state(ctx)).toEqual(ORIGINAL);
    expect((await as('ADMIN', 'PATCH', 'name=eq.Apple', { qty: 1 })).status).toBe(204);
    expect((await as('OWNER', 'POST', '', { name: 'K' })).status).toBe(201);
    const read = await answer(() =>
      runtime.db.inTenant({ ...ctx, role: 'AGENT' }, (tx) =>
        executeRead(tx, guarded, { method: 'GET', table: 'dataapi_items', query: 'select=name&name=eq.Apple', headers: {} }),
      ),
    );
    expect(read.body).toEqual([{ name: 'Apple' }]);
  });
});
