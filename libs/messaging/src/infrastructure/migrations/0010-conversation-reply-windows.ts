import type { MigrationInterface, QueryRunner } from 'typeorm';

// A published read of messaging for other contexts (re-engagement): per conversation the customer's
// last message, the window's end, and whether the business answered after that message (an outbound
// message that is not itself a re-engagement nudge). security_invoker: row-level security of the
// caller applies. The index serves the scheduler's range over last_customer_message_at.
export class ConversationReplyWindows1763800003010 implements MigrationInterface {
  name = 'ConversationReplyWindows1763800003010';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE INDEX conversations_last_customer_message_idx ON conversations (last_customer_message_at)
        WHERE last_customer_message_at IS NOT NULL AND status <> 'RESOLVED';
      CREATE VIEW conversation_reply_windows WITH (security_invoker = true) AS
        SELECT c.organization_id, c.id AS conversation_id, c.contact_id, c.channel_account_id, c.channel_kind, c.status,
               c.last_customer_message_at, c.window_closes_at,
               EXISTS (SELECT 1 FROM messages m
                       WHERE m.organization_id = c.organization_id AND m.conversation_id = c.id AND m.direction = 'OUTBOUND'
                         AND m.status <> 'FAILED' AND m.created_at > c.last_customer_message_at
                         AND NOT (m.metadata ? 'reengagement_nudge_id')) AS answered_since_customer
        FROM conversations c
        WHERE c.last_customer_message_at IS NOT NULL AND c.status <> 'RESOLVED';
      GRANT SELECT ON conversation_reply_windows TO app_tenant;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP VIEW conversation_reply_windows; DROP INDEX conversations_last_customer_message_idx;`);
  }
}
