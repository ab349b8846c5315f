import { randomUUID } from 'node:crypto';
import { Injectable, type OnModuleInit } from '@nestjs/common';
import { type DomainEvent, isPayloadObject, type RequestContext, uuidOrNull } from '@engage/shared-kernel';
import { MESSAGE_DELIVERED, MESSAGE_FAILED, MESSAGE_READ, MESSAGE_RECEIVED, MESSAGE_SENT, type MessagePayload } from '@engage/messaging';
import { consumeIdempotentBatch, consumeOnceBatch, Database, EventSubscriptions, type Tx } from '@engage/platform';
import { autoPauseReason } from '../domain/broadcast';
import { APPLY_OUTCOME, COUNT_FAILURE, MARK_REPLIED, RESET_FAILURES } from '../infrastructure/campaigns.sql';
import { BroadcastsService } from './broadcasts.service';
import { BROADCAST_RESPONSE } from './campaigns-events';

export const OUTCOME_CONSUMER = 'campaigns.recipient-outcomes';
export const OUTCOME_EVENTS = [MESSAGE_SENT, MESSAGE_DELIVERED, MESSAGE_READ, MESSAGE_FAILED, MESSAGE_RECEIVED];

const STATUS_OF: Record<string, string> = {
  [MESSAGE_SENT.name]: 'sent',
  [MESSAGE_DELIVERED.name]: 'delivered',
  [MESSAGE_READ.name]: 'read',
  [MESSAGE_FAILED.name]: 'failed',
};

interface Outcome {
  broadcastId: string;
  contactId: string;
  messageId: string | null;
  status: string;
  error: string | null;
  at: Date;
}

interface Reply {
  origin: 'broadcast' | 'sequence';
  originId: string | null;
  repliedToMessageId: string;
  campaignId: unknown;
  contactId: string;
  conversationId: string;
  message: MessagePayload['message'];
  at: Date;
}

const systemCtx = (organizationId: string): RequestContext => ({ organizationId, userId: null, role: 'SYSTEM', requestId: randomUUID() });

// A broadcast's messages as messaging reports them (message.sent, .delivered, .read, .failed of
// origin `broadcast`, origin_id the broadcast): the recipient (one per contact and broadcast) takes
// the status, never backwards (APPLY_OUTCOME), so a redelivered or late event changes nothing. A
// failed message counts towards the broadcast's auto-pause, one that left starts the count again.
// Customers' replies (message.received naming a broadcast's or a sequence's message) come through
// the same subscription, so a reply is applied after the send it answers.
@Injectable()
export class RecipientOutcomes implements OnModuleInit {
  constructor(
    private readonly subscriptions: EventSubscriptions,
    private readonly db: Database,
    private readonly broadcasts: BroadcastsService,
  ) {}

  onModuleInit(): void {
    this.subscriptions.add({
      consumer: OUTCOME_CONSUMER,
      sources: [MESSAGE_SENT.source],
      handle: (event) => this.apply([event]),
      handleBatch: (events) => this.apply(events),
    });
  }

  async apply(events: DomainEvent[]): Promise<void> {
    const relevant = events.filter((event) => outcomeOf(event) !== null || replyOf(event)?.origin === 'broadcast');
    if (relevant.length > 0) {
      await consumeIdempotentBatch(this.db, relevant, async (tx, batch) => {
        for (const event of batch) {
          const outcome = outcomeOf(event);
          if (outcome) await this.applyOutcome(tx, event.organizationId, outcome);
          else await this.applyReply(tx, event, replyOf(event)!);
        }
      });
    }
    // A sequence's message answered: a response as before, no window (the event is emitted once per
    // reply, hence the consumed-events mark).
    const sequenceReplies = events.filter((event) => replyOf(event)?.origin === 'sequence');
    if (sequenceReplies.length > 0) {
      await consumeOnceBatch(this.db, OUTCOME_CONSUMER, sequenceReplies, async (tx, fresh) => {
        await tx.emit(fresh.map((event) => responseEvent(event, replyOf(event)!)));
      });
    }
  }

