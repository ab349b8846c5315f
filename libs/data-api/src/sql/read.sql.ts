import { CSV_ESCAPE, CSV_FORMULA_START, CSV_PLAIN_NUMBERS } from '@engage/shared-kernel';
import { type Embed, isEmbed, isShown, type OrderTerm, type ReadPlan, type SelectItem } from '../parse/plan';
import { quoteIdentifier } from '../registry';
import { fieldSql, whereSql } from './filter.sql';
import { Params } from './params';

export interface Statement {
  text: string;
  values: unknown[];
}

// json_build_object takes at most 100 arguments: wider rows are merged from 50-key chunks.
const CHUNK = 50;

// Embeds get the aliases e1, e2... in the order the SQL is built; the parent is t.
class Aliases {
  private n = 0;
  next(): string {
    return `e${++this.n}`;
  }
}

function columnSql(item: SelectItem, params: Params, alias: string, aliases: Aliases): string {
  if (isEmbed(item)) return embedSql(item.embed, params, alias, aliases);
  const sql = fieldSql(item.field, params, alias);
  // item.cast comes from the parser's allow-list, never from the request text.
  return item.cast ? `(${sql})::${item.cast}` : sql;
}

const q = quoteIdentifier;

// How the embedded rows (alias) hang off the parent row; identifiers all come from the registry.
function joinCondition(embed: Embed, parent: string, alias: string): string {
  const relation = embed.relation;
  if (relation.kind === 'one') return `${alias}.${q(relation.fk.references.column)} = ${parent}.${q(relation.fk.column)}`;
  if (relation.kind === 'many') return `${alias}.${q(relation.fk.column)} = ${parent}.${q(relation.fk.references.column)}`;
  const j = `${alias}j`;
  return (
    `${alias}.${q(relation.target.references.column)} IN (SELECT ${j}.${q(relation.target.column)} FROM ${q(relation.junction)} ${j} ` +
    `WHERE ${j}.${q(relation.source.column)} = ${parent}.${q(relation.source.references.column)})`
  );
}

// The embedded table joined to its parent, with its filters and its own !inner / presence embeds;
// row-level security applies to it as to the parent.
function fromSql(embed: Embed, params: Params, parent: string, alias: string, aliases: Aliases): string {
  const conditions = [
    joinCondition(embed, parent, alias),
    ...(embed.filters.length ? [whereSql(embed.filters, params, alias, existsOf(params, aliases))] : []),
    ...presenceSql(embed.select, params, alias, aliases),
  ];
  return `FROM ${q(embed.table)} ${alias} WHERE ${conditions.join(' AND ')}`;
}

const existsOf = (params: Params, aliases: Aliases) => (embed: Embed, parent: string) =>
  `EXISTS (SELECT 1 ${fromSql(embed, params, parent, aliases.next(), aliases)})`;

// !inner (and `rel=not.is.null`) keeps only the rows whose embed exists and passes its filters (for
// an array: at least one row); `rel=is.null` only those whose embed does not (anti-join).
function presenceSql(items: SelectItem[], params: Params, parent: string, aliases: Aliases): string[] {
  const conditions: string[] = [];
  for (const item of items) {
    if (!isEmbed(item)) continue;
    const embed = item.embed;
    if (embed.inner || embed.presence === 'not_null') conditions.push(`EXISTS (SELECT 1 ${fromSql(embed, params, parent, aliases.next(), aliases)})`);
    if (embed.presence === 'null') conditions.push(`NOT EXISTS (SELECT 1 ${fromSql(embed, params, parent, aliases.next(), aliases)})`);
  }
  return conditions;
}

// A related order reads the column through the to-one embed's own join and filters.
function orderFieldSql(term: OrderTerm, params: Params, alias: string, aliases: Aliases): string {
  if (!term.embed) return fieldSql(term.field, params, alias);
  const embedAlias = aliases.next();
  return `(SELECT ${fieldSql(term.field, params, embedAlias)} ${fromSql(term.embed, params, alias, embedAlias, aliases)})`;
}

function orderSql(order: OrderTerm[], params: Params, alias: string, aliases: Aliases): string {
  if (!order.length) return '';
  const terms = order.map(
    (term) =>
      `${orderFieldSql(term, params, alias, aliases)}${term.direction ? ` ${term.direction.toUpperCase()}` : ''}${term.nulls ? ` NULLS ${term.nulls.toUpperCase()}` : ''}`,
  );
  return ` ORDER BY ${terms.join(', ')}`;
}

