import { asPostgrestError, type Filter, normalizePlan, Params, parseReadRequest, whereSql } from '@engage/data-api';
import type { Tx } from '@engage/platform';
import { isDomainError, ValidationFailed } from '@engage/shared-kernel';
import { parseDateParam } from '../domain/report-query';
import { parseWidgetConfig, type WidgetConfig, type WidgetType } from '../domain/widget-config';
import { DUE } from '../infrastructure/response.sql';
import { BUILT_INS, sourceSql, type WidgetSource } from '../infrastructure/widget-sources';
import { resolvePeriod } from './report-period';
import { calendar, type ReportingSettings, ruleOf } from './reporting-settings';

// A widget's filters, parsed by the data API's own parser against the member's columns of the table
// (no registry: no embedding), their values normalised as the data API normalises them (a phone
// number to E.164). An unknown column or a bad operator is a 400 naming it.
export async function widgetFilters(tx: Tx, source: WidgetSource, query: string | undefined): Promise<Filter[]> {
  if (!query) return [];
  try {
    const plan = parseReadRequest(source.definition, { method: 'GET', table: source.table, query, headers: {} });
    await normalizePlan(tx, { tables: new Map([[source.table, source.definition]]) }, plan);
    return plan.filters;
  } catch (error) {
    if (!isDomainError(error)) throw error;
    throw ValidationFailed('widget.invalid_query', `widget_config.query: ${error.message}`, { field: 'widget_config.query', table: source.table });
  }
}

// Every column a filter tree names.
export function filterColumns(filters: Filter[], into: string[] = []): string[] {
  for (const filter of filters) {
    if (filter.kind === 'condition') into.push(filter.field.column);
    else if (filter.kind === 'logic') filterColumns(filter.children, into);
  }
  return into;
}

const RANGES: Record<string, { unit: string; shift: string; length: string }> = {
  Today: { unit: 'day', shift: '0 days', length: '1 day' },
  Yesterday: { unit: 'day', shift: '-1 day', length: '1 day' },
  'This Week': { unit: 'week', shift: '0 days', length: '7 days' },
  'This Month': { unit: 'month', shift: '0 days', length: '1 month' },
};
// The start of a named range as local time in the organization's time zone (weeks start on Monday).
const localStart = (p: Record<string, string>) => `date_trunc(${p.unit}::text, ${p.now}::timestamptz AT TIME ZONE ${p.tz}::text) + ${p.shift}::interval`;

// [start, end) of a date range as SQL expressions of parameters: a named range is computed by the
// statement itself (no round trip, and a stable expression the time column's index can range over);
// a custom range is resolved first, as the reports resolve theirs.
async function rangeSql(tx: Tx, params: Params, config: WidgetConfig, settings: ReportingSettings, now: Date): Promise<{ start: string; end: string }> {
  if (config.date_range === 'Custom Range') {
    const range = await widgetRange(tx, config, settings, now);
    return { start: `${params.add(range.start)}::timestamptz`, end: `${params.add(range.end)}::timestamptz` };
  }
  const { unit, shift, length } = RANGES[config.date_range];
  const p = { unit: params.add(unit), now: params.add(now), tz: params.add(settings.timeZone), shift: params.add(shift) };
  const start = localStart(p);
  return { start: `((${start}) AT TIME ZONE ${p.tz}::text)`, end: `((${start} + ${params.add(length)}::interval) AT TIME ZONE ${p.tz}::text)` };
}

// [start, end) of a custom date range, checked (a bad or reversed date is a 400).
export async function widgetRange(tx: Tx, config: WidgetConfig, settings: ReportingSettings, now: Date): Promise<{ start: Date; end: Date }> {
  const query = { start: parseDateParam('start_date', config.start_date as string), end: parseDateParam('end_date', config.end_date as string) };
  const period = await resolvePeriod(tx, query, settings.timeZone, now);
  return { start: period.start, end: period.end };
}

// Only the placeholders the text uses become parameters (an unused one would have no type).
function bind(sql: string, params: Params, values: Record<string, unknown>): string {
  let text = sql;
  for (const [name, value] of Object.entries(values)) {
    const placeholder = new RegExp(`(?<!:):${name}\\b`, 'g');
    if (placeholder.test(text)) text = text.replace(placeholder, params.add(value));
  }
  return text;
}

const AGGREGATE = { Count: 'count', Sum: 'sum', Average: 'avg', Min: 'min', Max: 'max' } as const;

export interface WidgetSpec {
  type: WidgetType;
  config: WidgetConfig;
}

// What one widget computes: its table as the member sees it, its filters (the built-in's and the
// config's query), aggregate, column and time column. A stored config is checked again against the
// member's columns (a role may have lost one since it was saved).
export interface WidgetPlan {
  config: WidgetConfig;
  source: WidgetSource;
  filters: Filter[];
  // The config's own query, parsed (the part a member wrote).
  query: Filter[];
  aggregation: keyof typeof AGGREGATE;
  column?: string;
  time: string | null;
}

export async function widgetPlan(tx: Tx, widget: WidgetSpec, sources: Readonly<Record<string, WidgetSource>>): Promise<WidgetPlan> {
  const config = parseWidgetConfig(widget.type, widget.config, sources);
  const builtIn = widget.type === 'custom' ? null : BUILT_INS[widget.type];
  const source = sources[builtIn?.table ?? (config.table as string)];
  const query = await widgetFilters(tx, source, config.query);
  return {
    config,
    source,
    filters: [...(await widgetFilters(tx, source, builtIn?.filter)), ...query],
    query,
    aggregation: builtIn?.aggregation ?? config.aggregation ?? 'Count',
    column: builtIn?.column ?? config.column,
    time: builtIn ? builtIn.time : (config.date_column ?? source.defaultTime),
  };
}

