// When a failed delivery is tried again: about 30 s, 2 min, 10 min, 1 h, 6 h and 24 h after the
// previous attempt, each stretched or shrunk by up to 20 % so endpoints recovering from an outage
// are not hit by every queued delivery at once. Seven attempts in all (about 31 h).
export const RETRY_DELAYS_MS = [30_000, 120_000, 600_000, 3_600_000, 21_600_000, 86_400_000] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
export const JITTER = 0.2;

// A configuration failing without a single success for this long is disabled.
export const DISABLE_AFTER_MS = 5 * 24 * 3_600_000;

// The delay after attempt `attempt` (1-based) failed, or null when no attempt is left.
export function retryDelayMs(attempt: number, random: () => number = Math.random): number | null {
  const base = RETRY_DELAYS_MS[attempt - 1];
  if (base === undefined) return null;
  return Math.round(base * (1 - JITTER + 2 * JITTER * random()));
}

export type AttemptOutcome = { kind: 'success' } | { kind: 'gone' } | { kind: 'failure' };

// 2xx is a success; 410 Gone means the receiver asks us to stop; anything else (other statuses,
// timeouts, network errors, refused addresses) is a failure worth retrying.
export function classify(status: number | null): AttemptOutcome {
  if (status !== null && status >= 200 && status < 300) return { kind: 'success' };
  if (status === 410) return { kind: 'gone' };
  return { kind: 'failure' };
}
