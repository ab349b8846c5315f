import type { Registry, TableDefinition } from '../registry';
import { type Nullability, POSTGREST_ERROR, PROXY_ERROR, type Schema, filterDescription, rowSchema, writeSchema } from './table-schemas';

// The data API's tables as OpenAPI 3 operations, generated from the registry the engine serves,
// so the document cannot drift from it: one path per table, GET for every table, POST, PATCH and
// DELETE where the owning context's manifest binds the table to a writer.
export type Family = 'rest' | 'proxy';

export interface DataApiDescription {
  registry: Registry;
  // Whether the data API writes the table (its manifest binds it to a writer).
  writable: (table: string) => boolean;
  notNull: Nullability;
}

type Operation = Record<string, unknown>;
type PathItem = Record<string, Operation>;

const ERROR_SCHEMA: Record<Family, string> = { rest: 'PostgrestError', proxy: 'RecordProxyError' };
const SECURITY: Record<Family, Record<string, string[]>[]> = { rest: [{ bearer: [] }], proxy: [{ bearer: [] }, { 'api-key': [] }] };

const ref = (kind: 'schemas' | 'parameters', name: string) => ({ $ref: `#/components/${kind}/${name}` });

// Shared parameters, named as PostgREST's own document names them.
const PARAMETERS: Record<string, Schema> = {
  select: {
    name: 'select',
    in: 'query',
    description: 'Columns to return, with renames (alias:column), casts and embedded relations (rel(*))',
    schema: { type: 'string' },
  },
  order: { name: 'order', in: 'query', description: 'Ordering: column[.asc|.desc][.nullsfirst|.nullslast], comma-separated', schema: { type: 'string' } },
  limit: { name: 'limit', in: 'query', description: 'At most this many rows', schema: { type: 'integer', minimum: 0 } },
  offset: { name: 'offset', in: 'query', description: 'Skip this many rows', schema: { type: 'integer', minimum: 0 } },
  or: { name: 'or', in: 'query', description: 'Filters joined with OR: (column.operator.value,...)', schema: { type: 'string' } },
  and: { name: 'and', in: 'query', description: 'Filters joined with AND: (column.operator.value,...)', schema: { type: 'string' } },
  on_conflict: {
    name: 'on_conflict',
    in: 'query',
    description: 'Upsert: the unique columns a conflict is found on (with Prefer: resolution=...)',
    schema: { type: 'string' },
  },
  columns: { name: 'columns', in: 'query', description: 'The body keys to insert; others are ignored', schema: { type: 'string' } },
  range: {
    name: 'Range',
    in: 'header',
    description: 'Rows to return, zero-based and inclusive: first-last',
    schema: { type: 'string', pattern: '^\\d+-\\d*$' },
  },
  rangeUnit: { name: 'Range-Unit', in: 'header', schema: { type: 'string', default: 'items' } },
  preferCount: {
    name: 'Prefer',
    in: 'header',
    description: 'Count the matching rows into Content-Range',
    schema: { type: 'string', enum: ['count=exact', 'count=planned', 'count=estimated'] },
  },
  preferReturn: {
    name: 'Prefer',
    in: 'header',
    description: 'What the answer holds',
    schema: { type: 'string', enum: ['return=representation', 'return=minimal', 'return=headers-only'] },
  },
  preferPost: {
    name: 'Prefer',
    in: 'header',
    description: 'What the answer holds, and how an insert meets an existing row (upsert)',
    schema: {
      type: 'string',
      enum: [
        'return=representation',
        'return=minimal',
        'return=headers-only',
        'resolution=merge-duplicates',
        'resolution=ignore-duplicates',
        'missing=default',
      ],
    },
  },
};

const json = (schema: Schema) => ({ schema });

function readContent(table: string): Record<string, unknown> {
  const rows = { type: 'array', items: ref('schemas', table) };
  return {
    'application/json': json(rows),
    'application/vnd.pgrst.object+json': json(ref('schemas', table)),
    'text/csv': json({ type: 'string' }),
  };
}

const HEADERS = { 'Content-Range': { description: 'first-last/total of the rows answered (total * unless counted)', schema: { type: 'string' } } };

function errors(family: Family, statuses: number[]): Record<string, unknown> {
  const content = { 'application/json': json(ref('schemas', ERROR_SCHEMA[family])) };
  return Object.fromEntries(statuses.map((status) => [String(status), { description: ERROR_TEXT[status], content }]));
}

const ERROR_TEXT: Record<number, string> = {
  300: 'More than one relationship matches an embed (PGRST201)',
  400: 'A parameter, header or body the engine cannot read (PGRST1xx), or a value PostgreSQL refuses (SQLSTATE)',
  401: 'No valid credentials',
  403: 'The caller may not write this table (42501)',
  404: 'No such table (PGRST205), or a referenced record does not exist',
  405: 'The table is not writable through the data API (PGRST117)',
  406: 'The answer cannot have the media type asked for, e.g. a single object from several rows (PGRST116)',
  409: 'The row conflicts with an existing one (23505) or with a reference (23503)',
  413: 'The body is too large',
  415: 'The body is not JSON',
  416: 'The range asked for is past the rows (PGRST103)',
  429: 'Too many requests',
};

