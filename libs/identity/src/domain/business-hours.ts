import { DomainError } from '@engage/shared-kernel';

// The organization setting `business_hours` (docs/analytics.md): JSON, weekday keys `mon`..`sun`,
// each a list of ["HH:MM","HH:MM"] open intervals in the organization's time zone. Analytics counts
// response times inside them only. Identity checks a value when it is set; analytics reads it back
// through the same parser, in the canonical form below.
export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export const MAX_INTERVALS_PER_DAY = 4;

// Seven days, Monday first (ISO), each a sorted list of [start, end) in minutes after local midnight.
export type BusinessHours = [number, number][][];

const TIME = /^(?:([01]\d|2[0-3]):([0-5]\d)|(24):(00))$/;
const EXAMPLE = '{"mon":[["09:00","17:00"]],"tue":[["09:00","12:00"],["13:00","17:00"]]}';

const invalid = (detail: string) => new DomainError('validation', 'validation_failed', `business_hours: ${detail}`);

function minutes(value: unknown, where: string): number {
  const match = typeof value === 'string' ? TIME.exec(value) : null;
  if (!match) throw invalid(`${where}: ${JSON.stringify(value)} is not a time "HH:MM" from "00:00" to "24:00"`);
  return Number(match[1] ?? match[3]) * 60 + Number(match[2] ?? match[4]);
}

function day(name: string, list: unknown): [number, number][] {
  if (!Array.isArray(list)) throw invalid(`${name} must be a list of ["HH:MM","HH:MM"] intervals`);
  if (list.length > MAX_INTERVALS_PER_DAY) throw invalid(`${name} has ${list.length} intervals, at most ${MAX_INTERVALS_PER_DAY} are allowed`);
  const intervals = list.map((interval: unknown, i): [number, number] => {
    const where = `${name}[${i}]`;
    if (!Array.isArray(interval) || interval.length !== 2) throw invalid(`${where} must be a pair ["HH:MM","HH:MM"]`);
    const [start, end] = [minutes(interval[0], where), minutes(interval[1], where)];
    if (end <= start) throw invalid(`${where} ends (${interval[1]}) before or when it starts (${interval[0]})`);
    return [start, end];
  });
  intervals.sort((a, b) => a[0] - b[0]);
  for (let i = 1; i < intervals.length; i++) {
    if (intervals[i][0] < intervals[i - 1][1]) throw invalid(`${name} has overlapping intervals (${clock(intervals[i - 1])} and ${clock(intervals[i])})`);
  }
  return intervals;
}

const hhmm = (m: number) => `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
const clock = ([start, end]: [number, number]) => `${hhmm(start)}-${hhmm(end)}`;

// The schedule in canonical form; a 400-class DomainError naming what is wrong otherwise.
export function parseBusinessHours(text: string): BusinessHours {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw invalid(`must be JSON, e.g. ${EXAMPLE}`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw invalid(`must be an object of weekdays, e.g. ${EXAMPLE}`);
  const week: BusinessHours = WEEKDAYS.map(() => []);
  for (const [name, list] of Object.entries(raw)) {
    const index = (WEEKDAYS as readonly string[]).indexOf(name);
    if (index < 0) throw invalid(`${JSON.stringify(name)} is not a weekday (${WEEKDAYS.join(', ')})`);
    week[index] = day(name, list);
  }
  if (week.every((intervals) => intervals.length === 0)) throw invalid('needs at least one open interval in the week');
  return week;
}
