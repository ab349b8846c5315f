import { DomainError } from '@engage/shared-kernel';
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
  // Many-to-one relations: `select=*,rel(...)` embeds the referenced row (README, "Embedding").
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

export interface Relation {
  fk: ForeignKey;
}

const relationshipOf = (source: string, fk: ForeignKey) => ({
  cardinality: 'many-to-one',
  embedding: `${source} with ${fk.references.table}`,
  relationship: `${fk.name} using ${source}(${fk.column}) and ${fk.references.table}(${fk.references.column})`,
});

// PostgREST's relationship lookup, to-one only: `rel` is the referenced table, an FK column or an FK
// name of the source table; `hint` (`rel!hint`) narrows by FK name or column.
export function resolveRelation(registry: Registry, source: TableDefinition, name: string, hint?: string): Relation {
  const fks = source.foreignKeys ?? [];
  const byName = registry.tables.has(name) ? fks.filter((fk) => fk.references.table === name) : fks.filter((fk) => fk.column === name || fk.name === name);
  const candidates = hint === undefined ? byName : byName.filter((fk) => fk.name === hint || fk.column === hint);
  if (candidates.length === 1) return { fk: candidates[0] };
  if (candidates.length > 1) {
    // PostgREST answers 300; the platform maps no error kind to 300, so this is a 400 (README).
    return ambiguous(source.name, name, candidates);
  }
  const target = registry.tables.get(name);
  if (byName.length === 0 && target && (target.foreignKeys ?? []).some((fk) => fk.references.table === source.name)) {
    throw pgrstError('PGRST127', 400, 'Feature not implemented', `one-to-many embedding (${source.name} -> ${name}) is not supported by this data API yet`);
  }
  throw pgrstError(
    'PGRST200',
    400,
    `Could not find a relationship between '${source.name}' and '${name}' in the schema cache`,
    `Searched for a foreign key relationship between '${source.name}' and '${name}'${hint === undefined ? '' : ` using the hint '${hint}'`} in the schema 'public', but no matches were found.`,
  );
}

function ambiguous(source: string, name: string, candidates: ForeignKey[]): never {
  const details = candidates.map((fk) => relationshipOf(source, fk));
  const options = candidates.map((fk) => `'${name}!${fk.name}'`).join(', ');
  // PostgREST answers 300 Multiple Choices here.
  throw new DomainError(
    'ambiguous',
    'PGRST201',
    `Could not embed because more than one relationship was found for '${source}' and '${name}'`,
    details,
    `Try changing '${name}' to one of the following: ${options}. Find the desired relationship in the 'details' key.`,
  );
}
