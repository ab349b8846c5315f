import { getCountry, getTimezone } from 'countries-and-timezones';
import { parsePhoneNumberFromString } from 'libphonenumber-js';

// Local time through Intl (the runtime's ICU time zone data), so DST follows the recipient's zone
// without a date library. countries-and-timezones gives a country's IANA zones.

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

const formatters = new Map<string, Intl.DateTimeFormat>();

const formatterFor = (timeZone: string): Intl.DateTimeFormat => {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    const options: Intl.DateTimeFormatOptions = { timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric' };
    formatter = new Intl.DateTimeFormat('en-US', { ...options, hour: 'numeric', minute: 'numeric', second: 'numeric' });
    formatters.set(timeZone, formatter);
  }
  return formatter;
};

// An IANA name the runtime knows (not a bare offset such as "+02:00").
export function isValidTimeZone(timeZone: unknown): timeZone is string {
  if (typeof timeZone !== 'string' || !/^[A-Za-z]/.test(timeZone)) return false;
  try {
    formatterFor(timeZone);
    return true;
  } catch {
    return false;
  }
}

// The wall-clock reading in the zone at `instant`, as the UTC milliseconds of the same fields.
export function wallClockMs(timeZone: string, instant: number): number {
  const fields: Record<string, number> = {};
  for (const part of formatterFor(timeZone).formatToParts(instant)) if (part.type !== 'literal') fields[part.type] = Number(part.value);
  const milliseconds = ((instant % 1000) + 1000) % 1000;
  return Date.UTC(fields.year, fields.month - 1, fields.day, fields.hour, fields.minute, fields.second) + milliseconds;
}

// The instants at which the zone's clock reads `wall`, earliest first: two in the hour a DST change
// repeats, none in the hour it skips, where the first instant past the gap is given instead.
export function instantsOfWallClock(timeZone: string, wall: number): number[] {
  const offsets = new Set([wallClockMs(timeZone, wall - DAY_MS) - (wall - DAY_MS), wallClockMs(timeZone, wall + DAY_MS) - (wall + DAY_MS)]);
  const candidates = [...offsets].map((offset) => wall - offset).sort((a, b) => a - b);
  const exact = candidates.filter((instant) => wallClockMs(timeZone, instant) === wall);
  if (exact.length > 0) return exact;
  // In the skipped hour: the clock jumps over `wall` between the candidates; find the jump.
  let [before, after] = [candidates[0], candidates[candidates.length - 1]];
  while (after - before > 1) {
    const middle = Math.floor((before + after) / 2);
    if (wallClockMs(timeZone, middle) >= wall) after = middle;
    else before = middle;
  }
  return [after];
}

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

// When quiet hours that hold at `at` end, or null if `at` is outside them.
export function quietHoursEnd(quiet: { start: string; end: string } | null, timeZone: string, at: number): number | null {
  if (!quiet) return null;
  const wall = wallClockMs(timeZone, at);
  const sinceMidnight = ((wall % DAY_MS) + DAY_MS) % DAY_MS;
  const [start, end] = [minutesOf(quiet.start) * MINUTE_MS, minutesOf(quiet.end) * MINUTE_MS];
  const crossesMidnight = start > end;
  const quietNow = crossesMidnight ? sinceMidnight >= start || sinceMidnight < end : sinceMidnight >= start && sinceMidnight < end;
  if (!quietNow) return null;
  const endsTomorrow = crossesMidnight && sinceMidnight >= start;
  const endWall = wall - sinceMidnight + (endsTomorrow ? DAY_MS : 0) + end;
  const instants = instantsOfWallClock(timeZone, endWall);
  return instants.find((instant) => instant > at) ?? instants[instants.length - 1];
}

// Whether two zones keep the same clock: equal offsets at noon UTC on every day of this year and the
// next (Europe/Berlin and Europe/Zurich, listed for Germany's Busingen, do; Madrid and the Canaries don't).
const sameClock = (zones: readonly string[]): boolean => {
  const first = Date.UTC(new Date().getUTCFullYear(), 0, 1, 12);
  for (let day = 0; day < 731; day++) {
    const instant = first + day * DAY_MS;
    const offsets = new Set(zones.map((zone) => wallClockMs(zone, instant) - instant));
    if (offsets.size > 1) return false;
  }
  return true;
};

const zoneOfCountry = new Map<string, string | null>();

// The country's zone when all of its zones keep one clock: the one whose main country it is.
function countryZone(country: string): string | null {
  if (zoneOfCountry.has(country)) return zoneOfCountry.get(country) ?? null;
  const zones = (getCountry(country)?.timezones ?? []).filter(isValidTimeZone);
  let zone: string | null = null;
  if (zones.length === 1) zone = zones[0];
  else if (zones.length > 1 && sameClock(zones)) zone = zones.find((name) => getTimezone(name)?.countries[0] === country) ?? zones[0];
  zoneOfCountry.set(country, zone);
  return zone;
}

// The recipient's zone for quiet hours: the contact's own if valid; else its phone number's country
// when that country keeps one clock (Egypt, Germany; not the US or Spain); else the organization's.
export function recipientTimeZone(contactTimeZone: string | null, phone: string | null, organizationTimeZone: string): string {
  const own = contactTimeZone?.trim();
  if (own && isValidTimeZone(own)) return own;
  const country = phone ? parsePhoneNumberFromString(phone.trim())?.country : undefined;
  return (country && countryZone(country)) || organizationTimeZone;
}
