import { pgrstError } from './errors';

export type ColumnType = 'uuid' | 'text' | 'text[]' | 'int' | 'numeric' | 'bool' | 'jsonb' | 'timestamptz' | 'date';

export interface ForeignKey {
  name: string;
  column: string;
  references: { table: string; column: string };
}

export interface TableDefinition {
  name: string;
  columns: Record<string, ColumnType>;
  // Columns a read may select, filter or order by; the others behave as if they did not exist.
  readable: string[];
  // Stored for resource embedding, which is not implemented yet.
  foreignKeys?: ForeignKey[];
}

export interface Registry {
  readonly tables: ReadonlyMap<string, TableDefinition>;
}

// Identifiers reach SQL only from here, quoted; this pattern makes the quoting trivially safe.
const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

function assertIdentifier(kind: string, name: string): void {
  if (!IDENTIFIER.test(name)) throw new Error(`data-api registry: ${kind} name ${JSON.stringify(name)} is not a plain lower-case identifier`);
}

// Checks every identifier once, at start-up, so a typo fails the boot and not a request.
export function defineRegistry(tables: TableDefinition[]): Registry {
  const map = new Map<string, TableDefinition>();
  for (const table of tables) {
    assertIdentifier('table', table.name);
    for (const column of Object.keys(table.columns)) assertIdentifier('column', column);
    for (const column of table.readable) {
      if (!(column in table.columns)) throw new Error(`data-api registry: readable column ${table.name}.${column} is not a column`);
    }
    for (const fk of table.foreignKeys ?? []) {
      assertIdentifier('foreign key', fk.name);
      if (!(fk.column in table.columns)) throw new Error(`data-api registry: foreign key ${fk.name} uses unknown column ${fk.column}`);
    }
    if (map.has(table.name)) throw new Error(`data-api registry: table ${table.name} is registered twice`);
    map.set(table.name, table);
  }
  for (const table of tables) {
    for (const fk of table.foreignKeys ?? []) {
      const target = map.get(fk.references.table);
      if (!target || !(fk.references.column in target.columns)) {
        throw new Error(`data-api registry: foreign key ${fk.name} references unknown ${fk.references.table}.${fk.references.column}`);
      }
    }
  }
  return { tables: map };
}

export function findTable(registry: Registry, name: string): TableDefinition {
  const table = registry.tables.get(name);
  if (!table) throw pgrstError('PGRST205', 404, `Could not find the table 'public.${name}' in the schema cache`);
  return table;
}

export function readableType(table: TableDefinition, column: string): ColumnType | undefined {
  return table.readable.includes(column) ? table.columns[column] : undefined;
}

export const quoteIdentifier = (name: string): string => `"${name}"`;
