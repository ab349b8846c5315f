import type { MigrationInterface, QueryRunner } from 'typeorm';

// Drip sequences (docs/campaigns.md, "Drip sequences"): a sequence and its immutable versions (a
// change to an activated sequence is a new version; enrolments keep theirs), one enrolment per
// contact and run (one running at a time per sequence and contact: the partial unique index), and
// one row per enrolment and step handed to messaging's paced queue, written in the transaction that
// stores the step's message (its primary key: a step at most once per enrolment).
export class CreateSequenceTables1763800017003 implements MigrationInterface {
  name = 'CreateSequenceTables1763800017003';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE sequences (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        name text NOT NULL CONSTRAINT sequences_name_length CHECK (length(name) BETWEEN 1 AND 200),
        channel_account_id uuid NOT NULL,
        channel_kind text NOT NULL CONSTRAINT sequences_channel_kind_known CHECK (channel_kind IN ('chat_app', 'sms')),
        status text NOT NULL DEFAULT 'draft' CONSTRAINT sequences_status_known CHECK (status IN ('draft', 'active', 'paused')),
        version integer NOT NULL DEFAULT 1,
        steps jsonb NOT NULL CONSTRAINT sequences_steps_array CHECK (jsonb_typeof(steps) = 'array' AND pg_column_size(steps) <= 262144),
        exit_on jsonb NOT NULL CONSTRAINT sequences_exit_on_object CHECK (jsonb_typeof(exit_on) = 'object'),
        activated_at timestamptz,
        paused_at timestamptz,
        created_by uuid,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (organization_id, id)
      );
      CREATE INDEX sequences_org_created_idx ON sequences (organization_id, created_at DESC, id);
      SELECT enable_tenant_rls('sequences');

      CREATE TABLE sequence_versions (
        organization_id uuid NOT NULL,
        sequence_id uuid NOT NULL,
        version integer NOT NULL,
        steps jsonb NOT NULL,
        exit_on jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (sequence_id, version),
        CONSTRAINT sequence_versions_org_unique UNIQUE (organization_id, sequence_id, version),
        CONSTRAINT sequence_versions_sequence_fkey FOREIGN KEY (organization_id, sequence_id)
          REFERENCES sequences (organization_id, id) ON DELETE CASCADE
      );
      SELECT enable_tenant_rls('sequence_versions');

      CREATE TABLE sequence_enrollments (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        sequence_id uuid NOT NULL,
        version integer NOT NULL,
        contact_id uuid NOT NULL,
        status text NOT NULL DEFAULT 'active'
          CONSTRAINT sequence_enrollments_status_known CHECK (status IN ('active', 'completed', 'exited', 'paused')),
        exit_reason text CONSTRAINT sequence_enrollments_exit_reason_known CHECK (
          exit_reason IN ('reply', 'opt_out', 'conversation_resolved', 'manual', 'unreachable')),
        -- The number of steps handed to the queue.
        current_step integer NOT NULL DEFAULT 0,
        next_step_at timestamptz,
        enrolled_at timestamptz NOT NULL,
        last_step_at timestamptz,
        completed_at timestamptz,
        exited_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT sequence_enrollments_exited_has_reason CHECK ((status = 'exited') = (exit_reason IS NOT NULL)),
        CONSTRAINT sequence_enrollments_running_has_next CHECK (status NOT IN ('active', 'paused') OR next_step_at IS NOT NULL),
        CONSTRAINT sequence_enrollments_version_fkey FOREIGN KEY (organization_id, sequence_id, version)
          REFERENCES sequence_versions (organization_id, sequence_id, version) ON DELETE CASCADE,
        UNIQUE (organization_id, id)
      );
      -- One running enrolment per sequence and contact: re-enrolment waits for the run to end.
      CREATE UNIQUE INDEX sequence_enrollments_running_once ON sequence_enrollments (sequence_id, contact_id) WHERE status IN ('active', 'paused');
      -- The worker's read across organizations: active enrolments whose next step is due.
      CREATE INDEX sequence_enrollments_due_idx ON sequence_enrollments (next_step_at) WHERE status = 'active';
      -- Exits by contact (a reply, an opt-out, a resolved conversation).
      CREATE INDEX sequence_enrollments_contact_idx ON sequence_enrollments (organization_id, contact_id) WHERE status IN ('active', 'paused');
      CREATE INDEX sequence_enrollments_sequence_idx ON sequence_enrollments (sequence_id, status);
      SELECT enable_tenant_rls('sequence_enrollments');

      CREATE TABLE sequence_step_sends (
        organization_id uuid NOT NULL,
        enrollment_id uuid NOT NULL,
        step integer NOT NULL,
        message_id uuid,
        error text CONSTRAINT sequence_step_sends_error_length CHECK (length(error) <= 2000),
        handed_at timestamptz NOT NULL,
        PRIMARY KEY (enrollment_id, step),
        CONSTRAINT sequence_step_sends_enrollment_fkey FOREIGN KEY (organization_id, enrollment_id)
          REFERENCES sequence_enrollments (organization_id, id) ON DELETE CASCADE
      );
      SELECT enable_tenant_rls('sequence_step_sends');
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE sequence_step_sends; DROP TABLE sequence_enrollments; DROP TABLE sequence_versions; DROP TABLE sequences;`);
  }
}
