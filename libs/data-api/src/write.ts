import type { RecordWriters, Tx } from '@engage/platform';
import type { RequestContext } from '@engage/shared-kernel';
import { pgrstError } from './errors';
import { executeRead, type ReadResponse } from './read';
import { findTable, type Registry } from './registry';

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

// The filter part of a raw query string, still encoded, so the read engine parses it exactly.
function filtersOf(query: string): string {
  return query
    .replace(/^\?/, '')
    .split('&')
    .filter((pair) => pair !== '' && !NOT_FILTERS.has(decodeURIComponent(pair.split('=')[0])))
    .join('&');
}

function wantsRepresentation(headers: WriteRequest['headers'], byDefault: boolean): boolean {
  const prefer = [headers.prefer ?? []].flat().join(',');
  if (/return=representation/.test(prefer)) return true;
  if (/return=(minimal|headers-only)/.test(prefer)) return false;
  return byDefault;
}

const asObject = (value: unknown): Record<string, unknown> => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw pgrstError('PGRST102', 400, 'Request body must be a JSON object (or, for POST, an array of objects)');
  return value as Record<string, unknown>;
};

// POST, PATCH and DELETE through the owning context's writer, one transaction for the request:
// a filter matching several rows changes them all (§4.5), and a failure on any row changes none.
export async function executeWrite(tx: Tx, registry: Registry, writers: RecordWriters, ctx: RequestContext, request: WriteRequest): Promise<ReadResponse> {
  const table = findTable(registry, request.table);
  const writer = writers.get(table.name);
  if (!writer) throw pgrstError('PGRST117', 405, `Writes to ${table.name} are not supported`);
  const representation = wantsRepresentation(request.headers, request.representationByDefault);
  let rows: object[];
  let status: number;
  if (request.method === 'POST') {
    const items = Array.isArray(request.body) ? request.body : [request.body];
    if (items.length === 0 || items.length > MAX_BULK) throw pgrstError('PGRST102', 400, `POST takes one object or an array of 1 to ${MAX_BULK} objects`);
    rows = [];
    for (const item of items) rows.push(await writer.create(tx, ctx, asObject(item)));
    status = 201;
  } else {
    const filters = filtersOf(request.query);
    if (filters === '') throw pgrstError('PGRST100', 400, `${request.method} requires a filter`, undefined, NO_FILTER_HINT);
    const changes = request.method === 'PATCH' ? asObject(request.body) : {};
    const matched = await executeRead(tx, registry, { method: 'GET', table: table.name, query: `${filters}&select=*`, headers: {} });
    const before = JSON.parse(matched.body) as { id: string }[];
    rows = [];
    for (const row of before) {
      if (request.method === 'PATCH') rows.push(await writer.update(tx, ctx, row.id, changes));
      else {
        await writer.remove(tx, ctx, row.id);
        rows.push(row);
      }
    }
    status = representation ? 200 : 204;
  }
  const range = rows.length > 0 ? `0-${rows.length - 1}/*` : '*/*';
  if (!representation) return { status: request.method === 'POST' ? 201 : 204, body: '', headers: { 'content-range': range } };
  return { status, body: JSON.stringify(rows), headers: { 'content-range': range, 'content-type': 'application/json; charset=utf-8' } };
}
