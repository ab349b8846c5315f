import type { Tx } from '@engage/platform';
import { csvSafeText } from '@engage/shared-kernel';
import { pgrstError } from './errors';
import { header } from './parse/headers.parser';
import { parsePreferences, preferenceApplied } from './parse/prefer.parser';
import { parseReadRequest } from './parse/request.parser';
import { normalizedConditions, normalizePlan } from './normalize';
import { outputKeys, type MediaType, type ReadPlan, type ReadRequest } from './parse/plan';
import { findTable, type Registry } from './registry';
import { buildCountSql, buildReadSql, SEPARATOR, type Statement } from './sql/read.sql';
import { DEFAULT_LIMITS, type ReadLimits, responseTooLarge } from './limits';
import { NamedTexts, type PlannedRead, ReadCache, readKey } from './read.cache';

export interface ReadResponse {
  status: number;
  body: string;
  headers: Record<string, string>;
}

const CONTENT_TYPE: Record<MediaType, string> = {
  json: 'application/json; charset=utf-8',
  object: 'application/vnd.pgrst.object+json; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
};

// PostgREST's Content-Range: `first-last/total`, `*` for an empty page or an unknown total.
export function contentRange(offset: number, rows: number, total: number | undefined): string {
  const range = rows > 0 && total !== 0 ? `${offset}-${offset + rows - 1}` : '*';
  return `${range}/${total ?? '*'}`;
}

// A header cell: quoted as PostgreSQL quotes the rows' cells, escaped as they are (csv-cell.ts).
const csvField = (key: string): string => {
  const text = csvSafeText(key);
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
};

// Counts above this are estimated by `count=estimated` (Supabase's default max_rows).
export const ESTIMATE_ABOVE = 1000;

// PostgREST's count=planned: the planner's row estimate (EXPLAIN) for the filtered table, under
// row-level security. count=estimated: exact up to ESTIMATE_ABOVE rows, planned beyond.
async function exactCount(tx: Tx, plan: ReadPlan): Promise<number> {
  const counted = buildCountSql(plan, Infinity);
  const [{ total }] = await tx.query<{ total: string }>(counted.text, counted.values);
  return Number(total);
}

async function estimate(tx: Tx, plan: ReadPlan): Promise<number> {
  if (plan.count === 'estimated') {
    const counted = buildCountSql(plan, ESTIMATE_ABOVE);
    const [{ total }] = await tx.query<{ total: string }>(counted.text, counted.values);
    if (Number(total) <= ESTIMATE_ABOVE) return Number(total);
  }
  const explain = buildCountSql(plan);
  const [row] = await tx.query<{ 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }>(explain.text, explain.values);
  return Math.round(row['QUERY PLAN'][0].Plan['Plan Rows']);
}

// A page of at most this many rows is read in one statement (the rows joined in PostgreSQL); a larger
// one (DATA_API_MAX_ROWS raised) through a cursor this many rows at a time, the size checked after
// each batch, so a read over the cap stops there. The uncut reads of writes (the rows a PATCH
// matched, a representation) are one statement too: one round trip, and the write itself costs more.
export const FETCH_BATCH = 1000;

interface Page {
  rows: number;
  // The rows' texts joined by the media type's separator (a JSON array within its brackets); undefined past the byte cap.
  body?: string;
  total?: string;
}

// The statement a read runs first: HEAD the page's size, GET the page joined, or (a page larger than
// FETCH_BATCH) its rows for the cursor.
function mainStatement(plan: ReadPlan, maxBytes: number): Statement {
  if (plan.method === 'HEAD') return buildReadSql(plan);
  return buildReadSql(plan, maxBytes, plan.limit === undefined || plan.limit <= FETCH_BATCH);
}

async function fetchPage(tx: Tx, { plan, statement, named }: PlannedRead, maxBytes: number): Promise<Page> {
  if (plan.limit === undefined || plan.limit <= FETCH_BATCH) {
    const [row] = await tx.query<{ body: string | null; page_count: string; running: string; total?: string }>(statement.text, statement.values, {
      prepare: named,
    });
    return { rows: Number(row.page_count), body: Number(row.running) > maxBytes ? undefined : (row.body ?? ''), total: row.total };
  }
  await tx.query(`DECLARE data_api_read NO SCROLL CURSOR FOR ${statement.text}`, statement.values);
  const texts: string[] = [];
  let total: string | undefined;
  let over = false;
  for (;;) {
    const batch = await tx.query<{ r: string | null; total?: string }>(`FETCH FORWARD ${FETCH_BATCH} FROM data_api_read`);
    for (const row of batch) if (row.r === null) over = true;
    if (!over) texts.push(...batch.map((row) => row.r as string));
    total ??= batch[0]?.total;
    if (batch.length < FETCH_BATCH || over) break;
  }
  await tx.query('CLOSE data_api_read');
  if (over) return { rows: texts.length, total };
  const joined = texts.join(SEPARATOR[plan.media]);
  return { rows: texts.length, body: plan.media === 'json' ? `[${joined}]` : joined, total };
}

