import type { PlatformRuntime } from '@engage/platform';
import { makeOrganization, startTestRuntime } from '@engage/platform/testing';
import type { RequestContext } from '@engage/shared-kernel';
import type { ReadRequest } from './parse/plan';
import { executeRead } from './read';
import { CREATE_EMBED_TABLES, embedRegistry, OWNERS, seedEmbed } from './testing/embed.fixture';
import { caught } from './testing/expect-error';
import { CREATE_ITEMS, ITEMS_A, ITEMS_B, seedItems } from './testing/items.fixture';

describe('executeRead with to-one embedding against PostgreSQL', () => {
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

  const read = (query: string, headers: ReadRequest['headers'] = {}, ctx = orgA, table = 'dataapi_notes') =>
    runtime.db.inTenant(ctx, (tx) => executeRead(tx, embedRegistry, { method: 'GET', table, query, headers }));
  const rows = async (query: string, ctx = orgA) => JSON.parse((await read(query, {}, ctx)).body) as unknown[];

  // [title, query (notes of A, ordered by title unless filtered to one), the rows expected].
  it.each([
    [
      'embed by table name',
      'select=title,dataapi_owners(name)&order=title',
      [
        { title: 'first', dataapi_owners: { name: 'Ali' } },
        { title: 'leak', dataapi_owners: null },
        { title: 'second', dataapi_owners: { name: 'Bea' } },
        { title: 'third', dataapi_owners: null },
      ],
    ],
    [
      'embed by FK name hint',
      'select=title,dataapi_items!dataapi_notes_item_id_fkey(name,qty)&order=title',
      [
        { title: 'first', dataapi_items: { name: 'Apple', qty: 5 } },
        { title: 'leak', dataapi_items: null },
        { title: 'second', dataapi_items: { name: 'Cherry', qty: null } },
        { title: 'third', dataapi_items: null },
      ],
    ],
    ['embed by FK column hint', 'select=title,dataapi_items!backup_item_id(name)&title=eq.first', [{ title: 'first', dataapi_items: { name: 'Banana' } }]],
    [
      'aliases on two embeds of the same table',
      'select=title,item:dataapi_items!dataapi_notes_item_id_fkey(name),backup:dataapi_items!backup_item_id(name)&title=in.(first,second)&order=title',
      [
        { title: 'first', item: { name: 'Apple' }, backup: { name: 'Banana' } },
        { title: 'second', item: { name: 'Cherry' }, backup: null },
      ],
    ],
    ['embed through the FK column, keyed by it', 'select=title,item_id(name)&title=eq.first', [{ title: 'first', item_id: { name: 'Apple' } }]],
    [
      'embed through the FK name, keyed by it',
      'select=title,dataapi_notes_owner_id_fkey(name)&title=eq.second',
      [{ title: 'second', dataapi_notes_owner_id_fkey: { name: 'Bea' } }],
    ],
    [
      'aliases, casts and json paths inside an embed',
      'select=title,o:dataapi_owners(n:name,email),item:dataapi_items!item_id(name,color:meta->>color,q:qty::text)&title=eq.first',
      [{ title: 'first', o: { n: 'Ali', email: 'ali@a.test' }, item: { name: 'Apple', color: 'red', q: '5' } }],
    ],
    [
      'a null FK gives a null embed',
      'select=title,dataapi_owners(*),dataapi_items!item_id(name)&title=eq.third',
      [{ title: 'third', dataapi_owners: null, dataapi_items: null }],
    ],
    [
      '!inner keeps only rows whose embed exists',
      'select=title,dataapi_owners!inner(name)&order=title',
      [
        { title: 'first', dataapi_owners: { name: 'Ali' } },
        { title: 'second', dataapi_owners: { name: 'Bea' } },
      ],
    ],
    ['!inner and a hint together', 'select=title,dataapi_items!inner!backup_item_id(name)', [{ title: 'first', dataapi_items: { name: 'Banana' } }]],
    [
      'an embed filter with !inner filters the parents',
      'select=title,dataapi_owners!inner(name)&dataapi_owners.name=eq.Ali',
      [{ title: 'first', dataapi_owners: { name: 'Ali' } }],
    ],
    [
      'an embed filter without !inner nulls the embed',
      'select=title,dataapi_owners(name)&dataapi_owners.name=eq.Ali&order=title',
      [
        { title: 'first', dataapi_owners: { name: 'Ali' } },
        { title: 'leak', dataapi_owners: null },
        { title: 'second', dataapi_owners: null },
        { title: 'third', dataapi_owners: null },
      ],
    ],
    ['an embed filter through the alias', 'select=title,o:dataapi_owners!inner(name)&o.name=like.B*', [{ title: 'second', o: { name: 'Bea' } }]],
    [
      'an embed or= tree',
      'select=title,dataapi_owners!inner(name)&dataapi_owners.or=(name.eq.Ali,email.is.null)&order=title',
      [
        { title: 'first', dataapi_owners: { name: 'Ali' } },
        { title: 'second', dataapi_owners: { name: 'Bea' } },
      ],
    ],
    [
      'an embed filter on a column not selected in it',
      'select=title,dataapi_owners!inner(name)&dataapi_owners.email=eq.ali@a.test',
      [{ title: 'first', dataapi_owners: { name: 'Ali' } }],
    ],
    ['an empty embed filters without a key', 'select=title,dataapi_owners!inner()&dataapi_owners.name=eq.Bea', [{ title: 'second' }]],
    [
      'embed and top-level filters together',
      'select=title,dataapi_items!inner!item_id(name)&dataapi_items.qty=is.null&title=like.s*',
      [{ title: 'second', dataapi_items: { name: 'Cherry' } }],
    ],
    [
      'rel=not.is.null acts as !inner',
      'select=title,dataapi_owners(name)&dataapi_owners=not.is.null&dataapi_owners.email=is.null',
      [{ title: 'second', dataapi_owners: { name: 'Bea' } }],
    ],
    [
      'rel=is.null is an anti-join',
      'select=title,o:dataapi_owners(name)&o=is.null&order=title',
      [
        { title: 'leak', o: null },
        { title: 'third', o: null },
      ],
    ],
    [
      'rel.is.null inside an or= tree',
      'select=title,dataapi_owners(name)&or=(dataapi_owners.is.null,title.eq.first)&order=title',
      [
        { title: 'first', dataapi_owners: { name: 'Ali' } },
        { title: 'leak', dataapi_owners: null },
        { title: 'third', dataapi_owners: null },
      ],
    ],
    [
      'alias.not.is.null inside an or= tree, after the embed filter',
      'select=title,o:dataapi_owners(name)&o.name=eq.Bea&or=(o.not.is.null,title.eq.third)&order=title',
      [
        { title: 'second', o: { name: 'Bea' } },
        { title: 'third', o: null },
      ],
    ],
    [
      "another organization's embedded row is null",
      'select=title,dataapi_owners(*),dataapi_items!item_id(name)&title=eq.leak',
      [{ title: 'leak', dataapi_owners: null, dataapi_items: null }],
    ],
    ["another organization's embedded row never matches !inner", 'select=title,dataapi_owners!inner(name)&dataapi_owners.name=eq.Zed', []],
  ])('should embed: %s (%s)', async (_title, query, expected) => {
    expect(await rows(query)).toEqual(expected);
  });

  it.each([
    ['select=title,dataapi_owners(name)&order=dataapi_owners(name).desc.nullslast,title', ['second', 'first', 'leak', 'third']],
    ['select=title,o:dataapi_owners(name)&order=o(name).asc.nullsfirst,title', ['leak', 'third', 'first', 'second']],
    ['select=title,dataapi_items!item_id(name)&order=dataapi_items(qty).desc.nullsfirst,title', ['leak', 'second', 'third', 'first']],
  ])('should order the parents by a to-one embed column (%s)', async (query, titles) => {
    expect(((await rows(query)) as { title: string }[]).map((row) => row.title)).toEqual(titles);
  });

  it.each([
    ['select=title&order=dataapi_owners(name)', 'PGRST108'],
    ['select=title,dataapi_owners(name)&order=dataapi_owners(nope)', '42703'],
  ])('should refuse a related order %s with %s', async (query, code) => {
    expect(await caught(() => read(query))).toMatchObject({ code });
  });

  it('should refuse a related order on a to-many embed with PGRST118', async () => {
    expect(await caught(() => read('select=name,dataapi_notes(title)&order=dataapi_notes(title)', {}, orgA, 'dataapi_owners'))).toMatchObject({
      code: 'PGRST118',
    });
  });

  it.each([
    [
      'select=title,...dataapi_owners(owner:name,email)&order=title',
      [
        { title: 'first', owner: 'Ali', email: 'ali@a.test' },
        { title: 'leak', owner: null, email: null },
        { title: 'second', owner: 'Bea', email: null },
        { title: 'third', owner: null, email: null },
      ],
    ],
    ['select=title,...dataapi_owners!inner(name)&dataapi_owners.name=eq.Bea', [{ title: 'second', name: 'Bea' }]],
    [
      'select=title,...dataapi_items!item_id(name,dataapi_owners(name))&dataapi_items.dataapi_owners.order=name&title=eq.first',
      [{ title: 'first', name: 'Apple', dataapi_owners: [{ name: 'Ali' }, { name: 'Bea' }] }],
    ],
  ])('should spread a to-one embed into the parent (%s)', async (query, expected) => {
    expect(await rows(query)).toEqual(expected);
  });

  it('should spread into CSV columns, and refuse spreading a to-many embed or an aliased spread', async () => {
    const csv = await read('select=title,...dataapi_owners(name)&title=in.(first,third)&order=title', { Accept: 'text/csv' });
    expect(csv.body).toBe('title,name\nfirst,Ali\nthird,');
    expect(await caught(() => read('select=name,...dataapi_notes(title)', {}, orgA, 'dataapi_owners'))).toMatchObject({ code: 'PGRST127' });
    expect(await caught(() => read('select=title,o:...dataapi_owners(name)'))).toMatchObject({ code: 'PGRST100' });
  });

  it('should expand * inside an embed to its readable columns only', async () => {
    const [row] = (await rows('select=*,dataapi_owners(*)&title=eq.first')) as Record<string, unknown>[];
    expect(Object.keys(row)).toEqual([...embedRegistry.tables.get('dataapi_notes')!.readable, 'dataapi_owners']);
    expect(row.dataapi_owners).toEqual({ id: OWNERS.ali.id, organization_id: orgA.organizationId, name: 'Ali', email: 'ali@a.test' });
  });

  it("should show B its own embedded rows and A's never", async () => {
    expect(await rows('select=title,dataapi_items!item_id(name,qty),backup:dataapi_items!backup_item_id(name),dataapi_owners(name)', orgB)).toEqual([
      { title: 'bee', dataapi_items: { name: 'Apple', qty: 99 }, backup: { name: 'Zucchini' }, dataapi_owners: { name: 'Zed' } },
    ]);
  });

  it('should count only the parents an !inner embed keeps', async () => {
    const response = await read('select=title,dataapi_owners!inner(name)&limit=1&order=title', { Prefer: 'count=exact' });
    expect(response.status).toBe(206);
    expect(response.headers['content-range']).toBe('0-0/2');
  });

  it('should answer a singular request and CSV with an embed', async () => {
    const single = await read('select=title,dataapi_owners(name)&title=eq.first', { Accept: 'application/vnd.pgrst.object+json' });
    expect(JSON.parse(single.body)).toEqual({ title: 'first', dataapi_owners: { name: 'Ali' } });
    const csv = await read('select=title,dataapi_owners(name)&order=title&limit=2', { Accept: 'text/csv' });
    expect(csv.body).toBe('title,dataapi_owners\nfirst,"{""name"" : ""Ali""}"\nleak,');
  });

  it('should refuse an ambiguous embed with PGRST201 and the candidates', async () => {
    const error = await caught(() => read('select=title,dataapi_items(name)'));
    expect(error).toMatchObject({
      kind: 'ambiguous',
      code: 'PGRST201',
      message: "Could not embed because more than one relationship was found for 'dataapi_notes' and 'dataapi_items'",
      hint: "Try changing 'dataapi_items' to one of the following: 'dataapi_items!dataapi_notes_item_id_fkey', 'dataapi_items!dataapi_notes_backup_item_id_fkey'. Find the desired relationship in the 'details' key.",
      details: [
        {
          cardinality: 'many-to-one',
          embedding: 'dataapi_notes with dataapi_items',
          relationship: 'dataapi_notes_item_id_fkey using dataapi_notes(item_id) and dataapi_items(id)',
        },
        {
          cardinality: 'many-to-one',
          embedding: 'dataapi_notes with dataapi_items',
          relationship: 'dataapi_notes_backup_item_id_fkey using dataapi_notes(backup_item_id) and dataapi_items(id)',
        },
      ],
    });
  });

  it.each([
    [
      'select=title,nope(*)',
      "Could not find a relationship between 'dataapi_notes' and 'nope' in the schema cache",
      "Searched for a foreign key relationship between 'dataapi_notes' and 'nope' in the schema 'public', but no matches were found.",
    ],
    [
      'select=title,dataapi_owners!nope_fkey(*)',
      "Could not find a relationship between 'dataapi_notes' and 'dataapi_owners' in the schema cache",
      "Searched for a foreign key relationship between 'dataapi_notes' and 'dataapi_owners' using the hint 'nope_fkey' in the schema 'public', but no matches were found.",
    ],
  ])('should refuse a missing relationship (%s) with 400 PGRST200', async (query, message, details) => {
    expect(await caught(() => read(query))).toMatchObject({ kind: 'validation', code: 'PGRST200', message, details });
  });

  it.each([
    ['select=title,dataapi_owners(banana)', '42703', 'column dataapi_owners.banana does not exist'],
    ['select=title,dataapi_owners(secret)', '42703', 'column dataapi_owners.secret does not exist'],
    ['select=title,dataapi_owners(name)&dataapi_owners.banana=eq.1', '42703', 'column dataapi_owners.banana does not exist'],
    ['select=title,dataapi_owners(name)&dataapi_owners.id=eq.nope', '22P02', 'invalid input syntax for type uuid: "nope"'],
    ['select=title&dataapi_owners.name=eq.Ali', 'PGRST108', "'dataapi_owners' is not an embedded resource in this request"],
    ['select=title,o:dataapi_owners(name)&dataapi_items.name=eq.Ali', 'PGRST108', "'dataapi_items' is not an embedded resource in this request"],
    ['select=title,dataapi_owners(name)&dataapi_owners.order=name', 'PGRST127', 'Feature not implemented'],
    ['select=title,dataapi_owners!a!b!c(name)', 'PGRST100', '"failed to parse select parameter (title,dataapi_owners!a!b!c(name))" (line 1, column 27)'],
  ])('should refuse %s with %s', async (query, code, message) => {
    expect(await caught(() => read(query))).toMatchObject({ code, message });
  });
});
