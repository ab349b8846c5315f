import { type Filter, Params, parseReadRequest, whereSql } from '@engage/data-api';
import type { Tx } from '@engage/platform';
import { isDomainError, ValidationFailed } from '@engage/shared-kernel';
import { parseDateParam } from '../domain/report-query';
import type { WidgetConfig, WidgetType } from '../domain/widget-config';
import { DUE } from '../infrastructure/response.sql';
import { BUILT_INS, WIDGET_SOURCES } from '../infrastructure/widget-sources';
import { resolvePeriod } from './report-period';
import { calendar, type ReportingSettings, ruleOf } from './reporting-settings';

// A widget's filters, parsed by the data API's own parser against the allow-listed source (no
// registry: no embedding). An unknown column or a bad operator is a 400 naming it.
export function widgetFilters(table: string, query: string | undefined): Filter[] {
  if (!query) return [];
  try {
    return parseReadRequest(WIDGET_SOURCES[table].definition, { method: 'GET', table, query, headers: {} }).filters;
  } catch (error) {
    if (!isDomainError(error)) throw error;
    throw ValidationFailed('widget.invalid_query', `widget_config.query: ${error.message}`, { field: 'widget_config.query', table });
  }
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

// A widget's value as a scalar subquery: one aggregate over its allow-listed source, with its
// filters (parsed by the data API's grammar) and range; every value is a parameter in `params`.
async function valueSql(tx: Tx, params: Params, widget: WidgetSpec, settings: ReportingSettings, now: Date): Promise<string> {
  const { type, config } = widget;
  const builtIn = type === 'custom' ? null : BUILT_INS[type];
  const table = builtIn?.table ?? (config.table as string);
  const source = WIDGET_SOURCES[table];
  const aggregation = builtIn?.aggregation ?? config.aggregation ?? 'Count';
  const column = builtIn?.column ?? config.column;
  const time = builtIn ? builtIn.time : (config.date_column ?? source.defaultTime);
  const range = time ? await rangeSql(tx, params, config, settings, now) : null;
  // With business hours, :due is computed by the statement (an uncorrelated subquery, run once),
  // looking back to the range's start when it ranges over created_at (an unanswered message has no
  // first_reply_at to range over, so another time column needs no look-back).
  let from = source.from[ruleOf(settings)];
  if (from.includes(':due')) from = from.replace(/(?<!:):due\b/g, `(${DUE.replace(/(?<!:):since\b/g, range && time === 'created_at' ? range.start : ':now')})`);
  // The calendar response seconds are counted with: from the custom range's start, or a month and a
  // day back (every named range starts later); a message outside it is counted by the function.
  const since = async () =>
    config.date_range === 'Custom Range' ? (await widgetRange(tx, config, settings, now)).start : new Date(now.getTime() - 32 * 86400_000);
  const days = from.includes(':starts') ? await calendar(tx, settings, await since(), now) : {};
  from = bind(from, params, { target: `${settings.targetMinutes} minutes`, now, tz: settings.timeZone, hours: JSON.stringify(settings.hours), ...days });
  const filters = [...widgetFilters(table, builtIn?.filter), ...widgetFilters(table, config.query)];
  const conditions = [whereSql(filters, params, 't')];
  if (range) conditions.push(`t."${time}" >= ${range.start} AND t."${time}" < ${range.end}`);
  const target_ = column ? `t."${column}"` : '*';
  const aggregate = aggregation === 'Count' ? `count(${target_})` : `round(${AGGREGATE[aggregation]}(${target_})::numeric, 2)`;
  const value = aggregation === 'Sum' ? `coalesce(${aggregate}, 0)` : aggregate;
  return `SELECT (${value})::float8 FROM (${from}) t WHERE ${conditions.join(' AND ')}`;
}

// The widgets' values in one statement (one round trip, one snapshot), under the caller's
// row-level security, in the order given.
export async function widgetValues(tx: Tx, widgets: WidgetSpec[], settings: ReportingSettings, now: Date): Promise<(number | null)[]> {
  if (widgets.length === 0) return [];
  const params = new Params();
  const columns: string[] = [];
  for (const [i, widget] of widgets.entries()) columns.push(`(${await valueSql(tx, params, widget, settings, now)}) AS v${i}`);
  const [row] = await tx.query<Record<string, number | null>>(`SELECT ${columns.join(', ')}`, params.values);
  return widgets.map((_, i) => row[`v${i}`]);
}
