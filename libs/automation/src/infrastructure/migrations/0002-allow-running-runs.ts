import type { MigrationInterface, QueryRunner } from 'typeorm';

// The rule engine claims a run by inserting it before its actions run (the unique key on rule and
// event is the claim), as `running` with no finished_at; the run's outcome replaces it when the
// actions are done.
export class AllowRunningRuns1763800016002 implements MigrationInterface {
  name = 'AllowRunningRuns1763800016002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE automation_runs DROP CONSTRAINT automation_runs_status_known;
      ALTER TABLE automation_runs ADD CONSTRAINT automation_runs_status_known
        CHECK (status IN ('running', 'succeeded', 'failed', 'partially_failed', 'skipped'));
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DELETE FROM automation_runs WHERE status = 'running';
      ALTER TABLE automation_runs DROP CONSTRAINT automation_runs_status_known;
      ALTER TABLE automation_runs ADD CONSTRAINT automation_runs_status_known
        CHECK (status IN ('succeeded', 'failed', 'partially_failed', 'skipped'));
    `);
  }
}
