import { DomainError } from '@engage/shared-kernel';
import type { ChannelKind } from '../domain/statuses';

// How fast a channel account may send automated messages (the paced queue, issue 34 item 3). Numbers
// from the automation anchors §4 and §9: Loopwave's 3-9 s, WAHA's 30-60 s to contacts who have not
// written, Effess's 80/h and warm-up ramp, Meta's 6 s pair rate, WAHA's 4 an hour per contact, the
// TCPA's 21:00-08:00 at the recipient's local time, Twilio's 1 segment a second per long code.
export interface PacingPolicy {
  // Random pause between two automated sends of the account when the recipient wrote within 24 h.
  gap_seconds: [number, number];
  // The same when the recipient never wrote, or not within 24 h.
  cold_gap_seconds: [number, number];
  // Account caps over rolling windows (60 min, 24 h); null: none.
  per_hour: number | null;
  per_day: number | null;
  // Account younger than 10 days: the warm-up ramp's caps apply too (see WARM_UP).
  warmup: boolean;
  per_recipient_min_gap_seconds: number;
  per_recipient_per_hour: number;
  // "HH:MM" at the recipient's local time; start after end crosses midnight.
  quiet_hours: { start: string; end: string } | null;
  // Provider failures in a row that pause the account (a 429 or a ban signal pauses at once).
  auto_pause_after_failures: number;
  // Recipients one provider call may carry (chat app only; 1 elsewhere).
  receivers_per_call: number;
  // Messages a second per sending number (SMS); null: no such limit.
  per_second: number | null;
}

export const PACING_FIELDS = [
  'gap_seconds',
  'cold_gap_seconds',
  'per_hour',
  'per_day',
  'warmup',
  'per_recipient_min_gap_seconds',
  'per_recipient_per_hour',
  'quiet_hours',
  'auto_pause_after_failures',
  'receivers_per_call',
  'per_second',
] as const satisfies readonly (keyof PacingPolicy)[];

const TCPA_QUIET_HOURS = { start: '21:00', end: '08:00' };

const BASE: Omit<PacingPolicy, 'gap_seconds' | 'cold_gap_seconds'> = {
  per_hour: null,
  per_day: null,
  warmup: false,
  per_recipient_min_gap_seconds: 6,
  per_recipient_per_hour: 4,
  quiet_hours: null,
  auto_pause_after_failures: 5,
  receivers_per_call: 1,
  per_second: null,
};

export function defaultPacing(kind: ChannelKind): PacingPolicy {
  switch (kind) {
    // A QR-paired number is banned for bursts: jitter, caps and the warm-up ramp.
    case 'chat_app':
      return {
        ...BASE,
        gap_seconds: [3, 9],
        cold_gap_seconds: [30, 60],
        per_hour: 80,
        per_day: 500,
        warmup: true,
        quiet_hours: { ...TCPA_QUIET_HOURS },
        receivers_per_call: 10,
      };
    // A long code sends one segment a second; the provider, not the number's reputation, is the limit.
    case 'sms':
      return { ...BASE, gap_seconds: [1, 2], cold_gap_seconds: [1, 2], quiet_hours: { ...TCPA_QUIET_HOURS }, per_second: 1 };
    // Official APIs with their own limits and windows: a small jitter only.
    case 'messenger':
    case 'instagram':
    case 'email':
      return { ...BASE, gap_seconds: [1, 3], cold_gap_seconds: [1, 3] };
  }
}

const DAY_SECONDS = 86_400;
const MAX_CAP = 100_000;
const MAX_RECEIVERS_PER_CALL = 256;
const HH_MM = /^([01]\d|2[0-3]):[0-5]\d$/;

const invalid = (field: string, message: string) => new DomainError('validation', 'validation_failed', `${field} ${message}`, { field });

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const integerIn = (field: string, value: unknown, min: number, max: number): number => {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalid(field, `must be a whole number from ${min} to ${max}`);
  }
  return value;
};

const secondsIn = (field: string, value: unknown, max: number): number => {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > max) throw invalid(field, `must be a number of seconds from 0 to ${max}`);
  return value;
};

// A gap is a range so that sends never follow a fixed interval; [0, 0] turns the gap off.
const gapRange = (field: string, value: unknown): [number, number] => {
  if (!Array.isArray(value) || value.length !== 2) throw invalid(field, 'must be [min, max] in seconds');
  const [min, max] = [secondsIn(`${field}[0]`, value[0], DAY_SECONDS), secondsIn(`${field}[1]`, value[1], DAY_SECONDS)];
  if (min > max) throw invalid(field, `must have min <= max (got [${min}, ${max}])`);
  if (min === max && max > 0) throw invalid(field, 'must be a range with min < max: a fixed interval is a ban signal ([0, 0] turns the gap off)');
  return [min, max];
};

const capOrNone = (field: string, value: unknown): number | null => (value === null ? null : integerIn(field, value, 1, MAX_CAP));

