import type { Type } from '@nestjs/common';
import type { RequestContext } from '@engage/shared-kernel';
import type { Tx } from '../database/database';

// A table a context serves through the data API (/rest/v1 and the record proxy), and the writer
// its writes go through. The data API checks the definitions at start-up (libs/data-api).

export type ColumnType = 'uuid' | 'text' | 'text[]' | 'int' | 'numeric' | 'bool' | 'jsonb' | 'timestamptz' | 'date';

export interface ForeignKey {
  name: string;
  column: string;
  references: { table: string; column: string };
}

export type ValueNormalizer = (tx: Tx, values: string[]) => Promise<string[]>;

export interface TableDefinition {
  name: string;
  columns: Readonly<Record<string, ColumnType>>;
  // Columns a read may select, filter or order by; the others behave as if they did not exist.
  readable: readonly string[];
  // Readable columns only callers of these roles read; for other callers they do not exist either.
  restricted?: { readonly columns: readonly string[]; readonly roles: readonly RequestContext['role'][] };
  // true: POST, PATCH and DELETE go through the table's writer; otherwise writes answer 405.
  writable?: boolean;
  // Many-to-one relations: `select=*,rel(...)` embeds the referenced row (README, "Embedding").
  foreignKeys?: readonly ForeignKey[];
  // Per column: turns searched values into the stored form before SQL runs (e.g. contacts.phones
  // to E.164 with the organization's country), in the caller's transaction. Applies to eq, neq,
  // isdistinct, in, cs, cd and ov values (array items one by one); a value it cannot read it returns unchanged.
  normalizers?: Record<string, ValueNormalizer>;
  // Who may POST/PATCH/DELETE through the data API (reads follow row-level security only); absent:
  // every caller the route admits, and the context's writer decides. API keys act as 'SYSTEM'.
  writeRoles?: readonly RequestContext['role'][];
  // The primary key, when it is not `id`: a junction table's makes it a many-to-many path.
  primaryKey?: readonly string[];
  // Columns whose full value only the answer to the creating POST shows, taken from what the writer
  // returned (a generated secret); reads show what the table stores (a mask).
  revealOnCreate?: readonly string[];
  // Every column of the table as declared (hidden ones included), when the definition was derived
  // from a column declaration (columns.ts): a test compares it with the migrated database.
  declared?: Readonly<Record<string, { readonly sql: string; readonly nullable: boolean }>>;
}

// How a context writes one of its tables, so writes through the data API run the same validation,
// normalisation, rules and events as the context's own endpoints, in the caller's transaction.
export interface RecordWriter {
  create(tx: Tx, ctx: RequestContext, body: Record<string, unknown>): Promise<object>;
  update(tx: Tx, ctx: RequestContext, id: string, body: Record<string, unknown>): Promise<object>;
  remove(tx: Tx, ctx: RequestContext, id: string): Promise<void>;
  // Optional: create a row with the id the caller chose (an upsert on `id` that matched no row, as
  // PostgREST inserts it). Without it such an upsert is refused: ids are otherwise the service's.
  createWithId?(tx: Tx, ctx: RequestContext, id: string, body: Record<string, unknown>): Promise<object>;
}

// A table bound to its writer in one object: a writable table needs a writer (a provider of the
// context's module, resolved when the app starts) and a read-only one takes none, or it does not compile.
export type ExposedTable =
  | { readonly table: TableDefinition & { readonly writable?: false }; readonly writer?: never }
  | { readonly table: TableDefinition & { readonly writable: true }; readonly writer: Type<RecordWriter> };
