import type { Tx } from '@engage/platform';
import { periodError, type ReportQuery } from '../domain/report-query';
import { periodSql } from '../infrastructure/period.sql';
import { queryNamed } from '../infrastructure/sql-params';

// A resolved period: [start, end) and the previous one of equal length [previousStart, start), in
// the organization's time zone, whose local days run from firstDay to lastDay.
export interface ReportPeriod {
  start: Date;
  end: Date;
  previousStart: Date;
  timeZone: string;
  firstDay: string;
  lastDay: string;
  now: Date;
}

const MAX_RANGE = '2 years';

export async function resolvePeriod(tx: Tx, query: Pick<ReportQuery, 'start' | 'end'>, timeZone: string, now: Date): Promise<ReportPeriod> {
  const sql = periodSql(query.start, query.end);
  const all = { tz: timeZone, now, start: query.start?.value, end: query.end?.value };
  const values = Object.fromEntries(Object.entries(all).filter(([name]) => sql.includes(`:${name}`)));
  const [row] = await queryNamed<{ s: Date; e: Date; ps: Date; reversed: boolean; too_long: boolean; first_day: string; last_day: string }>(tx, sql, values);
  if (row.reversed) throw periodError('end_date', 'must be after start_date');
  if (row.too_long) throw periodError('end_date', `the period may span at most ${MAX_RANGE}`);
  return { start: row.s, end: row.e, previousStart: row.ps, timeZone, firstDay: row.first_day, lastDay: row.last_day, now };
}
