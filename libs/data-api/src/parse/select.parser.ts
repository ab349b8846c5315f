import { pgrstError } from '../errors';
import { SelectBudget } from '../limits';
import { findTable, resolveRelation, type Registry, type TableDefinition } from '../registry';
import { Cursor } from './cursor';
import { defaultKey, readField, resolveField } from './field.parser';
import { type ColumnItem, type Embed, type EmbedItem, isEmbed, type SelectItem } from './plan';

// Casts are emitted as SQL text, so only these names are accepted (PostgREST would pass any type).
export const CASTS: Record<string, string> = {
  text: 'text',
  int: 'integer',
  int4: 'integer',
  integer: 'integer',
  int8: 'bigint',
  bigint: 'bigint',
  numeric: 'numeric',
  float8: 'double precision',
  bool: 'boolean',
  boolean: 'boolean',
  uuid: 'uuid',
  date: 'date',
  timestamptz: 'timestamptz',
  json: 'json',
  jsonb: 'jsonb',
};

// `select=*,id,alias:col,col::text,meta->a->>b,"quoted col",alias:rel!hint!inner(col,rel2(...),...)`,
// `...rel(cols)` (to-one spread), `rel(count)`; embeds nest up to SHAPE_LIMITS.embedDepth levels; no aggregates.
export function parseSelect(table: TableDefinition, value: string | undefined, registry?: Registry): SelectItem[] {
  if (value === undefined || value.trim() === '') return star(table);
  const cursor = new Cursor(value, 'select parameter');
  const items = readItems(cursor, table, registry, 0, new SelectBudget());
  if (!cursor.done) cursor.fail('"," or end of input');
  return items;
}

const star = (table: TableDefinition): ColumnItem[] => table.readable.map((column) => ({ field: { column, jsonPath: [] }, key: column }));

// `depth` is the embedding level of `table` (0: the requested table).
function readItems(cursor: Cursor, table: TableDefinition, registry: Registry | undefined, depth: number, budget: SelectBudget): SelectItem[] {
  const items: SelectItem[] = [];
  const written: string[] = [];
  cursor.skipSpaces();
  // `rel()` selects nothing from the embed (it can still filter with !inner).
  if (depth > 0 && cursor.peek() === ')') return items;
  do {
    cursor.skipSpaces();
    budget.item();
    if (cursor.eat('*')) {
      items.push(...star(table));
    } else {
      const item = readItem(cursor, table, registry, depth, budget);
      written.push(isEmbed(item) ? `${item.embed.table}(...)` : [item.field.column, ...item.field.jsonPath.map((step) => step.arrow + step.key)].join(''));
      items.push(item);
    }
    cursor.skipSpaces();
  } while (cursor.eat(','));
  SelectBudget.repeats(written);
  return items;
}

function readItem(cursor: Cursor, table: TableDefinition, registry: Registry | undefined, depth: number, budget: SelectBudget): SelectItem {
  let alias: string | undefined;
  let field = readField(cursor, ',:()');
  if (cursor.peek() === ':' && cursor.peek(1) !== ':') {
    if (field.jsonPath.length) cursor.fail('"," or "::"');
    cursor.pos++;
    alias = field.column;
    field = readField(cursor, ',:()');
  }
  if (cursor.peek() === '(' && /(^count|\.(sum|avg|count|max|min))$/.test(field.column)) {
    throw pgrstError('PGRST123', 400, 'Use of aggregate functions is not allowed');
  }
  const spread = field.column.startsWith('...');
  if (spread && (cursor.peek() !== '(' || alias !== undefined)) cursor.fail('"(" after a spread relation, without an alias');
  if (cursor.peek() === '(') {
    if (field.jsonPath.length) cursor.fail('"," or "::"');
    if (!registry) throw pgrstError('PGRST127', 400, 'Feature not implemented', `resource embedding (${field.column}) is not supported here`);
    const item = readEmbed(cursor, table, registry, spread ? field.column.slice(3) : field.column, alias, depth + 1, budget);
    if (spread) {
      if (item.embed.relation.kind !== 'one')
        throw pgrstError('PGRST127', 400, 'Feature not implemented', `spreading a to-many embed (${item.embed.name}) is not supported by this data API yet`);
      item.embed.spread = true;
    }
    return item;
  }
  let cast: string | undefined;
  if (cursor.eat('::')) {
    const name = cursor.readWhile((char) => /[a-z0-9_]/i.test(char));
    if (!name) cursor.fail('a type name');
    cast = CASTS[name.toLowerCase()];
    if (!cast) throw pgrstError('42704', 400, `type "${name}" does not exist`);
  }
  resolveField(table, field);
  return { field, cast, key: alias ?? defaultKey(field) };
}

// `rel[!hint][!inner|!left](items)`, at most two modifiers as PostgREST takes them.
function readEmbed(
  cursor: Cursor,
  table: TableDefinition,
  registry: Registry,
  written: string,
  alias: string | undefined,
  depth: number,
  budget: SelectBudget,
): EmbedItem {
  // Checked before reading further: a request thousands of levels deep stops here.
  SelectBudget.depth(depth, written);
  const [name, ...modifiers] = written.split('!');
  if (!name || modifiers.length > 2 || modifiers.some((modifier) => !modifier)) cursor.fail('a relation name with at most two "!" modifiers');
  let inner = false;
  let hint: string | undefined;
  for (const modifier of modifiers) {
    if (modifier === 'inner') inner = true;
    else if (modifier !== 'left') hint = modifier;
  }
  const relation = resolveRelation(registry, table, name, hint);
  cursor.expect('(');
  const target = findTable(registry, relation.table);
  // `rel(count)`: the number of related rows (PostgREST answers `[{"count": n}]`).
  const countOnly = relation.kind !== 'one' && !('count' in target.columns) && /^\s*count\s*\)/.test(cursor.input.slice(cursor.pos));
  if (countOnly) cursor.readWhile((char) => char !== ')');
  const select = countOnly ? [] : readItems(cursor, target, registry, depth, budget);
  cursor.skipSpaces();
  cursor.expect(')');
  const embed: Embed = { name, alias, table: target.name, relation, inner, select, countOnly, filters: [], order: [] };
  return { key: alias ?? name, embed };
}