  private async applyOutcome(tx: Tx, organizationId: string, o: Outcome): Promise<void> {
    const changed = await tx.query(APPLY_OUTCOME, [o.broadcastId, o.contactId, o.status, o.messageId, o.error, o.at]);
    if (changed.length === 0) return;
    if (o.status !== 'failed') {
      await tx.execute(RESET_FAILURES, [o.broadcastId]);
      return;
    }
    const [broadcast] = await tx.query<{ status: string; failures_in_a_row: number; auto_pause_after_failures: number }>(COUNT_FAILURE, [o.broadcastId]);
    const limit = broadcast?.auto_pause_after_failures ?? 0;
    if (broadcast?.status === 'sending' && limit > 0 && broadcast.failures_in_a_row >= limit) {
      await this.broadcasts.autoPauseIn(tx, systemCtx(organizationId), o.broadcastId, autoPauseReason(broadcast.failures_in_a_row, o.error ?? 'failed'));
    }
  }

  // Replied, and broadcast.response, only for a reply within the broadcast's window of its send.
  private async applyReply(tx: Tx, event: DomainEvent, reply: Reply): Promise<void> {
    if (!reply.originId) return;
    const marked = await tx.query(MARK_REPLIED, [reply.originId, reply.contactId, reply.at]);
    if (marked.length > 0) await tx.emit([responseEvent(event, reply)]);
  }
}

function responseEvent(event: DomainEvent, reply: Reply): DomainEvent {
  return BROADCAST_RESPONSE.create({
    organizationId: event.organizationId,
    aggregateId: reply.message.id,
    payload: {
      message: reply.message,
      actor_id: null,
      contact_id: reply.contactId,
      conversation_id: reply.conversationId,
      replied_to_message_id: reply.repliedToMessageId,
      broadcast_id: reply.origin === 'broadcast' ? reply.originId : null,
      campaign_id: reply.campaignId,
      ...(reply.origin === 'sequence' ? { sequence_id: reply.originId } : {}),
    },
  });
}

const dateOf = (value: unknown, fallback: string): Date => {
  const at = new Date(typeof value === 'string' ? value : fallback);
  return Number.isNaN(at.getTime()) ? new Date() : at;
};

function outcomeOf(event: DomainEvent): Outcome | null {
  const status = STATUS_OF[event.type];
  if (!status) return null;
  const message = isPayloadObject(event.payload) ? event.payload.message : undefined;
  if (!isPayloadObject(message) || message.origin !== 'broadcast') return null;
  // A message withdrawn from the queue (pause, cancel): its recipient was put back, not failed.
  if (isPayloadObject(message.metadata) && message.metadata.withdrawn === true) return null;
  const broadcastId = uuidOrNull(message.origin_id);
  const contactId = uuidOrNull(message.contact_id);
  if (!broadcastId || !contactId) return null;
  const error = status === 'failed' ? (typeof message.error === 'string' ? message.error : 'failed').slice(0, 2000) : null;
  return { broadcastId, contactId, messageId: uuidOrNull(message.id), status, error, at: dateOf(event.occurredAt, '') };
}

// message.received naming the broadcast's or sequence's message it answers (messaging's replied_to).
function replyOf(event: DomainEvent): Reply | null {
  if (event.type !== MESSAGE_RECEIVED.name || !isPayloadObject(event.payload)) return null;
  const { message, replied_to: target } = event.payload;
  if (!isPayloadObject(message) || !isPayloadObject(target)) return null;
  if (target.origin !== 'broadcast' && target.origin !== 'sequence') return null;
  const contactId = uuidOrNull(message.contact_id);
  const conversationId = uuidOrNull(message.conversation_id);
  const repliedToMessageId = uuidOrNull(target.message_id);
  if (!contactId || !conversationId || !repliedToMessageId) return null;
  return {
    origin: target.origin,
    originId: uuidOrNull(target.origin_id),
    repliedToMessageId,
    campaignId: target.campaign_id ?? null,
    contactId,
    conversationId,
    message: message as MessagePayload['message'],
    at: dateOf(message.created_at, event.occurredAt),
  };
}
