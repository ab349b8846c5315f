import { instantsOfWallClock, wallClockMs } from '@engage/messaging';
import { stepDueAt, type StepTiming } from './step-timing';

const zones = { wallClockMs, instantsOfWallClock };
const delay = (d: Partial<StepTiming['delay']>) => ({ days: 0, hours: 0, minutes: 0, seconds: 0, ...d });
const due = (from: string, step: { delay?: Partial<StepTiming['delay']>; atTime?: string | null }, zone = 'UTC') =>
  stepDueAt(new Date(from), { delay: delay(step.delay ?? {}), atTime: step.atTime ?? null }, zone, zones).toISOString();

describe('stepDueAt', () => {
  it('should add the delay to the moment it counts from when no time of day is set', () => {
    expect(due('2026-03-02T10:00:00Z', {})).toBe('2026-03-02T10:00:00.000Z');
    expect(due('2026-03-02T10:00:00Z', { delay: { days: 1, hours: 2, minutes: 3, seconds: 4 } })).toBe('2026-03-03T12:03:04.000Z');
    expect(due('2026-03-02T10:00:00Z', { delay: { minutes: 90 } })).toBe('2026-03-02T11:30:00.000Z');
  });

  it('should move a step to the recipient’s local time on the same day when that time is still ahead', () => {
    // Cairo is UTC+2 in March 2026: 10:00 UTC is 12:00 there; 18:30 local is 16:30 UTC.
    expect(due('2026-03-02T10:00:00Z', { atTime: '18:30' }, 'Africa/Cairo')).toBe('2026-03-02T16:30:00.000Z');
  });

  it('should move a step to the next day when the local time has passed after the delay', () => {
    // 1 day later is 12:00 local on the 3rd; 09:00 has passed, so 09:00 local on the 4th.
    expect(due('2026-03-02T10:00:00Z', { delay: { days: 1 }, atTime: '09:00' }, 'Africa/Cairo')).toBe('2026-03-04T07:00:00.000Z');
  });

  it('should keep the time when the delay lands exactly on it', () => {
    expect(due('2026-03-02T07:00:00Z', { atTime: '09:00' }, 'Africa/Cairo')).toBe('2026-03-02T07:00:00.000Z');
  });

  it('should follow the recipient’s clock across a spring-forward change', () => {
    // Berlin moves from UTC+1 to UTC+2 on 2026-03-29 at 02:00. 09:00 local is 08:00 UTC the day
    // before and 07:00 UTC on the day.
    expect(due('2026-03-28T06:00:00Z', { atTime: '09:00' }, 'Europe/Berlin')).toBe('2026-03-28T08:00:00.000Z');
    expect(due('2026-03-28T06:00:00Z', { delay: { days: 1 }, atTime: '09:00' }, 'Europe/Berlin')).toBe('2026-03-29T07:00:00.000Z');
  });

  it('should take the first moment after the gap when the time does not exist that day', () => {
    // 02:30 is skipped in Berlin on 2026-03-29: the clock reads 03:00 (01:00 UTC) next.
    expect(due('2026-03-28T23:00:00Z', { atTime: '02:30' }, 'Europe/Berlin')).toBe('2026-03-29T01:00:00.000Z');
  });

  it('should take the first of the two moments when the time repeats on a fall-back day', () => {
    // Berlin falls back from UTC+2 to UTC+1 on 2026-10-25 at 03:00: 02:30 happens at 00:30 and 01:30 UTC.
    expect(due('2026-10-24T22:00:00Z', { atTime: '02:30' }, 'Europe/Berlin')).toBe('2026-10-25T00:30:00.000Z');
    // Once the first has passed, the second one (still on or after the delay) is the step's time.
    expect(due('2026-10-25T00:45:00Z', { atTime: '02:30' }, 'Europe/Berlin')).toBe('2026-10-25T01:30:00.000Z');
  });

  it('should count whole days of delay in elapsed time, so the local time is kept by at_time, not by the delay', () => {
    // New York moves to UTC-4 on 2026-03-08: one day (24 h) from 14:00 UTC on the 7th (09:00 EST) is
    // 10:00 EDT; with at_time 09:00 the step waits for 09:00 EDT on the 9th.
    expect(due('2026-03-07T14:00:00Z', { delay: { days: 1 } }, 'America/New_York')).toBe('2026-03-08T14:00:00.000Z');
    expect(due('2026-03-07T14:00:00Z', { delay: { days: 1 }, atTime: '09:00' }, 'America/New_York')).toBe('2026-03-09T13:00:00.000Z');
  });
});
