import fc from 'fast-check';
import type { PlatformRuntime } from '@engage/platform';
import { makeOrganization, startTestRuntime } from '@engage/platform/testing';
import type { RequestContext } from '@engage/shared-kernel';
import { executeRead } from './read';
import { asPostgrestError } from './sqlstate';
import { CREATE_EMBED_TABLES, embedRegistry, seedEmbed } from './testing/embed.fixture';
import { CREATE_ITEMS, ITEMS_A, ITEMS_B, seedItems } from './testing/items.fixture';
import { answer } from './testing/respond';

// Random query strings, from the grammar's own pieces and from raw noise, mapped as the controller
// maps errors: every one answers 2xx or 4xx (a thrown non-domain error or a 5xx fails the run), and
// a plain read still works after each.
const TABLES = ['dataapi_items', 'dataapi_owners', 'dataapi_notes', 'dataapi_item_owners'];
const COLUMNS = ['id', 'name', 'qty', 'price', 'tags', 'meta', 'active', 'body', 'created_at', 'title', 'owner_id', 'item_id', 'email', 'secret', 'nope'];
const EMBEDS = [
  'dataapi_owners',
  'dataapi_notes',
  'dataapi_items',
  'dataapi_notes!item_id',
  'dataapi_notes!owner_id',
  'o:dataapi_owners!inner',
  '...dataapi_owners',
];
const OPERATORS = [
  'eq',
  'neq',
  'gt',
  'gte',
  'lt',
  'lte',
  'like',
  'ilike',
  'match',
  'imatch',
  'in',
  'is',
  'isdistinct',
  'fts',
  'plfts',
  'phfts',
  'wfts',
  'cs',
  'cd',
  'ov',
  'contains',
  'nope',
];
const VALUES = ['1', '-1', '1.5', 'x', '*a*', '(1,2)', '("a,b",c)', '{a,b}', '{"k":1}', 'null', 'not_null', 'true', '2024-01-01'];
VALUES.push('00000000-0000-4000-8000-0000000000a1', '(', '{', '"', '%00', '%FF', '%', '+1', '9'.repeat(40), 'ünï', '[1]', '^(a+)+$');
const MODIFIERS = ['', '(any)', '(all)', '(english)', '(nosuchconfig)', '(x y)'];

const pick = <T>(items: T[]) => fc.constantFrom(...items);
const column = fc.oneof(
  pick(COLUMNS),
  pick(COLUMNS).map((c) => `${c}->a->>b`),
  pick(COLUMNS).map((c) => `${c}::text`),
  pick(COLUMNS).map((c) => `al:${c}`),
);
const condition = fc
  .tuple(fc.boolean(), pick(OPERATORS), pick(MODIFIERS), pick(VALUES))
  .map(([not, op, modifier, value]) => `${not ? 'not.' : ''}${op}${modifier}.${value}`);

const tree: fc.Arbitrary<string> = fc.letrec<{ node: string }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.tuple(pick(COLUMNS), condition).map(([c, cond]) => `${c}.${cond}`),
    fc
      .tuple(fc.boolean(), pick(['and', 'or']), fc.array(tie('node'), { minLength: 1, maxLength: 3 }))
      .map(([not, op, children]) => `${not ? 'not.' : ''}${op}(${children.join(',')})`),
  ),
})).node;

const select: fc.Arbitrary<string> = fc.letrec<{ items: string }>((tie) => ({
  items: fc
    .array(
      fc.oneof(
        { depthSize: 'small' },
        column,
        fc.constant('*'),
        fc.tuple(pick(EMBEDS), tie('items')).map(([embed, inner]) => `${embed}(${inner})`),
      ),
      { minLength: 1, maxLength: 4 },
    )
    .map((items) => items.join(',')),
})).items;

const param = fc.oneof(
  fc.tuple(column, condition).map(([c, cond]) => `${c}=${cond}`),
  fc
    .tuple(pick(['or', 'and', 'not.or', 'dataapi_notes.or', 'dataapi_owners.and']), tree)
    .map(([key, t]) => `${key}=(${t.replace(/^(not\.)?(and|or)\(|\)$/g, '')})`),
  select.map((s) => `select=${s}`),
  fc.tuple(pick(['order', 'dataapi_notes.order']), pick(COLUMNS), pick(['', '.asc', '.desc.nullsfirst', '.x'])).map(([key, c, dir]) => `${key}=${c}${dir}`),
  fc.tuple(pick(['limit', 'offset', 'dataapi_notes.limit']), pick(['0', '1', '-1', '5000', 'x', '99999999999999999999'])).map(([key, n]) => `${key}=${n}`),
  fc.tuple(pick(['dataapi_owners', 'dataapi_notes.name', 'o']), condition).map(([key, cond]) => `${key}=${cond}`),
  fc.string({ unit: 'binary', maxLength: 30 }).map((noise) => encodeURIComponent(noise)),
  fc.string({ maxLength: 30 }),
);
const query = fc.array(param, { maxLength: 5 }).map((params) => params.join('&'));
const headers = fc.record({
  prefer: pick(['', 'count=exact', 'count=planned', 'count=estimated', 'handling=strict, nope']),
  accept: pick(['', 'text/csv', 'application/vnd.pgrst.object+json', 'x/y']),
});

describe('random query strings against the data API', () => {
  let runtime: PlatformRuntime;
  let org: RequestContext;

  beforeAll(async () => {
    runtime = await startTestRuntime();
    await runtime.db.asSystem((tx) => tx.query(CREATE_ITEMS));
    await runtime.db.asSystem((tx) => tx.query(CREATE_EMBED_TABLES));
    org = await makeOrganization(runtime, 'A');
    const other = await makeOrganization(runtime, 'B');
    await seedItems(runtime, org.organizationId, ITEMS_A);
    await seedItems(runtime, other.organizationId, ITEMS_B);
    await seedEmbed(runtime, org.organizationId, other.organizationId);
  });
  afterAll(() => runtime.close());

  const read = (table: string, text: string, head: Record<string, string>, method = 'GET') =>
    answer(() =>
      runtime.db
        .inTenant(org, (tx) => executeRead(tx, embedRegistry, { method, table, query: text, headers: head }))
        .catch((error: unknown) => {
          throw asPostgrestError(error);
        }),
    );

  it('should answer every random query with 2xx or 4xx, never 5xx, and keep serving', async () => {
    await fc.assert(
      fc.asyncProperty(pick(TABLES), query, headers, pick(['GET', 'HEAD']), async (table, text, head, method) => {
        const response = await read(table, text, Object.fromEntries(Object.entries(head).filter(([, v]) => v !== '')), method);
        expect(response.status).toBeGreaterThanOrEqual(200);
        expect(response.status).toBeLessThan(500);
      }),
      { numRuns: 300 },
    );
    expect((await read('dataapi_items', 'select=name&name=eq.Apple', {})).body).toEqual([{ name: 'Apple' }]);
  }, 60_000);
});
