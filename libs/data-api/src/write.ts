import type { RecordWriter, Tx } from '@engage/platform';
import type { RequestContext } from '@engage/shared-kernel';
import { pgrstError } from './errors';
import { checkProfile, header, parseAccept } from './parse/headers.parser';
import { parsePreferences, preferenceApplied, type Preferences } from './parse/prefer.parser';
import { parseQueryString } from './parse/query-string';
import { executeRead, type ReadResponse } from './read';
import { DEFAULT_LIMITS } from './limits';
import { findTable, type Registry, type TableDefinition } from './registry';
import { insertRows, parseColumns, patchBody } from './write-body';
import { conflictTarget, idOf, upsertRow } from './write-upsert';
import type { WriterLookup } from './table-writers';

export interface WriteRequest {
  method: 'POST' | 'PATCH' | 'DELETE';
  table: string;
  query: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  // The record proxy answers with the records unless asked otherwise (§4.5); /rest/v1 with nothing.
  representationByDefault: boolean;
}

const MAX_BULK = 1000;
const NOT_FILTERS = new Set(['select', 'order', 'limit', 'offset', 'columns', 'on_conflict']);
const NO_FILTER_HINT = 'add a filter such as id=eq.<id>; to change every row on purpose, say so with id=not.is.null';

// The raw (still encoded) pairs of the query string whose key passes `keep`, so the read engine
// parses them exactly as it would for a GET.
function rawPairs(query: string, keep: (key: string) => boolean): string {
  return query
    .replace(/^\?/, '')
    .split('&')
    .filter((pair) => pair !== '' && keep(safeDecode(pair.split('=')[0])))
    .join('&');
}

const safeDecode = (text: string): string => {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
};

interface Written {
  ids: string[];
  inserted: number;
  // revealOnCreate values per written row, in write order.
  revealed?: Record<string, unknown>[];
}

// POST, PATCH and DELETE through the owning context's writer, one transaction for the request:
// a filter matching several rows changes them all (§4.5), and a failure on any row changes none.
// Errors thrown here (singular mismatch, max-affected) roll the caller's transaction back.
// `maxResponseBytes` bounds the rows read back; the rows a write matches are never cut.
export async function executeWrite(
  tx: Tx,
  registry: Registry,
  writers: WriterLookup,
  ctx: RequestContext,
  request: WriteRequest,
  maxResponseBytes = DEFAULT_LIMITS.maxResponseBytes,
): Promise<ReadResponse> {
  const table = findTable(registry, request.table);
  const writer = writers.get(table.name);
  if (!writer) throw pgrstError('PGRST117', 405, `Writes to ${table.name} are not supported`);
  if (table.writeRoles && !table.writeRoles.includes(ctx.role)) {
    throw pgrstError('42501', 403, `permission denied for table ${table.name}`, undefined, `Only ${table.writeRoles.join(', ')} may write ${table.name}`);
  }
  checkProfile(request.headers, 'content-profile');
  const prefs = parsePreferences(header(request.headers, 'prefer'));
  const media = parseAccept(header(request.headers, 'accept'));
  const params = new Map(parseQueryString(request.query).map((param) => [param.key, param.value]));
  const returning = prefs.return ?? (request.representationByDefault ? 'representation' : 'minimal');
  const selectPair = rawPairs(request.query, (key) => key === 'select');
  // tx=rollback: everything below is undone, the response still shows what it would have done.
  if (prefs.tx === 'rollback') await tx.query('SAVEPOINT data_api_write');
  let written: Written;
  let shaped: ReadResponse | undefined;
  const accept = media === 'object' ? 'application/vnd.pgrst.object+json' : media === 'csv' ? 'text/csv' : 'application/json';
  const represent = (ids: string[]) =>
    executeRead(tx, registry, { method: 'GET', table: table.name, query: selectPair, headers: { accept }, ids }, { maxResponseBytes });
  if (request.method === 'POST') {
    written = await insert(tx, ctx, writer, table, request.body, params, prefs);
  } else {
    const filters = rawPairs(request.query, (key) => !NOT_FILTERS.has(key));
    if (filters === '') throw pgrstError('PGRST100', 400, `${request.method} requires a filter`, undefined, NO_FILTER_HINT);
    const changes = request.method === 'PATCH' ? patchBody(table, request.body) : {};
    // `order`, `limit` and `offset` narrow which matching rows are changed (PostgREST v13).
    const paging = rawPairs(request.query, (key) => key === 'order' || key === 'limit' || key === 'offset');
    const matchQuery = `${filters}&select=id${paging ? `&${paging}` : ''}`;
    const matched = await executeRead(tx, registry, { method: 'GET', table: table.name, query: matchQuery, headers: {} }, { maxResponseBytes });
    const ids = (JSON.parse(matched.body) as { id: string }[]).map((row) => String(row.id));
    if (prefs.maxAffected !== undefined && ids.length > prefs.maxAffected) {
      throw pgrstError('PGRST124', 400, 'Query result exceeds max-affected preference constraint', `The query affects ${ids.length} rows`);
    }
    assertSingular(media === 'object', ids.length);
    // A DELETE answers the rows as they were.
    if (request.method === 'DELETE' && returning === 'representation') shaped = await represent(ids);
    for (const id of ids) {
      if (request.method === 'PATCH') await writer.update(tx, ctx, id, changes);
      else await writer.remove(tx, ctx, id);
    }
    written = { ids, inserted: 0 };
  }
  assertSingular(media === 'object', written.ids.length);
  if (returning === 'representation' && !shaped) shaped = await represent(written.ids);
  if (prefs.tx === 'rollback') await tx.query('ROLLBACK TO SAVEPOINT data_api_write');
  return respond(request, table, prefs, written, returning, shaped);
}

