import { DomainError } from '@engage/shared-kernel';
import {
  applyPacingPatch,
  capsAt,
  defaultPacing,
  effectivePacing,
  estimateDrain,
  nextSendAt,
  pauseAfter,
  recipientTimeZone,
  type PacingPolicy,
  type PacingState,
} from './pacing';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

// 13:00 in Berlin, a Thursday in winter: outside quiet hours.
const NOW = new Date('2026-01-15T12:00:00Z');
const OLD_ACCOUNT = new Date('2025-01-01T00:00:00Z');
const ago = (ms: number, from: Date = NOW) => new Date(from.getTime() - ms);
const later = (ms: number, from: Date = NOW) => new Date(from.getTime() + ms);

type StateOverrides = Partial<Omit<PacingState, 'recipient'>> & { recipient?: Partial<PacingState['recipient']> };

const makeState = (overrides: StateOverrides = {}): PacingState => ({
  now: NOW,
  accountCreatedAt: OLD_ACCOUNT,
  accountSends: [],
  lastAutomatedSendAt: null,
  ...overrides,
  recipient: { lastInboundAt: ago(HOUR), sends: [], timeZone: 'Europe/Berlin', ...overrides.recipient },
});

const chatApp = (overrides: Partial<PacingPolicy> = {}): PacingPolicy => ({ ...defaultPacing('chat_app'), ...overrides });
const fixed = (value: number) => () => value;

// A seeded generator (mulberry32), so the many-draws test is repeatable.
const seeded = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

// `count` sends `every` ms apart, the first `firstAgo` ms before NOW.
const sendsFrom = (firstAgo: number, every: number, count: number) => Array.from({ length: count }, (_, i) => ago(firstAgo - i * every));

describe('defaultPacing', () => {
  it('should pace a chat-app number with jitter, caps, warm-up and quiet hours', () => {
    expect(defaultPacing('chat_app')).toEqual({
      gap_seconds: [3, 9],
      cold_gap_seconds: [30, 60],
      per_hour: 80,
      per_day: 500,
      warmup: true,
      per_recipient_min_gap_seconds: 6,
      per_recipient_per_hour: 4,
      quiet_hours: { start: '21:00', end: '08:00' },
      auto_pause_after_failures: 5,
      receivers_per_call: 10,
      per_second: null,
    });
  });

  it('should pace SMS at one message a second with quiet hours and no caps', () => {
    expect(defaultPacing('sms')).toMatchObject({
      gap_seconds: [1, 2],
      cold_gap_seconds: [1, 2],
      per_hour: null,
      per_day: null,
      warmup: false,
      quiet_hours: { start: '21:00', end: '08:00' },
      receivers_per_call: 1,
      per_second: 1,
    });
  });

  it.each(['messenger', 'instagram', 'email'] as const)('should give %s a small gap and no caps, warm-up or quiet hours', (kind) => {
    expect(defaultPacing(kind)).toMatchObject({
      gap_seconds: [1, 3],
      cold_gap_seconds: [1, 3],
      per_hour: null,
      per_day: null,
      warmup: false,
      quiet_hours: null,
      receivers_per_call: 1,
      per_second: null,
    });
  });

  it('should hand out a fresh object each time', () => {
    defaultPacing('chat_app').quiet_hours!.start = '00:00';
    expect(defaultPacing('chat_app').quiet_hours).toEqual({ start: '21:00', end: '08:00' });
  });
});

