import { capsAt, capsChangeAfter, type PacingPolicy } from './pacing-policy';
import { isValidTimeZone, quietHoursEnd } from './pacing-time-zone';

export * from './pacing-policy';
export { recipientTimeZone, isValidTimeZone } from './pacing-time-zone';

const SECOND_MS = 1000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

export interface PacingState {
  now: Date;
  accountCreatedAt: Date;
  // Every send of the account (all origins) in the last 24 h, any order.
  accountSends: Date[];
  // The account's last automated (queued) send.
  lastAutomatedSendAt: Date | null;
  // Sends to this recipient, the last hour at least; timeZone from recipientTimeZone.
  recipient: { lastInboundAt: Date | null; sends: Date[]; timeZone: string };
}

export type PacingReason = 'now' | 'gap' | 'cold_gap' | 'per_hour' | 'per_day' | 'per_second' | 'recipient_gap' | 'recipient_per_hour' | 'quiet_hours';

export interface PacingDecision {
  at: Date;
  // The rule that set `at` last (the one holding the message back), or 'now'.
  reason: PacingReason;
}

// A rule gives the earliest instant at or after `t` it allows.
interface Rule {
  reason: PacingReason;
  earliest(t: number): number;
}

const sortedTimes = (dates: readonly Date[]): number[] => dates.map((date) => date.getTime()).sort((a, b) => a - b);

// Index of the first element greater than `value`.
const upperBound = (sorted: readonly number[], value: number): number => {
  let [low, high] = [0, sorted.length];
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle] <= value) low = middle + 1;
    else high = middle;
  }
  return low;
};

// Earliest instant from `t` at which fewer than `cap` sends fall in the window (u - window, u], so
// that one more keeps the count at most `cap`.
const underCap = (sends: readonly number[], windowMs: number, cap: number, t: number): number => {
  const first = upperBound(sends, t - windowMs);
  const count = upperBound(sends, t) - first;
  return count < cap ? t : Math.max(t, sends[first + count - cap] + windowMs);
};

// The account's caps (per second, hour and day); caps that rise with the next warm-up step are
// re-read there, so a send is not held past the step.
function accountRules(policy: PacingPolicy, accountCreatedAt: Date, sends: readonly number[]): Rule[] {
  const capped = (reason: 'per_hour' | 'per_day', windowMs: number): Rule => ({
    reason,
    earliest: (t) => {
      const cap = capsAt(policy, accountCreatedAt, new Date(t))[reason];
      if (cap === null) return t;
      const free = underCap(sends, windowMs, cap, t);
      const change = capsChangeAfter(policy, accountCreatedAt, new Date(t))?.getTime();
      return change !== undefined && change < free ? change : free;
    },
  });
  const rules = [capped('per_hour', HOUR_MS), capped('per_day', DAY_MS)];
  const perSecond = policy.per_second;
  if (perSecond !== null) rules.push({ reason: 'per_second', earliest: (t) => underCap(sends, SECOND_MS, perSecond, t) });
  return rules;
}

const gapRule = (reason: 'gap' | 'cold_gap', lastAutomatedSendAt: Date | null, gapMs: number): Rule[] =>
  lastAutomatedSendAt ? [{ reason, earliest: (t) => Math.max(t, Math.ceil(lastAutomatedSendAt.getTime() + gapMs)) }] : [];

const quietRule = (quiet: PacingPolicy['quiet_hours'], timeZone: string): Rule[] =>
  quiet ? [{ reason: 'quiet_hours', earliest: (t) => quietHoursEnd(quiet, timeZone, t) ?? t }] : [];

// Applies the rules in turn until none moves the time: each only moves it later, so the result is
// the earliest instant every rule allows.
function settle(start: number, rules: readonly Rule[]): { at: number; reason: PacingReason } {
  let [at, reason] = [start, 'now' as PacingReason];
  for (let moved = true, pass = 0; moved && pass < 1_000; pass++) {
    moved = false;
    for (const rule of rules) {
      const earliest = rule.earliest(at);
      if (earliest > at) [at, reason, moved] = [earliest, rule.reason, true];
    }
  }
  return { at, reason };
}

const drawGap = ([min, max]: [number, number], random: number): number => {
  if (!(random >= 0 && random < 1)) throw new RangeError(`random must be in [0, 1), got ${random}`);
  return (min + (max - min) * random) * SECOND_MS;
};

// Cold: the recipient never wrote, or not within 24 h.
const isCold = (lastInboundAt: Date | null, now: Date) => !lastInboundAt || now.getTime() - lastInboundAt.getTime() >= DAY_MS;

