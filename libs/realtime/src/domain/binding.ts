import { type Condition, InvalidFilter, matchesFilter, parseFilter } from './change-filter';

export type ChangeEvent = 'INSERT' | 'UPDATE' | 'DELETE';
const EVENTS = ['*', 'INSERT', 'UPDATE', 'DELETE'];
export const MAX_BINDINGS_PER_CHANNEL = 20;

// The columns a caller reads of one table, with their data-API types (its role decides which).
export type ReadableColumns = ReadonlyMap<string, string>;

// One entry of a join's `config.postgres_changes`. `echo` is what the join reply repeats: realtime-js
// pairs each of its bindings with the reply's entry at the same index and compares event, schema,
// table and filter as it sent them.
export interface Binding {
  id: number;
  events: '*' | ChangeEvent;
  tables: readonly string[];
  conditions: readonly Condition[];
  select: readonly string[] | undefined;
  echo: { id: number; event: string; schema: string; table?: string; filter?: string };
}

export class InvalidBinding extends Error {}

const describe = (entry: Record<string, unknown>) =>
  `[event: ${String(entry.event)}, schema: ${String(entry.schema)}, table: ${String(entry.table ?? '*')}, filter: ${String(entry.filter ?? '')}]`;

// `served` lists the tables realtime publishes; `readable(table)` the caller's columns of each.
export function parseBindings(
  raw: unknown,
  served: readonly string[],
  readable: (table: string) => ReadableColumns | undefined,
  nextId: () => number,
): Binding[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw new InvalidBinding('config.postgres_changes must be an array');
  if (raw.length > MAX_BINDINGS_PER_CHANNEL) throw new InvalidBinding(`a channel takes at most ${MAX_BINDINGS_PER_CHANNEL} postgres_changes bindings`);
  return raw.map((entry: unknown) => parseBinding(entry, served, readable, nextId));
}

function parseBinding(entry: unknown, served: readonly string[], readable: (table: string) => ReadableColumns | undefined, nextId: () => number): Binding {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw new InvalidBinding('each postgres_changes binding must be an object');
  const fields = entry as Record<string, unknown>;
  const { event, schema, table, filter, select } = fields;
  if (typeof event !== 'string' || !EVENTS.includes(event.toUpperCase())) {
    throw new InvalidBinding(`event must be one of *, INSERT, UPDATE, DELETE in ${describe(fields)}`);
  }
  if (schema !== 'public') throw new InvalidBinding(`schema must be "public" in ${describe(fields)}`);
  if (table !== undefined && typeof table !== 'string') throw new InvalidBinding(`table must be a string in ${describe(fields)}`);
  const tables = table === undefined || table === '*' ? served : [table as string];
  for (const name of tables) {
    if (!served.includes(name)) throw new InvalidBinding(`table "${name}" is not served by realtime (served: ${served.join(', ')}) in ${describe(fields)}`);
  }
  if (filter !== undefined && typeof filter !== 'string') throw new InvalidBinding(`filter must be a string in ${describe(fields)}`);
  if (filter && tables.length !== 1) throw new InvalidBinding(`a filter needs a table in ${describe(fields)}`);
  const columns = readable(tables[0]) ?? new Map<string, string>();
  let conditions: Condition[] = [];
  try {
    if (filter) conditions = parseFilter(filter, columns);
  } catch (error) {
    if (error instanceof InvalidFilter) throw new InvalidBinding(`${error.message} in ${describe(fields)}`);
    throw error;
  }
  if (select !== undefined) {
    if (!Array.isArray(select) || select.some((column) => typeof column !== 'string'))
      throw new InvalidBinding(`select must be a list of columns in ${describe(fields)}`);
    if (tables.length !== 1) throw new InvalidBinding(`select needs a table in ${describe(fields)}`);
    for (const column of select as string[]) {
      if (!columns.has(column)) throw new InvalidBinding(`select column "${column}" does not exist or is not readable in ${describe(fields)}`);
    }
  }
  const id = nextId();
  return {
    id,
    events: event.toUpperCase() as Binding['events'],
    tables,
    conditions,
    select: select as string[] | undefined,
    echo: { id, event, schema, ...(table === undefined ? {} : { table: table as string }), ...(filter === undefined ? {} : { filter }) },
  };
}

// Whether a change of `table` of kind `event` with this row goes to the binding.
export function bindingMatches(binding: Binding, table: string, event: ChangeEvent, row: Readonly<Record<string, unknown>>): boolean {
  if (!binding.tables.includes(table)) return false;
  if (binding.events !== '*' && binding.events !== event) return false;
  return matchesFilter(binding.conditions, row);
}
