import { type DrainOptions, estimateDrain, type PacingPolicy, type PacingState } from './pacing';

const SECOND_MS = 1000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

export type AccountPacingState = Omit<PacingState, 'recipient'>;

// How far back the policy's caps look: the day (a daily cap, or the warm-up's), the hour, the
// second (SMS), or not at all (no cap: past sends change nothing).
const lookBackMs = (policy: PacingPolicy): number =>
  policy.per_day !== null || policy.warmup ? DAY_MS : policy.per_hour !== null ? HOUR_MS : policy.per_second !== null ? SECOND_MS : 0;

// When each of the next `count` queued messages of an account is expected to go: the k-th is
// estimateDrain(policy, state, k) (a test holds them equal), worked out in one pass by simulating
// one send at a time from the previous one, so a page deep in a long queue costs one simulation.
// Sends older than the caps look back are dropped, so a step costs what the caps let into a window.
export function expectedTimes(policy: PacingPolicy, state: AccountPacingState, count: number, options: DrainOptions = {}): Date[] {
  const times: Date[] = [];
  const window = lookBackMs(policy);
  let sends = state.accountSends.map((date) => date.getTime()).sort((a, b) => a - b);
  let [now, last] = [state.now, state.lastAutomatedSendAt];
  for (let k = 0; k < count; k++) {
    let stale = 0;
    while (stale < sends.length && sends[stale] <= now.getTime() - window) stale++;
    if (stale > 0) sends = sends.slice(stale);
    const at = estimateDrain(
      policy,
      { now, accountCreatedAt: state.accountCreatedAt, accountSends: sends.map((t) => new Date(t)), lastAutomatedSendAt: last },
      1,
      options,
    );
    times.push(at);
    sends.push(at.getTime());
    [now, last] = [at, at];
  }
  return times;
}
