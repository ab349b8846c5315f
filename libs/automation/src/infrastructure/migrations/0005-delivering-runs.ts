import type { MigrationInterface, QueryRunner } from 'typeorm';

// A rule's webhooks are delivered by jobs: a run whose actions are done but one of whose webhooks
// is still being delivered (retries within 60 s) is `delivering`, with no finished_at, until the
// last delivery ends; its status is then its outcome.
export class DeliveringRuns1763800016005 implements MigrationInterface {
  name = 'DeliveringRuns1763800016005';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE automation_runs DROP CONSTRAINT automation_runs_status_known;
      ALTER TABLE automation_runs ADD CONSTRAINT automation_runs_status_known
        CHECK (status IN ('running', 'waiting', 'delivering', 'succeeded', 'failed', 'partially_failed', 'skipped'));
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      UPDATE automation_runs SET status = 'failed', finished_at = now() WHERE status = 'delivering';
      ALTER TABLE automation_runs DROP CONSTRAINT automation_runs_status_known;
      ALTER TABLE automation_runs ADD CONSTRAINT automation_runs_status_known
        CHECK (status IN ('running', 'waiting', 'succeeded', 'failed', 'partially_failed', 'skipped'));
    `);
  }
}
