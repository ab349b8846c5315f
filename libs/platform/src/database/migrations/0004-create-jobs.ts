import type { MigrationInterface, QueryRunner } from 'typeorm';

// The job runner's tables. A tenant transaction may only add jobs of its own organization (as the
// outbox); claiming, retrying and the admin's view run as the system. A job that succeeds is
// deleted; one that ran out of attempts stays `dead` until an admin replays it.
export class CreateJobs1763800000004 implements MigrationInterface {
  name = 'CreateJobs1763800000004';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE jobs (
        id bigserial PRIMARY KEY,
        name text NOT NULL,
        organization_id uuid,
        payload jsonb NOT NULL DEFAULT '{}'::jsonb,
        state text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'running', 'dead')),
        run_at timestamptz NOT NULL DEFAULT now(),
        attempts integer NOT NULL DEFAULT 0,
        max_attempts integer NOT NULL CHECK (max_attempts >= 1),
        locked_by text,
        locked_until timestamptz,
        last_error text,
        created_at timestamptz NOT NULL DEFAULT now(),
        dead_at timestamptz
      ) WITH (fillfactor = 70);
      CREATE INDEX jobs_due_idx ON jobs (run_at, id) WHERE state = 'queued';
      CREATE INDEX jobs_lease_idx ON jobs (locked_until) WHERE state = 'running';
      CREATE INDEX jobs_dead_idx ON jobs (dead_at DESC) WHERE state = 'dead';
      ALTER TABLE jobs ENABLE ROW LEVEL SECURITY;
      CREATE POLICY jobs_insert_own ON jobs FOR INSERT TO app_tenant WITH CHECK (organization_id = app_org_id());
      GRANT INSERT ON jobs TO app_tenant;
      GRANT USAGE ON SEQUENCE jobs_id_seq TO app_tenant;
    `);
    // One row per schedule: the replica that moves next_at from the tick it saw enqueues that tick's job.
    await q.query(`
      CREATE TABLE job_schedules (
        name text PRIMARY KEY,
        spec text NOT NULL,
        next_at timestamptz NOT NULL,
        last_fired_at timestamptz
      );
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE job_schedules; DROP TABLE jobs;`);
  }
}