// Earliest time the next queued message to this recipient may go. `random` (in [0, 1)) picks the gap
// inside its range, so sends never follow a fixed interval.
export function nextSendAt(policy: PacingPolicy, state: PacingState, random: () => number): PacingDecision {
  const { timeZone } = state.recipient;
  if (!isValidTimeZone(timeZone)) throw new RangeError(`recipient.timeZone is not a known time zone: ${timeZone}`);
  const cold = isCold(state.recipient.lastInboundAt, state.now);
  const gapMs = drawGap(cold ? policy.cold_gap_seconds : policy.gap_seconds, random());
  const recipientSends = sortedTimes(state.recipient.sends);
  const lastToRecipient = recipientSends.length > 0 ? recipientSends[recipientSends.length - 1] : null;
  const rules: Rule[] = [
    ...gapRule(cold ? 'cold_gap' : 'gap', state.lastAutomatedSendAt, gapMs),
    ...accountRules(policy, state.accountCreatedAt, sortedTimes(state.accountSends)),
    {
      reason: 'recipient_gap',
      earliest: (t) => (lastToRecipient === null ? t : Math.max(t, lastToRecipient + policy.per_recipient_min_gap_seconds * SECOND_MS)),
    },
    { reason: 'recipient_per_hour', earliest: (t) => underCap(recipientSends, HOUR_MS, policy.per_recipient_per_hour, t) },
    ...quietRule(policy.quiet_hours, timeZone),
  ];
  const { at, reason } = settle(state.now.getTime(), rules);
  return { at: new Date(at), reason };
}

export interface DrainOptions {
  // Share of the queued recipients who are cold (never wrote, or not within 24 h); default 1.
  coldShare?: number;
  // A zone to apply quiet hours in (e.g. the organization's); without it quiet hours are left out.
  timeZone?: string;
}

// When the `queued`-th message of the account's queue would go (eta_last), simulated with the
// mid-point of the gap ranges and the account's caps; per-recipient limits are left out.
export function estimateDrain(policy: PacingPolicy, state: Omit<PacingState, 'recipient'>, queued: number, options: DrainOptions = {}): Date {
  if (!Number.isInteger(queued) || queued < 0) throw new RangeError(`queued must be a whole number >= 0, got ${queued}`);
  const coldShare = Math.min(1, Math.max(0, options.coldShare ?? 1));
  const middle = ([min, max]: [number, number]) => ((min + max) / 2) * SECOND_MS;
  const gapMs = coldShare * middle(policy.cold_gap_seconds) + (1 - coldShare) * middle(policy.gap_seconds);
  const sends = sortedTimes(state.accountSends);
  const account = accountRules(policy, state.accountCreatedAt, sends);
  const quiet = options.timeZone && isValidTimeZone(options.timeZone) ? quietRule(policy.quiet_hours, options.timeZone) : [];
  let [at, last] = [state.now.getTime(), state.lastAutomatedSendAt];
  for (let sent = 0; sent < queued; sent++) {
    at = settle(at, [...gapRule('gap', last, gapMs), ...account, ...quiet]).at;
    // `at` is never before a send already listed, so appending keeps `sends` sorted.
    sends.splice(upperBound(sends, at), 0, at);
    last = new Date(at);
  }
  return new Date(at);
}

export type ProviderOutcome = { ok: true } | { ok: false; httpStatus: number | null; message: string; timedOut?: boolean; rateLimited?: boolean };

export type PauseReason = 'rate_limited' | 'ban_signal' | 'consecutive_failures';

// A provider's words for a ban or block, and the chat app's "sending too many messages" banner.
const BAN_SIGNAL = /\b(banned|blocked|ban)\b|too many messages/i;

// Whether a provider outcome pauses the account: at once on HTTP 429 (or a channel's throttling
// code) or a ban signal, else after
// `auto_pause_after_failures` failures in a row. A success resets the count.
export function pauseAfter(
  policy: PacingPolicy,
  consecutiveFailuresBefore: number,
  outcome: ProviderOutcome,
): { consecutiveFailures: number; pause: null | { reason: PauseReason; message: string } } {
  if (outcome.ok) return { consecutiveFailures: 0, pause: null };
  const consecutiveFailures = Math.max(0, Math.floor(consecutiveFailuresBefore) || 0) + 1;
  const what = outcome.timedOut ? 'timed out' : `${outcome.httpStatus ?? 'no status'}: ${outcome.message.slice(0, 200)}`;
  if (outcome.httpStatus === 429 || outcome.rateLimited) {
    return { consecutiveFailures, pause: { reason: 'rate_limited', message: `The provider throttled the sender (${what})` } };
  }
  if (BAN_SIGNAL.test(outcome.message))
    return { consecutiveFailures, pause: { reason: 'ban_signal', message: `The provider reported a ban or block (${what})` } };
  if (consecutiveFailures >= policy.auto_pause_after_failures) {
    return { consecutiveFailures, pause: { reason: 'consecutive_failures', message: `${consecutiveFailures} provider failures in a row (last: ${what})` } };
  }
  return { consecutiveFailures, pause: null };
}
