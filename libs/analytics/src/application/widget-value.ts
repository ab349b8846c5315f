import { type Filter, Params, parseReadRequest, whereSql } from '@engage/data-api';
import type { Tx } from '@engage/platform';
import { isDomainError, ValidationFailed } from '@engage/shared-kernel';
import { parseDateParam } from '../domain/report-query';
import type { WidgetConfig, WidgetType } from '../domain/widget-config';
import { queryNamed } from '../infrastructure/sql-params';
import { BUILT_INS, WIDGET_SOURCES } from '../infrastructure/widget-sources';
import { resolvePeriod } from './report-period';
import type { ReportingSettings } from './reporting-settings';

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
const RANGE_SQL = `
  WITH l AS (SELECT date_trunc(:unit, :now::timestamptz AT TIME ZONE :tz) + :shift::interval AS s)
  SELECT s AT TIME ZONE :tz AS s, (s + :length::interval) AT TIME ZONE :tz AS e FROM l`;

// [start, end) of a date range in the organization's time zone (weeks start on Monday).
export async function widgetRange(tx: Tx, config: WidgetConfig, settings: ReportingSettings, now: Date): Promise<{ start: Date; end: Date }> {
  if (config.date_range === 'Custom Range') {
    const query = { start: parseDateParam('start_date', config.start_date as string), end: parseDateParam('end_date', config.end_date as string) };
    const period = await resolvePeriod(tx, query, settings.timeZone, now);
    return { start: period.start, end: period.end };
  }
  const [row] = await queryNamed<{ s: Date; e: Date }>(tx, RANGE_SQL, { ...RANGES[config.date_range], now, tz: settings.timeZone });
  return { start: row.s, end: row.e };
}

const AGGREGATE = { Count: 'count', Sum: 'sum', Average: 'avg', Min: 'min', Max: 'max' } as const;

// The widget's value: one aggregate over its source under the caller's row-level security.
export async function widgetValue(tx: Tx, type: WidgetType, config: WidgetConfig, settings: ReportingSettings, now: Date): Promise<number | null> {
  const builtIn = type === 'custom' ? null : BUILT_INS[type];
  const table = builtIn?.table ?? (config.table as string);
  const source = WIDGET_SOURCES[table];
  const aggregation = builtIn?.aggregation ?? config.aggregation ?? 'Count';
  const column = builtIn?.column ?? config.column;
  const time = builtIn ? builtIn.time : (config.date_column ?? source.defaultTime);
  const params = new Params();
  // Only the placeholders the source uses become parameters (an unused one would have no type).
  let from = source.from;
  if (from.includes(':target')) from = from.replace(/:target\b/g, params.add(`${settings.targetMinutes} minutes`));
  if (from.includes(':now')) from = from.replace(/:now\b/g, params.add(now));
  const filters = [...widgetFilters(table, builtIn?.filter), ...widgetFilters(table, config.query)];
  const conditions = [whereSql(filters, params, 't')];
  if (time) {
    const range = await widgetRange(tx, config, settings, now);
    conditions.push(`t."${time}" >= ${params.add(range.start)}::timestamptz AND t."${time}" < ${params.add(range.end)}::timestamptz`);
  }
  const target_ = column ? `t."${column}"` : '*';
  const aggregate = aggregation === 'Count' ? `count(${target_})` : `round(${AGGREGATE[aggregation]}(${target_})::numeric, 2)`;
  const value = aggregation === 'Sum' ? `coalesce(${aggregate}, 0)` : aggregate;
  const sql = `SELECT (${value})::float8 AS value FROM (${from}) t WHERE ${conditions.join(' AND ')}`;
  const [row] = await tx.query<{ value: number | null }>(sql, params.values);
  return row.value;
}