describe('nextSendAt: gaps', () => {
  const last = ago(SECOND);

  it('should send at once when the account has no automated send yet', () => {
    expect(nextSendAt(chatApp(), makeState(), fixed(0.5))).toEqual({ at: NOW, reason: 'now' });
  });

  it('should pick the warm gap inside [3, 9] s with the random draw when the recipient wrote within 24 h', () => {
    const state = makeState({ lastAutomatedSendAt: last });
    expect(nextSendAt(chatApp(), state, fixed(0))).toEqual({ at: later(3 * SECOND, last), reason: 'gap' });
    expect(nextSendAt(chatApp(), state, fixed(0.5))).toEqual({ at: later(6 * SECOND, last), reason: 'gap' });
    expect(nextSendAt(chatApp(), state, fixed(0.75))).toEqual({ at: later(7_500, last), reason: 'gap' });
  });

  it('should keep many draws inside the range and never repeat one interval', () => {
    const random = seeded(34);
    const state = makeState({ lastAutomatedSendAt: last });
    const gaps = Array.from({ length: 1000 }, () => nextSendAt(chatApp(), state, random).at.getTime() - last.getTime());
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(3 * SECOND);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(9 * SECOND);
    expect(Math.min(...gaps)).toBeLessThan(3.5 * SECOND);
    expect(Math.max(...gaps)).toBeGreaterThan(8.5 * SECOND);
    // 1,000 draws over 6,001 whole milliseconds: about 920 distinct values are expected.
    expect(new Set(gaps).size).toBeGreaterThan(850);
  });

  it.each([
    ['never wrote', null],
    ['wrote 25 h ago', ago(25 * HOUR)],
    ['wrote exactly 24 h ago', ago(24 * HOUR)],
  ])('should use the cold gap [30, 60] s when the recipient %s', (_, lastInboundAt) => {
    const state = makeState({ lastAutomatedSendAt: last, recipient: { lastInboundAt } });
    expect(nextSendAt(chatApp(), state, fixed(0))).toEqual({ at: later(30 * SECOND, last), reason: 'cold_gap' });
    expect(nextSendAt(chatApp(), state, fixed(0.5))).toEqual({ at: later(45 * SECOND, last), reason: 'cold_gap' });
  });

  it('should use the warm gap when the recipient wrote 23 h ago', () => {
    const state = makeState({ lastAutomatedSendAt: last, recipient: { lastInboundAt: ago(23 * HOUR) } });
    expect(nextSendAt(chatApp(), state, fixed(0.5))).toEqual({ at: later(6 * SECOND, last), reason: 'gap' });
  });

  it('should send at once when the gap has already passed', () => {
    expect(nextSendAt(chatApp(), makeState({ lastAutomatedSendAt: ago(MINUTE) }), fixed(0.99))).toEqual({ at: NOW, reason: 'now' });
  });

  it('should refuse a random source outside [0, 1)', () => {
    expect(() => nextSendAt(chatApp(), makeState(), fixed(1))).toThrow(RangeError);
  });
});

describe('nextSendAt: account caps', () => {
  it('should hold the 81st send of a rolling hour until the oldest is an hour old', () => {
    const sends = sendsFrom(59 * MINUTE, 40 * SECOND, 80);
    expect(nextSendAt(chatApp(), makeState({ accountSends: sends }), fixed(0))).toEqual({ at: later(MINUTE), reason: 'per_hour' });
    expect(nextSendAt(chatApp(), makeState({ accountSends: sends.slice(1) }), fixed(0))).toEqual({ at: NOW, reason: 'now' });
  });

  it('should count the last 60 minutes, not the clock hour', () => {
    const sends = Array.from({ length: 80 }, () => ago(61 * MINUTE));
    expect(nextSendAt(chatApp(), makeState({ accountSends: sends }), fixed(0))).toEqual({ at: NOW, reason: 'now' });
  });

  it('should hold the 501st send of a rolling day until the oldest is a day old, in any order given', () => {
    const sends = sendsFrom(80_000 * SECOND, 160 * SECOND, 500).reverse();
    expect(nextSendAt(chatApp(), makeState({ accountSends: sends }), fixed(0))).toEqual({ at: later(6_400 * SECOND), reason: 'per_day' });
  });

  it('should hold an SMS until a second has passed since the number last sent', () => {
    const state = makeState({ accountSends: [ago(500)] });
    expect(nextSendAt(defaultPacing('sms'), state, fixed(0))).toEqual({ at: later(500), reason: 'per_second' });
  });
});

