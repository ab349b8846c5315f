import type { MigrationInterface, QueryRunner } from 'typeorm';
import { CHANGES_CHANNEL } from '../../domain/change-notice';

// NOTIFY is not free: PostgreSQL serialises the commits that notify (one lock for the database),
// which cost a third of the commits a second of single-row inserts on 10 connections here (about
// 1,000 against 1,500-1,800 without). So changes are announced only for organizations some api
// process has a subscriber of: each process marks its organizations watched (realtime_watched,
// `until` a couple of minutes ahead, renewed while they stay) before it answers a join, and the
// trigger skips the rest. Not served by the data API; read by the trigger function as its owner.
export class NotifyWatchedOrganizations1763800015002 implements MigrationInterface {
  name = 'NotifyWatchedOrganizations1763800015002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE realtime_watched (
        organization_id uuid PRIMARY KEY REFERENCES organizations(id) ON DELETE CASCADE,
        until timestamptz NOT NULL
      );
      CREATE OR REPLACE FUNCTION realtime_notify_changes() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
      DECLARE
        notice record;
      BEGIN
        FOR notice IN
          SELECT organization_id, array_agg(id::text ORDER BY id) AS ids
          FROM (SELECT c.organization_id, c.id, (row_number() OVER (PARTITION BY c.organization_id ORDER BY c.id) - 1) / 100 AS chunk
                FROM changed_rows c
                WHERE EXISTS (SELECT 1 FROM realtime_watched w WHERE w.organization_id = c.organization_id AND w.until > now())) AS numbered
          GROUP BY organization_id, chunk
        LOOP
          PERFORM pg_notify('${CHANGES_CHANNEL}',
            json_build_object('table', TG_TABLE_NAME, 'type', TG_OP, 'organization_id', notice.organization_id, 'ids', notice.ids, 'at', now())::text);
        END LOOP;
        RETURN NULL;
      END $$;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE OR REPLACE FUNCTION realtime_notify_changes() RETURNS trigger LANGUAGE plpgsql AS $$
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
      DROP TABLE realtime_watched;
    `);
  }
}
