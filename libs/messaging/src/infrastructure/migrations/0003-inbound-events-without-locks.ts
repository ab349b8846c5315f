import type { MigrationInterface, QueryRunner } from 'typeorm';

// The inbound acknowledgement writes one inbound_events row per request. Its two foreign keys made
// every such insert lock the channel's and the organization's rows (FOR KEY SHARE), the same rows
// the worker locks for every message it stores; under load those shared locks became multixacts
// and the acknowledgement waited on them. The receiver already takes the organization from the
// channel row in the same statement, so the keys only served the cascade on delete, which a
// trigger now does. An event whose channel is deleted while it is being stored (the trigger cannot
// see it yet) is settled by the worker as "channel account deleted".
export class InboundEventsWithoutLocks1763800003003 implements MigrationInterface {
  name = 'InboundEventsWithoutLocks1763800003003';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE inbound_events DROP CONSTRAINT inbound_events_channel_account_fkey, DROP CONSTRAINT inbound_events_organization_id_fkey;
      CREATE FUNCTION delete_channel_inbound_events() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM inbound_events WHERE organization_id = OLD.organization_id AND channel_account_id = OLD.id;
        RETURN NULL;
      END $$;
      CREATE TRIGGER channel_accounts_delete_inbound_events AFTER DELETE ON channel_accounts
        FOR EACH ROW EXECUTE FUNCTION delete_channel_inbound_events();
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TRIGGER channel_accounts_delete_inbound_events ON channel_accounts;
      DROP FUNCTION delete_channel_inbound_events();
      DELETE FROM inbound_events e WHERE NOT EXISTS (SELECT 1 FROM channel_accounts c WHERE c.organization_id = e.organization_id AND c.id = e.channel_account_id);
      ALTER TABLE inbound_events
        ADD CONSTRAINT inbound_events_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations(id) ON DELETE CASCADE,
        ADD CONSTRAINT inbound_events_channel_account_fkey FOREIGN KEY (organization_id, channel_account_id) REFERENCES channel_accounts (organization_id, id) ON DELETE CASCADE;
    `);
  }
}
