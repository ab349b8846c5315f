import type { MigrationInterface, QueryRunner } from 'typeorm';

// Single-use tokens sent by email: sign-up confirmation, email change (to the new address) and
// password recovery. Stored as SHA-256; the token itself exists only in the link.
export class CreateEmailTokens1763800001003 implements MigrationInterface {
  name = 'CreateEmailTokens1763800001003';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE email_tokens (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('signup', 'email_change', 'recovery')),
        token_hash bytea NOT NULL,
        new_email text CHECK (new_email = lower(new_email)),
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        used_at timestamptz
      );
      CREATE UNIQUE INDEX email_tokens_hash_idx ON email_tokens (token_hash);
      CREATE INDEX email_tokens_user_idx ON email_tokens (user_id, kind);
      ALTER TABLE users ADD COLUMN new_email text CHECK (new_email = lower(new_email));
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE users DROP COLUMN new_email; DROP TABLE email_tokens`);
  }
}
