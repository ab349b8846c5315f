// When a sequence's step falls due. Plain arithmetic over the recipient's zone: the zone's clock is
// read and turned back into instants by the two functions messaging's quiet hours use, so DST follows
// the runtime's time zone data.

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

export interface StepDelay {
  days: number;
  hours: number;
  minutes: number;
  seconds: number;
}

export interface StepTiming {
  delay: StepDelay;
  // "HH:MM" in the recipient's zone, or null.
  atTime: string | null;
}

export interface ZoneClock {
  // The zone's wall-clock reading at `instant`, as the UTC milliseconds of the same fields.
  wallClockMs(timeZone: string, instant: number): number;
  // The instants at which the zone's clock reads `wall`, earliest first (the first instant past a
  // skipped hour when the clock jumps over it).
  instantsOfWallClock(timeZone: string, wall: number): number[];
}

export const delayMs = (d: StepDelay) => ((d.days * 24 + d.hours) * 60 + d.minutes) * MINUTE_MS + d.seconds * 1000;

// The step's delay counted from `from` (the enrolment for the first step, the previous step's
// hand-over for the others); with `atTime`, the first moment on or after that at which the
// recipient's clock reads it. On a day whose clock skips that time (spring forward) it is the first
// moment after the gap; on a day it repeats (fall back), the first of the two.
export function stepDueAt(from: Date, step: StepTiming, timeZone: string, zones: ZoneClock): Date {
  const earliest = from.getTime() + delayMs(step.delay);
  if (step.atTime === null) return new Date(earliest);
  const minutes = Number(step.atTime.slice(0, 2)) * 60 + Number(step.atTime.slice(3, 5));
  const wall = zones.wallClockMs(timeZone, earliest);
  const midnight = wall - (((wall % DAY_MS) + DAY_MS) % DAY_MS);
  for (let day = 0; day < 3; day++) {
    const instants = zones.instantsOfWallClock(timeZone, midnight + day * DAY_MS + minutes * MINUTE_MS);
    const due = instants.find((instant) => instant >= earliest);
    if (due !== undefined) return new Date(due);
  }
  // Unreachable for real zones (a day has every wall-clock time but a skipped hour).
  return new Date(earliest);
}
