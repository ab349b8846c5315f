import type { PlatformRuntime } from '@engage/platform';
import { makeOrganization, startTestRuntime } from '@engage/platform/testing';
import type { RequestContext } from '@engage/shared-kernel';
import { executeRead } from './read';
import { defineRegistry, type Registry, registryFor } from './registry';
import { CREATE_ITEMS, ITEMS_A, ITEMS_B, seedItems } from './testing/items.fixture';
import { itemsRegistry } from './testing/items.registry';

// A repeated read reuses its plan and statement (read.cache.ts): what each caller sees must stay
// what a fresh plan would show it, whichever organization or role made the kept one.
describe('kept read plans against PostgreSQL', () => {
  let runtime: PlatformRuntime;
  let orgA: RequestContext;
  let orgB: RequestContext;
  const items = itemsRegistry.tables.get('dataapi_items')!;

  beforeAll(async () => {
    runtime = await startTestRuntime();
    await runtime.db.asSystem((tx) => tx.query(CREATE_ITEMS));
    orgA = await makeOrganization(runtime, 'A');
    orgB = await makeOrganization(runtime, 'B');
    await seedItems(runtime, orgA.organizationId, ITEMS_A);
    await seedItems(runtime, orgB.organizationId, ITEMS_B);
  });
  afterAll(() => runtime.close());

  const names = async (ctx: RequestContext, registry: Registry, query: string) =>
    (
      JSON.parse((await runtime.db.inTenant(ctx, (tx) => executeRead(tx, registry, { method: 'GET', table: 'dataapi_items', query, headers: {} }))).body) as {
        name: string;
      }[]
    ).map((row) => row.name);

  it('should show each organization its own rows when the same read repeats, as a named statement', async () => {
    const query = 'select=name&name=neq.Nothing&order=name';
    for (let round = 0; round < 3; round++) {
      expect(await names(orgA, itemsRegistry, query)).toEqual(['Apple', 'Banana', 'Cherry', 'Date', 'Fig', 'eggplant']);
      expect(await names(orgB, itemsRegistry, query)).toEqual(['Apple', 'Zucchini']);
    }
    const prepared = await runtime.db.inTenant(orgA, async (tx) => {
      await executeRead(tx, itemsRegistry, { method: 'GET', table: 'dataapi_items', query, headers: {} });
      return tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement LIKE '%t."name" <> $%'`);
    });
    expect(prepared[0].n).toBe(1);
  });

  it("should not show a column restricted to another role when that role's read of it was kept", async () => {
    const registry = defineRegistry([{ ...items, restricted: { columns: ['body'], roles: ['OWNER'] } }]);
    const read = (role: RequestContext['role']) =>
      runtime.db.inTenant({ ...orgA, role }, (tx) =>
        executeRead(tx, registryFor(registry, role), { method: 'GET', table: 'dataapi_items', query: 'select=*&name=eq.Apple', headers: {} }),
      );
    expect(JSON.parse((await read('OWNER')).body)[0]).toHaveProperty('body');
    expect(JSON.parse((await read('OWNER')).body)[0]).toHaveProperty('body');
    expect(JSON.parse((await read('AGENT')).body)[0]).not.toHaveProperty('body');
  });

  it("should run the normaliser for every read, as its value may depend on the caller's organization", async () => {
    // `latest` stands for the name of the organization's newest item, looked up in its transaction.
    const registry = defineRegistry([
      {
        ...items,
        normalizers: {
          name: async (tx, values) => {
            const [{ name }] = await tx.query<{ name: string }>('SELECT name FROM dataapi_items ORDER BY created_at DESC LIMIT 1');
            return values.map((value) => (value === 'latest' ? name : value));
          },
        },
      },
    ]);
    for (let round = 0; round < 2; round++) {
      expect(await names(orgA, registry, 'select=name&name=eq.latest')).toEqual(['Fig']);
      expect(await names(orgB, registry, 'select=name&name=eq.latest')).toEqual(['Zucchini']);
    }
  });
});
