import type { MigrationInterface, QueryRunner } from 'typeorm';

// Call records (spec §2, §3): one row per registered call or meeting recording, carried through
// the processing pipeline (received → transcribing → analyzing → completed, or failed /
// transcription_unavailable). The recording itself lives on the CDN; the row keeps its address.
export class CreateCallRecords1763800013001 implements MigrationInterface {
  name = 'CreateCallRecords1763800013001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE call_records (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        status text NOT NULL DEFAULT 'received' CONSTRAINT call_records_status_known
          CHECK (status IN ('received', 'transcribing', 'analyzing', 'completed', 'failed', 'transcription_unavailable')),
        failure_reason text CONSTRAINT call_records_failure_reason_length CHECK (length(failure_reason) <= 2000),
        source text NOT NULL DEFAULT 'mobile' CONSTRAINT call_records_source_known CHECK (source IN ('mobile', 'meeting')),
        contact_id uuid,
        customer_phone text CONSTRAINT call_records_customer_phone_length CHECK (length(customer_phone) <= 64),
        agent_identifier text CONSTRAINT call_records_agent_identifier_length CHECK (length(agent_identifier) <= 320),
        agent_user_id uuid,
        duration_seconds integer CONSTRAINT call_records_duration_range CHECK (duration_seconds BETWEEN 0 AND 86400),
        call_timestamp timestamptz NOT NULL DEFAULT now(),
        direction text NOT NULL DEFAULT 'inbound' CONSTRAINT call_records_direction_known CHECK (direction IN ('inbound', 'outbound')),
        notes text CONSTRAINT call_records_notes_length CHECK (length(notes) <= 10000),
        recording_url text CONSTRAINT call_records_recording_url_length CHECK (length(recording_url) <= 2048),
        recording_key text CONSTRAINT call_records_recording_key_length CHECK (length(recording_key) <= 1024),
        recording_content_type text CONSTRAINT call_records_recording_content_type_length CHECK (length(recording_content_type) <= 255),
        recording_bytes bigint CONSTRAINT call_records_recording_bytes_range CHECK (recording_bytes >= 0),
        transcription text,
        analysis jsonb CONSTRAINT call_records_analysis_object CHECK (jsonb_typeof(analysis) = 'object'),
        meeting jsonb CONSTRAINT call_records_meeting_object CHECK (jsonb_typeof(meeting) = 'object'),
        attempts integer NOT NULL DEFAULT 0 CONSTRAINT call_records_attempts_range CHECK (attempts >= 0),
        processing_started_at timestamptz,
        completed_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT call_records_org_id_key UNIQUE (organization_id, id),
        -- A phone call always has its recording; a meeting's row may exist before its files are fetched.
        CONSTRAINT call_records_recording_present CHECK (recording_url IS NOT NULL OR source = 'meeting'),
        CONSTRAINT call_records_failure_explained CHECK (status <> 'failed' OR failure_reason IS NOT NULL),
        CONSTRAINT call_records_contact_fkey FOREIGN KEY (organization_id, contact_id)
          REFERENCES contacts (organization_id, id) ON DELETE SET NULL (contact_id),
        CONSTRAINT call_records_agent_fkey FOREIGN KEY (organization_id, agent_user_id)
          REFERENCES memberships (organization_id, user_id) ON DELETE SET NULL (agent_user_id)
      );
      CREATE INDEX call_records_contact_idx ON call_records (organization_id, contact_id, created_at DESC);
      CREATE INDEX call_records_org_created_idx ON call_records (organization_id, created_at DESC, id);
      CREATE INDEX call_records_status_idx ON call_records (status, updated_at);
      SELECT enable_tenant_rls('call_records');
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE call_records`);
  }
}