describe('capsAt: warm-up', () => {
  const created = new Date('2026-01-01T09:00:00Z');
  const policy = chatApp({ per_hour: 100, per_day: 1000 });

  it.each([
    ['day 1, just created', 0, 20, 50],
    ['day 2, last minute', 48 * HOUR - MINUTE, 20, 50],
    ['day 3', 2 * DAY, 40, 200],
    ['day 5, last minute', 5 * DAY - MINUTE, 40, 200],
    ['day 6', 5 * DAY, 80, 500],
    ['day 10, last minute', 10 * DAY - MINUTE, 80, 500],
    ['day 11', 10 * DAY, 100, 1000],
  ])('should cap %s', (_, age, perHour, perDay) => {
    expect(capsAt(policy, created, later(age, created))).toEqual({ per_hour: perHour, per_day: perDay });
  });

  it('should keep the lower of the policy and the ramp', () => {
    expect(capsAt(chatApp({ per_day: 30 }), created, later(HOUR, created))).toEqual({ per_hour: 20, per_day: 30 });
    expect(capsAt(chatApp({ per_hour: null, per_day: null }), created, later(3 * DAY, created))).toEqual({ per_hour: 40, per_day: 200 });
  });

  it('should give the policy caps when warm-up is off', () => {
    expect(capsAt(chatApp({ warmup: false }), created, later(HOUR, created))).toEqual({ per_hour: 80, per_day: 500 });
  });

  it('should hold the 51st send of day 2 only until day 3 begins', () => {
    const state = makeState({ accountCreatedAt: ago(47 * HOUR), accountSends: sendsFrom(20 * HOUR, 24 * MINUTE, 50) });
    expect(nextSendAt(chatApp(), state, fixed(0))).toEqual({ at: later(HOUR), reason: 'per_day' });
  });

  it('should hold the 21st send of an hour on day 1', () => {
    const state = makeState({ accountCreatedAt: ago(2 * HOUR), accountSends: sendsFrom(50 * MINUTE, 2 * MINUTE, 20) });
    expect(nextSendAt(chatApp(), state, fixed(0))).toEqual({ at: later(10 * MINUTE), reason: 'per_hour' });
  });
});

describe('nextSendAt: per recipient', () => {
  it('should keep 6 s between two messages to one recipient', () => {
    const state = makeState({ recipient: { sends: [ago(2 * SECOND)] } });
    expect(nextSendAt(chatApp(), state, fixed(0))).toEqual({ at: later(4 * SECOND), reason: 'recipient_gap' });
  });

  it('should hold the 5th message of an hour to one recipient until the first is an hour old', () => {
    const sends = [ago(50 * MINUTE), ago(40 * MINUTE), ago(30 * MINUTE), ago(20 * MINUTE)];
    expect(nextSendAt(chatApp(), makeState({ recipient: { sends } }), fixed(0))).toEqual({ at: later(10 * MINUTE), reason: 'recipient_per_hour' });
    expect(nextSendAt(chatApp(), makeState({ recipient: { sends: sends.slice(1) } }), fixed(0))).toEqual({ at: NOW, reason: 'now' });
  });

  it('should not count a send to the recipient older than an hour', () => {
    const sends = [ago(70 * MINUTE), ago(40 * MINUTE), ago(30 * MINUTE), ago(20 * MINUTE)];
    expect(nextSendAt(chatApp(), makeState({ recipient: { sends } }), fixed(0))).toEqual({ at: NOW, reason: 'now' });
  });
});

