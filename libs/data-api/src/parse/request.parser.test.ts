import { findTable } from '../registry';
import { caughtSync } from '../testing/expect-error';
import { itemsRegistry } from '../testing/items.registry';
import type { ReadRequest } from './plan';
import { parseReadRequest } from './request.parser';

const items = findTable(itemsRegistry, 'dataapi_items');
const contacts = findTable(itemsRegistry, 'contacts');
const plan = (query: string, headers: ReadRequest['headers'] = {}, method = 'GET', table = items) =>
  parseReadRequest(table, { method, table: table.name, query, headers });
const error = (query: string, headers: ReadRequest['headers'] = {}, method = 'GET', table = items) => caughtSync(() => plan(query, headers, method, table));

describe('select parsing', () => {
  it('should expand * and a missing select to the readable columns only', () => {
    expect(plan('').select.map((item) => item.key)).toEqual(items.readable);
    expect(plan('select=*').select.map((item) => item.key)).not.toContain('secret');
  });

  it('should read aliases, casts, json paths and quoted names', () => {
    expect(plan('select=id, label:name ,qty::text,meta->a->>b,c:meta->>color,"body",price::numeric').select).toEqual([
      { field: { column: 'id', jsonPath: [] }, key: 'id' },
      { field: { column: 'name', jsonPath: [] }, key: 'label' },
      { field: { column: 'qty', jsonPath: [] }, key: 'qty', cast: 'text' },
      {
        field: {
          column: 'meta',
          jsonPath: [
            { arrow: '->', key: 'a' },
            { arrow: '->>', key: 'b' },
          ],
        },
        key: 'b',
      },
      { field: { column: 'meta', jsonPath: [{ arrow: '->>', key: 'color' }] }, key: 'c' },
      { field: { column: 'body', jsonPath: [] }, key: 'body' },
      { field: { column: 'price', jsonPath: [] }, key: 'price', cast: 'numeric' },
    ]);
  });

  it('should combine * with other items', () => {
    expect(plan('select=*,n:name').select.at(-1)).toMatchObject({ key: 'n' });
  });

  it('should refuse an unknown column, an unknown cast, embedding and aggregates', () => {
    expect(error('select=id,banana')).toMatchObject({ code: '42703', message: 'column dataapi_items.banana does not exist' });
    expect(error('select=qty::evil_type')).toMatchObject({ code: '42704', message: 'type "evil_type" does not exist' });
    expect(error('select=id,contacts(*)')).toMatchObject({ code: 'PGRST127' });
    expect(error('select=qty.sum()')).toMatchObject({ code: 'PGRST123' });
    expect(error('select=count()')).toMatchObject({ code: 'PGRST123' });
    expect(error('select=id,,name')).toMatchObject({ code: 'PGRST100' });
    expect(error('select=qty::')).toMatchObject({ code: 'PGRST100' });
  });
});

describe('order parsing', () => {
  it('should read directions, null placement and json paths', () => {
    expect(plan('order=qty.desc.nullslast,name,price.asc,meta->>k.nullsfirst').order).toEqual([
      { field: { column: 'qty', jsonPath: [] }, direction: 'desc', nulls: 'last' },
      { field: { column: 'name', jsonPath: [] } },
      { field: { column: 'price', jsonPath: [] }, direction: 'asc' },
      { field: { column: 'meta', jsonPath: [{ arrow: '->>', key: 'k' }] }, nulls: 'first' },
    ]);
  });

  it('should refuse garbage with the column where it failed', () => {
    expect(error('order=id.asc.nullslasttt')).toMatchObject({ code: 'PGRST100', message: '"failed to parse order (id.asc.nullslasttt)" (line 1, column 17)' });
    expect(error('order=id.up')).toMatchObject({ code: 'PGRST100' });
    expect(error('order=nope.asc')).toMatchObject({ code: '42703' });
  });
});

