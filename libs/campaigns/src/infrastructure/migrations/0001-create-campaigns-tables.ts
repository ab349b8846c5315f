import type { MigrationInterface, QueryRunner } from 'typeorm';

// Campaigns (docs/campaigns.md): segments, broadcasts and their recipients. A recipient row is
// written once per contact when its broadcast starts; a phone number is held once per broadcast
// among the recipients it is sent to (the partial unique index), whatever process starts it.
// `queued_at` is the hand-over checkpoint: set in the transaction that stores the recipient's
// message in messaging's paced queue.
export class CreateCampaignsTables1763800017001 implements MigrationInterface {
  name = 'CreateCampaignsTables1763800017001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE segments (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        name text NOT NULL CONSTRAINT segments_name_length CHECK (length(name) BETWEEN 1 AND 200),
        filter text NOT NULL DEFAULT '' CONSTRAINT segments_filter_length CHECK (length(filter) <= 4000),
        created_by uuid,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (organization_id, id)
      );
      CREATE INDEX segments_org_created_idx ON segments (organization_id, created_at DESC);
      SELECT enable_tenant_rls('segments');

      CREATE TABLE broadcasts (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        name text NOT NULL CONSTRAINT broadcasts_name_length CHECK (length(name) BETWEEN 1 AND 200),
        channel_account_id uuid NOT NULL,
        channel_kind text NOT NULL CONSTRAINT broadcasts_channel_kind_known CHECK (channel_kind IN ('chat_app', 'sms')),
        audience jsonb NOT NULL CONSTRAINT broadcasts_audience_object CHECK (jsonb_typeof(audience) = 'object' AND pg_column_size(audience) <= 1048576),
        content jsonb NOT NULL CONSTRAINT broadcasts_content_object CHECK (jsonb_typeof(content) = 'object' AND pg_column_size(content) <= 65536),
        personalised boolean NOT NULL,
        status text NOT NULL DEFAULT 'draft'
          CONSTRAINT broadcasts_status_known CHECK (status IN ('draft', 'scheduled', 'sending', 'paused', 'completed', 'cancelled')),
        scheduled_at timestamptz,
        started_at timestamptz,
        paused_at timestamptz,
        completed_at timestamptz,
        cancelled_at timestamptz,
        -- The worker handing this broadcast's recipients to the queue holds it until then.
        lease_until timestamptz,
        last_handed_at timestamptz,
        created_by uuid,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT broadcasts_scheduled_has_time CHECK (status <> 'scheduled' OR scheduled_at IS NOT NULL),
        UNIQUE (organization_id, id)
      );
      CREATE INDEX broadcasts_org_created_idx ON broadcasts (organization_id, created_at DESC, id);
      -- The worker's reads across organizations: due scheduled broadcasts, and those sending.
      CREATE INDEX broadcasts_due_idx ON broadcasts (scheduled_at) WHERE status = 'scheduled';
      CREATE INDEX broadcasts_sending_idx ON broadcasts (last_handed_at NULLS FIRST) WHERE status = 'sending';
      SELECT enable_tenant_rls('broadcasts');

      CREATE TABLE broadcast_recipients (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        broadcast_id uuid NOT NULL,
        contact_id uuid NOT NULL,
        phone text,
        message_id uuid,
        status text NOT NULL CONSTRAINT broadcast_recipients_status_known CHECK (status IN (
          'queued', 'sent', 'delivered', 'read', 'failed', 'replied', 'skipped_no_opt_in', 'skipped_duplicate', 'skipped_invalid')),
        error text CONSTRAINT broadcast_recipients_error_length CHECK (length(error) <= 2000),
        queued_at timestamptz,
        sent_at timestamptz,
        delivered_at timestamptz,
        read_at timestamptz,
        failed_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT broadcast_recipients_once UNIQUE (broadcast_id, contact_id),
        CONSTRAINT broadcast_recipients_broadcast_fkey FOREIGN KEY (organization_id, broadcast_id)
          REFERENCES broadcasts (organization_id, id) ON DELETE CASCADE
      );
      CREATE UNIQUE INDEX broadcast_recipients_phone_once ON broadcast_recipients (broadcast_id, phone) WHERE status NOT LIKE 'skipped%';
      -- The hand-out's next batch and the live counts.
      CREATE INDEX broadcast_recipients_waiting_idx ON broadcast_recipients (broadcast_id, created_at, id) WHERE status = 'queued';
      CREATE INDEX broadcast_recipients_status_idx ON broadcast_recipients (broadcast_id, status);
      CREATE INDEX broadcast_recipients_org_idx ON broadcast_recipients (organization_id, broadcast_id);
      SELECT enable_tenant_rls('broadcast_recipients');
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE broadcast_recipients; DROP TABLE broadcasts; DROP TABLE segments;`);
  }
}
