import type { MigrationInterface, QueryRunner } from 'typeorm';

// SMS channel accounts: the sender number is the account's `external_account_id` (one account per
// number across the installation), the auth token its `access_token_sealed`, and the provider's
// account sid, by which the Messages API is addressed, this column.
export class SmsChannels1763800003006 implements MigrationInterface {
  name = 'SmsChannels1763800003006';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE channel_accounts ADD COLUMN provider_account_id text CHECK (length(provider_account_id) BETWEEN 1 AND 100)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE channel_accounts DROP COLUMN provider_account_id`);
  }
}
