import type { MigrationInterface, QueryRunner } from 'typeorm';

// Invitations to join an organization. Only the SHA-256 of the token is stored; the token itself
// exists only in the emailed link. An invitation is open while neither accepted nor revoked.
export class CreateInvitations1763800001002 implements MigrationInterface {
  name = 'CreateInvitations1763800001002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE invitations (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        email text NOT NULL CHECK (email = lower(email) AND length(email) BETWEEN 3 AND 320),
        role text NOT NULL CHECK (role IN ('OWNER', 'ADMIN', 'AGENT', 'PROJECT_MANAGER', 'TEAM_ADMIN')),
        token_hash bytea NOT NULL CHECK (length(token_hash) = 32),
        invited_by uuid REFERENCES users(id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL DEFAULT now() + interval '7 days',
        accepted_at timestamptz,
        accepted_user_id uuid REFERENCES users(id) ON DELETE SET NULL,
        revoked_at timestamptz,
        CONSTRAINT invitations_accepted_or_revoked_check CHECK (accepted_at IS NULL OR revoked_at IS NULL),
        CONSTRAINT invitations_accepted_user_check CHECK (accepted_user_id IS NULL OR accepted_at IS NOT NULL)
      );
      CREATE UNIQUE INDEX invitations_token_hash_idx ON invitations (token_hash);
      -- One open invitation per address and organization: re-inviting revokes the old one first.
      CREATE UNIQUE INDEX invitations_org_email_open_idx ON invitations (organization_id, email)
        WHERE accepted_at IS NULL AND revoked_at IS NULL;
      CREATE INDEX invitations_org_created_idx ON invitations (organization_id, created_at);
      SELECT enable_tenant_rls('invitations');
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE invitations`);
  }
}
