import fc from 'fast-check';
import type { PlatformRuntime } from '@engage/platform';
import { makeOrganization, startTestRuntime } from '@engage/platform/testing';
import type { RequestContext } from '@engage/shared-kernel';
import { executeRead } from './read';
import { CREATE_ITEMS } from './testing/items.fixture';
import { itemsRegistry } from './testing/items.registry';

// Random filter trees (and/or/not, several operators over int, numeric, bool, text and text[]
// columns, nulls included) must select exactly the rows an in-memory evaluation with SQL's
// three-valued logic selects.
interface Row {
  id: string;
  name: string;
  qty: number | null;
  price: number | null;
  active: boolean | null;
  tags: string[];
}

type Truth = boolean | null;

interface Leaf {
  kind: 'leaf';
  text: string;
  test: (row: Row) => Truth;
}
interface Node {
  kind: 'node';
  operator: 'and' | 'or';
  negated: boolean;
  children: Tree[];
}
type Tree = Leaf | Node;

const NAMES = ['ab', 'abc', 'Abd', 'bc', 'BCA', 'ca', 'cab'];
const TAGS = ['a', 'b', 'c', 'd'];

const rowArb = fc.record({
  name: fc.constantFrom(...NAMES),
  qty: fc.option(fc.integer({ min: -3, max: 12 }), { freq: 4 }),
  price: fc.option(
    fc.integer({ min: 0, max: 40 }).map((n) => n / 4),
    { freq: 4 },
  ),
  active: fc.option(fc.boolean(), { freq: 3 }),
  tags: fc.uniqueArray(fc.constantFrom(...TAGS), { maxLength: 3 }),
});

const not = (value: Truth): Truth => (value === null ? null : !value);
const compare = (a: number | null, b: number, op: string): Truth => {
  if (a === null) return null;
  return { eq: a === b, neq: a !== b, gt: a > b, gte: a >= b, lt: a < b, lte: a <= b }[op] as boolean;
};
const likeRegex = (pattern: string, flags: string) => new RegExp(`^${pattern.replace(/\*/g, '.*')}$`, flags);

const comparison = fc.constantFrom('eq', 'neq', 'gt', 'gte', 'lt', 'lte');
const number = fc.integer({ min: -2, max: 12 });

const conditions: fc.Arbitrary<Omit<Leaf, 'kind'>>[] = [
  fc.tuple(comparison, number).map(([op, n]) => ({ text: `qty.${op}.${n}`, test: (row: Row) => compare(row.qty, n, op) })),
  fc
    .tuple(
      comparison,
      fc.integer({ min: 0, max: 40 }).map((n) => n / 4),
    )
    .map(([op, n]) => ({ text: `price.${op}.${n}`, test: (row: Row) => compare(row.price, n, op) })),
  fc
    .uniqueArray(number, { minLength: 1, maxLength: 4 })
    .map((list) => ({ text: `qty.in.(${list.join(',')})`, test: (row: Row) => (row.qty === null ? null : list.includes(row.qty)) })),
  number.map((n) => ({ text: `qty.isdistinct.${n}`, test: (row: Row) => row.qty !== n })),
  fc.constantFrom('null', 'not_null').map((v) => ({ text: `qty.is.${v}`, test: (row: Row) => (v === 'null') === (row.qty === null) })),
  fc.constantFrom('true', 'false', 'null', 'unknown').map((v) => ({
    text: `active.is.${v}`,
    test: (row: Row) => (v === 'true' ? row.active === true : v === 'false' ? row.active === false : row.active === null),
  })),
  fc.boolean().map((b) => ({ text: `active.eq.${b}`, test: (row: Row) => (row.active === null ? null : row.active === b) })),
  fc.constantFrom(...NAMES).map((n) => ({ text: `name.eq.${n}`, test: (row: Row) => row.name === n })),
  fc.constantFrom('a*', '*b*', '*a', 'ab*', 'b*', '*c').map((p) => ({ text: `name.like.${p}`, test: (row: Row) => likeRegex(p, '').test(row.name) })),
  fc.constantFrom('a*', '*b*', '*A', 'AB*', 'B*').map((p) => ({ text: `name.ilike.${p}`, test: (row: Row) => likeRegex(p, 'i').test(row.name) })),
  fc
    .uniqueArray(fc.constantFrom(...TAGS), { minLength: 1, maxLength: 3 })
    .chain((list) =>
      fc.constantFrom(
        { text: `tags.cs.{${list.join(',')}}`, test: (row: Row) => list.every((tag) => row.tags.includes(tag)) },
        { text: `tags.cd.{${list.join(',')}}`, test: (row: Row) => row.tags.every((tag) => list.includes(tag)) },
        { text: `tags.ov.{${list.join(',')}}`, test: (row: Row) => row.tags.some((tag) => list.includes(tag)) },
      ),
    ),
];

