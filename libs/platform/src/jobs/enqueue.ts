import type { Tx } from '../database/database';
import type { JobDefinition } from './job-definition';
import { INSERT_JOB } from './jobs.sql';

export interface EnqueueOptions {
  // Not before this time (default: now).
  runAt?: Date;
  // For a system transaction's job about one organization; a tenant transaction's job is its own.
  organizationId?: string;
}

// Adds a job in the caller's transaction: it exists only if the state change that caused it commits.
export async function enqueueJob<P>(tx: Tx, job: JobDefinition<P>, payload: P, options: EnqueueOptions = {}): Promise<void> {
  const row = [job.name, options.organizationId ?? null, JSON.stringify(payload ?? {}), options.runAt ?? null, job.retry.maxAttempts];
  await tx.execute(INSERT_JOB, row, { prepare: true });
}