// The process's kept reads and named texts; a test may hand executeRead its own.
export interface ReadPlans {
  cache: ReadCache;
  named: NamedTexts;
}
const KEPT: ReadPlans = { cache: new ReadCache(), named: new NamedTexts() };

// The plan and statement of a read: kept for the same request again unless its plan holds something
// of the caller's organization (filter values a normaliser rewrote in this transaction, internal ids).
async function planRead(tx: Tx, registry: Registry, request: ReadRequest, limits: ReadLimits, { cache, named }: ReadPlans): Promise<PlannedRead> {
  const key = readKey(request, limits);
  const cached = key === undefined ? undefined : cache.get(registry, key);
  if (cached) return cached;
  const table = findTable(registry, request.table);
  const plan = parseReadRequest(table, { ...request, maxRows: limits.maxRows }, registry);
  const normalized = normalizedConditions(registry, plan);
  if (normalized.length > 0) await normalizePlan(tx, registry, plan, normalized);
  const statement = mainStatement(plan, limits.maxResponseBytes);
  const kept = key !== undefined && normalized.length === 0;
  // A cursor's DECLARE is sent as it is.
  const cursor = plan.method === 'GET' && plan.limit !== undefined && plan.limit > FETCH_BATCH;
  const read = { plan, statement, named: kept && !cursor && named.admit(statement.text) };
  if (kept) cache.set(registry, key, read);
  return read;
}

// Runs inside the caller's tenant transaction: row-level security decides which rows exist, so
// the engine adds no organization filter of its own. `limits` default to the settings' defaults;
// without `maxRows` (writes) every matching row is read.
export async function executeRead(
  tx: Tx,
  registry: Registry,
  request: ReadRequest,
  limits: ReadLimits = DEFAULT_LIMITS,
  plans: ReadPlans = KEPT,
): Promise<ReadResponse> {
  const read = await planRead(tx, registry, request, limits, plans);
  const { plan, statement } = read;
  let rows: number;
  let total: number | undefined;
  let joined = '';
  if (plan.method === 'HEAD') {
    const [row] = await tx.query<{ page_count: string; total?: string }>(statement.text, statement.values, { prepare: read.named });
    rows = Number(row.page_count);
    if (plan.count === 'exact') total = Number(row.total);
  } else {
    const page = await fetchPage(tx, read, limits.maxResponseBytes);
    if (page.body === undefined) throw responseTooLarge(limits.maxResponseBytes);
    joined = page.body;
    rows = page.rows;
    if (plan.count === 'exact') total = page.total !== undefined ? Number(page.total) : await exactCount(tx, plan);
  }
  if (plan.count && plan.count !== 'exact') total = await estimate(tx, plan);
  if (plan.count === 'exact' && total !== undefined && plan.offset > total) {
    throw pgrstError('PGRST103', 416, 'Requested range not satisfiable', `An offset of ${plan.offset} was requested, but there are only ${total} rows.`);
  }
  if (plan.media === 'object' && rows !== 1) {
    throw pgrstError('PGRST116', 406, 'Cannot coerce the result to a single JSON object', `The result contains ${rows} rows`);
  }
  const headers: Record<string, string> = {
    'content-type': plan.stripNulls
      ? `application/vnd.pgrst.${plan.media === 'object' ? 'object' : 'array'}+json; nulls=stripped; charset=utf-8`
      : CONTENT_TYPE[plan.media],
    'content-range': contentRange(plan.offset, rows, total),
  };
  const applied = preferenceApplied({
    count: plan.count,
    handling: parsePreferences(header(request.headers, 'prefer')).handling === 'strict' ? 'strict' : undefined,
  });
  if (applied) headers['preference-applied'] = applied;
  let body = '';
  if (plan.method === 'GET') {
    if (plan.media === 'json' || plan.media === 'object') body = joined;
    else {
      const head = outputKeys(plan.select).map(csvField).join(',');
      body = rows === 0 ? head : `${head}\n${joined}`;
    }
  }
  return { status: total !== undefined && rows < total ? 206 : 200, body, headers };
}