// A widget's value as a scalar subquery: one aggregate over its source, with its filters (the data
// API's SQL for them) and range; every value is a parameter in `params`.
export async function valueSql(tx: Tx, params: Params, plan: WidgetPlan, settings: ReportingSettings, now: Date): Promise<string> {
  const { config, source, aggregation, column, time } = plan;
  const range = time ? await rangeSql(tx, params, config, settings, now) : null;
  const named = [...filterColumns(plan.filters), ...(column ? [column] : []), ...(time ? [time] : [])];
  // With business hours, :due is computed by the statement (an uncorrelated subquery, run once),
  // looking back to the range's start when it ranges over created_at (an unanswered message has no
  // first_reply_at to range over, so another time column needs no look-back).
  let from = sourceSql(source, named, ruleOf(settings));
  if (from.includes(':due')) from = from.replace(/(?<!:):due\b/g, `(${DUE.replace(/(?<!:):since\b/g, range && time === 'created_at' ? range.start : ':now')})`);
  // The calendar response seconds are counted with: from the custom range's start, or a month and a
  // day back (every named range starts later); a message outside it is counted by the function.
  const since = async () =>
    config.date_range === 'Custom Range' ? (await widgetRange(tx, config, settings, now)).start : new Date(now.getTime() - 32 * 86400_000);
  const days = from.includes(':starts') ? await calendar(tx, settings, await since(), now) : {};
  from = bind(from, params, { target: `${settings.targetMinutes} minutes`, now, tz: settings.timeZone, hours: JSON.stringify(settings.hours), ...days });
  const conditions = [whereSql(plan.filters, params, 't')];
  if (range) conditions.push(`t."${time}" >= ${range.start} AND t."${time}" < ${range.end}`);
  const target = column ? `t."${column}"` : '*';
  const aggregate = aggregation === 'Count' ? `count(${target})` : `round(${AGGREGATE[aggregation]}(${target})::numeric, 2)`;
  const value = aggregation === 'Sum' ? `coalesce(${aggregate}, 0)` : aggregate;
  return `SELECT (${value})::float8 FROM (${from}) t WHERE ${conditions.join(' AND ')}`;
}

export interface WidgetError {
  code: string;
  message: string;
}

export interface WidgetOutcome {
  value: number | null;
  error: WidgetError | null;
}

// A widget's own failure, as the data API answers it (a stored config the member's columns no
// longer allow, a PostgreSQL error of the request's doing, recognised by SQLSTATE: an invalid
// regular expression, a value out of range...); undefined for anything else (PostgreSQL
// unavailable, a statement timeout, a bug), which fails the request.
export function widgetError(error: unknown): WidgetError | undefined {
  const mapped = asPostgrestError(error);
  if (!isDomainError(mapped) || mapped.kind === 'unavailable') return undefined;
  return { code: mapped.code, message: mapped.message };
}

// The widgets' values in one statement (one round trip, one snapshot), under the caller's
// row-level security, in the order given. A widget whose config no longer parses for the member
// answers its error and a null value. Should the statement fail, it is undone (to a savepoint, so
// the transaction goes on) and each widget is computed alone: a failing one answers its error, the
// others their values.
export async function widgetValues(
  tx: Tx,
  widgets: WidgetSpec[],
  sources: Readonly<Record<string, WidgetSource>>,
  settings: ReportingSettings,
  now: Date,
): Promise<WidgetOutcome[]> {
  const outcomes: WidgetOutcome[] = [];
  const plans: [number, WidgetPlan][] = [];
  for (const [i, widget] of widgets.entries()) {
    try {
      plans.push([i, await widgetPlan(tx, widget, sources)]);
    } catch (error) {
      // Only the config's own errors here: a PostgreSQL one has aborted the transaction.
      const failure = isDomainError(error) ? widgetError(error) : undefined;
      if (!failure) throw error;
      outcomes[i] = { value: null, error: failure };
    }
  }
  if (plans.length === 0) return outcomes;
  // Left open on success until the transaction ends (releasing it would cost a round trip).
  await tx.query('SAVEPOINT widget_values');
  try {
    const params = new Params();
    const columns: string[] = [];
    for (const [n, [, plan]] of plans.entries()) columns.push(`(${await valueSql(tx, params, plan, settings, now)}) AS v${n}`);
    const [row] = await tx.query<Record<string, number | null>>(`SELECT ${columns.join(', ')}`, params.values);
    for (const [n, [i]] of plans.entries()) outcomes[i] = { value: row[`v${n}`], error: null };
  } catch (error) {
    if (!widgetError(error)) throw error;
    await tx.query('ROLLBACK TO SAVEPOINT widget_values');
    for (const [i, plan] of plans) outcomes[i] = await oneValue(tx, plan, settings, now);
  }
  return outcomes;
}

async function oneValue(tx: Tx, plan: WidgetPlan, settings: ReportingSettings, now: Date): Promise<WidgetOutcome> {
  await tx.query('SAVEPOINT widget_value');
  try {
    const params = new Params();
    const sql = await valueSql(tx, params, plan, settings, now);
    const [row] = await tx.query<{ v: number | null }>(`SELECT (${sql}) AS v`, params.values);
    await tx.query('RELEASE SAVEPOINT widget_value');
    return { value: row.v, error: null };
  } catch (error) {
    const failure = widgetError(error);
    if (!failure) throw error;
    await tx.query('ROLLBACK TO SAVEPOINT widget_value');
    await tx.query('RELEASE SAVEPOINT widget_value');
    return { value: null, error: failure };
  }
}
