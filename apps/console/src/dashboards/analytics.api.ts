import { callApi } from '../api/functions';
import { downloadCsv } from '../ui/download';

// The reporting endpoints (docs/analytics.md, "Endpoints"): figures of a period with their daily
// series; metrics also compare with the period of equal length just before.
export interface Period {
  start: string;
  end: string;
}

export interface MetricsDay {
  date: string;
  total_messages: number;
  average_response_time: string | null;
  sla_compliance: number | null;
  total_contacts: number;
}
export interface MetricsReport {
  metrics: {
    total_messages: number;
    average_response_time: string | null;
    sla_compliance: number | null;
    total_contacts: number;
    period_comparison: { messages_change: number | null; response_time_change: number | null; sla_change: number | null; contacts_change: number | null };
  };
  series: MetricsDay[];
}

export interface DealsDay {
  date: string;
  new_deals: number;
  deals_won: number;
  deals_lost: number;
  won_value: number | string;
  conversion_rate: number | null;
}
export interface DealsReport {
  deals_metrics: { active_deals_count: number; pipeline_value: number | string; conversion_rate: number | null; stage_distribution: Record<string, number> };
  series?: DealsDay[];
}

const query = (period: Period, extra = '') => `start_date=${period.start}&end_date=${period.end}${extra}`;

export const metricsReport = (period: Period) => callApi<MetricsReport>(`/rest/v1/analytics/metrics?${query(period, '&group_by=day')}`);
export const dealsReport = (period: Period, byDay: boolean) => callApi<DealsReport>(`/rest/v1/analytics/deals?${query(period, byDay ? '&group_by=day' : '')}`);

// The API's own CSV of a daily series (metrics narrowed to one figure by metric_type).
export const downloadMetricCsv = (period: Period, metric: 'messages' | 'response_time' | 'sla') =>
  downloadCsv(`/rest/v1/analytics/metrics?${query(period, `&metric_type=${metric}`)}`, `${metric}-${period.start}-${period.end}.csv`);
export const downloadDealsCsv = (period: Period) => downloadCsv(`/rest/v1/analytics/deals?${query(period)}`, `deals-${period.start}-${period.end}.csv`);

// Dates as the API reads them (a whole local day each, the end included).
const day = (date: Date) => date.toISOString().slice(0, 10);
const shift = (date: string, days: number) => {
  const value = new Date(`${date}T00:00:00Z`);
  value.setUTCDate(value.getUTCDate() + days);
  return day(value);
};
export const daysIn = (period: Period) => Math.round((Date.parse(`${period.end}T00:00:00Z`) - Date.parse(`${period.start}T00:00:00Z`)) / 86_400_000) + 1;

// The last `days` days up to today (the browser's date).
export function lastDays(days: number, today = new Date()): Period {
  const end = day(new Date(Date.UTC(today.getFullYear(), today.getMonth(), today.getDate())));
  return { start: shift(end, 1 - days), end };
}

// The period of equal length just before, as the API compares metrics with.
export const previousOf = (period: Period): Period => ({ start: shift(period.start, -daysIn(period)), end: shift(period.start, -1) });

// A change in percent with two decimals, as the API writes period_comparison; null against 0 or nothing.
export function percentChange(current: number | null, previous: number | null): number | null {
  if (current === null || previous === null || previous === 0) return null;
  return Math.round(((current - previous) / previous) * 10_000) / 100;
}