const leaf: fc.Arbitrary<Leaf> = fc.tuple(fc.oneof(...conditions), fc.boolean()).map(([condition, negated]) => ({
  kind: 'leaf',
  text: negated ? condition.text.replace('.', '.not.') : condition.text,
  test: negated ? (row: Row) => not(condition.test(row)) : condition.test,
}));

const { tree } = fc.letrec<{ tree: Tree; node: Node }>((tie) => ({
  tree: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, tie('node')),
  node: fc.record({
    kind: fc.constant('node' as const),
    operator: fc.constantFrom('and' as const, 'or' as const),
    negated: fc.boolean(),
    children: fc.array(tie('tree'), { minLength: 1, maxLength: 3 }),
  }),
}));

function evaluate(t: Tree, row: Row): Truth {
  if (t.kind === 'leaf') return t.test(row);
  const values = t.children.map((child) => evaluate(child, row));
  let result: Truth;
  if (t.operator === 'and') result = values.includes(false) ? false : values.includes(null) ? null : true;
  else result = values.includes(true) ? true : values.includes(null) ? null : false;
  return t.negated ? not(result) : result;
}

const render = (t: Tree): string => (t.kind === 'leaf' ? t.text : `${t.negated ? 'not.' : ''}${t.operator}(${t.children.map(render).join(',')})`);

describe('filter trees (property): the engine selects what SQL three-valued logic says', () => {
  let runtime: PlatformRuntime;
  let orgA: RequestContext;
  let rows: Row[];

  beforeAll(async () => {
    runtime = await startTestRuntime();
    await runtime.db.asSystem((tx) => tx.query(CREATE_ITEMS));
    orgA = await makeOrganization(runtime, 'A');
    const orgB = await makeOrganization(runtime, 'B');
    const specs = fc.sample(rowArb, { numRuns: 40, seed: 4 });
    rows = [];
    await runtime.db.asSystem(async (tx) => {
      for (const [i, spec] of specs.entries()) {
        // Every fourth row goes to organization B, which A must never see.
        const org = i % 4 === 3 ? orgB : orgA;
        const [row] = await tx.query<{ id: string }>(
          'INSERT INTO dataapi_items (organization_id, name, qty, price, active, tags) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id',
          [org.organizationId, spec.name, spec.qty, spec.price, spec.active, spec.tags],
        );
        if (org === orgA) rows.push({ id: row.id, ...spec });
      }
    });
  });
  afterAll(() => runtime.close());

  it('should return the rows an in-memory evaluation of the same tree returns', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(tree, { minLength: 1, maxLength: 3 }), fc.constantFrom('and', 'or', 'not.and', 'not.or'), async (children, top) => {
        const query = `select=id&${top}=${encodeURIComponent(`(${children.map(render).join(',')})`)}`;
        const response = await runtime.db.inTenant(orgA, (tx) => executeRead(tx, itemsRegistry, { method: 'GET', table: 'dataapi_items', query, headers: {} }));
        const got = (JSON.parse(response.body) as { id: string }[]).map((row) => row.id).sort();
        const [negated, operator] = top.startsWith('not.') ? [true, top.slice(4)] : [false, top];
        const whole: Tree = { kind: 'node', operator: operator as 'and' | 'or', negated, children };
        const expected = rows
          .filter((row) => evaluate(whole, row) === true)
          .map((row) => row.id)
          .sort();
        expect(got).toEqual(expected);
      }),
      { numRuns: 200 },
    );
  });
});
