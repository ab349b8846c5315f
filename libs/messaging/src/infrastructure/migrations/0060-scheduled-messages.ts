import type { MigrationInterface, QueryRunner } from 'typeorm';

// Scheduled sends (docs/messaging.md, "Scheduled sends"): a member's reply stored with the time it is
// to go out. Every change of status is a conditional UPDATE on `status = 'scheduled'` (the pass's
// claim, a member's edit or cancel, a customer's reply), so whichever commits first wins and the others
// find nothing to change: a message is never both cancelled and sent.
//
// A customer's reply cancels the conversation's scheduled messages that ask for it, here, in a
// statement trigger on messages: every inbound writer (the chat-app and social batches, single events,
// email, SMS) inserts into messages, so one place covers them all, in the writer's own transaction (the
// row lock orders it against the claim), called once per statement rather than once per row.
export class ScheduledMessages1763800003060 implements MigrationInterface {
  name = 'ScheduledMessages1763800003060';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE scheduled_messages (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        conversation_id uuid NOT NULL,
        status text NOT NULL DEFAULT 'scheduled'
          CONSTRAINT scheduled_messages_status_known CHECK (status IN ('scheduled', 'sending', 'sent', 'failed', 'cancelled', 'cancelled_by_reply')),
        send_at timestamptz NOT NULL,
        text text NOT NULL CONSTRAINT scheduled_messages_text_length CHECK (length(text) BETWEEN 1 AND 4096),
        media_urls text[] NOT NULL DEFAULT '{}' CONSTRAINT scheduled_messages_media_count CHECK (cardinality(media_urls) <= 10),
        cancel_on_reply boolean NOT NULL DEFAULT true,
        created_by uuid NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        claimed_at timestamptz,
        sent_at timestamptz,
        sent_message_ids text[] NOT NULL DEFAULT '{}',
        error text,
        UNIQUE (organization_id, id),
        CONSTRAINT scheduled_messages_claimed CHECK (status NOT IN ('sending', 'sent', 'failed') OR claimed_at IS NOT NULL),
        CONSTRAINT scheduled_messages_error_when_failed CHECK ((status = 'failed') = (error IS NOT NULL)),
        CONSTRAINT scheduled_messages_conversation_fkey FOREIGN KEY (organization_id, conversation_id)
          REFERENCES conversations (organization_id, id) ON DELETE CASCADE
      );
      -- The pass's claim (due first) and its look for stale sends; a conversation's pending ones for the reply trigger.
      CREATE INDEX scheduled_messages_due_idx ON scheduled_messages (send_at) WHERE status = 'scheduled';
      CREATE INDEX scheduled_messages_sending_idx ON scheduled_messages (claimed_at) WHERE status = 'sending';
      CREATE INDEX scheduled_messages_conversation_idx ON scheduled_messages (organization_id, conversation_id) WHERE status = 'scheduled';
      CREATE INDEX scheduled_messages_org_send_at_idx ON scheduled_messages (organization_id, send_at, id);
      SELECT enable_tenant_rls('scheduled_messages');

      CREATE FUNCTION scheduled_messages_cancel_on_reply() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE scheduled_messages s SET status = 'cancelled_by_reply', updated_at = now()
        FROM (SELECT DISTINCT organization_id, conversation_id FROM inserted_messages WHERE direction = 'INBOUND') r
        WHERE s.organization_id = r.organization_id AND s.conversation_id = r.conversation_id
          AND s.status = 'scheduled' AND s.cancel_on_reply;
        RETURN NULL;
      END $$;
      CREATE TRIGGER messages_cancel_scheduled AFTER INSERT ON messages REFERENCING NEW TABLE AS inserted_messages
        FOR EACH STATEMENT EXECUTE FUNCTION scheduled_messages_cancel_on_reply();
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TRIGGER messages_cancel_scheduled ON messages;
      DROP FUNCTION scheduled_messages_cancel_on_reply();
      DROP TABLE scheduled_messages;
    `);
  }
}
