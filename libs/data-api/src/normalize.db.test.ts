import type { PlatformRuntime } from '@engage/platform';
import { makeOrganization, startTestRuntime } from '@engage/platform/testing';
import type { RequestContext } from '@engage/shared-kernel';
import { executeRead } from './read';
import { defineRegistry } from './registry';
import { CREATE_ITEMS, ITEMS_A, seedItems } from './testing/items.fixture';
import { itemsRegistry } from './testing/items.registry';

// A table's value normaliser (here: tags are searched trimmed and lower-cased) runs on the values of
// eq/neq/isdistinct/in/cs/cd/ov filters, in logic trees too, inside the caller's transaction.
describe('per-column value normalisers', () => {
  let runtime: PlatformRuntime;
  let orgA: RequestContext;
  const calls: string[][] = [];
  const items = itemsRegistry.tables.get('dataapi_items')!;
  const registry = defineRegistry([
    {
      ...items,
      normalizers: {
        tags: async (tx, values) => {
          // It runs in the tenant transaction: row-level security applies to what it reads.
          const [{ n }] = await tx.query<{ n: string }>('SELECT count(*) AS n FROM dataapi_items');
          calls.push([...values, n]);
          return values.map((value) => value.trim().toLowerCase());
        },
        name: async (_tx, values) => values.map((value) => value.replace(/^x-/, '')),
      },
    },
  ]);

  beforeAll(async () => {
    runtime = await startTestRuntime();
    await runtime.db.asSystem((tx) => tx.query(CREATE_ITEMS));
    orgA = await makeOrganization(runtime, 'A');
    await seedItems(runtime, orgA.organizationId, ITEMS_A);
  });
  afterAll(() => runtime.close());

  const names = async (query: string) =>
    (
      JSON.parse(
        (
          await runtime.db.inTenant(orgA, (tx) =>
            executeRead(tx, registry, { method: 'GET', table: 'dataapi_items', query: `select=name&order=name&${query}`, headers: {} }),
          )
        ).body,
      ) as { name: string }[]
    ).map((row) => row.name);

  it.each([
    ['cs with array items', 'tags=cs.{%20RED%20,FRUIT}', ['Apple', 'Cherry']],
    ['ov', 'tags=ov.{PURPLE,nothing}', ['eggplant']],
    ['cd', 'tags=cd.{FRUIT,Red,Small,YELLOW%20LONG}', ['Apple', 'Banana', 'Cherry', 'Date']],
    ['eq on the whole array', 'tags=eq.{Fruit,Red}', ['Apple']],
    ['inside an or= tree', 'or=(tags.cs.{VEGETABLE},name.eq.x-Fig)', ['Fig', 'eggplant']],
    ['eq on a scalar column', 'name=eq.x-Apple', ['Apple']],
    ['in on a scalar column', 'name=in.(x-Apple,x-Date)', ['Apple', 'Date']],
    ['not on like (pattern left as written)', 'name=like.x-*', []],
  ])('should normalise searched values: %s', async (_title, query, expected) => {
    expect(await names(query)).toEqual(expected);
  });

  it('should call the normaliser inside the caller’s tenant transaction', async () => {
    calls.length = 0;
    await names('tags=cs.{A}');
    expect(calls).toEqual([['A', String(ITEMS_A.length)]]);
  });
});
