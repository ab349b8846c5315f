import { WEEKDAYS } from './catalogue';

// Seven days, Monday first, each a sorted list of [start, end) in minutes after local midnight
// (identity's parsed `business_hours` setting).
export type WeeklyHours = readonly (readonly (readonly [number, number])[])[];

// `time.weekday` and `time.in_business_hours` at `now` in the organization's time zone. Without
// business hours every hour counts as one, as the reports count them.
export function timeFacts(now: Date, timeZone: string, hours: WeeklyHours | null): { weekday: string; in_business_hours: boolean } {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone, weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(now);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  const weekday = part('weekday').toLowerCase().slice(0, 3);
  const day = WEEKDAYS.indexOf(weekday as (typeof WEEKDAYS)[number]);
  const minute = Number(part('hour')) * 60 + Number(part('minute'));
  const open = hours === null || (hours[day] ?? []).some(([start, end]) => minute >= start && minute < end);
  return { weekday, in_business_hours: open };
}
