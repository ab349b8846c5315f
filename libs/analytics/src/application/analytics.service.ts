import { Readable } from 'node:stream';
import type { Database, Tx } from '@engage/platform';
import type { Clock, RequestContext } from '@engage/shared-kernel';
import { periodError, type ReportQuery } from '../domain/report-query';
import { csvLine } from '@engage/crm';
import { CONVERSATION_DETAIL_PAGE, DEALS, DEALS_BY_DAY } from '../infrastructure/deals.sql';
import { ROLLUP_INBOX, ROLLUP_INBOX_BY_DAY, ROLLUP_METRICS, ROLLUP_METRICS_BY_DAY } from '../infrastructure/report.sql';
import type { RuleName } from '../infrastructure/response.sql';
import { queryNamed } from '../infrastructure/sql-params';
import { type ReportPeriod, resolvePeriod } from './report-period';
import { coverage } from './rollup-coverage';
import { type ReadSettings, type ReportingSettings, reportingSettings, reportValues, ruleOf } from './reporting-settings';

export type Report = 'metrics' | 'inbox' | 'deals';
type Row = Record<string, unknown>;

type Statements = Record<RuleName, string>;
const SUMMARY: Record<Report, { sql: Statements; key: string }> = {
  metrics: { sql: ROLLUP_METRICS, key: 'metrics' },
  inbox: { sql: ROLLUP_INBOX, key: 'inbox_metrics' },
  deals: { sql: { every: DEALS, business: DEALS }, key: 'deals_metrics' },
};
const BY_DAY: Record<Report, Statements> = {
  metrics: ROLLUP_METRICS_BY_DAY,
  inbox: ROLLUP_INBOX_BY_DAY,
  deals: { every: DEALS_BY_DAY, business: DEALS_BY_DAY },
};
// The series column each metric_type narrows the CSV to (besides the date).
const METRIC_COLUMNS: Record<string, string[]> = {
  messages: ['total_messages'],
  response_time: ['average_response_time'],
  sla: ['sla_compliance'],
  contacts: ['total_contacts'],
};
export const DETAIL_PAGE_ROWS = 500;
const DETAIL_COLUMNS = [
  'conversation_id',
  'channel_kind',
  'status',
  'assignee_id',
  'created_at',
  'resolved_at',
  'customer_messages',
  'agent_messages',
  'average_response_time',
  'sla_met',
  'sla_missed',
];

// The analytics endpoints' figures (docs/analytics.md), each one SQL statement over the published
// views (metrics and inbox also over the rollups, rollup-coverage.ts), in the caller's tenant transaction.
export class AnalyticsService {
  constructor(
    private readonly db: Database,
    private readonly readSettings: ReadSettings,
    private readonly clock: Clock,
  ) {}

  async report(ctx: RequestContext, report: Report, query: ReportQuery): Promise<Row> {
    if (query.detail) throw periodError('detail', 'detail=conversations is a CSV export: send Accept: text/csv');
    const settings = await reportingSettings(this.readSettings, ctx.organizationId);
    const rule = ruleOf(settings);
    return this.db.inTenant(ctx, async (tx) => {
      const period = await resolvePeriod(tx, query, settings.timeZone, this.clock.now());
      const values = await this.values(tx, period, settings);
      const [summary] = await run(tx, SUMMARY[report].sql[rule], await withCoverage(tx, report, values, period, settings, false));
      const answer: Row = { [SUMMARY[report].key]: shape(report, summary) };
      if (query.groupByDay) answer.series = await run(tx, BY_DAY[report][rule], await withCoverage(tx, report, values, period, settings, true));
      return answer;
    });
  }

  // The daily series as CSV (or one row per conversation with `detail=conversations`), checked
  // and resolved before the first byte is sent, so a bad parameter is still a clear 400.
  async csv(ctx: RequestContext, report: Report, query: ReportQuery): Promise<Readable> {
    const settings = await reportingSettings(this.readSettings, ctx.organizationId);
    const rule = ruleOf(settings);
    const { period, values } = await this.db.inTenant(ctx, async (tx) => {
      const resolved = await resolvePeriod(tx, query, settings.timeZone, this.clock.now());
      return { period: resolved, values: await this.values(tx, resolved, settings) };
    });
    if (query.detail) {
      if (report === 'deals') throw periodError('detail', 'detail=conversations is an export of metrics or inbox');
      return Readable.from(this.detailLines(ctx, CONVERSATION_DETAIL_PAGE[rule], values));
    }
    const rows = await this.db.inTenant(ctx, async (tx) => run(tx, BY_DAY[report][rule], await withCoverage(tx, report, values, period, settings, true)));
    const columns = query.metricType && report === 'metrics' ? ['date', ...METRIC_COLUMNS[query.metricType]] : Object.keys(rows[0] ?? { date: null });
    return Readable.from([csvLine(columns), ...rows.map((row) => csvLine(columns.map((column) => row[column])))]);
  }

  private async *detailLines(ctx: RequestContext, sql: string, values: Row): AsyncGenerator<string> {
    yield csvLine(DETAIL_COLUMNS);
    let after = '00000000-0000-0000-0000-000000000000';
    for (;;) {
      const page = await this.db.inTenant(ctx, (tx) => run(tx, sql, { ...values, after, limit: DETAIL_PAGE_ROWS }));
      const lines = page.filter((row) => row.active).map((row) => csvLine(DETAIL_COLUMNS.map((column) => cell(row[column]))));
      if (lines.length > 0) yield lines.join('');
      if (page.length < DETAIL_PAGE_ROWS) return;
      after = page[page.length - 1].conversation_id as string;
    }
  }

  // The period's parameters; :due is fixed once (at the report's now), so every statement of the
  // report, and each page of an export, judges the same messages past the target.
  private async values(tx: Tx, period: ReportPeriod, settings: ReportingSettings): Promise<Row> {
    return {
      start: period.start,
      end: period.end,
      prev: period.previousStart,
      now: period.now,
      first: period.firstDay,
      last: period.lastDay,
      ...(await reportValues(tx, settings, period.now, period.previousStart)),
    };
  }
}

// Metrics span the previous period too; by day, local midnights are boundaries as well.
async function withCoverage(tx: Tx, report: Report, values: Row, period: ReportPeriod, settings: ReportingSettings, byDay: boolean): Promise<Row> {
  if (report === 'deals') return values;
  const bounds = report === 'metrics' && !byDay ? [period.previousStart, period.start, period.end] : [period.start, period.end];
  const days = byDay ? { tz: period.timeZone, first: period.firstDay, last: period.lastDay } : undefined;
  const input = { bounds, due: values.due instanceof Date ? values.due : null, targetMinutes: settings.targetMinutes, schedule: settings.schedule, days };
  return { ...values, ...(await coverage(tx, input)) };
}

function run(tx: Tx, sql: string, values: Row): Promise<Row[]> {
  return queryNamed<Row>(tx, sql, values);
}

const cell = (value: unknown) => (value instanceof Date ? value.toISOString() : value);

function shape(report: Report, row: Row): Row {
  if (report !== 'metrics') return row;
  const { messages_change, response_time_change, sla_change, contacts_change, ...figures } = row;
  return { ...figures, period_comparison: { messages_change, response_time_change, sla_change, contacts_change } };
}
