// The runner's statements; each is a fixed text run as a prepared statement.

// Workers LISTEN on it: an enqueue notifies at commit, so they claim at once instead of at their next poll.
export const JOBS_CHANNEL = 'jobs_enqueued';

// In the caller's transaction: a tenant transaction's job belongs to its organization (the policy
// refuses any other), a system transaction's to the one given or none. Nothing of the row is
// returned: tenants may add jobs but not read them. The notification is sent only if it commits.
export const INSERT_JOB = `
  WITH added AS (
    INSERT INTO jobs (name, organization_id, payload, run_at, max_attempts)
    VALUES ($1, coalesce($2::uuid, app_org_id()), $3::jsonb, coalesce($4::timestamptz, now()), $5)
  )
  SELECT pg_notify('${JOBS_CHANNEL}', '')`;

// Deletes the jobs this runner finished since its last claim (while it still holds them: a lapsed
// claim is someone else's now) and claims due jobs of the kinds it knows, oldest first, in one
// statement. SKIP LOCKED: replicas claiming at the same moment take disjoint rows, without waiting.
// MATERIALIZED: the due rows are chosen once, whatever the plan; as a subquery on the inner side of
// a nested loop (a plan chosen when statistics say the table is nearly empty) it ran again for each
// row, each run locking the next rows, so LIMIT 4 claimed every due job.
export const COMPLETE_AND_CLAIM = `
  WITH done AS (DELETE FROM jobs WHERE id = ANY($5::bigint[]) AND locked_by = $1 AND state = 'running'),
  due AS MATERIALIZED (
    SELECT id FROM jobs WHERE state = 'queued' AND run_at <= now() AND name = ANY($2::text[])
    ORDER BY run_at, id LIMIT $3 FOR UPDATE SKIP LOCKED
  )
  UPDATE jobs j SET state = 'running', attempts = j.attempts + 1, locked_by = $1,
    locked_until = now() + make_interval(secs => ($4::double precision[])[array_position($2::text[], j.name)] / 1000)
  FROM due
  WHERE j.id = due.id
  RETURNING j.id::text, j.name, j.organization_id, j.payload, j.attempts, j.max_attempts`;

// Jobs whose worker died while running them (the claim lapsed) are due again, or dead when that
// was their last attempt (a job that takes its worker down each time must not loop forever).
export const REQUEUE_LAPSED = `
  UPDATE jobs SET locked_by = NULL, locked_until = NULL,
    state = CASE WHEN attempts >= max_attempts THEN 'dead' ELSE 'queued' END,
    dead_at = CASE WHEN attempts >= max_attempts THEN now() END,
    last_error = coalesce(last_error || '; ', '') || 'claim lapsed: the worker stopped while running it'
  WHERE state = 'running' AND locked_until < now()`;

// A failure of attempt $5 ($4 for BURY_JOB) of a job this runner still holds: a record that comes
// late, after the claim lapsed and the job was claimed again (by this runner too), matches nothing.
export const RETRY_JOB = `
  UPDATE jobs SET state = 'queued', run_at = now() + make_interval(secs => $3::double precision / 1000),
    last_error = $4, locked_by = NULL, locked_until = NULL
  WHERE id = $1::bigint AND locked_by = $2 AND state = 'running' AND attempts = $5`;

export const BURY_JOB = `
  UPDATE jobs SET state = 'dead', dead_at = now(), last_error = $3, locked_by = NULL, locked_until = NULL
  WHERE id = $1::bigint AND locked_by = $2 AND state = 'running' AND attempts = $4`;

// A new schedule starts at its next tick; a changed one (spec differs) starts again from it.
export const REGISTER_SCHEDULE = `
  INSERT INTO job_schedules (name, spec, next_at) VALUES ($1, $2, $3)
  ON CONFLICT (name) DO UPDATE SET spec = EXCLUDED.spec, next_at = EXCLUDED.next_at WHERE job_schedules.spec <> EXCLUDED.spec`;

// Compare-and-set on the tick this replica saw: of replicas firing together one moves it, the
// others' update matches nothing (the row is re-read after the winner's commit).
export const ADVANCE_SCHEDULE = `
  UPDATE job_schedules SET next_at = $3, last_fired_at = now()
  WHERE name = $1 AND next_at = $2 RETURNING name`;

// Dead-lettered jobs older than the retention (days).
export const PURGE_DEAD_JOBS = `DELETE FROM jobs WHERE state = 'dead' AND dead_at < now() - make_interval(days => $1::int)`;
