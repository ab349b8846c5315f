import type { MigrationInterface, QueryRunner } from 'typeorm';

// users and refresh sessions are global (a login comes before any organization is known);
// memberships and API keys are tenant rows. Members of an organization may read each other.
export class CreateIdentityTables1763800001001 implements MigrationInterface {
  name = 'CreateIdentityTables1763800001001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE users (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        email text NOT NULL CHECK (email = lower(email) AND length(email) BETWEEN 3 AND 320),
        password_hash text NOT NULL,
        first_name text NOT NULL DEFAULT '' CHECK (length(first_name) <= 100),
        last_name text CHECK (length(last_name) <= 100),
        avatar_url text CHECK (length(avatar_url) <= 2048),
        email_confirmed_at timestamptz,
        status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'deactivated', 'suspended')),
        is_online boolean NOT NULL DEFAULT false,
        last_seen_at timestamptz,
        last_sign_in_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE UNIQUE INDEX users_email_idx ON users (email);

      CREATE TABLE memberships (
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        role text NOT NULL CHECK (role IN ('OWNER', 'ADMIN', 'AGENT', 'PROJECT_MANAGER', 'TEAM_ADMIN')),
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (organization_id, user_id)
      );
      CREATE INDEX memberships_user_idx ON memberships (user_id);
      SELECT enable_tenant_rls('memberships');

      ALTER TABLE users ENABLE ROW LEVEL SECURITY;
      ALTER TABLE users FORCE ROW LEVEL SECURITY;
      CREATE POLICY users_tenant ON users TO app_tenant
        USING (EXISTS (SELECT 1 FROM memberships m WHERE m.user_id = users.id AND m.organization_id = app_org_id()));
      GRANT SELECT (id, email, first_name, last_name, avatar_url, email_confirmed_at, status, is_online, last_seen_at, created_at, updated_at) ON users TO app_tenant;
      GRANT UPDATE (first_name, last_name, avatar_url, is_online, last_seen_at, updated_at) ON users TO app_tenant;
    `);
    await q.query(`DO $$ BEGIN
      EXECUTE format('CREATE POLICY users_system ON users TO %I USING (true) WITH CHECK (true)', current_user);
    END $$`);

    await q.query(`
      CREATE TABLE api_keys (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        name text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
        prefix text NOT NULL,
        key_hash bytea NOT NULL,
        created_by uuid REFERENCES users(id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz,
        revoked_at timestamptz
      );
      CREATE UNIQUE INDEX api_keys_hash_idx ON api_keys (key_hash);
      CREATE INDEX api_keys_org_idx ON api_keys (organization_id, created_at);
      SELECT enable_tenant_rls('api_keys');

      -- Refresh tokens: opaque, stored as SHA-256, rotated on every use. A family is one sign-in.
      CREATE TABLE refresh_tokens (
        id bigserial PRIMARY KEY,
        family_id uuid NOT NULL,
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        token_hash bytea NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        used_at timestamptz,
        revoked_at timestamptz
      );
      CREATE UNIQUE INDEX refresh_tokens_hash_idx ON refresh_tokens (token_hash);
      CREATE INDEX refresh_tokens_family_idx ON refresh_tokens (family_id);
      CREATE INDEX refresh_tokens_user_idx ON refresh_tokens (user_id);

      -- Fixed-window counters for login rate limits, shared by every api replica.
      CREATE TABLE rate_limit_counters (
        key text NOT NULL,
        window_start timestamptz NOT NULL,
        count integer NOT NULL,
        PRIMARY KEY (key, window_start)
      );
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE rate_limit_counters, refresh_tokens, api_keys, memberships, users`);
  }
}
