import { Injectable, type OnModuleInit } from '@nestjs/common';
import { type DomainEvent, isPayloadObject, uuidOrNull } from '@engage/shared-kernel';
import { MESSAGE_RECEIVED } from '@engage/messaging';
import { consumeIdempotentBatch, Database, EventSubscriptions } from '@engage/platform';
import { MARK_REPLIED } from '../infrastructure/reengagement.sql';

export const REPLY_CONSUMER = 'reengagement.replies';

// A customer's message (messaging's message.received) answers the conversation's open nudges:
// they become user_replied, and when one of them had been sent the unanswered counter goes back to
// 0. Idempotent without a processed_events row: a redelivered message finds nothing open. A batch
// costs one statement per organization in it (MARK_REPLIED), whatever its number of messages.
@Injectable()
export class ReplyConsumer implements OnModuleInit {
  constructor(
    private readonly subscriptions: EventSubscriptions,
    private readonly db: Database,
  ) {}

  onModuleInit(): void {
    this.subscriptions.add({
      consumer: REPLY_CONSUMER,
      sources: [MESSAGE_RECEIVED.source],
      handle: (event) => this.apply([event]),
      handleBatch: (events) => this.apply(events),
    });
  }

  private async apply(events: DomainEvent[]): Promise<void> {
    const replies = new Map(
      events.flatMap((event) => {
        const reply = event.type === MESSAGE_RECEIVED.name ? replyOf(event) : null;
        return reply ? [[event.id, reply] as const] : [];
      }),
    );
    if (replies.size === 0) return;
    await consumeIdempotentBatch(
      this.db,
      events.filter((event) => replies.has(event.id)),
      async (tx, batch) => {
        const inOrder = batch.map((event) => replies.get(event.id)!);
        await tx.query(MARK_REPLIED, [inOrder.map((reply) => reply.conversationId), inOrder.map((reply) => reply.at.toISOString())], { prepare: true });
      },
    );
  }
}

function replyOf(event: DomainEvent): { conversationId: string; at: Date } | null {
  const message = isPayloadObject(event.payload) ? event.payload.message : undefined;
  if (!isPayloadObject(message) || message.direction !== 'INBOUND') return null;
  const conversationId = uuidOrNull(message.conversation_id);
  const at = typeof message.created_at === 'string' ? new Date(message.created_at) : new Date(event.occurredAt);
  return conversationId && !Number.isNaN(at.getTime()) ? { conversationId, at } : null;
}