describe('nextSendAt: quiet hours at the recipient local time', () => {
  const at = (now: string, timeZone: string, policy: PacingPolicy = chatApp()) =>
    nextSendAt(policy, makeState({ now: new Date(now), recipient: { timeZone } }), fixed(0));

  it.each([
    ['21:30 the evening before (crossing midnight)', '2026-01-15T20:30:00Z'],
    ['02:00 after midnight', '2026-01-16T01:00:00Z'],
    ['07:59', '2026-01-16T06:59:00Z'],
  ])('should wait in Berlin from %s until 08:00', (_, now) => {
    expect(at(now, 'Europe/Berlin')).toEqual({ at: new Date('2026-01-16T07:00:00Z'), reason: 'quiet_hours' });
  });

  it.each([
    ['08:00', '2026-01-16T07:00:00Z'],
    ['20:59', '2026-01-16T19:59:00Z'],
  ])('should send at once in Berlin at %s', (_, now) => {
    expect(at(now, 'Europe/Berlin')).toEqual({ at: new Date(now), reason: 'now' });
  });

  it('should end quiet hours at 08:00 CEST (06:00 UTC) on the night Berlin springs forward, 2026-03-29', () => {
    expect(at('2026-03-28T21:00:00Z', 'Europe/Berlin')).toEqual({ at: new Date('2026-03-29T06:00:00Z'), reason: 'quiet_hours' });
  });

  it('should end quiet hours at 08:00 CET (07:00 UTC) on the night Berlin falls back, 2026-10-25', () => {
    expect(at('2026-10-24T21:00:00Z', 'Europe/Berlin')).toEqual({ at: new Date('2026-10-25T07:00:00Z'), reason: 'quiet_hours' });
  });

  it('should start quiet hours at 21:00 local time on both sides of the autumn change in Berlin', () => {
    expect(at('2026-10-24T18:59:00Z', 'Europe/Berlin').reason).toBe('now');
    expect(at('2026-10-24T19:00:00Z', 'Europe/Berlin').reason).toBe('quiet_hours');
    expect(at('2026-10-25T19:59:00Z', 'Europe/Berlin').reason).toBe('now');
    expect(at('2026-10-25T20:00:00Z', 'Europe/Berlin')).toEqual({ at: new Date('2026-10-26T07:00:00Z'), reason: 'quiet_hours' });
  });

  it('should follow New York across its spring (2026-03-08) and autumn (2026-11-01) changes', () => {
    expect(at('2026-03-08T03:00:00Z', 'America/New_York')).toEqual({ at: new Date('2026-03-08T12:00:00Z'), reason: 'quiet_hours' });
    expect(at('2026-11-01T02:00:00Z', 'America/New_York')).toEqual({ at: new Date('2026-11-01T13:00:00Z'), reason: 'quiet_hours' });
    expect(at('2026-11-02T01:59:00Z', 'America/New_York').reason).toBe('now');
    expect(at('2026-11-02T02:00:00Z', 'America/New_York')).toEqual({ at: new Date('2026-11-02T13:00:00Z'), reason: 'quiet_hours' });
  });

  it('should end at the first instant after the skipped hour when the end falls in it', () => {
    const policy = chatApp({ quiet_hours: { start: '21:00', end: '02:30' } });
    // 01:00 CET; 02:30 does not exist that night, the clock reads 03:00 CEST at 01:00 UTC.
    expect(at('2026-03-29T00:00:00Z', 'Europe/Berlin', policy)).toEqual({ at: new Date('2026-03-29T01:00:00Z'), reason: 'quiet_hours' });
  });

  it('should end at the first 02:30 when the end falls in the repeated hour', () => {
    const policy = chatApp({ quiet_hours: { start: '21:00', end: '02:30' } });
    expect(at('2026-10-25T00:00:00Z', 'Europe/Berlin', policy)).toEqual({ at: new Date('2026-10-25T00:30:00Z'), reason: 'quiet_hours' });
  });

  it('should apply a window inside one day', () => {
    const policy = chatApp({ quiet_hours: { start: '12:00', end: '14:00' } });
    expect(at('2026-01-15T12:00:00Z', 'Europe/Berlin', policy)).toEqual({ at: new Date('2026-01-15T13:00:00Z'), reason: 'quiet_hours' });
    expect(at('2026-01-15T13:00:00Z', 'Europe/Berlin', policy).reason).toBe('now');
  });

  it('should apply no quiet hours when the policy has none', () => {
    expect(at('2026-01-15T23:00:00Z', 'Europe/Berlin', defaultPacing('messenger')).reason).toBe('now');
  });

  it('should refuse an unknown time zone', () => {
    expect(() => at('2026-01-15T12:00:00Z', 'Mars/Olympus')).toThrow(/recipient.timeZone/);
  });
});

