import type { MigrationInterface, QueryRunner } from 'typeorm';

// Messaging's published read model for reporting (docs/messaging.md, "Published read views"): other
// contexts read these views, never the tables. security_invoker makes the caller's row-level
// security apply, so a tenant sees only its organization's facts.
// A conversation records when it was last resolved (resolved_at, kept by a trigger on status).
export class PublishAnalyticsReadViews1763800003020 implements MigrationInterface {
  name = 'PublishAnalyticsReadViews1763800003020';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE conversations ADD COLUMN resolved_at timestamptz;
      UPDATE conversations SET resolved_at = updated_at WHERE status = 'RESOLVED';
      CREATE FUNCTION conversation_resolved_at() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.status <> 'RESOLVED' THEN NEW.resolved_at := NULL;
        ELSIF TG_OP = 'INSERT' THEN NEW.resolved_at := coalesce(NEW.resolved_at, now());
        ELSIF OLD.status <> 'RESOLVED' THEN NEW.resolved_at := now();
        END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER conversations_resolved_at BEFORE INSERT OR UPDATE OF status ON conversations
        FOR EACH ROW EXECUTE FUNCTION conversation_resolved_at();

      -- A customer message's first agent reply (the earliest outbound message of the conversation at
      -- or after it that is not a broadcast and has not failed), stored on the message so reports
      -- read it instead of searching for it: set when the customer message is stored (a reply may
      -- already exist), when a reply is stored (on the conversation's unanswered messages), and
      -- moved to the next reply when the one it named fails.
      ALTER TABLE messages ADD COLUMN first_reply_at timestamptz;
      CREATE INDEX messages_agent_reply_idx ON messages (organization_id, conversation_id, created_at)
        WHERE direction = 'OUTBOUND' AND status <> 'FAILED' AND NOT (metadata ? 'broadcast_id');
      CREATE INDEX messages_unanswered_idx ON messages (organization_id, conversation_id, created_at)
        WHERE direction = 'INBOUND' AND first_reply_at IS NULL;
      CREATE FUNCTION message_next_reply(org uuid, conversation uuid, after timestamptz) RETURNS timestamptz
      LANGUAGE sql STABLE AS $$
        SELECT min(created_at) FROM messages
        WHERE organization_id = org AND conversation_id = conversation AND created_at >= after
          AND direction = 'OUTBOUND' AND status <> 'FAILED' AND NOT (metadata ? 'broadcast_id')
      $$;
      CREATE FUNCTION message_first_reply() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.first_reply_at := message_next_reply(NEW.organization_id, NEW.conversation_id, NEW.created_at);
        RETURN NEW;
      END $$;
      CREATE TRIGGER messages_first_reply BEFORE INSERT ON messages FOR EACH ROW
        WHEN (NEW.direction = 'INBOUND') EXECUTE FUNCTION message_first_reply();
      CREATE FUNCTION message_answers() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE messages SET first_reply_at = NEW.created_at
        WHERE organization_id = NEW.organization_id AND conversation_id = NEW.conversation_id
          AND direction = 'INBOUND' AND first_reply_at IS NULL AND created_at <= NEW.created_at;
        RETURN NULL;
      END $$;
      CREATE TRIGGER messages_answers AFTER INSERT ON messages FOR EACH ROW
        WHEN (NEW.direction = 'OUTBOUND' AND NEW.status <> 'FAILED' AND NOT (NEW.metadata ? 'broadcast_id')) EXECUTE FUNCTION message_answers();
      CREATE FUNCTION message_reply_failed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE messages SET first_reply_at = message_next_reply(organization_id, conversation_id, created_at)
        WHERE organization_id = NEW.organization_id AND conversation_id = NEW.conversation_id
          AND direction = 'INBOUND' AND first_reply_at = NEW.created_at;
        RETURN NULL;
      END $$;
      CREATE TRIGGER messages_reply_failed AFTER UPDATE OF status ON messages FOR EACH ROW
        WHEN (NEW.direction = 'OUTBOUND' AND NEW.status = 'FAILED' AND OLD.status <> 'FAILED') EXECUTE FUNCTION message_reply_failed();
      UPDATE messages SET first_reply_at = message_next_reply(organization_id, conversation_id, created_at) WHERE direction = 'INBOUND';
      -- Messages of a period, with what the reports read, for index-only scans.
      CREATE INDEX messages_org_created_idx ON messages (organization_id, created_at) INCLUDE (direction, first_reply_at);
      CREATE INDEX conversations_org_resolved_idx ON conversations (organization_id, resolved_at) WHERE resolved_at IS NOT NULL;

      -- LEFT JOIN: a report that reads no conversation column does not pay for the join
      -- (conversations is unique on (organization_id, id), so PostgreSQL removes it).
      CREATE VIEW messaging_message_facts WITH (security_invoker = true) AS
      SELECT m.id, m.organization_id, m.conversation_id, m.contact_id, c.channel_kind, m.direction,
             CASE WHEN m.direction = 'INBOUND' THEN 'customer' WHEN m.metadata ? 'broadcast_id' THEN 'automation' ELSE 'agent' END AS sender_type,
             m.status, m.created_at, c.assignee_id, c.status AS conversation_status, m.first_reply_at
      FROM messages m LEFT JOIN conversations c ON c.organization_id = m.organization_id AND c.id = m.conversation_id;

      CREATE VIEW messaging_conversation_facts WITH (security_invoker = true) AS
      SELECT id, organization_id, contact_id, channel_kind, status, assignee_id, created_at, last_message_at, last_customer_message_at, resolved_at
      FROM conversations;

      GRANT SELECT ON messaging_message_facts, messaging_conversation_facts TO app_tenant;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP VIEW messaging_conversation_facts, messaging_message_facts;
      DROP INDEX conversations_org_resolved_idx, messages_org_created_idx;
      DROP TRIGGER messages_reply_failed ON messages;
      DROP TRIGGER messages_answers ON messages;
      DROP TRIGGER messages_first_reply ON messages;
      DROP FUNCTION message_reply_failed(), message_answers(), message_first_reply(), message_next_reply(uuid, uuid, timestamptz);
      ALTER TABLE messages DROP COLUMN first_reply_at;
      DROP TRIGGER conversations_resolved_at ON conversations;
      DROP FUNCTION conversation_resolved_at();
      ALTER TABLE conversations DROP COLUMN resolved_at;
    `);
  }
}
