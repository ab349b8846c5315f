import type { EventCause } from '@engage/shared-kernel';
import type { ActionType } from './catalogue';

// What the rule engine decides without a database: whether a rule may run on an event (the loop
// guard), what a run's actions came to, and the next member of a round robin.

// A run on an event this deep (three rule actions in a chain) is skipped: chains are allowed, loops
// are bounded.
export const MAX_DEPTH = 3;

export type RunStatus = 'succeeded' | 'failed' | 'partially_failed' | 'skipped';
// pending: a webhook whose delivery (a job, with its retries) has not ended yet.
export type ActionStatus = 'succeeded' | 'failed' | 'skipped' | 'pending';

export interface ActionOutcome {
  type: ActionType;
  status: ActionStatus;
  error?: string;
  result?: Record<string, unknown>;
}

// ignore: the event was directly caused by this rule's own action (no run, no row);
// loop_guard: a run, recorded as skipped; run: the actions run at the event's depth.
export type Admission = { kind: 'ignore' } | { kind: 'loop_guard'; depth: number } | { kind: 'run'; depth: number };

export function admit(ruleId: string, cause: EventCause | undefined): Admission {
  if (cause?.rule_id === ruleId) return { kind: 'ignore' };
  const depth = cause?.depth ?? 0;
  return depth >= MAX_DEPTH ? { kind: 'loop_guard', depth } : { kind: 'run', depth };
}

// The cause the events of a run's actions carry: this rule, this run, one level deeper.
export const causeOf = (ruleId: string, runId: string, depth: number): EventCause => ({ rule_id: ruleId, run_id: runId, depth: depth + 1 });

// succeeded when no action failed; failed when none succeeded and one failed; else partially_failed.
// Actions skipped (nothing to act on) and waits count as neither.
export function runStatus(actions: readonly ActionOutcome[]): Exclude<RunStatus, 'skipped'> {
  const done = actions.filter((action) => action.type !== 'wait');
  const failed = done.some((action) => action.status === 'failed');
  if (!failed) return 'succeeded';
  return done.some((action) => action.status === 'succeeded') ? 'partially_failed' : 'failed';
}

// What a run whose actions stopped (at the end, not at a wait) is now: `delivering` while a
// webhook of it is still being delivered, else its outcome.
export function settledStatus(actions: readonly ActionOutcome[]): Exclude<RunStatus, 'skipped'> | 'delivering' {
  return actions.some((action) => action.status === 'pending') ? 'delivering' : runStatus(actions);
}

// The member after `last` in a stable order (ids ascending), wrapping around; undefined when there
// is nobody.
export function nextInRotation(candidates: readonly string[], last: string | null): string | undefined {
  const sorted = [...candidates].sort();
  if (sorted.length === 0) return undefined;
  return (last === null ? undefined : sorted.find((id) => id > last)) ?? sorted[0];
}
