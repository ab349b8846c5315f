import { type Columns, servedColumns, type SqlType, type TableDeclaration } from '@engage/shared-kernel';
import type { ColumnType, TableDefinition } from './exposed-table';

// What the data API and SQL derive from a table's column declaration (shared-kernel: columns.ts).

// How the data API reads and filters each SQL type (a bytea column can only be hidden).
export const API_TYPE: Partial<Record<SqlType, ColumnType>> = {
  uuid: 'uuid',
  text: 'text',
  'text[]': 'text[]',
  integer: 'int',
  bigint: 'int',
  numeric: 'numeric',
  'double precision': 'numeric',
  boolean: 'bool',
  jsonb: 'jsonb',
  timestamptz: 'timestamptz',
  date: 'date',
};

// The data API's properties of a table other than its columns (writable, foreign keys, normalizers...).
type Exposure = Omit<TableDefinition, 'name' | 'columns' | 'readable' | 'declared'>;

// The data API's definition: the served columns (all readable) with their API types, and every
// declared column's SQL type and nullability (the schema test compares them with the database).
export function tableDefinition<C extends Columns, const X extends Exposure = object>(
  table: TableDeclaration<C>,
  exposure?: X,
): Omit<TableDefinition, 'writable'> & X {
  const served = servedColumns(table);
  const untyped = served.filter((name) => !API_TYPE[table.columns[name].sql]);
  if (untyped.length > 0) throw new Error(`${table.name}: the data API cannot serve ${untyped.join(', ')} (declare it hidden)`);
  const columns = Object.fromEntries(served.map((name) => [name, API_TYPE[table.columns[name].sql] as ColumnType]));
  const declared = Object.fromEntries(Object.entries(table.columns).map(([name, c]) => [name, { sql: c.sql, nullable: c.nullable }]));
  return { ...(exposure as X), name: table.name, columns, readable: served, declared };
}

// Column lists, placeholders and assignments built from names: each placeholder is generated with
// its column from one list, and values are read from a record by the same names, so a value can
// never land in another column (a positional list missing one would shift every value after it).
export interface NamedColumns<K extends string> {
  readonly names: readonly K[];
  // `a, b, c`
  readonly list: string;
  // `a uuid, b text[]`: the record type of jsonb_to_recordset.
  readonly recordType: string;
  // `$2, $3, $4` from `first`.
  placeholders(first: number): string;
  // `a = $2, b = $3` from `first`, or `a = r.a, b = r.b` from a record alias.
  assignments(from: number | string): string;
  // The placeholder of one column among those from `first`.
  placeholderOf(name: K, first: number): string;
  // The parameters in the placeholders' order, jsonb values serialised.
  values(record: { readonly [N in K]: unknown }): unknown[];
}

export function namedColumns<T extends TableDeclaration, K extends keyof T['columns'] & string>(table: T, names: readonly K[]): NamedColumns<K> {
  for (const name of names) if (!(name in table.columns)) throw new Error(`${table.name}: ${name} is not a declared column`);
  const at = (from: number | string, i: number, name: string) => (typeof from === 'number' ? `$${from + i}` : `${from}.${name}`);
  return {
    names,
    list: names.join(', '),
    recordType: names.map((name) => `${name} ${table.columns[name].sql}`).join(', '),
    placeholders: (first) => names.map((name, i) => at(first, i, name)).join(', '),
    assignments: (from) => names.map((name, i) => `${name} = ${at(from, i, name)}`).join(', '),
    placeholderOf: (name, first) => `$${first + names.indexOf(name)}`,
    values: (record) => names.map((name) => (table.columns[name].sql === 'jsonb' ? JSON.stringify(record[name]) : record[name])),
  };
}

// What reads select: every served column, through its `select` expression when it has one.
export const selectList = (table: TableDeclaration): string =>
  servedColumns(table)
    .map((name) => table.columns[name].select ?? name)
    .join(', ');

// Every declared column by name, hidden ones included: what `*` returns (the schema test holds the
// declaration to the database), but fixed, as a named statement needs: one selecting `*` fails
// ("cached plan must not change result type") once a migration adds a column.
export const rowList = (table: TableDeclaration, alias?: string): string =>
  Object.keys(table.columns)
    .map((name) => (alias ? `${alias}.${name}` : name))
    .join(', ');

// A column as the database's catalogue describes it (information_schema.columns).
export interface CatalogueColumn {
  column_name: string;
  data_type: string;
  udt_name: string;
  is_nullable: 'YES' | 'NO';
}

const catalogueType = (c: CatalogueColumn): string =>
  c.data_type === 'ARRAY' ? `${c.udt_name.replace(/^_/, '')}[]` : c.data_type === 'timestamp with time zone' ? 'timestamptz' : c.data_type;

// Where a table's definition and the migrated database disagree (empty when they agree). A table
// with a column declaration must match column for column: every column, its SQL type and
// nullability. Any other table's served columns must exist with a type the data API reads right.
export function schemaDisagreements(table: TableDefinition, catalogue: readonly CatalogueColumn[]): string[] {
  const found = new Map(catalogue.map((c) => [c.column_name, c]));
  const problems: string[] = [];
  if (catalogue.length === 0) return [`${table.name}: no such table or view`];
  if (table.declared) {
    for (const [name, declared] of Object.entries(table.declared)) {
      const actual = found.get(name);
      const at = `${table.name}.${name}`;
      if (!actual) problems.push(`${at}: declared, not in the database`);
      else {
        if (catalogueType(actual) !== declared.sql) problems.push(`${at}: declared ${declared.sql}, the database has ${catalogueType(actual)}`);
        const nullable = actual.is_nullable === 'YES';
        if (nullable !== declared.nullable) problems.push(`${at}: declared ${declared.nullable ? 'nullable' : 'NOT NULL'}, the database disagrees`);
      }
    }
    for (const name of found.keys()) if (!(name in table.declared)) problems.push(`${table.name}.${name}: in the database, not declared`);
    return problems;
  }
  for (const [name, type] of Object.entries(table.columns)) {
    const actual = found.get(name);
    if (!actual) problems.push(`${table.name}.${name}: served, not in the database`);
    else if (API_TYPE[catalogueType(actual) as SqlType] !== type) {
      problems.push(`${table.name}.${name}: served as ${type}, the database has ${catalogueType(actual)}`);
    }
  }
  return problems;
}
