import { InvalidFilter, matchesFilter, parseFilter } from './change-filter';

const COLUMNS = new Map([
  ['id', 'uuid'],
  ['conversation_id', 'uuid'],
  ['status', 'text'],
  ['unread_count', 'int'],
  ['last_message_at', 'timestamptz'],
  ['is_active', 'bool'],
  ['media', 'jsonb'],
  ['tags', 'text[]'],
]);
const ID = '3f1c2a4e-0000-4000-8000-00000000000a';

describe('postgres_changes filters', () => {
  it('should match eq on a uuid whatever its case, as PostgreSQL compares uuids', () => {
    const conditions = parseFilter(`conversation_id=eq.${ID.toUpperCase()}`, COLUMNS);
    expect(matchesFilter(conditions, { conversation_id: ID })).toBe(true);
    expect(matchesFilter(conditions, { conversation_id: '3f1c2a4e-0000-4000-8000-00000000000b' })).toBe(false);
  });

  it('should match neq, in and orderings by the column type', () => {
    expect(matchesFilter(parseFilter('status=neq.OPEN', COLUMNS), { status: 'PENDING' })).toBe(true);
    expect(matchesFilter(parseFilter('status=in.(OPEN,"PENDING")', COLUMNS), { status: 'PENDING' })).toBe(true);
    expect(matchesFilter(parseFilter('status=in.(OPEN,RESOLVED)', COLUMNS), { status: 'PENDING' })).toBe(false);
    // Numbers compare as numbers (10 > 9), not as text.
    expect(matchesFilter(parseFilter('unread_count=gt.9', COLUMNS), { unread_count: 10 })).toBe(true);
    expect(matchesFilter(parseFilter('unread_count=lte.9', COLUMNS), { unread_count: 10 })).toBe(false);
    expect(matchesFilter(parseFilter('last_message_at=gte.2026-01-01T00:00:00Z', COLUMNS), { last_message_at: '2026-01-01T01:00:00+01:00' })).toBe(true);
    expect(matchesFilter(parseFilter('last_message_at=lt.2026-01-01T00:00:00Z', COLUMNS), { last_message_at: '2025-12-31T23:59:59.999+00:00' })).toBe(true);
    expect(matchesFilter(parseFilter('is_active=eq.true', COLUMNS), { is_active: true })).toBe(true);
  });

  it('should require every condition of a comma-separated filter', () => {
    const conditions = parseFilter(`conversation_id=eq.${ID},status=eq.OPEN`, COLUMNS);
    expect(matchesFilter(conditions, { conversation_id: ID, status: 'OPEN' })).toBe(true);
    expect(matchesFilter(conditions, { conversation_id: ID, status: 'RESOLVED' })).toBe(false);
  });

  it('should match no comparison on a NULL or missing cell, as SQL does', () => {
    expect(matchesFilter(parseFilter('status=neq.OPEN', COLUMNS), { status: null })).toBe(false);
    expect(matchesFilter(parseFilter(`id=eq.${ID}`, COLUMNS), {})).toBe(false);
  });

  it.each([
    ['an unknown column', 'secret=eq.1', 'filter column "secret" does not exist or is not readable'],
    ['a JSON column', 'media=eq.1', 'filter column "media" (jsonb) cannot be filtered'],
    ['an array column', 'tags=eq.a', 'filter column "tags" (text[]) cannot be filtered'],
    ['an unknown operator', 'status=like.%a%', 'filter operator "like" is not supported'],
    ['no operator', 'status=OPEN', 'is not column=operator.value'],
    ['a value of another type', 'unread_count=eq.many', '"many" is not a int'],
    ['a bad uuid', 'id=eq.42', '"42" is not a uuid'],
    ['in without a list', 'status=in.OPEN', 'in takes a list'],
  ])('should refuse %s, naming it', (_name, filter, message) => {
    expect(() => parseFilter(filter, COLUMNS)).toThrow(InvalidFilter);
    expect(() => parseFilter(filter, COLUMNS)).toThrow(message);
  });
});