const pageSql = (params: Params, limit: number | undefined, offset: number | undefined) =>
  `${limit === undefined ? '' : ` LIMIT ${params.add(limit)}::bigint`}${offset ? ` OFFSET ${params.add(offset)}::bigint` : ''}`;

// A correlated subquery: for to-one the object or null; for to-many the array (ordered and paged
// as asked) or `[]`, or `[{"count": n}]`.
function embedSql(embed: Embed, params: Params, parent: string, aliases: Aliases): string {
  const alias = aliases.next();
  const from = fromSql(embed, params, parent, alias, aliases);
  if (embed.relation.kind === 'one') return `(SELECT ${objectSql(embed.select, params, alias, aliases)} ${from})`;
  if (embed.countOnly) return `(SELECT json_build_array(json_build_object('count', count(*))) ${from})`;
  const rows = `SELECT ${objectSql(embed.select, params, alias, aliases)} AS r ${from}${orderSql(embed.order, params, alias, aliases)}${pageSql(params, embed.limit, embed.offset)}`;
  return `(SELECT coalesce(json_agg(s.r), '[]'::json) FROM (${rows}) s)`;
}

// The (key, SQL) pairs of a response object; a spread's items read through its join, one scalar
// subquery each (null when the row is missing or filtered out).
function pairsOf(items: SelectItem[], params: Params, alias: string, aliases: Aliases): { key: string; sql: string }[] {
  return items.filter(isShown).flatMap((item) => {
    if (!isEmbed(item) || !item.embed.spread) return [{ key: item.key, sql: columnSql(item, params, alias, aliases) }];
    const embed = item.embed;
    const inner = aliases.next();
    return pairsOf(embed.select, params, inner, aliases).map((pair) => ({
      key: pair.key,
      sql: `(SELECT ${pair.sql} ${fromSql(embed, params, alias, inner, aliases)})`,
    }));
  });
}

function objectSql(items: SelectItem[], params: Params, alias: string, aliases: Aliases): string {
  const all = pairsOf(items, params, alias, aliases);
  if (all.length === 0) return `'{}'::json`;
  const chunks: string[] = [];
  for (let i = 0; i < all.length; i += CHUNK) {
    const pairs = all.slice(i, i + CHUNK).map((pair) => `${params.add(pair.key)}::text, ${pair.sql}`);
    chunks.push(`json_build_object(${pairs.join(', ')})`);
  }
  return chunks.length === 1 ? chunks[0] : `(${chunks.map((chunk) => `${chunk}::jsonb`).join(' || ')})::json`;
}

// One row's text: JSON, or for CSV the fields joined by commas (below).
const ROW_TEXT = {
  json: (row: string) => `${row}::text`,
  object: (row: string) => `${row}::text`,
  csv: (row: string) => row,
};

// CSV cells follow the rule of the CRM's exports (shared-kernel: csv-cell.ts): a cell starting with
// = + - @, a tab or a carriage return gets a ' in front unless it is a plain number. Each cell is
// PostgreSQL's text form of a one-field record without its parentheses, which is how PostgREST
// writes a line (the record's fields, quoted the same way), so the pattern allows an opening quote
// (kept, as \1, before the ') and checks the plain number inside the quotes. PostgreSQL reads
// parentheses inside a lookahead as non-capturing, so the quote is group 1.
const CSV_FORMULA_FIELD = `^(?!"?${CSV_PLAIN_NUMBERS}"?$)("?)(?=${CSV_FORMULA_START})`;

// Rows of a body: JSON objects are joined by commas, CSV lines by newlines.
export const SEPARATOR = { json: ',', object: ',', csv: '\n' };

// The rows a write touched (or an internal read names): a uuid id is compared as a uuid, so the
// primary key's index finds them; another id type as text.
const idsMatch = (plan: ReadPlan, ids: string) => (plan.idType === 'uuid' ? `t."id" = ANY(${ids}::uuid[])` : `t."id"::text = ANY(${ids}::text[])`);
const idsOrder = (plan: ReadPlan, ids: string) =>
  plan.idType === 'uuid' ? `array_position(${ids}::uuid[], t."id")` : `array_position(${ids}::text[], t."id"::text)`;

