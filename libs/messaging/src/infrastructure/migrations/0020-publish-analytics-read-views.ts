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

      -- A customer message's first agent reply: the earliest outbound message of the conversation
      -- at or after it that was not a broadcast and did not fail.
      CREATE INDEX messages_agent_reply_idx ON messages (organization_id, conversation_id, created_at)
        WHERE direction = 'OUTBOUND' AND status <> 'FAILED' AND NOT (metadata ? 'broadcast_id');
      CREATE INDEX messages_org_created_idx ON messages (organization_id, created_at) INCLUDE (direction, conversation_id);
      CREATE INDEX conversations_org_resolved_idx ON conversations (organization_id, resolved_at) WHERE resolved_at IS NOT NULL;

      CREATE VIEW messaging_message_facts WITH (security_invoker = true) AS
      SELECT m.id, m.organization_id, m.conversation_id, m.contact_id, c.channel_kind, m.direction,
             CASE WHEN m.direction = 'INBOUND' THEN 'customer' WHEN m.metadata ? 'broadcast_id' THEN 'automation' ELSE 'agent' END AS sender_type,
             m.status, m.created_at, c.assignee_id, c.status AS conversation_status,
             CASE WHEN m.direction = 'INBOUND' THEN (
               SELECT r.created_at FROM messages r
               WHERE r.organization_id = m.organization_id AND r.conversation_id = m.conversation_id AND r.created_at >= m.created_at
                 AND r.direction = 'OUTBOUND' AND r.status <> 'FAILED' AND NOT (r.metadata ? 'broadcast_id')
               ORDER BY r.created_at LIMIT 1) END AS first_reply_at
      FROM messages m JOIN conversations c ON c.organization_id = m.organization_id AND c.id = m.conversation_id;

      CREATE VIEW messaging_conversation_facts WITH (security_invoker = true) AS
      SELECT id, organization_id, contact_id, channel_kind, status, assignee_id, created_at, last_message_at, last_customer_message_at, resolved_at
      FROM conversations;

      GRANT SELECT ON messaging_message_facts, messaging_conversation_facts TO app_tenant;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP VIEW messaging_conversation_facts, messaging_message_facts;
      DROP INDEX conversations_org_resolved_idx, messages_org_created_idx, messages_agent_reply_idx;
      DROP TRIGGER conversations_resolved_at ON conversations;
      DROP FUNCTION conversation_resolved_at();
      ALTER TABLE conversations DROP COLUMN resolved_at;
    `);
  }
}
