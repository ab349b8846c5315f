import type { MigrationInterface, QueryRunner } from 'typeorm';

// Reauthentication nonces (GoTrue's GET /reauthenticate) are emailed single-use tokens too.
export class AddReauthenticationNonces1763800001006 implements MigrationInterface {
  name = 'AddReauthenticationNonces1763800001006';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE email_tokens DROP CONSTRAINT email_tokens_kind_check;
      ALTER TABLE email_tokens ADD CONSTRAINT email_tokens_kind_check CHECK (kind IN ('signup', 'email_change', 'recovery', 'reauthentication'));
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DELETE FROM email_tokens WHERE kind = 'reauthentication';
      ALTER TABLE email_tokens DROP CONSTRAINT email_tokens_kind_check;
      ALTER TABLE email_tokens ADD CONSTRAINT email_tokens_kind_check CHECK (kind IN ('signup', 'email_change', 'recovery'));
    `);
  }
}