// One statement. GET: each page row's text and the running total of the texts' bytes; past
// `maxBytes` a row's text is dropped (read.ts then refuses), so nothing beyond the cap leaves
// PostgreSQL or is held in memory. `joined`: one result row, the texts within the cap joined (a
// value never longer than the cap); else one result row per page row, for a cursor to fetch in
// batches. HEAD: the page's size. The total when counted exactly.
export function buildReadSql(plan: ReadPlan, maxBytes = Number.MAX_SAFE_INTEGER, joined = true): Statement {
  const params = new Params();
  const aliases = new Aliases();
  const head = plan.method === 'HEAD';
  const object = () => (plan.stripNulls ? `json_strip_nulls(${objectSql(plan.select, params, 't', aliases)})` : objectSql(plan.select, params, 't', aliases));
  // One CSV line: each cell as PostgreSQL writes a record's field (its text form, quoted when it
  // has to be, empty for NULL: what the row's text form held), with ' in front when a spreadsheet
  // would run it as a formula (CSV_FORMULA_FIELD).
  const csv = () => {
    const pairs = pairsOf(plan.select, params, 't', aliases);
    if (pairs.length === 0) return `''::text`;
    const pattern = `${params.add(CSV_FORMULA_FIELD)}::text`;
    const replacement = `${params.add(`\\1${CSV_ESCAPE}`)}::text`;
    return pairs.map((pair) => `regexp_replace(left(substr(ROW(${pair.sql})::text, 2), -1), ${pattern}, ${replacement})`).join(` || ',' || `);
  };
  const row = head ? 'NULL' : ROW_TEXT[plan.media](plan.media === 'csv' ? csv() : object());
  const table = quoteIdentifier(plan.table);
  const ids = plan.ids ? params.add(plan.ids) : undefined;
  const where = [
    whereSql(plan.filters, params, 't', existsOf(params, aliases)),
    ...presenceSql(plan.select, params, 't', aliases),
    ...(ids ? [idsMatch(plan, ids)] : []),
  ].join(' AND ');
  const order = ids && !plan.order.length ? ` ORDER BY ${idsOrder(plan, ids)}` : orderSql(plan.order, params, 't', aliases);
  // planned/estimated come from a second statement (buildCountSql) read by read.ts.
  const total = plan.count === 'exact' ? `, (SELECT count(*) FROM ${table} t WHERE ${where}) AS total` : '';
  // OFFSET 0 keeps the subquery (and its row text, computed once) from being flattened.
  const fence = plan.limit === undefined && !plan.offset ? ' OFFSET 0' : '';
  const page = `SELECT ${row} AS r FROM ${table} t WHERE ${where}${order}${pageSql(params, plan.limit, plan.offset)}${fence}`;
  if (head) return { text: `SELECT count(*) AS page_count${total} FROM (${page}) p`, values: params.values };
  const sized = `SELECT p.r, sum(octet_length(p.r)) OVER (ROWS UNBOUNDED PRECEDING) AS running FROM (${page}) p`;
  const cap = `${params.add(maxBytes)}::bigint`;
  if (joined) {
    const rows = `string_agg(w.r, ${params.add(SEPARATOR[plan.media])}::text) FILTER (WHERE w.running <= ${cap})`;
    // A JSON array gets its brackets here: the body then arrives whole, where one joined in JavaScript
    // is copied once more (flattened) to be sent.
    const body = plan.media === 'json' ? `'[' || coalesce(${rows}, '') || ']'` : rows;
    return { text: `SELECT ${body} AS body, count(*) AS page_count, coalesce(max(w.running), 0) AS running${total} FROM (${sized}) w`, values: params.values };
  }
  const text = `SELECT CASE WHEN w.running <= ${cap} THEN w.r END AS r, w.running${total} FROM (${sized}) w`;
  return { text, values: params.values };
}

// The filtered rows alone, for `count=planned` (EXPLAIN), `count=estimated` (counted up to `cap`)
// and `count=exact` when the page is empty (`cap` Infinity).
export function buildCountSql(plan: ReadPlan, cap?: number): Statement {
  const params = new Params();
  const ids = plan.ids ? params.add(plan.ids) : undefined;
  const countAliases = new Aliases();
  const where = [
    whereSql(plan.filters, params, 't', existsOf(params, countAliases)),
    ...presenceSql(plan.select, params, 't', countAliases),
    ...(ids ? [idsMatch(plan, ids)] : []),
  ].join(' AND ');
  const rows = `SELECT 1 FROM ${quoteIdentifier(plan.table)} t WHERE ${where}`;
  if (cap === undefined) return { text: `EXPLAIN (FORMAT JSON) ${rows}`, values: params.values };
  if (cap === Infinity) return { text: `SELECT count(*) AS total FROM (${rows}) c`, values: params.values };
  return { text: `SELECT count(*) AS total FROM (${rows} LIMIT ${params.add(cap + 1)}::bigint) c`, values: params.values };
}
