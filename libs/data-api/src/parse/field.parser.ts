import { undefinedOperator, unknownColumn } from '../errors';
import { readableType, type TableDefinition } from '../registry';
import type { Cursor } from './cursor';
import type { FieldPath, JsonStep, ValueType } from './plan';
import { TYPE_NAME } from './values';

// A name runs until a stop character or a JSON arrow; a dash not followed by `>` is part of it.
function readName(cursor: Cursor, stop: string): string {
  if (cursor.peek() === '"') return cursor.readQuoted();
  return cursor.readWhile((char, c) => !stop.includes(char) && !(char === '-' && c.peek(1) === '>')).trim();
}

export function readField(cursor: Cursor, stop: string): FieldPath {
  const column = readName(cursor, stop);
  if (!column) cursor.fail('a column name');
  const jsonPath: JsonStep[] = [];
  while (cursor.startsWith('->')) {
    const arrow = cursor.eat('->>') ? '->>' : (cursor.expect('->'), '->');
    const key = readName(cursor, stop);
    if (!key) cursor.fail('a JSON key');
    jsonPath.push({ arrow, key });
  }
  return { column, jsonPath };
}

// Only readable registry columns exist for a read; JSON paths only make sense on jsonb.
export function resolveField(table: TableDefinition, field: FieldPath): ValueType {
  const type = readableType(table, field.column);
  if (!type) throw unknownColumn(table.name, field.column);
  if (field.jsonPath.length === 0) return type;
  if (type !== 'jsonb') throw undefinedOperator(TYPE_NAME[type], field.jsonPath[0].arrow);
  return field.jsonPath[field.jsonPath.length - 1].arrow === '->>' ? 'text' : 'jsonb';
}

// `settings->foo->>bar` is returned as "bar", as PostgREST names it.
export const defaultKey = (field: FieldPath): string => (field.jsonPath.length ? field.jsonPath[field.jsonPath.length - 1].key : field.column);
