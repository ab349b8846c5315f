import { Injectable, type OnModuleInit } from '@nestjs/common';
import { type DomainEvent, isPayloadObject, uuidOrNull } from '@engage/shared-kernel';
import { MESSAGE_DELIVERED, MESSAGE_FAILED, MESSAGE_READ, MESSAGE_SENT } from '@engage/messaging';
import { consumeIdempotentBatch, Database, EventSubscriptions } from '@engage/platform';
import { APPLY_OUTCOME } from '../infrastructure/campaigns.sql';

export const OUTCOME_CONSUMER = 'campaigns.recipient-outcomes';
export const OUTCOME_EVENTS = [MESSAGE_SENT, MESSAGE_DELIVERED, MESSAGE_READ, MESSAGE_FAILED];

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

// A broadcast's messages as messaging reports them (message.sent, .delivered, .read, .failed of
// origin `broadcast`, origin_id the broadcast): the recipient (one per contact and broadcast) takes
// the status, never backwards (APPLY_OUTCOME), so a redelivered or late event changes nothing.
@Injectable()
export class RecipientOutcomes implements OnModuleInit {
  constructor(
    private readonly subscriptions: EventSubscriptions,
    private readonly db: Database,
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
    const outcomes = events.filter((event) => outcomeOf(event) !== null);
    if (outcomes.length === 0) return;
    await consumeIdempotentBatch(this.db, outcomes, async (tx, batch) => {
      for (const event of batch) {
        const o = outcomeOf(event)!;
        await tx.query(APPLY_OUTCOME, [o.broadcastId, o.contactId, o.status, o.messageId, o.error, o.at]);
      }
    });
  }
}

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
  const at = new Date(event.occurredAt);
  return { broadcastId, contactId, messageId: uuidOrNull(message.id), status, error, at: Number.isNaN(at.getTime()) ? new Date() : at };
}
