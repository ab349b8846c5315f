import type { MigrationInterface, QueryRunner } from 'typeorm';

// Who wrote each message (docs/messaging.md, "Who wrote a message"): messages.origin, one of ten,
// and origin_id, the scheduled message, rule, bot flow, sequence, broadcast or nudge it came from.
// The agent reply of reports and the SLA (first_reply_at), the reporting view's sender_type and the
// re-engagement read of replies read origin instead of guessing from metadata keys.
//
// Existing rows: the column is added with the default 'customer' (no rewrite: customers' messages
// keep it without a write), then one UPDATE writes each outbound message once, from the keys the
// old writers left: reengagement_nudge_id (re-engagement), broadcast_id, campaign_id or
// broadcast: true (broadcast, the marks a reply's broadcast.response was raised for),
// sender_name or cross_channel (only chat-lite-send writes them: api), else agent. A chat-lite-send
// without `from` or a cross channel left no mark and reads as agent (an inbox reply on the chat app
// writes the same). origin_id is the named id when it is a UUID. The default is then dropped, so
// every writer must say who wrote its message. The statement trigger recording report changes is
// off during that UPDATE: it changes none of the facts it watches (it would only copy the table
// into its transition tables).
const AGENT_REPLY = `('agent', 'api', 'api_queued', 'scheduled')`;
const UUID_TEXT = `'^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'`;
const uuidFrom = (key: string) => `CASE WHEN metadata->>'${key}' ~* ${UUID_TEXT} THEN (metadata->>'${key}')::uuid END`;
const BROADCAST_MARK = `(metadata ? 'broadcast_id' OR metadata ? 'campaign_id' OR metadata @> '{"broadcast": true}')`;

export class RecordMessageOrigins1763800003050 implements MigrationInterface {
  name = 'RecordMessageOrigins1763800003050';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE messages ADD COLUMN origin text DEFAULT 'customer', ADD COLUMN origin_id uuid;
      ALTER TABLE messages DISABLE TRIGGER messages_fact_changes_update;
      UPDATE messages SET
        origin = CASE WHEN metadata ? 'reengagement_nudge_id' THEN 'reengagement'
                      WHEN ${BROADCAST_MARK} THEN 'broadcast'
                      WHEN metadata ? 'sender_name' OR metadata ? 'cross_channel' THEN 'api'
                      ELSE 'agent' END,
        origin_id = CASE WHEN metadata ? 'reengagement_nudge_id' THEN ${uuidFrom('reengagement_nudge_id')}
                         WHEN ${BROADCAST_MARK} THEN ${uuidFrom('broadcast_id')} END
      WHERE direction = 'OUTBOUND';
      ALTER TABLE messages ENABLE TRIGGER messages_fact_changes_update;
      -- One ALTER: the constraints and NOT NULL are checked in one pass over the table.
      ALTER TABLE messages ALTER COLUMN origin DROP DEFAULT, ALTER COLUMN origin SET NOT NULL,
        ADD CONSTRAINT messages_origin_known
          CHECK (origin IN ('customer', 'agent', 'api', 'api_queued', 'scheduled', 'rule', 'bot', 'sequence', 'broadcast', 'reengagement')),
        ADD CONSTRAINT messages_origin_direction CHECK ((origin = 'customer') = (direction = 'INBOUND')),
        ADD CONSTRAINT messages_origin_id_applies CHECK (origin_id IS NULL OR origin NOT IN ('customer', 'agent', 'api'));

      -- An agent reply: an outbound message a person wrote (in the inbox, through the API, queued or
      -- scheduled) that did not fail. Rules, bots, sequences, broadcasts and nudges are not.
      DROP INDEX messages_agent_reply_idx;
      CREATE INDEX messages_agent_reply_idx ON messages (organization_id, conversation_id, created_at)
        WHERE direction = 'OUTBOUND' AND status <> 'FAILED' AND origin IN ${AGENT_REPLY};
      CREATE OR REPLACE FUNCTION message_next_reply(org uuid, conversation uuid, after timestamptz) RETURNS timestamptz
      LANGUAGE sql STABLE AS $$
        SELECT min(created_at) FROM messages
        WHERE organization_id = org AND conversation_id = conversation AND created_at >= after
          AND direction = 'OUTBOUND' AND status <> 'FAILED' AND origin IN ${AGENT_REPLY}
      $$;
      DROP TRIGGER messages_answers ON messages;
      CREATE TRIGGER messages_answers AFTER INSERT ON messages FOR EACH ROW
        WHEN (NEW.direction = 'OUTBOUND' AND NEW.status <> 'FAILED' AND NEW.origin IN ${AGENT_REPLY}) EXECUTE FUNCTION message_answers();
      -- Only a message that counted as a reply can be the one a customer message names.
      DROP TRIGGER messages_reply_failed ON messages;
      CREATE TRIGGER messages_reply_failed AFTER UPDATE OF status ON messages FOR EACH ROW
        WHEN (NEW.direction = 'OUTBOUND' AND NEW.status = 'FAILED' AND OLD.status <> 'FAILED' AND NEW.origin IN ${AGENT_REPLY})
        EXECUTE FUNCTION message_reply_failed();

      CREATE OR REPLACE VIEW messaging_message_facts WITH (security_invoker = true) AS
      SELECT m.id, m.organization_id, m.conversation_id, m.contact_id, c.channel_kind, m.direction,
             CASE WHEN m.origin = 'customer' THEN 'customer' WHEN m.origin IN ${AGENT_REPLY} THEN 'agent' ELSE 'automation' END AS sender_type,
             m.status, m.created_at, c.assignee_id, c.status AS conversation_status, m.first_reply_at
      FROM messages m LEFT JOIN conversations c ON c.organization_id = m.organization_id AND c.id = m.conversation_id;

