import type { ReadPlan, SelectItem } from '../parse/plan';
import { quoteIdentifier } from '../registry';
import { fieldSql, whereSql } from './filter.sql';
import { Params } from './params';

export interface Statement {
  text: string;
  values: unknown[];
}

// json_build_object takes at most 100 arguments: wider rows are merged from 50-key chunks.
const CHUNK = 50;

function columnSql(item: SelectItem, params: Params): string {
  const sql = fieldSql(item.field, params);
  // item.cast comes from the parser's allow-list, never from the request text.
  return item.cast ? `(${sql})::${item.cast}` : sql;
}

function objectSql(items: SelectItem[], params: Params): string {
  const chunks: string[] = [];
  for (let i = 0; i < items.length; i += CHUNK) {
    const pairs = items.slice(i, i + CHUNK).map((item) => `${params.add(item.key)}::text, ${columnSql(item, params)}`);
    chunks.push(`json_build_object(${pairs.join(', ')})`);
  }
  return chunks.length === 1 ? chunks[0] : `(${chunks.map((chunk) => `${chunk}::jsonb`).join(' || ')})::json`;
}

// CSV rows are the record's text form without its parentheses, as PostgREST builds them.
const BODY = {
  json: `coalesce(json_agg(p.r), '[]')::text`,
  object: `(array_agg(p.r))[1]::text`,
  csv: `coalesce(string_agg(substring(p.r::text, 2, length(p.r::text) - 2), E'\\n'), '')`,
  head: `NULL::text`,
};

// One statement: the page as JSON (or CSV) built in PostgreSQL, its size, and the total when counted.
export function buildReadSql(plan: ReadPlan): Statement {
  const params = new Params();
  const head = plan.method === 'HEAD';
  const row = head ? 'NULL' : plan.media === 'csv' ? `ROW(${plan.select.map((item) => columnSql(item, params)).join(', ')})` : objectSql(plan.select, params);
  const table = quoteIdentifier(plan.table);
  const where = whereSql(plan.filters, params);
  const order = plan.order.length
    ? ` ORDER BY ${plan.order
        .map((term) => `${fieldSql(term.field, params)}${term.direction ? ` ${term.direction.toUpperCase()}` : ''}${term.nulls ? ` NULLS ${term.nulls.toUpperCase()}` : ''}`)
        .join(', ')}`
    : '';
  const limit = plan.limit === undefined ? '' : ` LIMIT ${params.add(plan.limit)}::bigint`;
  const offset = plan.offset ? ` OFFSET ${params.add(plan.offset)}::bigint` : '';
  const total = plan.count ? `, (SELECT count(*) FROM ${table} t WHERE ${where}) AS total` : '';
  const text =
    `SELECT ${BODY[head ? 'head' : plan.media]} AS body, count(*) AS page_count${total} ` +
    `FROM (SELECT ${row} AS r FROM ${table} t WHERE ${where}${order}${limit}${offset}) p`;
  return { text, values: params.values };
}
