import type { DateParam } from '../domain/report-query';

// The period's bounds as instants, given the organization's time zone (:tz), :now, :start and :end.
// A date is a whole local day (the end date included), a timestamp without offset a local time.
// Without an end the period ends with today; without a start it is 30 days long.
function startSql(param: DateParam | null): string {
  if (!param) return `(((e.e - interval '1 microsecond') AT TIME ZONE :tz)::date - 29)::timestamp AT TIME ZONE :tz`;
  if (param.kind === 'date') return `:start::date::timestamp AT TIME ZONE :tz`;
  return param.kind === 'local' ? `:start::timestamp AT TIME ZONE :tz` : `:start::timestamptz`;
}

function endSql(param: DateParam | null): string {
  if (!param) return `(((:now::timestamptz AT TIME ZONE :tz)::date + 1)::timestamp AT TIME ZONE :tz)`;
  if (param.kind === 'date') return `(:end::date + 1)::timestamp AT TIME ZONE :tz`;
  return param.kind === 'local' ? `:end::timestamp AT TIME ZONE :tz` : `:end::timestamptz`;
}

export function periodSql(start: DateParam | null, end: DateParam | null): string {
  return `
    WITH e AS (SELECT ${endSql(end)} AS e), b AS (SELECT ${startSql(start)} AS s, e.e FROM e)
    SELECT s, e, s - (e - s) AS ps, e <= s AS reversed, e > s + interval '2 years' AS too_long,
           to_char((s AT TIME ZONE :tz)::date, 'YYYY-MM-DD') AS first_day,
           to_char(((greatest(e, s + interval '1 microsecond') - interval '1 microsecond') AT TIME ZONE :tz)::date, 'YYYY-MM-DD') AS last_day
    FROM b`;
}
