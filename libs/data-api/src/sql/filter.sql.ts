import type { Condition, Embed, FieldPath, Filter } from '../parse/plan';
import { quoteIdentifier } from '../registry';
import { Params, SQL_TYPE } from './params';

// The column comes from the registry (quoted); JSON keys are parameters like any value. `alias` is
// the table's alias in the statement: `t` for the requested table, `e1`... for embeds.
export function fieldSql(field: FieldPath, params: Params, alias = 't'): string {
  let sql = `${alias}.${quoteIdentifier(field.column)}`;
  for (const step of field.jsonPath) {
    sql += /^-?\d+$/.test(step.key) ? `${step.arrow}${params.add(Number(step.key))}::int` : `${step.arrow}${params.add(step.key)}::text`;
  }
  return sql;
}

const COMPARISON: Record<string, string> = {
  eq: '=',
  neq: '<>',
  gt: '>',
  gte: '>=',
  lt: '<',
  lte: '<=',
  like: 'LIKE',
  ilike: 'ILIKE',
  match: '~',
  imatch: '~*',
};
const TS_QUERY: Record<string, string> = { fts: 'to_tsquery', plfts: 'plainto_tsquery', phfts: 'phraseto_tsquery', wfts: 'websearch_to_tsquery' };
const IS_SQL: Record<string, string> = { null: 'IS NULL', not_null: 'IS NOT NULL', true: 'IS TRUE', false: 'IS FALSE', unknown: 'IS UNKNOWN' };
const CONTAINMENT: Record<string, string> = { cs: '@>', cd: '<@', ov: '&&' };

function conditionSql(condition: Condition, params: Params, alias: string): string {
  const left = fieldSql(condition.field, params, alias);
  const type = SQL_TYPE[condition.valueType];
  const { operator, value } = condition;
  const textual = operator === 'like' || operator === 'ilike' || operator === 'match' || operator === 'imatch';
  if (condition.quantifier) {
    return `${left} ${COMPARISON[operator]} ${condition.quantifier.toUpperCase()}(${params.add(value)}::${textual ? 'text' : type}[])`;
  }
  if (textual) return `${left} ${COMPARISON[operator]} ${params.add(value)}::text`;
  if (COMPARISON[operator]) return `${left} ${COMPARISON[operator]} ${params.add(value)}::${type}`;
  switch (operator) {
    case 'in':
      return `${left} = ANY(${params.add(value)}::${type}[])`;
    case 'is':
      return `${left} ${IS_SQL[value as string]}`;
    case 'isdistinct':
      return `${left} IS DISTINCT FROM ${params.add(value)}::${type}`;
    case 'cs':
    case 'cd':
    case 'ov':
      return `${left} ${CONTAINMENT[operator]} ${params.add(value)}::${type}`;
    default: {
      // Full text on a text or jsonb column, as PostgREST v13 does for non-tsvector columns.
      const config = condition.ftsConfig === undefined ? '' : `${params.add(condition.ftsConfig)}::regconfig, `;
      return `to_tsvector(${config}${left}) @@ ${TS_QUERY[operator]}(${config}${params.add(value)}::text)`;
    }
  }
}

// Renders `EXISTS (...)` for an embed of the row aliased `parent` (read.sql.ts knows the joins).
export type ExistsSql = (embed: Embed, parent: string) => string;

export function filterSql(filter: Filter, params: Params, alias = 't', exists?: ExistsSql): string {
  let sql: string;
  if (filter.kind === 'condition') sql = conditionSql(filter, params, alias);
  else if (filter.kind === 'logic')
    sql = `(${filter.children.map((child) => filterSql(child, params, alias, exists)).join(filter.operator === 'and' ? ' AND ' : ' OR ')})`;
  else {
    if (!exists) throw new Error('data-api: an embed presence filter needs the embed joins');
    sql = filter.value === 'null' ? `NOT ${exists(filter.embed, alias)}` : exists(filter.embed, alias);
  }
  return filter.negated ? `NOT (${sql})` : sql;
}

export function whereSql(filters: Filter[], params: Params, alias = 't', exists?: ExistsSql): string {
  return filters.length ? filters.map((filter) => filterSql(filter, params, alias, exists)).join(' AND ') : 'TRUE';
}
