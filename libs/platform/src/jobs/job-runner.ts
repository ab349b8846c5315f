import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Type } from '@nestjs/common';
import type { Database } from '../database/database';
import { NotificationListener } from '../database/notification-listener';
import type { JobContext, JobDefinition, JobHandler, ScheduleDefinition, ScheduleTick } from './job-definition';
import { nextTick, retryDelayMs, scheduleSpec } from './job-definition';
import { ADVANCE_SCHEDULE, BURY_JOB, COMPLETE_AND_CLAIM, INSERT_JOB, JOBS_CHANNEL, REGISTER_SCHEDULE, REQUEUE_LAPSED, RETRY_JOB } from './jobs.sql';

export interface JobRunnerOptions {
  jobs: JobDefinition[];
  schedules: ScheduleDefinition[];
  // Jobs run at once by this runner.
  concurrency: number;
  // How often it looks for due jobs and schedule ticks when it has nothing to do.
  pollMs: number;
  // Wake at once when any process enqueues a job (LISTEN jobs_enqueued on a session of its own).
  listen?: boolean;
  // Turns a handler class into its instance (the worker asks Nest).
  resolve?: (handler: Type<JobHandler>) => JobHandler;
  log?: (message: string, fields: Record<string, unknown>) => void;
}

interface ClaimedJob {
  id: string;
  name: string;
  organization_id: string | null;
  payload: unknown;
  attempts: number;
  max_attempts: number;
}

const SCHEDULE_STATE = `SELECT name, next_at, next_at <= now() AS due FROM job_schedules WHERE name = ANY($1::text[])`;
// Lapsed claims are looked for at most this often.
const REQUEUE_EVERY_MS = 5000;
// A failure that cannot be recorded (the database unreachable) is recorded again after 250 ms,
// doubling up to 2 s, while the job's claim lasts: once the database answers, the job is due again
// when its retry would have been, not when its lease lapses (5-15 minutes).
const RECORD_AGAIN_BASE_MS = 250;
const RECORD_AGAIN_MAX_MS = 2000;

// Claims due jobs (FOR UPDATE SKIP LOCKED, so replicas never take the same one), runs each with its
// handler and deletes it on success, with its next claim (one statement per round). A failure is
// retried with exponential backoff and, out of attempts, left `dead` for an admin to see and replay.
// Schedules enqueue one job per tick across replicas. stop() takes no new work and waits for the
// jobs under way.
export class JobRunner {
  readonly workerId = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly definitions = new Map<string, JobDefinition>();
  private readonly handlers = new Map<string, JobHandler>();
  private readonly schedules = new Map<string, ScheduleDefinition>();
  private readonly running = new Set<Promise<void>>();
  // Finished jobs not yet deleted: the next claim deletes them.
  private finished: string[] = [];
  private lastRequeue = 0;
  private stopped = true;
  private ticking: Promise<void> | undefined;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  // No schedule is due before this (epoch ms): the schedule table is read only then.
  private nextScheduleCheck = 0;
  private readonly listener: NotificationListener | undefined;

  constructor(
    private readonly db: Database,
    private readonly options: JobRunnerOptions,
  ) {
    if (options.listen) this.listener = new NotificationListener(db, JOBS_CHANNEL, () => this.kick());
    for (const schedule of options.schedules) {
      if (this.schedules.has(schedule.job.name)) throw new Error(`schedule "${schedule.job.name}" is registered twice`);
      this.schedules.set(schedule.job.name, schedule);
    }
    for (const job of [...options.jobs, ...options.schedules.map((s) => s.job)]) {
      const known = this.definitions.get(job.name);
      if (known && known !== job) throw new Error(`job "${job.name}" is defined twice`);
      this.definitions.set(job.name, job);
    }
  }

  async start(): Promise<void> {
    for (const [name, definition] of this.definitions) this.handlers.set(name, this.handlerOf(definition));
    const now = new Date();
    await this.db.asSystem(async (tx) => {
      for (const [name, schedule] of this.schedules) await tx.query(REGISTER_SCHEDULE, [name, scheduleSpec(schedule), nextTick(schedule, now)]);
    });
    this.stopped = false;
    await this.listen();
    this.kick();
  }

  // Look for work now (jobs were enqueued, or a slot freed up).
  kick(): void {
    if (this.stopped) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.ticking = this.tick()
      .catch((error: unknown) => this.log('job runner pass failed', { err: error }))
      .finally(() => {
        this.ticking = undefined;
        if (this.again) {
          this.again = false;
          this.kick();
        } else if (!this.stopped) {
          this.timer = setTimeout(() => this.kick(), this.options.pollMs);
          this.timer.unref();
        }
      });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.ticking;
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
    // Record the last finished jobs (a claim of none).
    if (this.finished.length > 0) await this.completeAndClaim(0).catch((error: unknown) => this.log('finished jobs could not be recorded', { err: error }));
    await this.listener?.close();
  }

  // A lost LISTEN session is opened again on the next pass; polling covers the gap.
  private async listen(): Promise<void> {
    if (!this.listener || this.listener.listening) return;
    await this.listener.ensure().catch((error: unknown) => this.log('job runner cannot LISTEN; polling until it can', { err: error }));
  }