const READ_ERRORS = [300, 400, 401, 404, 406, 416, 429];
const WRITE_ERRORS = [300, 400, 401, 403, 404, 405, 406, 409, 413, 415, 416, 429];

function filters(table: TableDefinition): Schema[] {
  return table.readable.map((column) => ({
    name: column,
    in: 'query',
    required: false,
    description: filterDescription(table.columns[column]),
    schema: { type: 'string' },
  }));
}

function tagged(table: string, summary: string, family: Family, operation: Operation): Operation {
  return { tags: [family === 'rest' ? `rest: ${table}` : `record proxy: ${table}`], summary, security: SECURITY[family], ...operation };
}

function tablePath(table: TableDefinition, family: Family, writable: boolean): PathItem {
  const name = table.name;
  const shaping = [ref('parameters', 'select'), ref('parameters', 'order'), ref('parameters', 'limit'), ref('parameters', 'offset')];
  const logic = [ref('parameters', 'or'), ref('parameters', 'and')];
  const item: PathItem = {
    get: tagged(name, `Read ${name}`, family, {
      operationId: `${family}_get_${name}`,
      parameters: [...filters(table), ...logic, ...shaping, ref('parameters', 'range'), ref('parameters', 'rangeUnit'), ref('parameters', 'preferCount')],
      responses: {
        '200': { description: 'The matching rows', headers: HEADERS, content: readContent(name) },
        '206': { description: 'Part of the rows', headers: HEADERS, content: readContent(name) },
        ...errors(family, READ_ERRORS),
      },
    }),
  };
  if (!writable) return item;
  const body = {
    required: true,
    content: { 'application/json': json({ oneOf: [ref('schemas', `${name}_write`), { type: 'array', items: ref('schemas', `${name}_write`) }] }) },
  };
  const patchBody = { required: true, content: { 'application/json': json(ref('schemas', `${name}_write`)) } };
  // Whether a write answers rows depends on Prefer (return=representation or, on the record proxy, by
  // default), which OpenAPI cannot tie to a status: as in PostgREST's own document, no body schema.
  const written = { description: `The written rows as the ${name} schema (Prefer: return=representation), or no body`, headers: HEADERS };
  const nothing = { description: 'Done; no body (Prefer: return=minimal)', headers: HEADERS };
  item.post = tagged(name, `Insert or upsert ${name}`, family, {
    operationId: `${family}_post_${name}`,
    parameters: [ref('parameters', 'select'), ref('parameters', 'columns'), ref('parameters', 'on_conflict'), ref('parameters', 'preferPost')],
    requestBody: body,
    responses: {
      '201': { ...written, description: 'Created' },
      '200': { ...written, description: 'Upserted: no row was inserted' },
      '204': nothing,
      ...errors(family, WRITE_ERRORS),
    },
  });
  const filtered = [
    ...filters(table),
    ...logic,
    ref('parameters', 'select'),
    ref('parameters', 'order'),
    ref('parameters', 'limit'),
    ref('parameters', 'preferReturn'),
  ];
  item.patch = tagged(name, `Update the ${name} rows the filters match`, family, {
    operationId: `${family}_patch_${name}`,
    parameters: filtered,
    requestBody: patchBody,
    responses: { '200': written, '204': nothing, ...errors(family, WRITE_ERRORS) },
  });
  item.delete = tagged(name, `Delete the ${name} rows the filters match`, family, {
    operationId: `${family}_delete_${name}`,
    parameters: filtered,
    responses: { '200': written, '204': nothing, ...errors(family, WRITE_ERRORS) },
  });
  return item;
}

export interface OpenApiPart {
  paths: Record<string, PathItem>;
  components: { schemas: Record<string, Schema>; parameters: Record<string, Schema> };
}

// The paths for one family under `prefix` ('' for the document GET /rest/v1/ serves itself).
export function dataApiPaths(description: DataApiDescription, family: Family, prefix: string): OpenApiPart {
  const paths: Record<string, PathItem> = {};
  const schemas: Record<string, Schema> = { PostgrestError: POSTGREST_ERROR, RecordProxyError: PROXY_ERROR };
  for (const table of description.registry.tables.values()) {
    const writable = description.writable(table.name);
    paths[`${prefix}/${table.name}`] = tablePath(table, family, writable);
    schemas[table.name] = rowSchema(table, description.notNull);
    if (writable) schemas[`${table.name}_write`] = writeSchema(table, description.notNull);
  }
  return { paths, components: { schemas, parameters: PARAMETERS } };
}

// The document GET /rest/v1/ answers, as PostgREST answers its root.
export function restRootDocument(description: DataApiDescription, version: string): Record<string, unknown> {
  const part = dataApiPaths(description, 'rest', '');
  return {
    openapi: '3.0.3',
    info: { title: 'Engage data API', description: 'PostgREST-compatible access to the tables the contexts expose, under row-level security', version },
    servers: [{ url: '/rest/v1' }],
    paths: part.paths,
    components: { ...part.components, securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
  };
}
