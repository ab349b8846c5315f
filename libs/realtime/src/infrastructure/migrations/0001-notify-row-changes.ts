import type { MigrationInterface, QueryRunner } from 'typeorm';
import { CHANGES_CHANNEL } from '../../domain/change-notice';

// Change capture for /realtime/v1 (docs/realtime.md): a statement trigger per table and kind sends
// one NOTIFY per organization and 100 rows a statement changed, naming the table, the kind, the
// organization and the rows' ids, never their content (every listener of the database may read a
// payload, and it is limited to 8000 bytes). The api process that holds subscribers reads each row
// under the subscriber's own row-level security. NOTIFY is delivered at commit, never for a rollback.
// A statement trigger with a transition table runs once per statement: the inbound batches insert
// many messages in one statement.
// The tables as this migration found them; a table added later comes with a migration of its own
// (and its name in realtime-tables.ts).
const TABLES = ['messages', 'conversations'];

export class NotifyRowChanges1763800015001 implements MigrationInterface {
  name = 'NotifyRowChanges1763800015001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION realtime_notify_changes() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        notice record;
      BEGIN
        FOR notice IN
          SELECT organization_id, array_agg(id::text ORDER BY id) AS ids
          FROM (SELECT organization_id, id, (row_number() OVER (PARTITION BY organization_id ORDER BY id) - 1) / 100 AS chunk FROM changed_rows) AS numbered
          GROUP BY organization_id, chunk
        LOOP
          PERFORM pg_notify('${CHANGES_CHANNEL}',
            json_build_object('table', TG_TABLE_NAME, 'type', TG_OP, 'organization_id', notice.organization_id, 'ids', notice.ids, 'at', now())::text);
        END LOOP;
        RETURN NULL;
      END $$;
    `);
    for (const table of TABLES) {
      await q.query(`
        CREATE TRIGGER ${table}_realtime_insert AFTER INSERT ON ${table} REFERENCING NEW TABLE AS changed_rows
          FOR EACH STATEMENT EXECUTE FUNCTION realtime_notify_changes();
        CREATE TRIGGER ${table}_realtime_update AFTER UPDATE ON ${table} REFERENCING NEW TABLE AS changed_rows
          FOR EACH STATEMENT EXECUTE FUNCTION realtime_notify_changes();
        CREATE TRIGGER ${table}_realtime_delete AFTER DELETE ON ${table} REFERENCING OLD TABLE AS changed_rows
          FOR EACH STATEMENT EXECUTE FUNCTION realtime_notify_changes();
      `);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of TABLES) {
      await q.query(`
        DROP TRIGGER ${table}_realtime_insert ON ${table};
        DROP TRIGGER ${table}_realtime_update ON ${table};
        DROP TRIGGER ${table}_realtime_delete ON ${table};
      `);
    }
    await q.query('DROP FUNCTION realtime_notify_changes()');
  }
}