  private async tick(): Promise<void> {
    await this.listen();
    if (this.schedules.size > 0 && Date.now() >= this.nextScheduleCheck) await this.fireSchedules();
    if (Date.now() - this.lastRequeue >= REQUEUE_EVERY_MS) {
      this.lastRequeue = Date.now();
      await this.db.systemQuery(REQUEUE_LAPSED);
    }
    const free = Math.max(0, this.options.concurrency - this.running.size);
    if (free === 0 && this.finished.length === 0) return;
    for (const job of await this.completeAndClaim(free)) {
      const run = this.execute(job).finally(() => {
        this.running.delete(run);
        this.kick();
      });
      this.running.add(run);
    }
  }

  private async completeAndClaim(limit: number): Promise<ClaimedJob[]> {
    const finished = this.finished;
    this.finished = [];
    const names = [...this.definitions.keys()];
    const leases = names.map((name) => this.definitions.get(name)?.leaseMs);
    try {
      return await this.db.systemQuery<ClaimedJob>(COMPLETE_AND_CLAIM, [this.workerId, names, limit, leases, finished], { prepare: true });
    } catch (error) {
      // Deleted with the next claim (or, if this runner stops for good, run again after the lease).
      this.finished.push(...finished);
      throw error;
    }
  }

  private async fireSchedules(): Promise<void> {
    const rows = await this.db.systemQuery<{ name: string; next_at: Date; due: boolean }>(SCHEDULE_STATE, [[...this.schedules.keys()]]);
    let earliest = Number.POSITIVE_INFINITY;
    for (const row of rows) {
      let nextAt = row.next_at;
      if (row.due) {
        const schedule = this.schedules.get(row.name);
        if (!schedule) continue;
        // A tick missed while no worker ran fires once, then the schedule continues from now.
        nextAt = nextTick(schedule, new Date(Math.max(Date.now(), row.next_at.getTime())));
        await this.db.asSystem(async (tx) => {
          const [won] = await tx.query(ADVANCE_SCHEDULE, [row.name, row.next_at, nextAt]);
          const payload: ScheduleTick = { tick: row.next_at.toISOString() };
          if (won) await tx.query(INSERT_JOB, [schedule.job.name, null, JSON.stringify(payload), null, schedule.job.retry.maxAttempts], { prepare: true });
        });
      }
      earliest = Math.min(earliest, nextAt.getTime());
    }
    this.nextScheduleCheck = earliest;
  }

  private async execute(job: ClaimedJob): Promise<void> {
    const definition = this.definitions.get(job.name);
    const handler = this.handlers.get(job.name);
    if (!definition || !handler) return;
    const claimedAt = Date.now();
    const context: JobContext = { id: job.id, name: job.name, attempt: job.attempts, organizationId: job.organization_id };
    try {
      await handler.handle(job.payload, context);
    } catch (error) {
      await this.failed(job, definition, error, claimedAt);
      return;
    }
    this.finished.push(job.id);
  }

  // Records a failure: a retry after the policy's delay from the failure, or dead. Until it is
  // recorded the job stays `running` under this runner's claim, so no one else runs it meanwhile;
  // it is tried again while the claim lasts (and not after stop()), then left to the lapsed-claim pass.
  private async failed(job: ClaimedJob, definition: JobDefinition, error: unknown, claimedAt: number): Promise<void> {
    const failedAt = Date.now();
    const message = (error instanceof Error ? error.message : String(error)).slice(0, 2000);
    const dead = job.attempts >= job.max_attempts;
    // The error itself goes to the log, whose serializer keeps secrets out of it.
    const fields = { err: error, job_id: job.id, job: job.name, attempt: job.attempts };
    this.log(dead ? 'job failed for the last time: dead-lettered' : 'job failed; it will be retried', fields);
    const delayMs = retryDelayMs(definition.retry, job.attempts);
    const claimEnds = claimedAt + definition.leaseMs;
    for (let tries = 0; ; tries++) {
      try {
        if (dead) await this.db.systemQuery(BURY_JOB, [job.id, this.workerId, message, job.attempts], { prepare: true });
        // The delay counts from the failure, however long recording it took.
        else
          await this.db.systemQuery(RETRY_JOB, [job.id, this.workerId, Math.max(0, delayMs - (Date.now() - failedAt)), message, job.attempts], {
            prepare: true,
          });
        return;
      } catch (recordError) {
        const wait = Math.min(RECORD_AGAIN_MAX_MS, RECORD_AGAIN_BASE_MS * 2 ** tries);
        if (this.stopped || Date.now() + wait >= claimEnds) {
          this.log('job failure could not be recorded', { err: recordError, job_id: job.id });
          return;
        }
        if (tries === 0) this.log('job failure not recorded yet; trying again', { err: recordError, job_id: job.id });
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  }

  private handlerOf(definition: JobDefinition): JobHandler {
    if (typeof definition.handler !== 'function') return definition.handler;
    if (!this.options.resolve) throw new Error(`job "${definition.name}" has a handler class but the runner has no resolver`);
    return this.options.resolve(definition.handler);
  }

  private log(message: string, fields: Record<string, unknown>): void {
    this.options.log?.(message, fields);
  }
}
