import type { MigrationInterface, QueryRunner } from 'typeorm';

// What other contexts may read of messaging's channel accounts (docs/messaging.md, "Published read
// models"): that they exist, nothing of their secrets or settings. security_invoker: the reader's
// row-level security applies.
export class PublishChannelAccounts1763800003030 implements MigrationInterface {
  name = 'PublishChannelAccounts1763800003030';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE VIEW messaging_channel_accounts WITH (security_invoker = true) AS SELECT id, organization_id FROM channel_accounts;
      GRANT SELECT ON messaging_channel_accounts TO app_tenant;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP VIEW messaging_channel_accounts`);
  }
}
