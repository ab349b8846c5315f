import { column, declareTable, field } from '@engage/shared-kernel';
import { namedColumns, rowList, schemaDisagreements, selectList, tableDefinition } from './columns';

const text = (value: unknown) => String(value);
const GADGETS = declareTable({
  name: 'gadgets',
  columns: {
    id: column('uuid'),
    name: field('text', text),
    settings: field('jsonb', (value) => value as Record<string, unknown>, { default: () => ({}) }),
    amount: column('numeric', { nullable: true, select: 'amount::float8 AS amount' }),
    token_hash: column('bytea', { nullable: true, api: 'hidden' }),
  },
});

describe('what a column declaration derives', () => {
  it('should serve every column but the hidden ones, with the data API types, and keep every declared type for the schema test', () => {
    const table = tableDefinition(GADGETS, { writable: true });
    expect(table).toMatchObject({
      name: 'gadgets',
      writable: true,
      columns: { id: 'uuid', name: 'text', settings: 'jsonb', amount: 'numeric' },
      readable: ['id', 'name', 'settings', 'amount'],
    });
    expect(table.columns).not.toHaveProperty('token_hash');
    expect(table.declared?.token_hash).toEqual({ sql: 'bytea', nullable: true });
    expect(selectList(GADGETS)).toBe('id, name, settings, amount::float8 AS amount');
    // Whole rows by name, hidden columns included, with or without an alias.
    expect(rowList(GADGETS)).toBe('id, name, settings, amount, token_hash');
    expect(rowList(GADGETS, 'g')).toBe('g.id, g.name, g.settings, g.amount, g.token_hash');
  });

  it('should refuse to serve a column the data API cannot read', () => {
    expect(() => tableDefinition(declareTable({ name: 'blobs', columns: { id: column('uuid'), data: column('bytea') } }))).toThrow('cannot serve data');
  });

  it('should build SQL by name, serialising JSON', () => {
    const write = namedColumns(GADGETS, ['name', 'settings']);
    expect([write.list, write.placeholders(2), write.assignments(2), write.assignments('r'), write.recordType]).toEqual([
      'name, settings',
      '$2, $3',
      'name = $2, settings = $3',
      'name = r.name, settings = r.settings',
      'name text, settings jsonb',
    ]);
    expect(write.values({ settings: { a: 1 }, name: 'x' })).toEqual(['x', '{"a":1}']);
    expect(() => namedColumns(GADGETS, ['nope' as 'name'])).toThrow('nope is not a declared column');
  });

  it('should report every way a table and the catalogue disagree', () => {
    const row = (column_name: string, data_type: string, is_nullable: 'YES' | 'NO', udt_name = '') => ({ column_name, data_type, udt_name, is_nullable });
    const catalogue = [
      row('id', 'uuid', 'NO'),
      row('name', 'ARRAY', 'NO', '_text'),
      row('settings', 'jsonb', 'YES'),
      row('token_hash', 'bytea', 'YES'),
      row('extra', 'text', 'YES'),
    ];
    expect(schemaDisagreements(tableDefinition(GADGETS), catalogue)).toEqual([
      'gadgets.name: declared text, the database has text[]',
      'gadgets.settings: declared NOT NULL, the database disagrees',
      'gadgets.amount: declared, not in the database',
      'gadgets.extra: in the database, not declared',
    ]);
    expect(schemaDisagreements(tableDefinition(GADGETS), [])).toEqual(['gadgets: no such table or view']);
    // A table defined without a declaration: its served columns must exist with a type the data API reads right.
    const plain = { name: 'gadgets', columns: { id: 'uuid', name: 'text' }, readable: ['id', 'name'] } as const;
    expect(schemaDisagreements(plain, catalogue)).toEqual(['gadgets.name: served as text, the database has text[]']);
  });
});
