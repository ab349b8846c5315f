import { pgrstError } from '../errors';
import type { TableDefinition } from '../registry';
import { Cursor } from './cursor';
import { defaultKey, readField, resolveField } from './field.parser';
import type { SelectItem } from './plan';

// Casts are emitted as SQL text, so only these names are accepted (PostgREST would pass any type).
export const CASTS: Record<string, string> = {
  text: 'text',
  int: 'integer',
  int4: 'integer',
  integer: 'integer',
  int8: 'bigint',
  bigint: 'bigint',
  numeric: 'numeric',
  float8: 'double precision',
  bool: 'boolean',
  boolean: 'boolean',
  uuid: 'uuid',
  date: 'date',
  timestamptz: 'timestamptz',
  json: 'json',
  jsonb: 'jsonb',
};

// `select=*,id,alias:col,col::text,meta->a->>b,"quoted col"`; no embedding or aggregates yet.
export function parseSelect(table: TableDefinition, value: string | undefined): SelectItem[] {
  const star = () => table.readable.map((column) => ({ field: { column, jsonPath: [] }, key: column }));
  if (value === undefined || value.trim() === '') return star();
  const cursor = new Cursor(value, 'select parameter');
  const items: SelectItem[] = [];
  do {
    cursor.skipSpaces();
    if (cursor.eat('*')) {
      items.push(...star());
    } else {
      items.push(readItem(cursor, table));
    }
    cursor.skipSpaces();
  } while (cursor.eat(','));
  if (!cursor.done) cursor.fail('"," or end of input');
  return items;
}

function readItem(cursor: Cursor, table: TableDefinition): SelectItem {
  let alias: string | undefined;
  let field = readField(cursor, ',:()');
  if (cursor.peek() === ':' && cursor.peek(1) !== ':') {
    if (field.jsonPath.length) cursor.fail('"," or "::"');
    cursor.pos++;
    alias = field.column;
    field = readField(cursor, ',:()');
  }
  if (cursor.peek() === '(' && /(^count|\.(sum|avg|count|max|min))$/.test(field.column)) {
    throw pgrstError('PGRST123', 400, 'Use of aggregate functions is not allowed');
  }
  if (cursor.peek() === '(' || field.column.startsWith('...')) {
    throw pgrstError('PGRST127', 400, 'Feature not implemented', `resource embedding (${field.column}) is not supported by this data API yet`);
  }
  let cast: string | undefined;
  if (cursor.eat('::')) {
    const name = cursor.readWhile((char) => /[a-z0-9_]/i.test(char));
    if (!name) cursor.fail('a type name');
    cast = CASTS[name.toLowerCase()];
    if (!cast) throw pgrstError('42704', 400, `type "${name}" does not exist`);
  }
  resolveField(table, field);
  return { field, cast, key: alias ?? defaultKey(field) };
}
