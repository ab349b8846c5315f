import type { MigrationInterface, QueryRunner } from 'typeorm';

// The two conversation timers (docs/automation.md, "Timers") and runs that wait.
//
// automation_timers: one row per conversation and timer kind. An open episode has started_at and
// an episode_id; a reply ends it (started_at and episode_id null, ended_at the reply's time, which
// keeps a redelivered older event from arming it again). fired_rule_ids are the timer rules that
// already fired on the open episode: adding a rule's id is the claim, so a rule fires once per
// episode whatever process gets there.
//
// automation_runs: a run paused by a `wait` action is `waiting` until resume_at; claimed_at is when
// a process last took the run (its claim, or its resumption): a run still running long after it
// was interrupted (its process stopped) and is finished as failed.
export class ConversationTimersAndWaits1763800016003 implements MigrationInterface {
  name = 'ConversationTimersAndWaits1763800016003';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE automation_timers (
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        conversation_id uuid NOT NULL,
        kind text NOT NULL CONSTRAINT automation_timers_kind_known CHECK (kind IN ('conversation.unanswered', 'conversation.customer_silent')),
        episode_id uuid,
        started_at timestamptz,
        ended_at timestamptz,
        fired_rule_ids uuid[] NOT NULL DEFAULT '{}',
        PRIMARY KEY (organization_id, conversation_id, kind),
        CONSTRAINT automation_timers_episode_whole CHECK ((episode_id IS NULL) = (started_at IS NULL))
      );
      -- The timer pass: an organization's open episodes of a kind, oldest first.
      CREATE INDEX automation_timers_open_idx ON automation_timers (organization_id, kind, started_at) WHERE started_at IS NOT NULL;
      SELECT enable_tenant_rls('automation_timers');

      -- The timer pass reads the active timer rules of every organization.
      CREATE INDEX automation_rules_timers_idx ON automation_rules (event)
        WHERE is_active AND event IN ('conversation.unanswered', 'conversation.customer_silent');

      ALTER TABLE automation_runs DROP CONSTRAINT automation_runs_status_known;
      ALTER TABLE automation_runs ADD CONSTRAINT automation_runs_status_known
        CHECK (status IN ('running', 'waiting', 'succeeded', 'failed', 'partially_failed', 'skipped'));
      ALTER TABLE automation_runs ADD COLUMN resume_at timestamptz;
      ALTER TABLE automation_runs ADD COLUMN claimed_at timestamptz;
      UPDATE automation_runs SET claimed_at = started_at WHERE status = 'running';
      ALTER TABLE automation_runs ADD CONSTRAINT automation_runs_waiting_resumes CHECK ((status = 'waiting') = (resume_at IS NOT NULL));
      CREATE INDEX automation_runs_waiting_idx ON automation_runs (resume_at) WHERE status = 'waiting';
      CREATE INDEX automation_runs_running_idx ON automation_runs (claimed_at) WHERE status = 'running';
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP INDEX automation_runs_running_idx;
      DROP INDEX automation_runs_waiting_idx;
      ALTER TABLE automation_runs DROP CONSTRAINT automation_runs_waiting_resumes;
      UPDATE automation_runs SET status = 'failed', finished_at = now() WHERE status = 'waiting';
      ALTER TABLE automation_runs DROP COLUMN claimed_at;
      ALTER TABLE automation_runs DROP COLUMN resume_at;
      ALTER TABLE automation_runs DROP CONSTRAINT automation_runs_status_known;
      ALTER TABLE automation_runs ADD CONSTRAINT automation_runs_status_known
        CHECK (status IN ('running', 'succeeded', 'failed', 'partially_failed', 'skipped'));
      DROP INDEX automation_rules_timers_idx;
      DROP TABLE automation_timers;
    `);
  }
}