describe('nextSendAt: several rules', () => {
  it('should take the latest time when two rules hold the message', () => {
    const state = makeState({ accountSends: sendsFrom(HOUR - 10 * SECOND, 30 * SECOND, 80), recipient: { sends: [ago(2 * SECOND)] } });
    expect(nextSendAt(chatApp(), state, fixed(0))).toEqual({ at: later(10 * SECOND), reason: 'per_hour' });
  });

  it('should move a send that a gap pushes into quiet hours to their end', () => {
    const now = new Date('2026-01-15T19:59:55Z');
    const state = makeState({ now, lastAutomatedSendAt: ago(SECOND, now) });
    expect(nextSendAt(chatApp(), state, fixed(0.5))).toEqual({ at: new Date('2026-01-16T07:00:00Z'), reason: 'quiet_hours' });
  });

  it('should move a send that the recipient limit pushes into quiet hours to their end', () => {
    const now = new Date('2026-01-15T19:50:00Z');
    const sends = ['19:05', '19:10', '19:20', '19:30'].map((time) => new Date(`2026-01-15T${time}:00Z`));
    expect(nextSendAt(chatApp(), makeState({ now, recipient: { sends } }), fixed(0))).toEqual({ at: new Date('2026-01-16T07:00:00Z'), reason: 'quiet_hours' });
  });
});

describe('pauseAfter', () => {
  const policy = chatApp();
  const failure = (message: string, httpStatus: number | null = 500) => ({ ok: false as const, httpStatus, message });

  it('should reset the count on a success', () => {
    expect(pauseAfter(policy, 4, { ok: true })).toEqual({ consecutiveFailures: 0, pause: null });
  });

  it('should pause after the 5th failure in a row, not the 4th', () => {
    expect(pauseAfter(policy, 3, failure('Internal error'))).toEqual({ consecutiveFailures: 4, pause: null });
    expect(pauseAfter(policy, 4, failure('Internal error'))).toEqual({
      consecutiveFailures: 5,
      pause: { reason: 'consecutive_failures', message: '5 provider failures in a row (last: 500: Internal error)' },
    });
  });

  it('should follow the policy count and count time-outs', () => {
    const outcome = { ok: false as const, httpStatus: null, message: '', timedOut: true };
    expect(pauseAfter(chatApp({ auto_pause_after_failures: 2 }), 1, outcome)).toEqual({
      consecutiveFailures: 2,
      pause: { reason: 'consecutive_failures', message: '2 provider failures in a row (last: timed out)' },
    });
  });

  it('should pause at once on HTTP 429', () => {
    expect(pauseAfter(policy, 0, failure('slow down', 429))).toMatchObject({ consecutiveFailures: 1, pause: { reason: 'rate_limited' } });
  });

  it("should pause at once on a channel's throttling code in another status, and not on other 400s", () => {
    const throttled = { ...failure('Graph API error (400, code 613): Calls to this api have exceeded the rate limit.', 400), rateLimited: true };
    expect(pauseAfter(policy, 0, throttled)).toMatchObject({ consecutiveFailures: 1, pause: { reason: 'rate_limited' } });
    expect(pauseAfter(policy, 0, failure('Graph API error (400, code 100): Invalid parameter', 400))).toEqual({ consecutiveFailures: 1, pause: null });
  });

  it.each(['This account is banned', 'Number BLOCKED by WhatsApp', 'temporary ban', 'You are sending too many messages'])(
    'should pause at once on a ban signal: %s',
    (message) => {
      expect(pauseAfter(policy, 0, failure(message, 403))).toMatchObject({ consecutiveFailures: 1, pause: { reason: 'ban_signal' } });
    },
  );

  it('should not read a ban into words that contain it', () => {
    expect(pauseAfter(policy, 0, failure('Urban cabinet unblocked', 400))).toEqual({ consecutiveFailures: 1, pause: null });
  });
});

