import type { ColumnType, ForeignKey, TableDefinition } from '@engage/platform';
import { DomainError } from '@engage/shared-kernel';
import { pgrstError } from './errors';

export type { ColumnType, ForeignKey, TableDefinition, ValueNormalizer } from '@engage/platform';

export interface Registry {
  readonly tables: ReadonlyMap<string, TableDefinition>;
}

// Identifiers reach SQL only from here, quoted; this pattern makes the quoting trivially safe.
const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

function assertIdentifier(kind: string, name: string): void {
  if (!IDENTIFIER.test(name)) throw new Error(`data-api registry: ${kind} name ${JSON.stringify(name)} is not a plain lower-case identifier`);
}

// Checks every identifier once, at start-up, so a typo fails the boot and not a request.
export function defineRegistry(tables: readonly TableDefinition[]): Registry {
  const map = new Map<string, TableDefinition>();
  for (const table of tables) {
    assertIdentifier('table', table.name);
    for (const column of Object.keys(table.columns)) assertIdentifier('column', column);
    for (const column of table.readable) {
      if (!(column in table.columns)) throw new Error(`data-api registry: readable column ${table.name}.${column} is not a column`);
    }
    for (const column of table.restricted?.columns ?? []) {
      if (!table.readable.includes(column)) throw new Error(`data-api registry: restricted column ${table.name}.${column} is not readable`);
    }
    for (const fk of table.foreignKeys ?? []) {
      assertIdentifier('foreign key', fk.name);
      if (!(fk.column in table.columns)) throw new Error(`data-api registry: foreign key ${fk.name} uses unknown column ${fk.column}`);
    }
    for (const column of table.primaryKey ?? []) {
      if (!(column in table.columns)) throw new Error(`data-api registry: primary key column ${table.name}.${column} is not a column`);
    }
    for (const column of Object.keys(table.normalizers ?? {})) {
      if (!(column in table.columns)) throw new Error(`data-api registry: normalizer for unknown column ${table.name}.${column}`);
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

const narrowed = new WeakMap<Registry, Map<string, Registry>>();

// The registry as a caller of `role` sees it: restricted columns of other roles taken out of the
// readable ones (reads, filters, orders and embeds all go through `readable`). Built once per role.
export function registryFor(registry: Registry, role: string): Registry {
  let byRole = narrowed.get(registry);
  if (!byRole) narrowed.set(registry, (byRole = new Map()));
  let seen = byRole.get(role);
  if (!seen) {
    const tables = new Map<string, TableDefinition>();
    for (const [name, table] of registry.tables) {
      const hidden = table.restricted && !(table.restricted.roles as readonly string[]).includes(role) ? table.restricted.columns : [];
      tables.set(name, hidden.length === 0 ? table : { ...table, readable: table.readable.filter((column) => !hidden.includes(column)) });
    }
    byRole.set(role, (seen = { tables }));
  }
  return seen;
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

// How an embed reaches its rows (README, "Embedding"):
// - one: the source holds `fk` and embeds the row it references (an object or null);
// - many: the embedded table holds `fk`, pointing at the source (an array);
// - m2m: a junction table holds `source` (to the source) and `target` (to the embedded table), both
//   columns inside its primary key, as PostgREST requires (an array).
export type Relation =
  | { kind: 'one'; fk: ForeignKey; table: string }
  | { kind: 'many'; fk: ForeignKey; table: string }
  | { kind: 'm2m'; junction: string; source: ForeignKey; target: ForeignKey; table: string };

const primaryKeyOf = (table: TableDefinition): readonly string[] => table.primaryKey ?? ('id' in table.columns ? ['id'] : []);

const describe = (source: string, relation: Relation) => {
  if (relation.kind === 'one') {
    const fk = relation.fk;
    return {
      cardinality: 'many-to-one',
      embedding: `${source} with ${relation.table}`,
      relationship: `${fk.name} using ${source}(${fk.column}) and ${relation.table}(${fk.references.column})`,
    };
  }
  if (relation.kind === 'many') {
    const fk = relation.fk;
    return {
      cardinality: 'one-to-many',
      embedding: `${source} with ${relation.table}`,
      relationship: `${fk.name} using ${source}(${fk.references.column}) and ${relation.table}(${fk.column})`,
    };
  }
  return {
    cardinality: 'many-to-many',
    embedding: `${source} with ${relation.table}`,
    relationship: `${relation.junction} using ${relation.source.name}(${relation.source.column}) and ${relation.target.name}(${relation.target.column})`,
  };
};

const hintOf = (relation: Relation): string => (relation.kind === 'm2m' ? relation.junction : relation.fk.name);

function matchesHint(relation: Relation, hint: string): boolean {
  if (relation.kind === 'm2m') return relation.junction === hint || relation.source.name === hint || relation.target.name === hint;
  return relation.fk.name === hint || relation.fk.column === hint;
}

// Every relation between `source` and the table `name`, as PostgREST's schema cache finds them.
function relationsTo(registry: Registry, source: TableDefinition, name: string): Relation[] {
  const target = registry.tables.get(name) as TableDefinition;
  const relations: Relation[] = [];
  for (const fk of source.foreignKeys ?? []) if (fk.references.table === name) relations.push({ kind: 'one', fk, table: name });
  for (const fk of target.foreignKeys ?? []) if (fk.references.table === source.name) relations.push({ kind: 'many', fk, table: name });
  for (const junction of registry.tables.values()) {
    if (junction.name === source.name || junction.name === name) continue;
    const key = primaryKeyOf(junction);
    const fks = (junction.foreignKeys ?? []).filter((fk) => key.includes(fk.column));
    for (const toSource of fks.filter((fk) => fk.references.table === source.name)) {
      for (const toTarget of fks.filter((fk) => fk.references.table === name && fk !== toSource)) {
        relations.push({ kind: 'm2m', junction: junction.name, source: toSource, target: toTarget, table: name });
      }
    }
  }
  return relations;
}

// PostgREST's relationship lookup: `rel` is a table (to-one, to-many or many-to-many through a
// junction), or an FK column or FK name of the source table (to-one); `hint` (`rel!hint`) narrows
// by FK name or column, or by the junction table.
export function resolveRelation(registry: Registry, source: TableDefinition, name: string, hint?: string): Relation {
  const byName: Relation[] = registry.tables.has(name)
    ? relationsTo(registry, source, name)
    : (source.foreignKeys ?? []).filter((fk) => fk.column === name || fk.name === name).map((fk) => ({ kind: 'one', fk, table: fk.references.table }));
  const candidates = hint === undefined ? byName : byName.filter((relation) => matchesHint(relation, hint));
  if (candidates.length === 1) return candidates[0];
  if (candidates.length > 1) return ambiguous(source.name, name, candidates);
  throw pgrstError(
    'PGRST200',
    400,
    `Could not find a relationship between '${source.name}' and '${name}' in the schema cache`,
    `Searched for a foreign key relationship between '${source.name}' and '${name}'${hint === undefined ? '' : ` using the hint '${hint}'`} in the schema 'public', but no matches were found.`,
  );
}

function ambiguous(source: string, name: string, candidates: Relation[]): never {
  const details = candidates.map((relation) => describe(source, relation));
  const options = candidates.map((relation) => `'${name}!${hintOf(relation)}'`).join(', ');
  // PostgREST answers 300 Multiple Choices here.
  throw new DomainError(
    'ambiguous',
    'PGRST201',
    `Could not embed because more than one relationship was found for '${source}' and '${name}'`,
    details,
    `Try changing '${name}' to one of the following: ${options}. Find the desired relationship in the 'details' key.`,
  );
}
