import type { MigrationInterface, QueryRunner } from 'typeorm';

// Outbound webhooks: configurations (secret sealed; only its mask is readable), one delivery row per
// (configuration, event) that carries the frozen body and its retry state, and a log row per attempt.
export class CreateWebhookTables1763800004001 implements MigrationInterface {
  name = 'CreateWebhookTables1763800004001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhook_configurations (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        name text NOT NULL CONSTRAINT webhook_configurations_name_length CHECK (length(name) BETWEEN 1 AND 200),
        url text NOT NULL CONSTRAINT webhook_configurations_url_https CHECK (url LIKE 'https://%' OR url LIKE 'http://%'),
        events text[] NOT NULL DEFAULT '{}',
        secret text,
        secret_sealed text,
        is_active boolean NOT NULL DEFAULT true,
        disabled_reason text,
        failing_since timestamptz,
        created_by uuid,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT webhook_configurations_org_id_key UNIQUE (organization_id, id)
      );
      CREATE INDEX webhook_configurations_subscribed_idx ON webhook_configurations USING gin (events) WHERE is_active;
      SELECT enable_tenant_rls('webhook_configurations');

      CREATE TABLE webhook_deliveries (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL,
        webhook_id uuid NOT NULL,
        event_id uuid,
        event text NOT NULL,
        body text NOT NULL,
        status text NOT NULL DEFAULT 'pending' CONSTRAINT webhook_deliveries_status_known CHECK (status IN ('pending', 'retrying', 'success', 'failed')),
        automatic boolean NOT NULL DEFAULT true,
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        locked_until timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT webhook_deliveries_org_id_key UNIQUE (organization_id, id),
        CONSTRAINT webhook_deliveries_once_per_event UNIQUE (webhook_id, event_id),
        CONSTRAINT webhook_deliveries_webhook_fkey FOREIGN KEY (organization_id, webhook_id) REFERENCES webhook_configurations (organization_id, id) ON DELETE CASCADE
      );
      CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status IN ('pending', 'retrying');
      CREATE INDEX webhook_deliveries_in_flight_idx ON webhook_deliveries (webhook_id, locked_until) WHERE status IN ('pending', 'retrying');
      CREATE INDEX webhook_deliveries_finished_idx ON webhook_deliveries (updated_at) WHERE status IN ('success', 'failed');
      SELECT enable_tenant_rls('webhook_deliveries');

      CREATE TABLE webhook_logs (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL,
        webhook_id uuid NOT NULL,
        delivery_id uuid,
        event text NOT NULL,
        status text NOT NULL CONSTRAINT webhook_logs_status_known CHECK (status IN ('success', 'failed', 'retrying')),
        response_code integer,
        error_message text,
        duration_ms integer,
        attempt integer,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT webhook_logs_webhook_fkey FOREIGN KEY (organization_id, webhook_id) REFERENCES webhook_configurations (organization_id, id) ON DELETE CASCADE,
        CONSTRAINT webhook_logs_delivery_fkey FOREIGN KEY (organization_id, delivery_id) REFERENCES webhook_deliveries (organization_id, id) ON DELETE SET NULL (delivery_id)
      );
      CREATE INDEX webhook_logs_webhook_created_idx ON webhook_logs (organization_id, webhook_id, created_at DESC);
      CREATE INDEX webhook_logs_created_idx ON webhook_logs (created_at);
      SELECT enable_tenant_rls('webhook_logs');
      -- The log is written by the service only; through the data API it is read-only anyway.
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE webhook_logs; DROP TABLE webhook_deliveries; DROP TABLE webhook_configurations;`);
  }
}
