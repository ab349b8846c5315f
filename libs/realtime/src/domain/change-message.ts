import type { ChangeEvent, ReadableColumns } from './binding';

// The data API's column types as PostgreSQL names them: realtime-js converts record values by these
// (`_text` an array of text, `int4` a number, ...).
const PG_TYPES: Record<string, string> = {
  uuid: 'uuid',
  text: 'text',
  'text[]': '_text',
  int: 'int4',
  numeric: 'numeric',
  bool: 'bool',
  jsonb: 'jsonb',
  timestamptz: 'timestamptz',
  date: 'date',
};

export interface ChangeData {
  schema: 'public';
  table: string;
  commit_timestamp: string;
  type: ChangeEvent;
  columns: { name: string; type: string }[];
  record?: Record<string, unknown>;
  old_record?: Record<string, unknown>;
  errors: null;
}

const pick = (row: Readonly<Record<string, unknown>>, columns: readonly string[]) =>
  Object.fromEntries(columns.filter((column) => column in row).map((column) => [column, row[column]]));

// The `postgres_changes` payload of Supabase Realtime: `ids` are the channel's bindings it matched,
// `data` the change. INSERT and UPDATE carry the row as the subscriber reads it; UPDATE and DELETE
// carry the old row's primary key only (as Supabase does for a table without REPLICA IDENTITY FULL).
export function changePayload(
  change: { table: string; type: ChangeEvent; at: string },
  row: Readonly<Record<string, unknown>>,
  columns: ReadableColumns,
  select: readonly string[] | undefined,
  bindingIds: readonly number[],
): { ids: number[]; data: ChangeData } {
  const shown = select ?? [...columns.keys()];
  const at = Date.parse(change.at);
  const data: ChangeData = {
    schema: 'public',
    table: change.table,
    commit_timestamp: Number.isNaN(at) ? change.at : new Date(at).toISOString(),
    type: change.type,
    columns: shown.filter((name) => columns.has(name)).map((name) => ({ name, type: PG_TYPES[columns.get(name) as string] ?? 'text' })),
    errors: null,
  };
  if (change.type !== 'DELETE') data.record = pick(row, shown);
  if (change.type !== 'INSERT') data.old_record = { id: row.id };
  return { ids: [...bindingIds], data };
}
