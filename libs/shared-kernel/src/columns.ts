// One declaration per column of a table a context serves: its SQL type and nullability (checked
// against the migrated database by a test), whether the data API serves it and takes it in writes,
// its validation rule and default, its CSV role. The data API's table definition and named SQL
// (platform: context/columns.ts), the owner's field parser, defaults, CSV columns, view and the
// TypeScript types of rows, fields and views are all derived from it (docs/crm.md, "Adding a
// contact field"). Plain data and functions, so domain code can declare its tables.

// PostgreSQL's name of the type (information_schema's data_type; arrays as `element[]`).
export type SqlType =
  'uuid' | 'text' | 'text[]' | 'integer' | 'bigint' | 'numeric' | 'double precision' | 'boolean' | 'jsonb' | 'timestamptz' | 'date' | 'bytea';

// What the driver returns for each type (numeric and bigint come back as strings).
export interface DriverValue {
  uuid: string;
  text: string;
  'text[]': string[];
  integer: number;
  bigint: string;
  numeric: string;
  'double precision': number;
  boolean: boolean;
  jsonb: Record<string, unknown>;
  timestamptz: Date;
  date: string;
  bytea: Uint8Array;
}

// 'write': served, and taken in writes (validated by `parse`, or resolved by the owner's service);
// 'read': served, set by the owner or the database (a write carrying it is not refused, the value is
// ignored); 'hidden': not served at all (a sealed secret): the data API does not know it exists.
export type ApiAccess = 'write' | 'read' | 'hidden';

// A column's validation rule: checks and normalises one input value. `env` is what the owner's rules
// need from the request (e.g. the organization's default country for phones).
export type FieldRule<V, E> = (value: unknown, field: string, env: E) => V;

export interface Column<V = unknown, E = unknown, A extends ApiAccess = ApiAccess> {
  readonly sql: SqlType;
  readonly nullable: boolean;
  readonly api: A;
  readonly parse?: FieldRule<V, E>;
  // The value a create takes when its input has none; a column with a rule and no default is required.
  readonly default?: () => V;
  // 'both': exported and imported; 'export': exported, and ignored when an import's header names it.
  readonly csv: 'both' | 'export' | 'none';
  // Another header an import accepts for this column (`phone` for `phones`).
  readonly csvAlias?: string;
  // The expression reads select, when the driver's form is not the API's (numeric read as float8).
  readonly select?: string;
  // Type only: the value's TypeScript type.
  readonly __value?: V;
}

// Any column of any table, for the derivations below.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyColumn = Column<any, any, ApiAccess>;
export type Columns = Readonly<Record<string, AnyColumn>>;

type ColumnOptions = { nullable?: boolean; csv?: Column['csv']; csvAlias?: string; select?: string };

// A column the owner or the database sets: served read-only (or hidden), exported to CSV.
export function column<S extends SqlType, N extends boolean = false, A extends 'read' | 'hidden' | 'write' = 'read'>(
  sql: S,
  options: ColumnOptions & { nullable?: N; api?: A } = {},
): Column<N extends true ? DriverValue[S] | null : DriverValue[S], unknown, A> {
  const { nullable = false, api = 'read', csv = 'export', csvAlias, select } = options;
  return { sql, nullable, api: api as A, csv, csvAlias, select };
}

// The read-only column shapes most tables repeat.
export const COMMON_COLUMNS = {
  uuid: column('uuid'),
  uuidOrNull: column('uuid', { nullable: true }),
  text: column('text'),
  textOrNull: column('text', { nullable: true }),
  at: column('timestamptz'),
  atOrNull: column('timestamptz', { nullable: true }),
};

// A field written through the data API (and CSV imports), validated by its rule.
export function field<V, E>(
  sql: SqlType,
  parse: FieldRule<V, E>,
  options: ColumnOptions & { default?: () => V } = {},
): Column<V, E, 'write'> & { parse: FieldRule<V, E> } {
  const { nullable = false, csv = 'both', csvAlias, select } = options;
  return { sql, nullable, api: 'write', parse, default: options.default, csv, csvAlias, select };
}

// A table declared column by column (the data API's other properties of it, such as foreign keys,
// are added where it is exposed).
export interface TableDeclaration<C extends Columns = Columns> {
  readonly name: string;
  readonly columns: C;
}

