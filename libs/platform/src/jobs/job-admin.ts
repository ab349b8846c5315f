import type { Database } from '../database/database';

export interface DeadJob {
  id: string;
  name: string;
  organization_id: string | null;
  payload: unknown;
  attempts: number;
  last_error: string | null;
  created_at: Date;
  dead_at: Date;
}

const JOB_COUNTS = `SELECT name, state, count(*)::int AS count, min(run_at) AS oldest_run_at FROM jobs GROUP BY name, state ORDER BY name, state`;
const DEAD_JOBS = `
  SELECT id::text, name, organization_id, payload, attempts, last_error, created_at, dead_at FROM jobs
  WHERE state = 'dead' AND ($2::text IS NULL OR name = $2) ORDER BY dead_at DESC, id DESC LIMIT $1`;
// A replayed job starts again with all its attempts.
const REPLAY_JOB = `
  UPDATE jobs SET state = 'queued', run_at = now(), attempts = 0, dead_at = NULL
  WHERE id = $1::bigint AND state = 'dead' RETURNING id::text, name`;

// The admin's view of the runner (npm run admin -- jobs): how many jobs wait, run and are dead, per kind.
export function jobCounts(db: Database): Promise<{ name: string; state: string; count: number; oldest_run_at: Date }[]> {
  return db.systemQuery(JOB_COUNTS);
}

export function deadJobs(db: Database, options: { limit: number; name?: string }): Promise<DeadJob[]> {
  return db.systemQuery<DeadJob>(DEAD_JOBS, [options.limit, options.name ?? null]);
}

// Undefined when no dead job has that id (never dead, or already replayed).
export async function replayDeadJob(db: Database, id: string): Promise<{ id: string; name: string } | undefined> {
  if (!/^\d{1,18}$/.test(id)) return undefined;
  const [row] = await db.systemQuery<{ id: string; name: string }>(REPLAY_JOB, [id]);
  return row;
}
