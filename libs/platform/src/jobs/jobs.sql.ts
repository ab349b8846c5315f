// The runner's statements; each is a fixed text run as a prepared statement.

// In the caller's transaction: a tenant transaction's job belongs to its organization (the policy
// refuses any other), a system transaction's to the one given or none. No RETURNING: tenants may
// add jobs but not read them.
export const INSERT_JOB = `
  INSERT INTO jobs (name, organization_id, payload, run_at, max_attempts)
  VALUES ($1, coalesce($2::uuid, app_org_id()), $3::jsonb, coalesce($4::timestamptz, now()), $5)`;

// Due jobs of the kinds this runner knows, and jobs whose claim lapsed (their worker died), oldest
// first. SKIP LOCKED: replicas claiming at the same moment take disjoint rows, without waiting.
export const CLAIM_JOBS = `
  UPDATE jobs j SET state = 'running', attempts = j.attempts + 1, locked_by = $1,
    locked_until = now() + make_interval(secs => ($4::double precision[])[array_position($2::text[], j.name)] / 1000)
  FROM (
    SELECT id FROM jobs
    WHERE name = ANY($2::text[])
      AND ((state = 'queued' AND run_at <= now()) OR (state = 'running' AND locked_until < now()))
    ORDER BY run_at, id LIMIT $3 FOR UPDATE SKIP LOCKED
  ) due
  WHERE j.id = due.id
  RETURNING j.id::text, j.name, j.organization_id, j.payload, j.attempts, j.max_attempts`;

// Only while this runner still holds the claim: a lapsed claim is someone else's now.
export const COMPLETE_JOB = `DELETE FROM jobs WHERE id = $1::bigint AND locked_by = $2 AND state = 'running'`;

export const RETRY_JOB = `
  UPDATE jobs SET state = 'queued', run_at = now() + make_interval(secs => $3::double precision / 1000),
    last_error = $4, locked_by = NULL, locked_until = NULL
  WHERE id = $1::bigint AND locked_by = $2 AND state = 'running'`;

export const BURY_JOB = `
  UPDATE jobs SET state = 'dead', dead_at = now(), last_error = $3, locked_by = NULL, locked_until = NULL
  WHERE id = $1::bigint AND locked_by = $2 AND state = 'running'`;

// A new schedule starts at its next tick; a changed one (spec differs) starts again from it.
export const REGISTER_SCHEDULE = `
  INSERT INTO job_schedules (name, spec, next_at) VALUES ($1, $2, $3)
  ON CONFLICT (name) DO UPDATE SET spec = EXCLUDED.spec, next_at = EXCLUDED.next_at WHERE job_schedules.spec <> EXCLUDED.spec`;

export const DUE_SCHEDULES = `SELECT name, next_at FROM job_schedules WHERE name = ANY($1::text[]) AND next_at <= now()`;

// Compare-and-set on the tick this replica saw: of replicas firing together one moves it, the
// others' update matches nothing (the row is re-read after the winner's commit).
export const ADVANCE_SCHEDULE = `
  UPDATE job_schedules SET next_at = $3, last_fired_at = now()
  WHERE name = $1 AND next_at = $2 RETURNING name`;
