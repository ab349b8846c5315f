import type { MigrationInterface, QueryRunner } from 'typeorm';

// Reports keep per-quarter-hour totals of messaging_message_facts (docs/analytics.md). A change that
// alters an earlier quarter hour (a late first reply, a reply that failed, a message stored in the
// past, an assignment that makes a conversation's customer messages (un)assigned) is recorded here
// as (organization, quarter hour, transaction id), one row per pair, published read-only. Only
// quarter hours that already ended are recorded: a message stored now lands in the current one and
// adds no write to the inbound path. On messages, statement triggers with transition tables: one
// call per batch, not one per row.
export class RecordFactChanges1763800003040 implements MigrationInterface {
  name = 'RecordFactChanges1763800003040';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE message_fact_changes (
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        bucket timestamptz NOT NULL,
        changed_xid xid8 NOT NULL,
        PRIMARY KEY (organization_id, bucket)
      );
      SELECT enable_tenant_rls('message_fact_changes');

      CREATE FUNCTION message_fact_bucket(at timestamptz) RETURNS timestamptz LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        SELECT date_bin(interval '15 minutes', at, timestamptz '1970-01-01 00:00:00+00')
      $$;

      -- The latest transaction wins a pair: it commits after any earlier one it waited for, so a
      -- snapshot that sees it sees them all. An organization being deleted (its messages go with
      -- it) records nothing. Called by the triggers only (they run as the owner: no tenant may
      -- record changes for another organization).
      CREATE FUNCTION message_fact_changes_record(org uuid[], at timestamptz[]) RETURNS void LANGUAGE sql AS $$
        INSERT INTO message_fact_changes (organization_id, bucket, changed_xid)
        SELECT DISTINCT o, message_fact_bucket(a), pg_current_xact_id() FROM unnest(org, at) c(o, a)
        WHERE a < message_fact_bucket(clock_timestamp()) AND EXISTS (SELECT 1 FROM organizations WHERE id = o)
        ON CONFLICT (organization_id, bucket) DO UPDATE SET changed_xid = EXCLUDED.changed_xid
      $$;
      REVOKE EXECUTE ON FUNCTION message_fact_changes_record(uuid[], timestamptz[]) FROM PUBLIC;

      CREATE FUNCTION messages_fact_changes() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
      DECLARE
        orgs uuid[];
        ats timestamptz[];
        since timestamptz := message_fact_bucket(clock_timestamp());
      BEGIN
        IF TG_OP = 'INSERT' THEN
          SELECT array_agg(organization_id), array_agg(created_at) INTO orgs, ats FROM new_rows WHERE created_at < since;
        ELSIF TG_OP = 'DELETE' THEN
          SELECT array_agg(organization_id), array_agg(created_at) INTO orgs, ats FROM old_rows WHERE created_at < since;
        ELSE
          SELECT array_agg(x.o), array_agg(x.a) INTO orgs, ats
          FROM old_rows o JOIN new_rows n ON n.id = o.id
          CROSS JOIN LATERAL (VALUES (o.organization_id, o.created_at), (n.organization_id, n.created_at)) x(o, a)
          WHERE x.a < since AND (o.first_reply_at, o.created_at, o.direction, o.conversation_id)
                IS DISTINCT FROM (n.first_reply_at, n.created_at, n.direction, n.conversation_id);
        END IF;
        IF orgs IS NOT NULL THEN PERFORM message_fact_changes_record(orgs, ats); END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER messages_fact_changes_insert AFTER INSERT ON messages REFERENCING NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION messages_fact_changes();
      CREATE TRIGGER messages_fact_changes_update AFTER UPDATE ON messages REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION messages_fact_changes();
      CREATE TRIGGER messages_fact_changes_delete AFTER DELETE ON messages REFERENCING OLD TABLE AS old_rows
        FOR EACH STATEMENT EXECUTE FUNCTION messages_fact_changes();

      -- Whether a conversation has an assignee decides whether its customer messages count as
      -- unassigned. A row trigger on the column with a WHEN: PostgreSQL checks both itself, so the
      -- updates of the inbound path (last message, unread count) call nothing; it runs on an
      -- assignment or unassignment only, a person's action.
      CREATE FUNCTION conversations_fact_changes() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
      DECLARE
        orgs uuid[];
        ats timestamptz[];
      BEGIN
        SELECT array_agg(m.organization_id), array_agg(m.created_at) INTO orgs, ats FROM messages m
        WHERE m.organization_id = NEW.organization_id AND m.conversation_id = NEW.id AND m.direction = 'INBOUND'
          AND m.created_at < message_fact_bucket(clock_timestamp());
        IF orgs IS NOT NULL THEN PERFORM message_fact_changes_record(orgs, ats); END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER conversations_fact_changes AFTER UPDATE OF assignee_id ON conversations FOR EACH ROW
        WHEN ((OLD.assignee_id IS NULL) <> (NEW.assignee_id IS NULL)) EXECUTE FUNCTION conversations_fact_changes();

      CREATE VIEW messaging_message_fact_changes WITH (security_invoker = true) AS
      SELECT organization_id, bucket, changed_xid FROM message_fact_changes;
      GRANT SELECT ON messaging_message_fact_changes TO app_tenant;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP VIEW messaging_message_fact_changes;
      DROP TRIGGER conversations_fact_changes ON conversations;
      DROP TRIGGER messages_fact_changes_insert ON messages;
      DROP TRIGGER messages_fact_changes_update ON messages;
      DROP TRIGGER messages_fact_changes_delete ON messages;
      DROP FUNCTION conversations_fact_changes(), messages_fact_changes(), message_fact_changes_record(uuid[], timestamptz[]), message_fact_bucket(timestamptz);
      DROP TABLE message_fact_changes;
    `);
  }
}
