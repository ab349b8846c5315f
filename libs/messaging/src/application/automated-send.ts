import { randomUUID } from 'node:crypto';
import { DomainError, isUuid, NotFound, type RequestContext } from '@engage/shared-kernel';
import type { Database } from '@engage/platform';
import { checkOutboundAuthor, type MessageAuthor } from '../domain/message-origin';
import { CHANNEL_BY_ID, type ChannelAccountRow, CONVERSATION_BY_ID, type ConversationRow } from '../infrastructure/messaging.sql';
import type { ChannelAdapters } from './channel-adapter.port';
import type { SendOutcome } from './send.service';

// The rows a send of this source stored in the conversation (a source, e.g. a nudge, sends once).
const MESSAGES_OF_SOURCE = `
  SELECT id FROM messages WHERE conversation_id = $1 AND direction = 'OUTBOUND' AND origin = $2 AND origin_id = $3 ORDER BY created_at, id`;

// A message written by the system, not a person (re-engagement nudges, later rules and sequences):
// sent through the conversation's channel adapter as the inbox's reply is, but as role SYSTEM, so
// the adapter applies the window rule for automated messages (no HUMAN_AGENT tag), checked at send
// time. `author` is stored as the message's origin and origin_id (e.g. reengagement and the nudge's
// id); `metadata`, if any, on the message.
export class AutomatedSender {
  constructor(
    private readonly db: Database,
    private readonly adapters: ChannelAdapters,
  ) {}

  async send(
    organizationId: string,
    conversationId: string,
    text: string,
    author: MessageAuthor,
    metadata: Record<string, string> = {},
  ): Promise<SendOutcome & { messageIds: string[] }> {
    if (!isUuid(conversationId)) throw new DomainError('validation', 'validation_failed', 'conversation id must be a UUID');
    const source = checkOutboundAuthor(author);
    if (source.originId === null) throw new DomainError('validation', 'validation_failed', 'an automated message names its source (originId)');
    const ctx: RequestContext = { organizationId, userId: null, role: 'SYSTEM', requestId: randomUUID() };
    const { conversation, channel } = await this.db.inTenant(ctx, async (tx) => {
      const [row] = await tx.query<ConversationRow>(CONVERSATION_BY_ID, [conversationId]);
      if (!row) throw NotFound('conversation', conversationId);
      const [account] = await tx.query<ChannelAccountRow>(CHANNEL_BY_ID, [row.channel_account_id]);
      return { conversation: row, channel: account };
    });
    const outcome = await this.adapters.forReply(channel.kind).reply(ctx, conversation, { message: text, mediaUrls: [], author: source, metadata });
    const rows = await this.db.inTenant(ctx, (tx) => tx.query<{ id: string }>(MESSAGES_OF_SOURCE, [conversationId, source.origin, source.originId]));
    return { ...outcome, messageIds: rows.map((r) => r.id) };
  }
}