describe('applyPacingPatch', () => {
  const current = chatApp();

  it('should change only the fields given and leave the current policy alone', () => {
    const next = applyPacingPatch(current, { per_hour: 40, quiet_hours: null, gap_seconds: [5, 15], per_day: null });
    expect(next).toEqual({ ...current, per_hour: 40, quiet_hours: null, gap_seconds: [5, 15], per_day: null });
    expect(current).toEqual(defaultPacing('chat_app'));
  });

  it('should accept [0, 0] to turn a gap off and new quiet hours', () => {
    const next = applyPacingPatch(current, { cold_gap_seconds: [0, 0], quiet_hours: { start: '22:30', end: '07:15' } });
    expect(next.cold_gap_seconds).toEqual([0, 0]);
    expect(next.quiet_hours).toEqual({ start: '22:30', end: '07:15' });
  });

  const rejected = (patch: unknown): DomainError => {
    try {
      applyPacingPatch(current, patch);
    } catch (error) {
      if (error instanceof DomainError) return error;
      throw error;
    }
    throw new Error(`accepted ${JSON.stringify(patch)}`);
  };

  it.each([
    [{ speed: 1 }, 'pacing.speed'],
    [{ gap_seconds: [9, 3] }, 'pacing.gap_seconds'],
    [{ gap_seconds: [5, 5] }, 'pacing.gap_seconds'],
    [{ gap_seconds: '3-9' }, 'pacing.gap_seconds'],
    [{ gap_seconds: [-1, 3] }, 'pacing.gap_seconds[0]'],
    [{ gap_seconds: [3, 86_401] }, 'pacing.gap_seconds[1]'],
    [{ cold_gap_seconds: [30] }, 'pacing.cold_gap_seconds'],
    [{ per_hour: 100_001 }, 'pacing.per_hour'],
    [{ per_hour: '80' }, 'pacing.per_hour'],
    [{ per_day: -1 }, 'pacing.per_day'],
    [{ per_day: 10.5 }, 'pacing.per_day'],
    [{ warmup: 'yes' }, 'pacing.warmup'],
    [{ per_recipient_min_gap_seconds: -6 }, 'pacing.per_recipient_min_gap_seconds'],
    [{ per_recipient_per_hour: 0 }, 'pacing.per_recipient_per_hour'],
    [{ quiet_hours: '21-8' }, 'pacing.quiet_hours'],
    [{ quiet_hours: { start: '24:00', end: '08:00' } }, 'pacing.quiet_hours.start'],
    [{ quiet_hours: { start: '21:00', end: '8:00' } }, 'pacing.quiet_hours.end'],
    [{ quiet_hours: { start: '21:00' } }, 'pacing.quiet_hours.end'],
    [{ quiet_hours: { start: '21:00', end: '08:00', zone: 'UTC' } }, 'pacing.quiet_hours.zone'],
    [{ quiet_hours: { start: '21:00', end: '21:00' } }, 'pacing.quiet_hours'],
    [{ auto_pause_after_failures: 0 }, 'pacing.auto_pause_after_failures'],
    [{ receivers_per_call: 1000 }, 'pacing.receivers_per_call'],
    [{ per_second: 0 }, 'pacing.per_second'],
    [null, 'pacing'],
    [[], 'pacing'],
  ])('should refuse %j naming %s', (patch, field) => {
    const error = rejected(patch);
    expect([error.kind, error.code, error.details]).toEqual(['validation', 'validation_failed', { field }]);
    expect(error.message.startsWith(`${field} `)).toBe(true);
  });
});

describe('effectivePacing', () => {
  it.each([null, undefined, 'garbage', [1, 2]])('should give the defaults for a stored %j', (stored) => {
    expect(effectivePacing('chat_app', stored)).toEqual(defaultPacing('chat_app'));
  });

  it('should lay stored overrides over the kind defaults', () => {
    const stored = { per_day: 300, quiet_hours: { start: '22:00', end: '07:00' } };
    expect(effectivePacing('sms', stored)).toEqual({ ...defaultPacing('sms'), ...stored });
  });

  it('should keep the default for a stored field that no longer passes its check', () => {
    expect(effectivePacing('chat_app', { per_hour: -5, per_day: 300, legacy: true })).toEqual({ ...defaultPacing('chat_app'), per_day: 300 });
  });
});