function assertSingular(singular: boolean, rows: number): void {
  if (singular && rows !== 1) throw pgrstError('PGRST116', 406, 'Cannot coerce the result to a single JSON object', `The result contains ${rows} rows`);
}

async function insert(
  tx: Tx,
  ctx: RequestContext,
  writer: RecordWriter,
  table: TableDefinition,
  body: unknown,
  params: Map<string, string>,
  prefs: Preferences,
): Promise<Written> {
  const rows = insertRows(table, body, parseColumns(table, params.get('columns')), prefs.missing === 'default', MAX_BULK);
  const ids: string[] = [];
  let inserted = 0;
  if (!prefs.resolution) {
    const revealed: Record<string, unknown>[] = [];
    for (const row of rows) {
      const created = await writer.create(tx, ctx, row);
      ids.push(idOf(created));
      revealed.push(Object.fromEntries((table.revealOnCreate ?? []).map((column) => [column, (created as Record<string, unknown>)[column]])));
    }
    return { ids, inserted: ids.length, revealed: table.revealOnCreate ? revealed : undefined };
  }
  const target = await conflictTarget(tx, table, params.get('on_conflict'));
  for (const row of rows) {
    const outcome = await upsertRow(tx, ctx, writer, table, target, row, prefs.resolution);
    if (outcome.id !== undefined) ids.push(outcome.id);
    if (outcome.inserted) inserted++;
  }
  return { ids, inserted };
}

function respond(
  request: WriteRequest,
  table: TableDefinition,
  prefs: Preferences,
  written: Written,
  returning: string,
  shaped: ReadResponse | undefined,
): ReadResponse {
  const count = written.ids.length;
  const total = prefs.count ? String(count) : '*';
  // PostgREST: POST and DELETE answer `*/*`, PATCH `0-(n-1)/*` (the total when counted).
  const range = request.method === 'PATCH' && count > 0 ? `0-${count - 1}/${total}` : `*/${total}`;
  const headers: Record<string, string> = { 'content-range': range };
  const applied = preferenceApplied({ ...prefs, resolution: request.method === 'POST' ? prefs.resolution : undefined });
  if (applied) headers['preference-applied'] = applied;
  let status = request.method === 'POST' ? 201 : returning === 'representation' ? 200 : 204;
  // An upsert that only updated answers 200 (PostgREST v12+).
  if (request.method === 'POST' && prefs.resolution === 'merge-duplicates' && written.inserted === 0) status = 200;
  if (returning === 'headers-only' && request.method === 'POST' && count > 0) headers.location = `/${table.name}?id=eq.${written.ids[0]}`;
  if (returning !== 'representation' || !shaped) return { status, body: '', headers };
  return { status, body: reveal(shaped, written.revealed), headers: { ...headers, 'content-type': shaped.headers['content-type'] } };
}

// Overlays the revealOnCreate values on the JSON representation (rows are in write order).
function reveal(shaped: ReadResponse, revealed: Record<string, unknown>[] | undefined): string {
  if (!revealed || !/json/.test(shaped.headers['content-type'] ?? '')) return shaped.body;
  const parsed = JSON.parse(shaped.body) as Record<string, unknown> | Record<string, unknown>[];
  const rows = Array.isArray(parsed) ? parsed : [parsed];
  rows.forEach((row, index) => {
    for (const [column, value] of Object.entries(revealed[index] ?? {})) if (column in row && value !== undefined) row[column] = value;
  });
  return JSON.stringify(parsed);
}
