import type { Tx } from '@engage/platform';
import { pgrstError } from './errors';
import { header } from './parse/headers.parser';
import { parsePreferences, preferenceApplied } from './parse/prefer.parser';
import { parseReadRequest } from './parse/request.parser';
import { normalizePlan } from './normalize';
import { outputKeys, type MediaType, type ReadPlan, type ReadRequest } from './parse/plan';
import { findTable, type Registry } from './registry';
import { buildCountSql, buildReadSql } from './sql/read.sql';

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

const csvField = (text: string): string => (/[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text);

// Counts above this are estimated by `count=estimated` (Supabase's default max_rows).
export const ESTIMATE_ABOVE = 1000;

// PostgREST's count=planned: the planner's row estimate (EXPLAIN) for the filtered table, under
// row-level security. count=estimated: exact up to ESTIMATE_ABOVE rows, planned beyond.
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

// Runs inside the caller's tenant transaction: row-level security decides which rows exist, so
// the engine adds no organization filter of its own.
export async function executeRead(tx: Tx, registry: Registry, request: ReadRequest): Promise<ReadResponse> {
  const table = findTable(registry, request.table);
  const plan = parseReadRequest(table, request, registry);
  await normalizePlan(tx, registry, plan);
  const statement = buildReadSql(plan);
  const [row] = await tx.query<{ body: string | null; page_count: string; total?: string }>(statement.text, statement.values);
  const rows = Number(row.page_count);
  const total = plan.count === 'exact' ? Number(row.total) : plan.count ? await estimate(tx, plan) : undefined;
  if (plan.count === 'exact' && total !== undefined && plan.offset > total) {
    throw pgrstError('PGRST103', 416, 'Requested range not satisfiable', `An offset of ${plan.offset} was requested, but there are only ${total} rows.`);
  }
  if (plan.media === 'object' && rows !== 1) {
    throw pgrstError('PGRST116', 406, 'Cannot coerce the result to a single JSON object', `The result contains ${rows} rows`);
  }
  const headers: Record<string, string> = {
    'content-type': plan.stripNulls ? `application/vnd.pgrst.${plan.media === 'object' ? 'object' : 'array'}+json; nulls=stripped; charset=utf-8` : CONTENT_TYPE[plan.media],
    'content-range': contentRange(plan.offset, rows, total),
  };
  const applied = preferenceApplied({ count: plan.count, handling: parsePreferences(header(request.headers, 'prefer')).handling === 'strict' ? 'strict' : undefined });
  if (applied) headers['preference-applied'] = applied;
  let body = '';
  if (plan.method === 'GET') {
    body = row.body ?? '';
    if (plan.media === 'csv') {
      const head = outputKeys(plan.select).map(csvField).join(',');
      body = body === '' ? head : `${head}\n${body}`;
    }
  }
  return { status: total !== undefined && rows < total ? 206 : 200, body, headers };
}
