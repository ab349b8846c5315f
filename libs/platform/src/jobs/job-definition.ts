import type { Type } from '@nestjs/common';
import { CronExpressionParser } from 'cron-parser';
import type { Config } from '../config/settings';
import type { PassResult } from './queue-loop';

// What a handler is told about the job it runs.
export interface JobContext {
  id: string;
  name: string;
  // 1 on the first run, 2 on the first retry, ...
  attempt: number;
  // The organization whose transaction enqueued it; null for system jobs (schedules).
  organizationId: string | null;
}

export interface JobHandler<P = unknown> {
  handle(payload: P, job: JobContext): Promise<unknown>;
}

export interface RetryPolicy {
  // Runs in all, the first included; past it the job is dead-lettered.
  maxAttempts: number;
  // The n-th retry waits baseMs * 2^(n-1), at most maxMs.
  baseMs: number;
  maxMs: number;
}

// A kind of durable job. The handler is a Nest provider class of the context (resolved in the worker)
// or an object with `handle` (tests, platform jobs without dependencies).
export interface JobDefinition<P = unknown> {
  readonly name: string;
  readonly handler: Type<JobHandler<P>> | JobHandler<P>;
  readonly retry: RetryPolicy;
  // How long a claim holds the job; a worker that dies leaves it to be claimed again after this.
  readonly leaseMs: number;
}

// The payload of a scheduled job: the tick it runs for.
export interface ScheduleTick {
  tick: string;
}

// A job run on a clock, once per tick across all workers: a cron expression (UTC) or a fixed interval.
export type ScheduleDefinition = { readonly job: JobDefinition<ScheduleTick> } & ({ readonly cron: string } | { readonly everyMs: number });

// A hot queue: a context's own table and claim (batches per transaction, limits per endpoint) that
// a row per job cannot match, driven by the runner's loop (wake-ups, polling, backoff, stop) in
// worker processes. The worker is a Nest provider of the context.
export interface QueueWorker {
  // One pass (claim and process, or start, a batch): see PassResult.
  pass(): Promise<PassResult>;
  // Once the loop runs: the worker connects its own wake-ups (work stored in this process) to `wake`.
  started?(wake: () => void): void;
  // After the loop stopped: waits for work a pass left running in the background.
  drained?(): Promise<void>;
}

export interface QueueDefinition {
  readonly name: string;
  readonly worker: Type<QueueWorker>;
  // How often it polls without a wake-up (work of other processes, retries due later).
  readonly pollMs: (config: Config) => number;
}

export function defineQueue(queue: QueueDefinition): QueueDefinition {
  if (!NAME.test(queue.name)) throw new Error(`queue name "${queue.name}" must look like <context>.<what> (lower case, dots)`);
  return queue;
}

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 5, baseMs: 10_000, maxMs: 15 * 60_000 };
const DEFAULT_LEASE_MS = 15 * 60_000;
const NAME = /^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)+$/;

// `defineJob({ name: 'crm.deals.reassign-idle', handler: DealReassignment })`: names are
// `<context>.<what>` so the jobs table and the admin command say whose a job is.
export interface JobDeclaration<P> {
  name: string;
  handler: JobDefinition<P>['handler'];
  retry?: Partial<RetryPolicy>;
  leaseMs?: number;
}

export function defineJob<P>(definition: JobDeclaration<P>): JobDefinition<P> {
  if (!NAME.test(definition.name)) throw new Error(`job name "${definition.name}" must look like <context>.<what> (lower case, dots)`);
  const retry = { ...DEFAULT_RETRY, ...definition.retry };
  if (retry.maxAttempts < 1 || retry.baseMs < 0 || retry.maxMs < retry.baseMs) throw new Error(`job "${definition.name}" has an invalid retry policy`);
  return { name: definition.name, handler: definition.handler, retry, leaseMs: definition.leaseMs ?? DEFAULT_LEASE_MS };
}

export function defineSchedule(schedule: ScheduleDefinition): ScheduleDefinition {
  if ('cron' in schedule) nextCronTick(schedule.cron, new Date());
  else if (!(schedule.everyMs >= 1000)) throw new Error(`schedule "${schedule.job.name}" must run at most once a second`);
  return schedule;
}

// How long the n-th attempt that failed waits before the next one.
export function retryDelayMs(retry: RetryPolicy, failedAttempt: number): number {
  return Math.min(retry.maxMs, retry.baseMs * 2 ** Math.max(0, failedAttempt - 1));
}

function nextCronTick(cron: string, after: Date): Date {
  try {
    return CronExpressionParser.parse(cron, { currentDate: after, tz: 'UTC' }).next().toDate();
  } catch (error) {
    throw new Error(`cron expression "${cron}" is invalid: ${(error as Error).message}`);
  }
}

// The first tick strictly after `after`. Interval ticks are aligned on the epoch, so every replica
// computes the same ones.
export function nextTick(schedule: ScheduleDefinition, after: Date): Date {
  if ('cron' in schedule) return nextCronTick(schedule.cron, after);
  return new Date((Math.floor(after.getTime() / schedule.everyMs) + 1) * schedule.everyMs);
}

// Stored with the schedule's row: a changed definition restarts its ticks.
export function scheduleSpec(schedule: ScheduleDefinition): string {
  return 'cron' in schedule ? `cron ${schedule.cron}` : `every ${schedule.everyMs}ms`;
}
