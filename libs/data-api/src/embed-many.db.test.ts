import type { PlatformRuntime } from '@engage/platform';
import { makeOrganization, startTestRuntime } from '@engage/platform/testing';
import type { RequestContext } from '@engage/shared-kernel';
import { executeRead } from './read';
import { CREATE_EMBED_TABLES, embedRegistry, seedEmbed } from './testing/embed.fixture';
import { CREATE_ITEMS, ITEMS_A, ITEMS_B, seedItems } from './testing/items.fixture';
import { answer } from './testing/respond';

// Owners have notes (one-to-many through dataapi_notes.owner_id) and items (many-to-many through
// the junction dataapi_item_owners): Ali owns Apple and Banana (and, through a row pointing into
// organization B, B's Apple, which A never sees), Bea owns Apple.
describe('executeRead with one-to-many, many-to-many and nested embedding against PostgreSQL', () => {
  let runtime: PlatformRuntime;
  let orgA: RequestContext;
  let orgB: RequestContext;

  beforeAll(async () => {
    runtime = await startTestRuntime();
    await runtime.db.asSystem((tx) => tx.query(CREATE_ITEMS));
    await runtime.db.asSystem((tx) => tx.query(CREATE_EMBED_TABLES));
    orgA = await makeOrganization(runtime, 'A');
    orgB = await makeOrganization(runtime, 'B');
    await seedItems(runtime, orgA.organizationId, ITEMS_A);
    await seedItems(runtime, orgB.organizationId, ITEMS_B);
    await seedEmbed(runtime, orgA.organizationId, orgB.organizationId);
  });
  afterAll(() => runtime.close());

  const get = (table: string, query: string, headers: Record<string, string> = {}, ctx = orgA) =>
    answer(() => runtime.db.inTenant(ctx, (tx) => executeRead(tx, embedRegistry, { method: 'GET', table, query, headers })));

  it.each([
    [
      'one-to-many gives an array',
      'dataapi_owners',
      'select=name,dataapi_notes(title)&order=name',
      [
        { name: 'Ali', dataapi_notes: [{ title: 'first' }] },
        { name: 'Bea', dataapi_notes: [{ title: 'second' }] },
      ],
    ],
    [
      'one-to-many by FK hint, [] when nothing matches',
      'dataapi_items',
      'select=name,dataapi_notes!backup_item_id(title)&name=in.(Apple,Banana)&order=name',
      [
        { name: 'Apple', dataapi_notes: [] },
        { name: 'Banana', dataapi_notes: [{ title: 'first' }] },
      ],
    ],
    [
      'many-to-many through the junction',
      'dataapi_items',
      'select=name,dataapi_owners(name)&dataapi_owners.order=name&name=in.(Apple,Cherry)&order=name',
      [
        { name: 'Apple', dataapi_owners: [{ name: 'Ali' }, { name: 'Bea' }] },
        { name: 'Cherry', dataapi_owners: [] },
      ],
    ],
    [
      "many-to-many hides another organization's rows",
      'dataapi_owners',
      'select=name,dataapi_items(name)&dataapi_items.order=name&name=eq.Ali',
      [{ name: 'Ali', dataapi_items: [{ name: 'Apple' }, { name: 'Banana' }] }],
    ],
    [
      'embedded order desc',
      'dataapi_owners',
      'select=name,dataapi_items(name)&dataapi_items.order=name.desc&name=eq.Ali',
      [{ name: 'Ali', dataapi_items: [{ name: 'Banana' }, { name: 'Apple' }] }],
    ],
    [
      'embedded limit',
      'dataapi_owners',
      'select=name,dataapi_items(name)&dataapi_items.order=name.desc&dataapi_items.limit=1&order=name',
      [
        { name: 'Ali', dataapi_items: [{ name: 'Banana' }] },
        { name: 'Bea', dataapi_items: [{ name: 'Apple' }] },
      ],
    ],
    [
      'embedded offset',
      'dataapi_owners',
      'select=name,dataapi_items(name)&dataapi_items.order=name&dataapi_items.offset=1&name=eq.Ali',
      [{ name: 'Ali', dataapi_items: [{ name: 'Banana' }] }],
    ],
    [
      'order and limit through an alias',
      'dataapi_owners',
      'select=name,its:dataapi_items(n:name)&its.order=name&its.limit=1&name=eq.Ali',
      [{ name: 'Ali', its: [{ n: 'Apple' }] }],
    ],
    [
      'count of an embed',
      'dataapi_items',
      'select=name,dataapi_owners(count)&name=in.(Apple,Banana,Cherry)&order=name',
      [
        { name: 'Apple', dataapi_owners: [{ count: 2 }] },
        { name: 'Banana', dataapi_owners: [{ count: 1 }] },
        { name: 'Cherry', dataapi_owners: [{ count: 0 }] },
      ],
    ],
    [
      'count of a one-to-many embed with a filter',
      'dataapi_owners',
      'select=name,n:dataapi_notes(count)&n.title=eq.first&order=name',
      [
        { name: 'Ali', n: [{ count: 1 }] },
        { name: 'Bea', n: [{ count: 0 }] },
      ],
    ],
    [
      'an embedded filter empties the array, parents stay',
      'dataapi_owners',
      'select=name,dataapi_items(name)&dataapi_items.name=eq.Banana&order=name',
      [
        { name: 'Ali', dataapi_items: [{ name: 'Banana' }] },
        { name: 'Bea', dataapi_items: [] },
      ],
    ],
    [
      '!inner on a to-many embed drops parents without rows',
      'dataapi_owners',
      'select=name,dataapi_items!inner(name)&dataapi_items.name=eq.Banana',
      [{ name: 'Ali', dataapi_items: [{ name: 'Banana' }] }],
    ],
    [
      'anti-join on a to-many embed',
      'dataapi_items',
      'select=name,dataapi_owners()&dataapi_owners=is.null&order=name',
      [{ name: 'Cherry' }, { name: 'Date' }, { name: 'Fig' }, { name: 'eggplant' }],
    ],
    [
      'a to-many presence inside an or= tree',
      'dataapi_items',
      'select=name,dataapi_owners()&or=(dataapi_owners.not.is.null,name.eq.Fig)&order=name',
      [{ name: 'Apple' }, { name: 'Banana' }, { name: 'Fig' }],
    ],
    [
      'a nested presence inside an embed or= tree',
      'dataapi_owners',
      'select=name,dataapi_notes(title,dataapi_items!item_id(name))&dataapi_notes.dataapi_items.name=eq.Cherry&dataapi_notes.or=(dataapi_items.not.is.null)&order=name',
      [
        { name: 'Ali', dataapi_notes: [] },
        { name: 'Bea', dataapi_notes: [{ title: 'second', dataapi_items: { name: 'Cherry' } }] },
      ],
    ],
    [
      'an embedded or= tree',
      'dataapi_owners',
      'select=name,dataapi_items(name)&dataapi_items.or=(name.eq.Apple,qty.gt.10)&dataapi_items.order=name&name=eq.Ali',
      [{ name: 'Ali', dataapi_items: [{ name: 'Apple' }, { name: 'Banana' }] }],
    ],
    [
      'nested: to-one inside to-many',
      'dataapi_owners',
      'select=name,dataapi_notes(title,dataapi_items!item_id(name))&order=name',
      [
        { name: 'Ali', dataapi_notes: [{ title: 'first', dataapi_items: { name: 'Apple' } }] },
        { name: 'Bea', dataapi_notes: [{ title: 'second', dataapi_items: { name: 'Cherry' } }] },
      ],
    ],
    [
      'nested: to-many inside to-one, shaped by a nested path',
      'dataapi_notes',
      'select=title,dataapi_items!item_id(name,dataapi_owners(name))&dataapi_items.dataapi_owners.order=name.desc&title=eq.first',
      [{ title: 'first', dataapi_items: { name: 'Apple', dataapi_owners: [{ name: 'Bea' }, { name: 'Ali' }] } }],
    ],
    [
      'nested !inner with a nested filter',
      'dataapi_notes',
      'select=title,dataapi_items!item_id!inner(name,dataapi_owners!inner(name))&dataapi_items.dataapi_owners.name=eq.Bea',
      [{ title: 'first', dataapi_items: { name: 'Apple', dataapi_owners: [{ name: 'Bea' }] } }],
    ],
    [
      'three levels deep',
      'dataapi_owners',
      'select=name,dataapi_notes(title,dataapi_items!item_id(name,dataapi_owners(name)))&dataapi_notes.dataapi_items.dataapi_owners.order=name&name=eq.Bea',
      [{ name: 'Bea', dataapi_notes: [{ title: 'second', dataapi_items: { name: 'Cherry', dataapi_owners: [] } }] }],
    ],
  ])('should embed: %s', async (_title, table, query, expected) => {
    const response = await get(table, query);
    expect(response.status).toBe(200);
    expect(response.body).toEqual(expected);
  });

  it('should show organization B its own related rows only', async () => {
    expect((await get('dataapi_owners', 'select=name,dataapi_items(name,qty),dataapi_notes(title)', {}, orgB)).body).toEqual([
      { name: 'Zed', dataapi_items: [{ name: 'Apple', qty: 99 }], dataapi_notes: [{ title: 'bee' }] },
    ]);
  });

  it('should count only the parents a to-many !inner keeps', async () => {
    const response = await get('dataapi_items', 'select=name,dataapi_owners!inner(name)&limit=1&order=name', { prefer: 'count=exact' });
    expect(response).toMatchObject({ status: 206, headers: { 'content-range': '0-0/2' }, body: [{ name: 'Apple', dataapi_owners: expect.any(Array) }] });
  });

  it('should answer a to-many embed in a singular response', async () => {
    const response = await get('dataapi_owners', 'select=name,dataapi_notes(title)&name=eq.Ali', { accept: 'application/vnd.pgrst.object+json' });
    expect(response.body).toEqual({ name: 'Ali', dataapi_notes: [{ title: 'first' }] });
  });

  it.each([
    [
      'ambiguous one-to-many',
      'dataapi_items',
      'select=name,dataapi_notes(title)',
      300,
      {
        code: 'PGRST201',
        details: [expect.objectContaining({ cardinality: 'one-to-many' }), expect.objectContaining({ cardinality: 'one-to-many' })],
        hint: expect.stringContaining("'dataapi_notes!dataapi_notes_item_id_fkey'"),
      },
    ],
    ['a bad embedded limit', 'dataapi_owners', 'select=name,dataapi_notes(title)&dataapi_notes.limit=-1', 400, { code: 'PGRST100' }],
    ['a bad embedded order', 'dataapi_owners', 'select=name,dataapi_notes(title)&dataapi_notes.order=nope', 400, { code: '42703' }],
    [
      'an unknown column in a nested embed',
      'dataapi_owners',
      'select=name,dataapi_notes(title,dataapi_items!item_id(nope))',
      400,
      { code: '42703', message: 'column dataapi_items.nope does not exist' },
    ],
    [
      'count mixed with columns is refused',
      'dataapi_owners',
      'select=name,dataapi_notes(count,title)',
      400,
      { code: '42703', message: 'column dataapi_notes.count does not exist' },
    ],
    [
      'a filter on an embed of an embed not selected',
      'dataapi_owners',
      'select=name,dataapi_notes(title)&dataapi_notes.dataapi_items.name=eq.x',
      400,
      { code: 'PGRST108' },
    ],
  ])('should refuse %s', async (_title, table, query, status, body) => {
    const response = await get(table, query);
    expect(response.status).toBe(status);
    expect(response.body).toMatchObject(body);
  });
});