describe('limit, offset and Range', () => {
  it.each([
    ['', {}, 0, undefined],
    ['limit=10', {}, 0, 10],
    ['limit=10&offset=5', {}, 5, 10],
    ['offset=-3', {}, 0, undefined],
    ['limit=0', {}, 0, 0],
    ['', { Range: '0-9' }, 0, 10],
    ['', { range: '10-' }, 10, undefined],
    ['', { Range: 'items=5-6', 'Range-Unit': 'items' }, 5, 2],
    ['limit=2&offset=1', { Range: '0-5' }, 1, 2],
    ['limit=10', { Range: '3-5' }, 3, 3],
    ['', { Range: 'garbage' }, 0, undefined],
  ])('should read %s with %j as offset %s limit %s', (query, headers, offset, limit) => {
    expect(plan(query, headers)).toMatchObject({ offset, limit });
  });

  it('should ignore the Range header on HEAD', () => {
    expect(plan('', { Range: '0-0' }, 'HEAD')).toMatchObject({ offset: 0, limit: undefined, method: 'HEAD' });
  });

  it('should refuse a negative limit and an inverted range with 416 PGRST103', () => {
    expect(error('limit=-1')).toMatchObject({ code: 'PGRST103', kind: 'range_not_satisfiable', details: 'Limit should be greater than or equal to zero.' });
    expect(error('', { Range: '1-0' })).toMatchObject({ code: 'PGRST103', kind: 'range_not_satisfiable' });
  });

  it('should refuse a limit that is not a number with PGRST100', () => {
    expect(error('limit=ten')).toMatchObject({ code: 'PGRST100', message: '"failed to parse limit parameter (ten)" (line 1, column 1)' });
  });
});

describe('headers', () => {
  it.each([
    ['count=exact', 'exact'],
    ['count=planned', 'planned'],
    ['return=representation, count=estimated', 'estimated'],
    ['count=exact,count=planned', 'exact'],
    ['count=bogus', undefined],
    ['return=minimal', undefined],
  ])('should read Prefer %s as count %s', (prefer, count) => {
    expect(plan('', { Prefer: prefer }).count).toBe(count);
  });

  it('should read an array of Prefer headers', () => {
    expect(plan('', { prefer: ['return=minimal', 'count=exact'] }).count).toBe('exact');
  });

  it.each([
    [undefined, 'json'],
    ['*/*', 'json'],
    ['application/json', 'json'],
    ['application/vnd.pgrst.object+json', 'object'],
    ['application/vnd.pgrst.object', 'object'],
    ['application/vnd.pgrst.object+json;nulls=stripped', 'object'],
    ['text/csv', 'csv'],
    ['text/unknowntype, */*', 'json'],
  ])('should read Accept %s as %s', (accept, media) => {
    expect(plan('', accept === undefined ? {} : { Accept: accept }).media).toBe(media);
  });

  it('should refuse an Accept it cannot produce with 406 PGRST107', () => {
    expect(error('', { accept: 'text/unknowntype' })).toMatchObject({
      code: 'PGRST107',
      message: 'None of these media types are available: text/unknowntype',
      kind: 'not_acceptable',
    });
  });

  it('should refuse other methods with PGRST117', () => {
    expect(error('', {}, 'POST')).toMatchObject({ code: 'PGRST117', kind: 'method_not_allowed' });
  });
});

describe('the + / %2B pitfall (spec §7)', () => {
  it('should refuse an array item that starts with a space where the query had a +', () => {
    const failure = error('phones=cs.{"+201001234567"}', {}, 'GET', contacts);
    expect(failure).toMatchObject({ code: '22P02', kind: 'validation' });
    expect(failure.hint).toContain('%2B');
    expect(error('phones=cs.{+201001234567}', {}, 'GET', contacts).hint).toContain('%2B');
    expect(error('phones=ov.{a,"+44"}', {}, 'GET', contacts).hint).toContain('%2B');
  });

  it('should refuse an in item that starts with a space where the query had a +', () => {
    expect(error('first_name=in.(+201001234567,x)', {}, 'GET', contacts).hint).toContain('%2B');
    expect(error('or=(phones.cs.{"+1"},first_name.eq.x)', {}, 'GET', contacts).hint).toContain('%2B');
  });

  it('should accept %2B, and + used as a space elsewhere', () => {
    expect(() => plan('phones=cs.{"%2B201001234567"}', {}, 'GET', contacts)).not.toThrow();
    expect(() => plan('first_name=in.(Mona+Lisa,x)', {}, 'GET', contacts)).not.toThrow();
    expect(() => plan('phones=cs.{"a+b"}', {}, 'GET', contacts)).not.toThrow();
  });

  it('should hint at %2B when a + in a timestamp offset became a space', () => {
    expect(error('created_at=gt.2024-01-01T10:00:00+02:00')).toMatchObject({ code: '22P02', hint: expect.stringContaining('%2B') });
  });

  it('should refuse a percent-encoding that does not decode', () => {
    expect(error('name=eq.%E0%A4%A')).toMatchObject({ code: 'PGRST100' });
  });
});
