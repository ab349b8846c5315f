import { pgrstError } from './errors';
import type { TableDefinition } from './registry';

export type Row = Record<string, unknown>;

export const unknownWriteColumn = (table: TableDefinition, column: string) =>
  pgrstError('PGRST204', 400, `Could not find the '${column}' column of '${table.name}' in the schema cache`);

const asObject = (value: unknown): Row => {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw pgrstError('PGRST102', 400, 'Request body must be a JSON object (or, for POST, an array of objects)');
  return value as Row;
};

// `columns="a","b"` or `columns=a,b`: the insert column list (supabase-js sends it for arrays).
export function parseColumns(table: TableDefinition, value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const columns = value.split(',').map((part) => part.trim().replace(/^"(.*)"$/, '$1'));
  if (columns.some((column) => column === ''))
    throw pgrstError('PGRST100', 400, `"failed to parse columns parameter (${value})" (line 1, column 1)`, 'a column name');
  for (const column of columns) if (!(column in table.columns)) throw unknownWriteColumn(table, column);
  return columns;
}

// A PATCH body: one object whose keys are all columns of the table.
export function patchBody(table: TableDefinition, body: unknown): Row {
  const row = asObject(body);
  for (const key of Object.keys(row)) if (!(key in table.columns)) throw unknownWriteColumn(table, key);
  return row;
}

// The rows of a POST as PostgREST reads them: with `columns=`, only those keys (others ignored),
// absent ones null, or left out with `missing=default` so the context's default applies; without
// it, every key must be a column and every object of an array must have the same keys.
export function insertRows(table: TableDefinition, body: unknown, columns: string[] | undefined, missingDefault: boolean, max: number): Row[] {
  const items = Array.isArray(body) ? body.map(asObject) : [asObject(body)];
  if (items.length === 0 || items.length > max) throw pgrstError('PGRST102', 400, `POST takes one object or an array of 1 to ${max} objects`);
  if (columns) {
    return items.map((item) => {
      const row: Row = {};
      for (const column of columns) {
        if (column in item) row[column] = item[column];
        else if (!missingDefault) row[column] = null;
      }
      return row;
    });
  }
  const keys = Object.keys(items[0]).sort().join(',');
  for (const item of items) {
    for (const key of Object.keys(item)) if (!(key in table.columns)) throw unknownWriteColumn(table, key);
    if (Object.keys(item).sort().join(',') !== keys) throw pgrstError('PGRST102', 400, 'All object keys must match');
  }
  return items;
}
