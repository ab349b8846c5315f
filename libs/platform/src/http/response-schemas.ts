import { ApiResponse } from '@nestjs/swagger';
import { servedColumns, type SqlType, type TableDeclaration } from '@engage/shared-kernel';

// Small builders for the JSON Schemas (OpenAPI 3.0 dialect) of what function and auth routes
// answer, kept next to each controller (its *.responses.ts). A test validates real answers against
// them, and the contract check does the same for every generated request.
export type Schema = Record<string, unknown>;

export const uuid: Schema = { type: 'string', format: 'uuid' };
export const text: Schema = { type: 'string' };
export const at: Schema = { type: 'string', format: 'date-time' };
export const integer: Schema = { type: 'integer' };
export const number: Schema = { type: 'number' };
export const boolean: Schema = { type: 'boolean' };

// A null is allowed; an enum lists it too, as OpenAPI 3.0.3 asks.
export const nullable = (schema: Schema): Schema => ({ ...schema, nullable: true, ...(Array.isArray(schema.enum) ? { enum: [...schema.enum, null] } : {}) });
export const arrayOf = (items: Schema): Schema => ({ type: 'array', items });
const TYPE_OF = { string: 'string', number: 'integer', boolean: 'boolean' } as const;
export const oneOfValues = (values: readonly (string | number | boolean)[]): Schema => ({
  type: TYPE_OF[typeof values[0] as keyof typeof TYPE_OF],
  enum: [...values],
});

// An object whose properties are all present unless named optional.
export function object(properties: Record<string, Schema>, optional: readonly string[] = []): Schema {
  const required = Object.keys(properties).filter((name) => !optional.includes(name));
  return { type: 'object', ...(required.length > 0 ? { required } : {}), properties };
}

// An object schema of `object` or `viewSchema` with more properties, all present.
export const extend = (base: Schema, properties: Record<string, Schema>): Schema => object({ ...(base.properties as Record<string, Schema>), ...properties });

// `{}`: the answer of an action that has nothing to tell (GoTrue's recover, for one).
export const empty: Schema = { type: 'object', maxProperties: 0 };

// What each SQL type reads as in JSON once a view is made (numeric columns are read as float8 by their
// `select`, timestamps are ISO 8601, bigint as text by the driver).
const OF_SQL: Record<SqlType, Schema> = {
  uuid,
  text,
  'text[]': arrayOf(text),
  integer,
  bigint: text,
  numeric: number,
  'double precision': number,
  boolean,
  jsonb: {},
  timestamptz: at,
  date: { type: 'string', format: 'date' },
  bytea: text,
};

// The view of a declared table (toView in shared-kernel): every served column, or those named, each
// present, typed and nullable as declared. One declaration per column, so the schema cannot drift.
export function viewSchema(table: TableDeclaration, names: readonly string[] = servedColumns(table)): Schema {
  const properties: Record<string, Schema> = {};
  for (const name of names) {
    const column = table.columns[name];
    if (!column || column.api === 'hidden') throw new Error(`${table.name}: ${name} is not a served column`);
    const schema = OF_SQL[column.sql];
    properties[name] = column.nullable && column.sql !== 'jsonb' ? nullable(schema) : schema;
  }
  return object(properties);
}

// The success answer of a route (JSON unless said). Written below @ApiErrors, which then adds no default entry.
export const ApiAnswer = (status: number, schema: Schema, description = 'Success', mediaType = 'application/json'): MethodDecorator & ClassDecorator =>
  ApiResponse({ status, description, content: { [mediaType]: { schema } } });
