import { Forbidden, isUuid, ValidationFailed } from '@engage/shared-kernel';

// The query string of the analytics endpoints, checked before any SQL runs. Dates are ISO 8601: a
// date (a whole day in the organization's time zone) or a timestamp, with an offset (that instant)
// or without one (a wall-clock time in the organization's time zone).

export const METRIC_TYPES = ['messages', 'response_time', 'sla', 'contacts'] as const;
export type MetricType = (typeof METRIC_TYPES)[number];

export type DateParam = { kind: 'date'; value: string } | { kind: 'local'; value: string } | { kind: 'instant'; value: string };

export interface ReportQuery {
  start: DateParam | null;
  end: DateParam | null;
  metricType: MetricType | null;
  groupByDay: boolean;
  detail: 'conversations' | null;
}

const KNOWN = new Set(['organization_id', 'start_date', 'end_date', 'metric_type', 'group_by', 'detail']);
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,6})?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

const bad = (name: string, message: string) => ValidationFailed('analytics.invalid_parameter', `${name}: ${message}`, { parameter: name });

function validDay(year: string, month: string, day: string): boolean {
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  return date.getUTCFullYear() === Number(year) && date.getUTCMonth() === Number(month) - 1 && date.getUTCDate() === Number(day);
}

export function parseDateParam(name: string, raw: string): DateParam {
  const date = DATE.exec(raw);
  if (date) {
    if (!validDay(date[1], date[2], date[3])) throw bad(name, `${JSON.stringify(raw)} is not a calendar date`);
    return { kind: 'date', value: raw };
  }
  const ts = TIMESTAMP.exec(raw);
  if (!ts) throw bad(name, 'must be an ISO 8601 date (2026-01-31) or timestamp (2026-01-31T09:30:00Z)');
  const [, y, mo, d, h, mi, s, , offset] = ts;
  if (!validDay(y, mo, d) || Number(h) > 23 || Number(mi) > 59 || Number(s ?? 0) > 59) throw bad(name, `${JSON.stringify(raw)} is not a valid time`);
  if (offset && offset.toUpperCase() !== 'Z' && Number(offset.slice(1, 3)) > 15) throw bad(name, 'the offset is out of range');
  return { kind: offset ? 'instant' : 'local', value: raw.replace(' ', 'T') };
}

// `organization_id` may be the bare id or PostgREST's `eq.<id>`; it must be the caller's organization.
export function checkOrganization(raw: unknown, callerOrganizationId: string): void {
  if (raw === undefined) return;
  const value = typeof raw === 'string' && raw.startsWith('eq.') ? raw.slice(3) : raw;
  if (typeof value !== 'string' || !isUuid(value)) throw bad('organization_id', 'must be a UUID');
  if (value !== callerOrganizationId) throw Forbidden('analytics.organization_forbidden', 'organization_id is not your organization');
}

function single(query: Record<string, unknown>, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw bad(name, 'must be given once');
  return value;
}

export function parseReportQuery(query: Record<string, unknown>, callerOrganizationId: string): ReportQuery {
  const unknown = Object.keys(query).filter((key) => !KNOWN.has(key));
  if (unknown.length > 0) throw bad(unknown[0], `unknown parameter; known: ${[...KNOWN].join(', ')}`);
  checkOrganization(single(query, 'organization_id'), callerOrganizationId);
  const start = single(query, 'start_date');
  const end = single(query, 'end_date');
  const metric = single(query, 'metric_type');
  if (metric !== undefined && !(METRIC_TYPES as readonly string[]).includes(metric)) throw bad('metric_type', `must be one of ${METRIC_TYPES.join(', ')}`);
  const groupBy = single(query, 'group_by');
  if (groupBy !== undefined && groupBy !== 'day') throw bad('group_by', 'must be day');
  const detail = single(query, 'detail');
  if (detail !== undefined && detail !== 'conversations') throw bad('detail', 'must be conversations');
  return {
    start: start === undefined ? null : parseDateParam('start_date', start),
    end: end === undefined ? null : parseDateParam('end_date', end),
    metricType: (metric as MetricType | undefined) ?? null,
    groupByDay: groupBy === 'day',
    detail: detail === 'conversations' ? 'conversations' : null,
  };
}

export const periodError = bad;
