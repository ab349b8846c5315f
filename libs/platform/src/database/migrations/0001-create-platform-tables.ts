import type { MigrationInterface, QueryRunner } from 'typeorm';

// Roles: app_tenant runs every tenant transaction (no BYPASSRLS; tenant tables FORCE row-level
// security). The connecting user is made a member so that `SET LOCAL ROLE app_tenant` works.
export class CreatePlatformTables1763800000001 implements MigrationInterface {
  name = 'CreatePlatformTables1763800000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      DO $$
      BEGIN
        IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'app_tenant') THEN
          CREATE ROLE app_tenant NOLOGIN NOBYPASSRLS;
        END IF;
      END $$;
    `);
    await q.query(`
      DO $$
      BEGIN
        IF NOT pg_has_role(current_user, 'app_tenant', 'MEMBER') THEN
          EXECUTE format('GRANT app_tenant TO %I', current_user);
        END IF;
      END $$;
    `);
    await q.query(`GRANT USAGE ON SCHEMA public TO app_tenant`);

    await q.query(`
      CREATE FUNCTION app_org_id() RETURNS uuid LANGUAGE sql STABLE AS
      $$ SELECT nullif(current_setting('app.org_id', true), '')::uuid $$;
    `);

    // Every tenant table gets the same wall: app_tenant sees and writes only rows of app.org_id;
    // the migrating (system) user keeps full access for cross-organization jobs.
    await q.query(`
      CREATE FUNCTION enable_tenant_rls(tbl regclass, org_column name DEFAULT 'organization_id') RETURNS void
      LANGUAGE plpgsql AS $$
      DECLARE
        t text := (SELECT relname FROM pg_class WHERE oid = tbl);
      BEGIN
        EXECUTE format('ALTER TABLE %s ENABLE ROW LEVEL SECURITY', tbl);
        EXECUTE format('ALTER TABLE %s FORCE ROW LEVEL SECURITY', tbl);
        EXECUTE format('CREATE POLICY %I ON %s TO app_tenant USING (%I = app_org_id()) WITH CHECK (%I = app_org_id())',
                       t || '_tenant', tbl, org_column, org_column);
        EXECUTE format('CREATE POLICY %I ON %s TO %I USING (true) WITH CHECK (true)', t || '_system', tbl, current_user);
        EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON %s TO app_tenant', tbl);
      END $$;
    `);

    await q.query(`
      CREATE TABLE organizations (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
        settings jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      SELECT enable_tenant_rls('organizations', 'id');
      REVOKE INSERT, DELETE ON organizations FROM app_tenant;
    `);

    // Events written in the same transaction as the state change; the relay publishes them.
    await q.query(`
      CREATE TABLE outbox (
        seq bigserial PRIMARY KEY,
        id uuid NOT NULL UNIQUE,
        organization_id uuid NOT NULL,
        source text NOT NULL,
        type text NOT NULL,
        aggregate_id text NOT NULL,
        payload jsonb NOT NULL,
        schema_version integer NOT NULL,
        occurred_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        published_at timestamptz,
        attempts integer NOT NULL DEFAULT 0,
        last_error text
      );
      CREATE INDEX outbox_pending_idx ON outbox (seq) WHERE published_at IS NULL;
      CREATE INDEX outbox_published_idx ON outbox (published_at) WHERE published_at IS NOT NULL;
      ALTER TABLE outbox ENABLE ROW LEVEL SECURITY;
      CREATE POLICY outbox_insert_own ON outbox FOR INSERT TO app_tenant WITH CHECK (organization_id = app_org_id());
      GRANT INSERT ON outbox TO app_tenant;
      GRANT USAGE ON SEQUENCE outbox_seq_seq TO app_tenant;
    `);

    // Idempotent consumers: the row is written in the same transaction as the consumer's effect.
    await q.query(`
      CREATE TABLE processed_events (
        consumer text NOT NULL,
        event_id uuid NOT NULL,
        organization_id uuid NOT NULL,
        processed_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (consumer, event_id)
      );
      SELECT enable_tenant_rls('processed_events');
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `DROP TABLE processed_events; DROP TABLE outbox; DROP TABLE organizations; DROP FUNCTION enable_tenant_rls(regclass, name); DROP FUNCTION app_org_id();`,
    );
  }
}
