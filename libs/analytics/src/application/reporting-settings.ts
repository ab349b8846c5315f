import { type BusinessHours, parseBusinessHours } from '@engage/identity';
import type { Tx } from '@engage/platform';
import { CALENDAR, DUE, type RuleName } from '../infrastructure/response.sql';
import { queryNamed } from '../infrastructure/sql-params';

// The organization settings reports follow (set with the admin CLI's set-setting; identity checks
// them when set): `time_zone` (an IANA name, default UTC), `sla_target_minutes` (default 60) and
// `business_hours` (absent: every hour counts).
export interface ReportingSettings {
  timeZone: string;
  targetMinutes: number;
  hours: BusinessHours | null;
  // What response seconds were computed under: the time zone and schedule with business hours,
  // null without (the rollups record it, so a report never mixes schedules).
  schedule: string | null;
}

export const DEFAULT_REPORTING: ReportingSettings = { timeZone: 'UTC', targetMinutes: 60, hours: null, schedule: null };

// A port: the composition reads them through identity's OrganizationSettings, in one read.
export type ReadSettings = (organizationId: string, keys: string[]) => Promise<(string | null)[]>;

export async function reportingSettings(read: ReadSettings, organizationId: string): Promise<ReportingSettings> {
  const [zone, target, stored] = await read(organizationId, ['time_zone', 'sla_target_minutes', 'business_hours']);
  const minutes = Number(target);
  const timeZone = zone ?? DEFAULT_REPORTING.timeZone;
  const hours = stored === null ? null : businessHours(stored);
  return {
    timeZone,
    targetMinutes: Number.isInteger(minutes) && minutes > 0 ? minutes : DEFAULT_REPORTING.targetMinutes,
    hours,
    schedule: hours ? JSON.stringify([timeZone, hours]) : null,
  };
}

// Checked when set; a value stored otherwise and not valid counts as absent, as the other settings' do.
function businessHours(stored: string): BusinessHours | null {
  try {
    return parseBusinessHours(stored);
  } catch {
    return null;
  }
}

export const ruleOf = (settings: ReportingSettings): RuleName => (settings.hours ? 'business' : 'every');

// The statements' response parameters: the target, the time zone, :due (null: none is past), and
// with business hours the schedule.
export function responseValues(settings: ReportingSettings, due: Date | null): Record<string, unknown> {
  const values = { target: `${settings.targetMinutes} minutes`, tz: settings.timeZone, due: due ?? '-infinity' };
  return settings.hours ? { ...values, hours: JSON.stringify(settings.hours) } : values;
}

// The instant before which an unanswered customer message is past the target at `now`: the target
// before now, or with business hours the target's business seconds before now (response.sql.ts,
// DUE), looking back no further than `since` (null: no message since then is past the target).
export async function dueAt(tx: Tx, settings: ReportingSettings, now: Date, since: Date): Promise<Date | null> {
  if (!settings.hours) return new Date(now.getTime() - settings.targetMinutes * 60_000);
  const [row] = await queryNamed<{ due: Date | null }>(tx, DUE, { ...responseValues(settings, null), now, since });
  return row.due;
}

// With business hours, the calendar of open intervals from `since` to `until` the statements count
// response seconds with (response.sql.ts, CALENDAR); nothing without.
export async function calendar(tx: Tx, settings: ReportingSettings, since: Date, until: Date): Promise<Record<string, unknown>> {
  if (!settings.hours) return {};
  const [row] = await queryNamed<Record<string, unknown>>(tx, CALENDAR, { ...responseValues(settings, null), since, until });
  return { ...row, cal_from: since, cal_to: until };
}

// Every response parameter of a report over messages from `since`, judged at `now`.
export async function reportValues(tx: Tx, settings: ReportingSettings, now: Date, since: Date): Promise<Record<string, unknown>> {
  const due = await dueAt(tx, settings, now, since);
  return { ...responseValues(settings, due), ...(await calendar(tx, settings, since, now)) };
}