describe('recipientTimeZone', () => {
  const ORG = 'Europe/Lisbon';

  it.each([
    ['the contact zone', 'America/Chicago', '+49 30 901820', 'America/Chicago'],
    ['the contact zone, trimmed', '  Asia/Tokyo ', null, 'Asia/Tokyo'],
    ['Egypt (one zone) for +20', null, '+20 10 1234 5678', 'Africa/Cairo'],
    ['Egypt when the contact zone is unknown', 'Mars/Olympus', '+201012345678', 'Africa/Cairo'],
    ['Germany for a Berlin landline', null, '+49 30 901820', 'Europe/Berlin'],
    ['Germany for a mobile', null, '+49 151 23456789', 'Europe/Berlin'],
    ['the United Kingdom', null, '+44 20 7946 0958', 'Europe/London'],
    ['the organization zone for the US (many zones)', null, '+1 212 736 5000', ORG],
    ['the organization zone for Spain (Madrid and the Canaries)', null, '+34 612 345 678', ORG],
    ['the organization zone for an offset instead of a zone', '+02:00', null, ORG],
    ['the organization zone for garbage', null, 'not a phone', ORG],
    ['the organization zone for an empty phone', '', '', ORG],
    ['the organization zone for nothing', null, null, ORG],
  ])('should give %s', (_, contactZone, phone, expected) => {
    expect(recipientTimeZone(contactZone, phone, ORG)).toBe(expected);
  });
});

describe('estimateDrain', () => {
  const open = chatApp({ warmup: false, per_hour: null, per_day: null, quiet_hours: null });
  const account = { now: NOW, accountCreatedAt: OLD_ACCOUNT, accountSends: [], lastAutomatedSendAt: null };

  it('should give now for an empty queue', () => {
    expect(estimateDrain(open, account, 0)).toEqual(NOW);
  });

  it('should space the queue by the mid-point of the cold gap by default', () => {
    expect(estimateDrain(open, account, 1)).toEqual(NOW);
    expect(estimateDrain(open, account, 3)).toEqual(later(90 * SECOND));
    expect(estimateDrain(open, { ...account, lastAutomatedSendAt: ago(10 * SECOND) }, 1)).toEqual(later(35 * SECOND));
  });

  it('should mix the warm and cold mid-points by the cold share', () => {
    expect(estimateDrain(open, account, 3, { coldShare: 0 })).toEqual(later(12 * SECOND));
    expect(estimateDrain(open, account, 2, { coldShare: 0.5 })).toEqual(later(25.5 * SECOND));
  });

  it('should hold the queue at the hourly cap', () => {
    const policy = { ...open, gap_seconds: [0, 0], cold_gap_seconds: [0, 0], per_hour: 2 } satisfies PacingPolicy;
    expect(estimateDrain(policy, account, 5)).toEqual(later(2 * HOUR));
  });

  it('should drain 10,000 messages at 100 a day in 99 more days', () => {
    const policy = { ...open, gap_seconds: [0, 0], cold_gap_seconds: [0, 0], per_day: 100 } satisfies PacingPolicy;
    expect(estimateDrain(policy, account, 250)).toEqual(later(2 * DAY));
    expect(estimateDrain(policy, account, 10_000)).toEqual(later(99 * DAY));
  });

  it('should count quiet hours only in the zone it is given', () => {
    const now = new Date('2026-01-15T19:59:58Z');
    const state = { ...account, now };
    expect(estimateDrain(defaultPacing('sms'), state, 3)).toEqual(later(3 * SECOND, now));
    expect(estimateDrain(defaultPacing('sms'), state, 3, { timeZone: 'Europe/Berlin' })).toEqual(new Date('2026-01-16T07:00:00Z'));
  });
});
