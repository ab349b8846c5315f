import fc from 'fast-check';
import type { PlatformRuntime } from '@engage/platform';
import { makeOrganization, startTestRuntime } from '@engage/platform/testing';
import { DomainError, type RequestContext } from '@engage/shared-kernel';
import { executeRead, type ReadPlans } from './read';
import { NamedTexts, ReadCache } from './read.cache';
import { CREATE_EMBED_TABLES, embedRegistry, seedEmbed } from './testing/embed.fixture';
import { CREATE_ITEMS, ITEMS_A, ITEMS_B, seedItems } from './testing/items.fixture';

// Kept plans and named statements against the plain path (a fresh plan, an unnamed statement) over
// random selects, embeds, filters, orders, methods and headers, for two organizations: the same
// status, headers and body, byte for byte. The kept side's store is small, so reads are evicted,
// planned again and some texts run unnamed once its names are used up.
const pick = <T>(items: T[]) => fc.constantFrom(...items);
const COLUMNS: Record<string, string[]> = {
  dataapi_items: ['id', 'name', 'qty', 'price', 'tags', 'meta->>color', 'active', 'created_at'],
  dataapi_notes: ['id', 'title', 'owner_id', 'item_id'],
  dataapi_owners: ['id', 'name', 'email'],
};
// Each table's embeds: [as written, the embedded table, whether it is an array].
const EMBEDS: Record<string, [string, string, boolean][]> = {
  dataapi_items: [
    ['dataapi_notes!item_id', 'dataapi_notes', true],
    ['dataapi_owners', 'dataapi_owners', true],
    ['notes:dataapi_notes!item_id!inner', 'dataapi_notes', true],
  ],
  dataapi_notes: [
    ['dataapi_owners', 'dataapi_owners', false],
    ['dataapi_owners!inner', 'dataapi_owners', false],
    ['item:dataapi_items!item_id', 'dataapi_items', false],
    ['dataapi_items!backup_item_id', 'dataapi_items', false],
    ['...dataapi_owners', 'dataapi_owners', false],
  ],
  dataapi_owners: [
    ['dataapi_notes', 'dataapi_notes', true],
    ['dataapi_items', 'dataapi_items', true],
    ['dataapi_notes!inner', 'dataapi_notes', true],
  ],
};
const FILTERS: Record<string, string[]> = {
  dataapi_items: ['name=eq.Apple', 'name=like.*a*', 'qty=gt.1', 'or=(name.eq.Fig,qty.is.null)', 'tags=cs.{fruit}'],
  dataapi_notes: ['title=neq.leak', 'title=like.*i*', 'owner_id=not.is.null'],
  dataapi_owners: ['name=neq.Bea', 'email=like.*a*'],
};

const request = fc.constantFrom(...Object.keys(COLUMNS)).chain((table) => {
  const embed = pick(EMBEDS[table]).chain(([name, target, many]) =>
    fc.record({
      name: fc.constant(name),
      columns: fc.subarray(['*', ...COLUMNS[target], ...(many ? ['count'] : [])], { minLength: 1, maxLength: 3 }),
      filter: fc.option(pick([...FILTERS[target], ...(many ? ['limit=1', 'order=id.desc'] : [])]), { nil: undefined }),
    }),
  );
  return fc.record({
    table: fc.constant(table),
    columns: fc.subarray(['*', ...COLUMNS[table]], { minLength: 1, maxLength: 3 }),
    embeds: fc.array(embed, { maxLength: 2 }),
    filters: fc.subarray(FILTERS[table], { maxLength: 2 }),
    order: pick(['', 'order=id', `order=${COLUMNS[table][1]}.desc.nullslast`]),
    limit: pick(['', 'limit=2', 'offset=1']),
  });
});
// A visit: one of the run's few queries, with its own method and headers (so reads that differ only
// there meet in the store), by one organization.
const visit = fc.record({
  query: fc.nat(),
  method: pick(['GET', 'GET', 'HEAD']),
  accept: pick(['', 'text/csv', 'application/vnd.pgrst.object+json', 'application/vnd.pgrst.array+json;nulls=stripped']),
  prefer: pick(['', 'count=exact']),
  org: fc.boolean(),
});
type Visit = typeof visit extends fc.Arbitrary<infer V> ? V : never;

type Request = typeof request extends fc.Arbitrary<infer R> ? R : never;

// An embed's filter is keyed by its alias, else its table (`rel.col=...`, `rel.limit=...`).
const keyOf = (name: string) => (name.includes(':') ? name.split(':')[0] : name.replace(/^\.\.\./, '').split('!')[0]);
const queryOf = (r: Request) => {
  const select = [...r.columns, ...r.embeds.map((embed) => `${embed.name}(${embed.columns.join(',')})`)].join(',');
  const embedFilters = r.embeds.flatMap((embed) => (embed.filter ? [`${keyOf(embed.name)}.${embed.filter}`] : []));
  return [`select=${select}`, ...r.filters, ...embedFilters, r.order, r.limit].filter(Boolean).join('&');
};

describe('kept read plans against the plain path', () => {
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

  const outcome = async (r: Request, v: Visit, plans: ReadPlans) => {
    const headers = Object.fromEntries(Object.entries({ accept: v.accept, prefer: v.prefer }).filter(([, value]) => value !== ''));
    const ctx = v.org ? orgA : orgB;
    try {
      return await runtime.db.inTenant(ctx, (tx) =>
        executeRead(tx, embedRegistry, { method: v.method, table: r.table, query: queryOf(r), headers }, undefined, plans),
      );
    } catch (error) {
      if (error instanceof DomainError) return { code: error.code, message: error.message, details: error.details };
      throw error;
    }
  };

  it('should answer byte for byte as a fresh plan run unnamed does, for either organization', async () => {
    const kept: ReadPlans = { cache: new ReadCache(6), named: new NamedTexts(8) };
    const plain = (): ReadPlans => ({ cache: new ReadCache(0), named: new NamedTexts(0) });
    let answered = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(request, { minLength: 1, maxLength: 3 }), fc.array(visit, { minLength: 3, maxLength: 10 }), async (requests, visits) => {
        for (const v of visits) {
          const r = requests[v.query % requests.length];
          const expected = await outcome(r, v, plain());
          expect(await outcome(r, v, kept)).toEqual(expected);
          if ('body' in expected) answered++;
        }
      }),
      { numRuns: 80 },
    );
    // The property held over reads that answered, not only over refused ones.
    expect(answered).toBeGreaterThan(100);
  }, 120_000);
});