      -- Re-engagement: the business answered unless its only word since is a nudge.
      CREATE OR REPLACE VIEW conversation_reply_windows WITH (security_invoker = true) AS
        SELECT c.organization_id, c.id AS conversation_id, c.contact_id, c.channel_account_id, c.channel_kind, c.status,
               c.last_customer_message_at, c.window_closes_at,
               EXISTS (SELECT 1 FROM messages m
                       WHERE m.organization_id = c.organization_id AND m.conversation_id = c.id AND m.direction = 'OUTBOUND'
                         AND m.status <> 'FAILED' AND m.created_at > c.last_customer_message_at
                         AND m.origin <> 'reengagement') AS answered_since_customer
        FROM conversations c
        WHERE c.last_customer_message_at IS NOT NULL AND c.status <> 'RESOLVED';

      -- Customer messages whose first reply was a message that no longer counts (a nudge, a message
      -- marked only with campaign_id or broadcast: true) take their next reply. The fact-change
      -- trigger records their quarter hours, so the analytics rollups are redone.
      UPDATE messages m SET first_reply_at = message_next_reply(m.organization_id, m.conversation_id, m.created_at)
      FROM (SELECT DISTINCT organization_id, conversation_id, created_at FROM messages
            WHERE direction = 'OUTBOUND' AND status <> 'FAILED' AND origin NOT IN ${AGENT_REPLY}) automated
      WHERE m.organization_id = automated.organization_id AND m.conversation_id = automated.conversation_id
        AND m.direction = 'INBOUND' AND m.first_reply_at = automated.created_at;
    `);
  }

  // The definitions of 0010 and 0020 again. Sources written since are put back as the metadata keys
  // those read (so a nudge or broadcast stays one); first_reply_at values are left as they are.
  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE OR REPLACE VIEW conversation_reply_windows WITH (security_invoker = true) AS
        SELECT c.organization_id, c.id AS conversation_id, c.contact_id, c.channel_account_id, c.channel_kind, c.status,
               c.last_customer_message_at, c.window_closes_at,
               EXISTS (SELECT 1 FROM messages m
                       WHERE m.organization_id = c.organization_id AND m.conversation_id = c.id AND m.direction = 'OUTBOUND'
                         AND m.status <> 'FAILED' AND m.created_at > c.last_customer_message_at
                         AND NOT (m.metadata ? 'reengagement_nudge_id')) AS answered_since_customer
        FROM conversations c
        WHERE c.last_customer_message_at IS NOT NULL AND c.status <> 'RESOLVED';
      CREATE OR REPLACE VIEW messaging_message_facts WITH (security_invoker = true) AS
      SELECT m.id, m.organization_id, m.conversation_id, m.contact_id, c.channel_kind, m.direction,
             CASE WHEN m.direction = 'INBOUND' THEN 'customer' WHEN m.metadata ? 'broadcast_id' THEN 'automation' ELSE 'agent' END AS sender_type,
             m.status, m.created_at, c.assignee_id, c.status AS conversation_status, m.first_reply_at
      FROM messages m LEFT JOIN conversations c ON c.organization_id = m.organization_id AND c.id = m.conversation_id;
      DROP TRIGGER messages_reply_failed ON messages;
      CREATE TRIGGER messages_reply_failed AFTER UPDATE OF status ON messages FOR EACH ROW
        WHEN (NEW.direction = 'OUTBOUND' AND NEW.status = 'FAILED' AND OLD.status <> 'FAILED') EXECUTE FUNCTION message_reply_failed();
      DROP TRIGGER messages_answers ON messages;
      CREATE TRIGGER messages_answers AFTER INSERT ON messages FOR EACH ROW
        WHEN (NEW.direction = 'OUTBOUND' AND NEW.status <> 'FAILED' AND NOT (NEW.metadata ? 'broadcast_id')) EXECUTE FUNCTION message_answers();
      CREATE OR REPLACE FUNCTION message_next_reply(org uuid, conversation uuid, after timestamptz) RETURNS timestamptz
      LANGUAGE sql STABLE AS $$
        SELECT min(created_at) FROM messages
        WHERE organization_id = org AND conversation_id = conversation AND created_at >= after
          AND direction = 'OUTBOUND' AND status <> 'FAILED' AND NOT (metadata ? 'broadcast_id')
      $$;
      DROP INDEX messages_agent_reply_idx;
      CREATE INDEX messages_agent_reply_idx ON messages (organization_id, conversation_id, created_at)
        WHERE direction = 'OUTBOUND' AND status <> 'FAILED' AND NOT (metadata ? 'broadcast_id');
      ALTER TABLE messages DISABLE TRIGGER messages_fact_changes_update;
      UPDATE messages SET metadata = metadata || CASE origin
          WHEN 'reengagement' THEN jsonb_build_object('reengagement_nudge_id', origin_id)
          ELSE jsonb_strip_nulls(jsonb_build_object('broadcast_id', origin_id, 'broadcast', true)) END
      WHERE (origin = 'reengagement' AND NOT metadata ? 'reengagement_nudge_id') OR (origin = 'broadcast' AND NOT ${BROADCAST_MARK});
      ALTER TABLE messages ENABLE TRIGGER messages_fact_changes_update;
      ALTER TABLE messages DROP CONSTRAINT messages_origin_id_applies, DROP CONSTRAINT messages_origin_direction, DROP CONSTRAINT messages_origin_known,
        DROP COLUMN origin_id, DROP COLUMN origin;
    `);
  }
}
