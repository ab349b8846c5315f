import { findTable } from '../registry';
import { caughtSync } from '../testing/expect-error';
import { itemsRegistry } from '../testing/items.registry';
import type { Condition, Logic } from './plan';
import { parseReadRequest } from './request.parser';

const items = findTable(itemsRegistry, 'dataapi_items');
const contacts = findTable(itemsRegistry, 'contacts');
const plan = (query: string, table = items) => parseReadRequest(table, { method: 'GET', table: table.name, query, headers: {} });
const only = (query: string, table = items) => plan(query, table).filters[0] as Condition;
const error = (query: string, table = items) => caughtSync(() => plan(query, table));

describe('filter parsing', () => {
  it.each([
    ['name=eq.Apple', 'eq', 'Apple'],
    ['name=neq.Apple', 'neq', 'Apple'],
    ['qty=gt.5', 'gt', '5'],
    ['qty=gte.5', 'gte', '5'],
    ['qty=lt.-5', 'lt', '-5'],
    ['price=lte.2.50', 'lte', '2.50'],
    ['name=like.*pp*', 'like', '%pp%'],
    ['name=ilike.A*', 'ilike', 'A%'],
    ['name=match.^A', 'match', '^A'],
    ['name=imatch.^a', 'imatch', '^a'],
    ['qty=isdistinct.3', 'isdistinct', '3'],
    ['body=fts.fat%20%26%20rat', 'fts', 'fat & rat'],
    ['body=plfts.fat+rat', 'plfts', 'fat rat'],
    ['body=phfts.fat%20rat', 'phfts', 'fat rat'],
    ['body=wfts.fat%20-rat', 'wfts', 'fat -rat'],
    ['meta=cs.{"a":1}', 'cs', '{"a":1}'],
    ['name=eq.a.b,c', 'eq', 'a.b,c'],
  ])('should read %s as %s %s', (query, operator, value) => {
    expect(only(query)).toMatchObject({ operator, value, negated: false });
  });

  it('should read is values case-insensitively, including not_null', () => {
    expect(only('active=is.TRUE').value).toBe('true');
    expect(only('qty=is.NoT_NuLl').value).toBe('not_null');
    expect(only('qty=is.null').value).toBe('null');
    expect(only('active=is.unknown').value).toBe('unknown');
  });

  it('should negate any operator with not.', () => {
    expect(only('name=not.eq.x')).toMatchObject({ negated: true, operator: 'eq' });
    expect(only('qty=not.in.(1,2)')).toMatchObject({ negated: true, operator: 'in', value: ['1', '2'] });
    expect(only('qty=not.is.null')).toMatchObject({ negated: true, operator: 'is' });
    expect(only('body=not.fts(english).cat')).toMatchObject({ negated: true, operator: 'fts', ftsConfig: 'english' });
  });

  it('should read in lists with quoted items keeping commas and escaped quotes', () => {
    expect(only('name=in.(a,"b,c","d\\"e")').value).toEqual(['a', 'b,c', 'd"e']);
    expect(only('name=in.()').value).toEqual([]);
    expect(only('name=in.%20(a,b)%20').value).toEqual(['a', 'b']);
  });

  it('should read array literals with quoted items for cs cd ov and the spelled-out aliases', () => {
    expect(only('tags=cs.{a,"b c"}')).toMatchObject({ operator: 'cs', value: ['a', 'b c'] });
    expect(only('tags=cd.{a,b}')).toMatchObject({ operator: 'cd', value: ['a', 'b'] });
    expect(only('tags=ov.{}')).toMatchObject({ operator: 'ov', value: [] });
    expect(only('tags=contains.{a}')).toMatchObject({ operator: 'cs' });
    expect(only('tags=containedBy.{a}')).toMatchObject({ operator: 'cd' });
    expect(only('tags=overlaps.{a}')).toMatchObject({ operator: 'ov' });
    expect(only('phones=cs.{"%2B201001234567"}', contacts).value).toEqual(['+201001234567']);
  });

  it('should read any/all modifiers over an array literal', () => {
    expect(only('name=like(any).{a*,b*}')).toMatchObject({ quantifier: 'any', value: ['a%', 'b%'] });
    expect(only('qty=gt(all).{1,2}')).toMatchObject({ quantifier: 'all', value: ['1', '2'] });
    expect(only('name=eq(any).{x,y}')).toMatchObject({ quantifier: 'any', operator: 'eq' });
  });

  it('should read json paths on filters with the type each arrow gives', () => {
    expect(only('meta->>color=eq.red')).toMatchObject({ valueType: 'text', field: { column: 'meta', jsonPath: [{ arrow: '->>', key: 'color' }] } });
    expect(only('meta->size=gt.2')).toMatchObject({ valueType: 'jsonb' });
    expect(only('meta->a->>b=eq.x').field.jsonPath).toHaveLength(2);
  });

  it('should AND repeated keys', () => {
    expect(plan('qty=gt.1&qty=lt.5').filters).toHaveLength(2);
  });

  it('should parse nested or/and trees and not.or', () => {
    const tree = plan('or=(qty.lt.2,and(name.eq.a,not.or(active.is.true,qty.gt.9)))').filters[0] as Logic;
    expect(tree).toMatchObject({ operator: 'or', negated: false, children: [{ operator: 'lt' }, { kind: 'logic', operator: 'and' }] });
    const inner = (tree.children[1] as Logic).children[1] as Logic;
    expect(inner).toMatchObject({ kind: 'logic', operator: 'or', negated: true, children: [{ operator: 'is' }, { operator: 'gt' }] });
    expect(plan('not.or=(qty.eq.1,qty.eq.2)').filters[0]).toMatchObject({ negated: true, operator: 'or' });
    expect(plan('and=(qty.gte.0,qty.lte.100)').filters[0]).toMatchObject({ operator: 'and' });
  });

  it('should read quoted, in-list and array values inside logic trees', () => {
    const tree = plan('or=(name.eq."a,b",qty.in.(1,2),tags.cs.{x,"y z"},name.like(any).{a*,b*})').filters[0] as Logic;
    expect(tree.children.map((child) => (child as Condition).value)).toEqual(['a,b', ['1', '2'], ['x', 'y z'], ['a%', 'b%']]);
  });

  it('should allow whitespace around parens and commas in logic trees', () => {
    expect((plan('or=( qty.eq.1 , qty.eq.2 )').filters[0] as Logic).children).toHaveLength(2);
  });

  it.each([
    ['qty=0', 'failed to parse filter (0)'],
    ['qty=foo.1', 'failed to parse filter (foo.1)'],
    ['qty=eq', 'failed to parse filter (eq)'],
    ['qty=neq(any).{1}', 'failed to parse filter (neq(any).{1})'],
    ['body=fts(bad-config).x', 'failed to parse filter'],
    ['active=is.maybe', 'failed to parse filter (is.maybe)'],
    ['qty=in.1,2', 'failed to parse filter (in.1,2)'],
    ['or=()', 'failed to parse logic tree (())'],
    ['or=(qty.eq.1', 'failed to parse logic tree'],
    ['or=(qty.eq.1)x', 'failed to parse logic tree'],
    ['or=qty.eq.1', 'failed to parse logic tree'],
    ['not.and=(qty.zz.1)', 'failed to parse logic tree'],
  ])('should refuse %s with PGRST100', (query, message) => {
    const failure = error(query);
    expect(failure).toMatchObject({ code: 'PGRST100', kind: 'validation' });
    expect(failure.message).toContain(message);
    expect(failure.message).toMatch(/\(line 1, column \d+\)$/);
  });

  it('should say where a filter failed, as PostgREST does', () => {
    expect(error('qty=0').message).toBe('"failed to parse filter (0)" (line 1, column 1)');
    expect(error('qty=eq').message).toBe('"failed to parse filter (eq)" (line 1, column 3)');
  });

  it.each([
    ['foo=eq.1', 'column dataapi_items.foo does not exist'],
    ['secret=eq.1', 'column dataapi_items.secret does not exist'],
    ['or=(foo.eq.1)', 'column dataapi_items.foo does not exist'],
  ])('should refuse an unknown or unreadable column in %s with 42703', (query, message) => {
    expect(error(query)).toMatchObject({ code: '42703', message, kind: 'validation' });
  });

  it('should name the table in the 42703 message', () => {
    expect(error('foo=eq.1', contacts).message).toBe('column contacts.foo does not exist');
  });

  it.each([
    ['id=eq.not-a-uuid', 'invalid input syntax for type uuid: "not-a-uuid"'],
    ['qty=eq.1.5', 'invalid input syntax for type integer: "1.5"'],
    ['qty=in.(1,x)', 'invalid input syntax for type integer: "x"'],
    ['qty=gt(any).{1,x}', 'invalid input syntax for type integer: "x"'],
    ['price=gt.abc', 'invalid input syntax for type numeric: "abc"'],
    ['active=eq.maybe', 'invalid input syntax for type boolean: "maybe"'],
    ['created_at=gt.yesterday', 'invalid input syntax for type timestamp with time zone: "yesterday"'],
    ['created_at=gt.2024-02-30', 'invalid input syntax for type timestamp with time zone: "2024-02-30"'],
    ['meta=cs.{bad', 'invalid input syntax for type json: "{bad"'],
    ['meta->n=eq.A-', 'invalid input syntax for type json: "A-"'],
  ])('should refuse a value that does not fit the column (%s) with 22P02', (query, message) => {
    expect(error(query)).toMatchObject({ code: '22P02', message, kind: 'validation' });
  });

  it('should refuse a date that is not a date', () => {
    expect(error('birthday=eq.2024-13-01', contacts)).toMatchObject({ code: '22P02', message: 'invalid input syntax for type date: "2024-13-01"' });
  });

  it('should accept the usual written forms of each type', () => {
    for (const query of [
      'id=eq.6F9619FF-8B86-D011-B42D-00C04FC964FF',
      'qty=eq.+7',
      'price=eq.1e3',
      'active=eq.yes',
      'active=eq.f',
      'created_at=gt.2024-01-01',
      'created_at=lt.2024-01-01T10:00:00.123Z',
      'created_at=lt.2024-01-01 10:00:00%2B02:00',
    ]) {
      expect(() => plan(query)).not.toThrow();
    }
  });

  it('should refuse a malformed array literal with 22P02', () => {
    expect(error('tags=cs.a,b')).toMatchObject({ code: '22P02', message: 'malformed array literal: "a,b"' });
    expect(error('tags=cs.{"a}')).toMatchObject({ code: '22P02' });
    expect(error('tags=ov.{{a},{b}}')).toMatchObject({ code: '22P02' });
  });

  it('should refuse operators the column type does not have, as PostgreSQL would (42883)', () => {
    expect(error('qty=like.1*')).toMatchObject({ code: '42883', kind: 'not_found', message: 'operator does not exist: integer ~~ unknown' });
    expect(error('name=cs.{a}')).toMatchObject({ code: '42883' });
    expect(error('meta=ov.{a}')).toMatchObject({ code: '42883' });
    expect(error('qty=fts.x')).toMatchObject({ code: '42883' });
    expect(error('name->>x=eq.1')).toMatchObject({ code: '42883', message: 'operator does not exist: text ->> unknown' });
  });

  it('should refuse a filter on an embedded resource with PGRST108', () => {
    expect(error('owner.name=eq.x')).toMatchObject({ code: 'PGRST108', message: "'owner' is not an embedded resource in this request" });
    expect(error('owner.order=name')).toMatchObject({ code: 'PGRST108' });
  });
});
