import { type Condition, type Filter, Params, whereSql } from '@engage/data-api';
import type { Tx } from '@engage/platform';
import { isDomainError, ValidationFailed } from '@engage/shared-kernel';
import type { ReportingSettings } from './reporting-settings';
import { valueSql, widgetError, type WidgetPlan } from './widget-value';

// When a widget is saved: a query that cannot run is refused with a 400 naming the problem, so a
// stored widget computes. Parsing (the data API's parser) has checked columns, operators and typed
// values; this checks what only running can tell:
// - each pattern operand on its own (a regular expression of match/imatch, a text search query and
//   configuration of fts...), evaluated against one empty text, so an invalid one fails whether or
//   not any row would reach it (PostgreSQL compiles a pattern only when a row is compared with it);
// - a LIKE pattern ending with its escape character (PostgreSQL finds it only while matching a row);
// - the widget's value itself, computed once over the member's rows in their transaction.
// A PostgreSQL failure is told by its SQLSTATE (as the data API answers it), never by its text.
export async function checkWidget(tx: Tx, plan: WidgetPlan, settings: ReportingSettings, now: Date): Promise<void> {
  const field = plan.query.length > 0 ? 'widget_config.query' : 'widget_config';
  const conditions = conditionsOf(plan.filters);
  for (const condition of conditions) checkLikePattern(field, condition);
  const params = new Params();
  const operands = conditions.flatMap(patternOperands).map((condition, i) => `(${whereSql([condition], params, 'o')}) AS p${i}`);
  try {
    const value = await valueSql(tx, params, plan, settings, now);
    await tx.query(`SELECT ${[...operands, `(${value}) AS v`].join(', ')} FROM (SELECT ''::text AS "x") o`, params.values);
  } catch (error) {
    if (isDomainError(error)) throw error;
    const failure = widgetError(error);
    if (!failure) throw error;
    throw ValidationFailed('widget.invalid_query', `${field} cannot run: ${failure.message}`, { field, sqlstate: failure.code });
  }
}

function conditionsOf(filters: Filter[], into: Condition[] = []): Condition[] {
  for (const filter of filters) {
    if (filter.kind === 'condition') into.push(filter);
    else if (filter.kind === 'logic') conditionsOf(filter.children, into);
  }
  return into;
}

const PATTERNS = new Set(['match', 'imatch', 'fts', 'plfts', 'phfts', 'wfts']);

// A pattern condition as the same condition on the one-row text `o.x`, once per item of a quantified
// list (`match(any).{a,b}` stops at the first match, so a later item would not be compiled).
function patternOperands(condition: Condition): Condition[] {
  if (!PATTERNS.has(condition.operator)) return [];
  const on = { ...condition, field: { column: 'x', jsonPath: [] }, valueType: 'text' as const, negated: false, quantifier: undefined };
  if (typeof condition.value === 'string') return [{ ...on, value: condition.value }];
  return condition.value.flatMap((item) => (item === null ? [] : [{ ...on, value: item }]));
}

// PostgreSQL's LIKE takes `\` as its escape character: a pattern may not end with an unpaired one.
function checkLikePattern(field: string, condition: Condition): void {
  if (condition.operator !== 'like' && condition.operator !== 'ilike') return;
  for (const pattern of typeof condition.value === 'string' ? [condition.value] : condition.value) {
    if (pattern === null) continue;
    for (let i = 0; i < pattern.length; i++) {
      if (pattern[i] !== '\\') continue;
      if (i === pattern.length - 1) {
        const what = `the ${condition.operator} pattern on ${condition.field.column}`;
        throw ValidationFailed('widget.invalid_query', `${field}: ${what} ends with its escape character \\ (write \\\\ for a backslash)`, { field });
      }
      i++;
    }
  }
}