export const declareTable = <const T extends TableDeclaration>(table: T): T => table;

type ValueOf<C> = C extends Column<infer V, infer _E, infer _A> ? V : never;
type Viewed<V> = V extends Date ? string : V;

// A row as the driver returns it (every column; `select` expressions give the API's form).
export type RowOf<T extends TableDeclaration> = { -readonly [K in keyof T['columns']]: ValueOf<T['columns'][K]> };
// The validated write fields (the columns with a rule).
export type FieldsOf<T extends TableDeclaration> = {
  -readonly [K in keyof T['columns'] as T['columns'][K] extends { parse: unknown } ? K : never]: ValueOf<T['columns'][K]>;
};
// A row as the API answers it: the served columns, timestamps in ISO 8601.
export type ViewOf<T extends TableDeclaration> = {
  -readonly [K in keyof T['columns'] as T['columns'][K] extends { api: 'hidden' } ? never : K]: Viewed<ValueOf<T['columns'][K]>>;
};

const names = (table: TableDeclaration, keep: (column: AnyColumn) => boolean): string[] =>
  Object.entries(table.columns)
    .filter(([, c]) => keep(c))
    .map(([name]) => name);

export const servedColumns = (table: TableDeclaration): string[] => names(table, (c) => c.api !== 'hidden');
export const fieldNames = <T extends TableDeclaration>(table: T): (keyof FieldsOf<T> & string)[] =>
  names(table, (c) => c.parse !== undefined) as (keyof FieldsOf<T> & string)[];

// Validates and normalises the write fields present in `input`. A served column that is not a
// field (id, timestamps) is ignored; anything else is refused by `unknown`, so a typo never
// silently drops data.
export function parseFields<T extends TableDeclaration, E>(
  table: T,
  input: Record<string, unknown>,
  env: E,
  unknown: (fields: string[]) => Error,
): Partial<FieldsOf<T>> {
  const refused = Object.keys(input).filter((key) => !(key in table.columns) || table.columns[key].api === 'hidden');
  if (refused.length > 0) throw unknown(refused);
  const out: Record<string, unknown> = {};
  for (const [name, c] of Object.entries(table.columns)) if (c.parse && name in input) out[name] = c.parse(input[name], name, env);
  return out as Partial<FieldsOf<T>>;
}

// Parsed fields of a new row with the declared defaults filled in; a field without a default must
// be present and not empty (`required` names the error).
export function completeFields<T extends TableDeclaration>(table: T, fields: Partial<FieldsOf<T>>, required: (field: string) => Error): FieldsOf<T> {
  const out: Record<string, unknown> = {};
  const given = fields as Record<string, unknown>;
  for (const name of fieldNames(table)) {
    const c = table.columns[name];
    if (given[name] !== undefined) out[name] = given[name];
    else if (c.default) out[name] = c.default();
    else throw required(name);
    if (!c.default && (out[name] === '' || out[name] === null)) throw required(name);
  }
  return out as FieldsOf<T>;
}

// The view of a row: its served columns in declaration order, timestamps in ISO 8601.
export function toView<T extends TableDeclaration>(table: T, row: RowOf<T>): ViewOf<T> {
  const source = row as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const name of servedColumns(table)) {
    const value = source[name];
    out[name] = table.columns[name].sql === 'timestamptz' && value !== null && value !== undefined ? new Date(value as string | Date).toISOString() : value;
  }
  return out as ViewOf<T>;
}

// The CSV columns: what an export may write (in declaration order), and which of them an import
// writes (the others it reads back from an export and ignores).
export interface CsvColumns {
  export: string[];
  import: string[];
  aliases: Record<string, string>;
  types: Record<string, SqlType>;
}

export function csvColumns(table: TableDeclaration): CsvColumns {
  const exported = names(table, (c) => c.csv !== 'none' && c.api !== 'hidden');
  const aliases = Object.fromEntries(Object.entries(table.columns).flatMap(([name, c]) => (c.csvAlias ? [[c.csvAlias, name]] : [])));
  const types = Object.fromEntries(exported.map((name) => [name, table.columns[name].sql]));
  return { export: exported, import: names(table, (c) => c.csv === 'both'), aliases, types };
}