const quietHours = (field: string, value: unknown): PacingPolicy['quiet_hours'] => {
  if (value === null) return null;
  if (!isRecord(value)) throw invalid(field, 'must be null or { start: "HH:MM", end: "HH:MM" }');
  for (const key of Object.keys(value)) if (key !== 'start' && key !== 'end') throw invalid(`${field}.${key}`, 'is not a known setting (start, end)');
  for (const key of ['start', 'end'] as const) {
    if (typeof value[key] !== 'string' || !HH_MM.test(value[key])) throw invalid(`${field}.${key}`, 'must be a time "HH:MM" from 00:00 to 23:59');
  }
  const { start, end } = value as { start: string; end: string };
  if (start === end) throw invalid(field, 'must have start and end apart (set null for no quiet hours)');
  return { start, end };
};

// Each field's check, which returns the value to store.
const CHECKS: { [K in keyof PacingPolicy]: (field: string, value: unknown) => PacingPolicy[K] } = {
  gap_seconds: gapRange,
  cold_gap_seconds: gapRange,
  per_hour: capOrNone,
  per_day: capOrNone,
  warmup: (field, value) => {
    if (typeof value !== 'boolean') throw invalid(field, 'must be true or false');
    return value;
  },
  per_recipient_min_gap_seconds: (field, value) => secondsIn(field, value, DAY_SECONDS),
  per_recipient_per_hour: (field, value) => integerIn(field, value, 1, 3_600),
  quiet_hours: quietHours,
  auto_pause_after_failures: (field, value) => integerIn(field, value, 1, 1_000),
  receivers_per_call: (field, value) => integerIn(field, value, 1, MAX_RECEIVERS_PER_CALL),
  per_second: (field, value) => (value === null ? null : integerIn(field, value, 1, 1_000)),
};

const isPacingField = (key: string): key is keyof PacingPolicy => (PACING_FIELDS as readonly string[]).includes(key);

// A PATCH of the policy: only the fields given change; each is checked whole. Throws naming the
// field path (`pacing.quiet_hours.start`).
export function applyPacingPatch(current: PacingPolicy, patch: unknown): PacingPolicy {
  if (!isRecord(patch)) throw invalid('pacing', 'must be an object of settings');
  const next: PacingPolicy = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (!isPacingField(key)) throw invalid(`pacing.${key}`, `is not a known setting (${PACING_FIELDS.join(', ')})`);
    setField(next, key, CHECKS[key](`pacing.${key}`, value));
  }
  return next;
}

const setField = <K extends keyof PacingPolicy>(policy: PacingPolicy, key: K, value: PacingPolicy[K]) => {
  policy[key] = value;
};

// The stored policy (jsonb on the channel account) holds overrides over the kind's defaults. A field
// that no longer passes its check (written under older rules) falls back to its default rather than
// stopping the account's queue.
export function effectivePacing(kind: ChannelKind, stored: unknown): PacingPolicy {
  let policy = defaultPacing(kind);
  if (!isRecord(stored)) return policy;
  for (const [key, value] of Object.entries(stored)) {
    try {
      policy = applyPacingPatch(policy, { [key]: value });
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
    }
  }
  return policy;
}

const DAY_MS = DAY_SECONDS * 1000;

// Effess's ramp for a new number: days 1-2, 3-5 and 6-10 (day 1 is the account's first 24 hours).
export const WARM_UP: readonly { lastDay: number; per_hour: number; per_day: number }[] = [
  { lastDay: 2, per_hour: 20, per_day: 50 },
  { lastDay: 5, per_hour: 40, per_day: 200 },
  { lastDay: 10, per_hour: 80, per_day: 500 },
];

const warmUpStep = (accountCreatedAt: Date, now: Date) => {
  const day = Math.floor(Math.max(0, now.getTime() - accountCreatedAt.getTime()) / DAY_MS) + 1;
  return WARM_UP.find((step) => day <= step.lastDay) ?? null;
};

const lower = (cap: number | null, limit: number) => (cap === null ? limit : Math.min(cap, limit));

// The account's caps in force at `now`: the policy's, lowered by the warm-up ramp while it runs.
export function capsAt(policy: PacingPolicy, accountCreatedAt: Date, now: Date): { per_hour: number | null; per_day: number | null } {
  const step = policy.warmup ? warmUpStep(accountCreatedAt, now) : null;
  if (!step) return { per_hour: policy.per_hour, per_day: policy.per_day };
  return { per_hour: lower(policy.per_hour, step.per_hour), per_day: lower(policy.per_day, step.per_day) };
}

// When the caps next change after `now` (the next warm-up step), or null once the ramp is over.
export function capsChangeAfter(policy: PacingPolicy, accountCreatedAt: Date, now: Date): Date | null {
  if (!policy.warmup || !warmUpStep(accountCreatedAt, now)) return null;
  const boundaries = WARM_UP.map((step) => accountCreatedAt.getTime() + step.lastDay * DAY_MS);
  const next = boundaries.find((boundary) => boundary > now.getTime());
  return next === undefined ? null : new Date(next);
}
