import { NamedTexts, ReadCache, readKey } from './read.cache';
import { defineRegistry, registryFor } from './registry';
import { itemsRegistry } from './testing/items.registry';

const read = (text: string) => ({ plan: {} as never, statement: { text, values: [] }, named: false });
const limits = { maxRows: 1000, maxResponseBytes: 1024 };
const request = (query: string, headers: Record<string, string> = {}, method = 'GET') => ({ method, table: 'dataapi_items', query, headers });

describe('ReadCache', () => {
  it('should forget the least recently used read beyond its size', () => {
    const cache = new ReadCache(2);
    cache.set(itemsRegistry, 'a', read('A'));
    cache.set(itemsRegistry, 'b', read('B'));
    expect(cache.get(itemsRegistry, 'a')?.statement.text).toBe('A');
    cache.set(itemsRegistry, 'c', read('C'));
    expect(cache.get(itemsRegistry, 'b')).toBeUndefined();
    expect(cache.get(itemsRegistry, 'a')?.statement.text).toBe('A');
    expect(cache.get(itemsRegistry, 'c')?.statement.text).toBe('C');
    expect(cache.size(itemsRegistry)).toBe(2);
  });

  it('should keep the reads of each role apart', () => {
    const registry = defineRegistry([{ ...itemsRegistry.tables.get('dataapi_items')!, restricted: { columns: ['body'], roles: ['OWNER'] } }]);
    const cache = new ReadCache();
    cache.set(registryFor(registry, 'OWNER'), 'k', read('owner'));
    expect(cache.get(registryFor(registry, 'AGENT'), 'k')).toBeUndefined();
    expect(cache.get(registryFor(registry, 'OWNER'), 'k')?.statement.text).toBe('owner');
  });

  it('should not keep a statement longer than its text limit', () => {
    const cache = new ReadCache(10, 5);
    cache.set(itemsRegistry, 'k', read('SELECT 1'));
    expect(cache.get(itemsRegistry, 'k')).toBeUndefined();
  });
});

describe('readKey', () => {
  it('should tell apart every header and limit the parser reads', () => {
    const base = readKey(request('select=id'), limits);
    const others = [
      readKey(request('select=id', {}, 'HEAD'), limits),
      readKey(request('select=name'), limits),
      readKey({ ...request('select=id'), table: 'contacts' }, limits),
      readKey(request('select=id', { Accept: 'text/csv' }), limits),
      readKey(request('select=id', { prefer: 'count=exact' }), limits),
      readKey(request('select=id', { range: '0-1' }), limits),
      readKey(request('select=id', { 'accept-profile': 'other' }), limits),
      readKey(request('select=id'), { ...limits, maxRows: 10 }),
      readKey(request('select=id'), { ...limits, maxResponseBytes: 10 }),
    ];
    expect(new Set([base, ...others]).size).toBe(others.length + 1);
    expect(readKey(request('select=id', { 'x-request-id': 'r1', authorization: 'Bearer t' }), limits)).toBe(base);
    expect(readKey(request('select=id', { range: '' }), limits)).not.toBe(base);
    expect(readKey({ ...request('b'), table: 'dataapi_items\na' }, limits)).not.toBe(readKey({ ...request('a\nb'), table: 'dataapi_items' }, limits));
  });

  it('should keep no read of named rows', () => {
    expect(readKey({ ...request('select=id'), ids: ['x'] }, limits)).toBeUndefined();
  });
});

describe('NamedTexts', () => {
  it('should name the first texts up to its limit and those again, and no new one after', () => {
    const named = new NamedTexts(2);
    expect([named.admit('a'), named.admit('b'), named.admit('c'), named.admit('a'), named.admit('b')]).toEqual([true, true, false, true, true]);
  });
});
