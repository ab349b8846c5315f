import type { RecordWriter, Tx } from '@engage/platform';
import { DomainError, type RequestContext } from '@engage/shared-kernel';
import { pgrstError, unknownColumn } from './errors';
import { quoteIdentifier, type TableDefinition } from './registry';
import { SQL_TYPE } from './sql/params';
import type { Row } from './write-body';

// The unique indexes of a table (not partial, no expressions), read from the catalog so
// `on_conflict=` is checked against what PostgreSQL would accept.
const UNIQUE_KEYS = `
  SELECT i.indisprimary AS "primary", array_agg(a.attname::text ORDER BY k.ord) AS columns
  FROM pg_index i
  CROSS JOIN LATERAL unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord)
  JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
  WHERE i.indrelid = to_regclass(quote_ident($1)) AND i.indisunique AND i.indpred IS NULL AND NOT (0 = ANY(i.indkey::int2[]))
  GROUP BY i.indexrelid, i.indisprimary`;

// The caller's organization is implied (row-level security), so a key (organization_id, x) is
// also reachable as on_conflict=x.
const withoutOrganization = (columns: string[]) => columns.filter((column) => column !== 'organization_id');
const sameSet = (a: string[], b: string[]) => a.length === b.length && a.every((column) => b.includes(column));

export async function conflictTarget(tx: Tx, table: TableDefinition, onConflict: string | undefined): Promise<string[]> {
  const keys = await tx.query<{ primary: boolean; columns: string[] }>(UNIQUE_KEYS, [table.name]);
  if (onConflict === undefined) {
    const primary = keys.find((key) => key.primary);
    if (!primary) throw pgrstError('42P10', 400, `Table ${table.name} has no primary key to upsert on`, undefined, 'Name the unique columns with on_conflict=');
    return withoutOrganization(primary.columns);
  }
  const wanted = onConflict.split(',').map((part) => part.trim().replace(/^"(.*)"$/, '$1'));
  for (const column of wanted) if (!(column in table.columns)) throw unknownColumn(table.name, column);
  if (!keys.some((key) => sameSet(wanted, key.columns) || sameSet(wanted, withoutOrganization(key.columns)))) {
    throw pgrstError('42P10', 400, 'there is no unique or exclusion constraint matching the ON CONFLICT specification');
  }
  return withoutOrganization(wanted);
}

const parameter = (table: TableDefinition, column: string, value: unknown): unknown => (table.columns[column] === 'jsonb' ? JSON.stringify(value) : value);

export interface UpsertOutcome {
  // The row's id when it was written, undefined when ignore-duplicates skipped it.
  id?: string;
  inserted: boolean;
}

// One row of an upsert through the context's writer, so its rules and events run as for any write.
// Concurrent upserts of the same key are serialised by a transaction-scoped advisory lock taken
// before looking for the row, so the second one finds and updates the first one's row instead of
// inserting a duplicate; an existing row is also locked (FOR UPDATE) before it is changed.
export async function upsertRow(
  tx: Tx,
  ctx: RequestContext,
  writer: RecordWriter,
  table: TableDefinition,
  target: string[],
  row: Row,
  resolution: 'merge-duplicates' | 'ignore-duplicates',
): Promise<UpsertOutcome> {
  const key = target.map((column) => row[column]);
  // NULLs never conflict (as in a unique index): a plain insert.
  if (key.some((value) => value === undefined || value === null)) return { id: idOf(await writer.create(tx, ctx, row)), inserted: true };
  await tx.query('SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))', [`data-api:${table.name}:${target.join(',')}`, JSON.stringify(key)]);
  const where = target.map((column, i) => `t.${quoteIdentifier(column)} = $${i + 1}::${SQL_TYPE[table.columns[column]]}`).join(' AND ');
  const values = target.map((column) => parameter(table, column, row[column]));
  const [existing] = await tx.query<{ id: string }>(`SELECT t."id"::text AS id FROM ${quoteIdentifier(table.name)} t WHERE ${where} FOR UPDATE`, values);
  if (!existing) return { id: idOf(await insertNew(tx, ctx, writer, table, target, row)), inserted: true };
  if (resolution === 'ignore-duplicates') return { inserted: false };
  const { id: _id, organization_id: _org, ...changes } = row;
  return { id: idOf(await writer.update(tx, ctx, existing.id, changes)), inserted: false };
}

// A key without `id` is the context's to fill (a new id). A key on `id` that matched no row (never
// created, deleted, or another organization's, which row-level security hides) needs the writer's
// createWithId; without it the upsert is refused rather than creating a row under another id,
// which would make repeating the same upsert create a second row.
function insertNew(tx: Tx, ctx: RequestContext, writer: RecordWriter, table: TableDefinition, target: string[], row: Row): Promise<object> {
  if (!target.includes('id')) return writer.create(tx, ctx, row);
  const id = String(row.id);
  if (writer.createWithId) return writer.createWithId(tx, ctx, id, row);
  throw new DomainError(
    'not_found',
    'data_api.upsert_unknown_id',
    `No ${table.name} row has id ${id.slice(0, 64)}`,
    undefined,
    `${table.name} ids are chosen by the service: an upsert on id can only update; leave id out to create a row`,
  );
}

export const idOf = (row: object): string => String((row as { id: unknown }).id);
