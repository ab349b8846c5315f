import { ERROR_BODY } from '@engage/platform';
import type { ColumnType, TableDefinition } from '../registry';

// JSON Schema (OpenAPI 3.0 dialect) pieces for the data API's tables, derived from the registry's
// column types, as PostgREST derives its own OpenAPI from the schema cache.
export type Schema = Record<string, unknown>;

const OF_TYPE: Record<ColumnType, Schema> = {
  uuid: { type: 'string', format: 'uuid' },
  text: { type: 'string' },
  'text[]': { type: 'array', items: { type: 'string' } },
  int: { type: 'integer' },
  numeric: { type: 'number' },
  bool: { type: 'boolean' },
  jsonb: {},
  timestamptz: { type: 'string', format: 'date-time' },
  date: { type: 'string', format: 'date' },
};

// PostgreSQL's own type name, as PostgREST puts it in each property's `format`-like description.
const PG_TYPE: Record<ColumnType, string> = {
  uuid: 'uuid',
  text: 'text',
  'text[]': 'text[]',
  int: 'integer',
  numeric: 'numeric',
  bool: 'boolean',
  jsonb: 'jsonb',
  timestamptz: 'timestamp with time zone',
  date: 'date',
};

// Which columns may hold NULL, per table (read from the database's catalogue); a column the map
// does not know is taken as nullable, the answer no response can contradict.
export type Nullability = ReadonlyMap<string, ReadonlySet<string>>;

export function columnSchema(type: ColumnType, nullable: boolean): Schema {
  const schema: Schema = { ...OF_TYPE[type], description: PG_TYPE[type] };
  // `{}` (jsonb) already admits null; the others say so explicitly.
  return nullable && type !== 'jsonb' ? { ...schema, nullable: true } : schema;
}

const isNullable = (notNull: Nullability, table: string, column: string): boolean => !(notNull.get(table)?.has(column) ?? false);

// A row as reads return it. Nothing is `required` and other properties are allowed: `select`
// picks columns, renames them (`alias:column`) and adds embedded rows.
export function rowSchema(table: TableDefinition, notNull: Nullability): Schema {
  const properties: Record<string, Schema> = {};
  for (const column of table.readable) properties[column] = columnSchema(table.columns[column], isNullable(notNull, table.name, column));
  return { type: 'object', description: `A row of ${table.name}`, properties };
}

// What a POST or PATCH body may carry: the table's columns; the owning context's writer validates
// the values and says which are required, unknown columns are refused (PGRST204).
export function writeSchema(table: TableDefinition, notNull: Nullability): Schema {
  const properties: Record<string, Schema> = {};
  for (const column of table.readable) properties[column] = columnSchema(table.columns[column], isNullable(notNull, table.name, column));
  return { type: 'object', properties };
}

// A filter value: `operator.value`, as PostgREST reads it (e.g. eq.5, in.(a,b), not.is.null).
export const FILTER_OPERATORS = [
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
];

export function filterDescription(type: ColumnType): string {
  return `Filter on this ${PG_TYPE[type]} column: <operator>.<value>, optionally negated with not.; operators: ${FILTER_OPERATORS.join(', ')}`;
}

// PostgREST's error body (`code` is a PGRST code or the PostgreSQL SQLSTATE) and the record proxy's (spec §4.5).
export const POSTGREST_ERROR: Schema = ERROR_BODY.rest;
export const PROXY_ERROR: Schema = ERROR_BODY.proxy;
