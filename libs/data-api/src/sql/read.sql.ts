import { type Embed, isEmbed, type ReadPlan, type SelectItem } from '../parse/plan';
import { quoteIdentifier } from '../registry';
import { fieldSql, whereSql } from './filter.sql';
import { Params } from './params';

export interface Statement {
  text: string;
  values: unknown[];
}

// json_build_object takes at most 100 arguments: wider rows are merged from 50-key chunks.
const CHUNK = 50;

// Embeds get the aliases e1, e2... in select order; the parent is t.
type EmbedAliases = Map<Embed, string>;

function columnSql(item: SelectItem, params: Params, alias: string, embeds: EmbedAliases): string {
  if (isEmbed(item)) return embedSql(item.embed, params, embeds.get(item.embed) as string);
  const sql = fieldSql(item.field, params, alias);
  // item.cast comes from the parser's allow-list, never from the request text.
  return item.cast ? `(${sql})::${item.cast}` : sql;
}

// The referenced row through the parent's foreign key; RLS applies to it as to the parent.
function joinSql(embed: Embed, params: Params, alias: string): string {
  const filters = embed.filters.length ? ` AND ${whereSql(embed.filters, params, alias)}` : '';
  return `FROM ${quoteIdentifier(embed.table)} ${alias} WHERE ${alias}.${quoteIdentifier(embed.referencedColumn)} = t.${quoteIdentifier(embed.column)}${filters}`;
}

// A correlated subquery: the object, or null when there is no row (or it fails the embed filters).
function embedSql(embed: Embed, params: Params, alias: string): string {
  return `(SELECT ${objectSql(embed.select, params, alias, new Map())} ${joinSql(embed, params, alias)})`;
}

function objectSql(items: SelectItem[], params: Params, alias: string, embeds: EmbedAliases): string {
  if (items.length === 0) return `'{}'::json`;
  const chunks: string[] = [];
  for (let i = 0; i < items.length; i += CHUNK) {
    const pairs = items.slice(i, i + CHUNK).map((item) => `${params.add(item.key)}::text, ${columnSql(item, params, alias, embeds)}`);
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
  const embeds: EmbedAliases = new Map(plan.select.filter(isEmbed).map((item, i) => [item.embed, `e${i + 1}`]));
  // `rel()` selects nothing: it only filters (with !inner).
  const shown = plan.select.filter((item) => !isEmbed(item) || item.embed.select.length > 0);
  const row = head ? 'NULL' : plan.media === 'csv' ? `ROW(${shown.map((item) => columnSql(item, params, 't', embeds)).join(', ')})` : objectSql(shown, params, 't', embeds);
  const table = quoteIdentifier(plan.table);
  // !inner (and `rel=not.is.null`) keeps only the parents whose embed exists and passes its
  // filters; `rel=is.null` only those whose embed does not (anti-join).
  const inner = [...embeds].flatMap(([embed, alias]) => [
    ...(embed.inner || embed.presence === 'not_null' ? [`EXISTS (SELECT 1 ${joinSql(embed, params, alias)})`] : []),
    ...(embed.presence === 'null' ? [`NOT EXISTS (SELECT 1 ${joinSql(embed, params, alias)})`] : []),
  ]);
  const ids = plan.ids ? params.add(plan.ids) : undefined;
  const where = [whereSql(plan.filters, params), ...inner, ...(ids ? [`t."id"::text = ANY(${ids}::text[])`] : [])].join(' AND ');
  const order = ids && !plan.order.length
    ? ` ORDER BY array_position(${ids}::text[], t."id"::text)`
    : plan.order.length
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
