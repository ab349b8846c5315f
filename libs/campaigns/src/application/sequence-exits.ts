import { Injectable, type OnModuleInit } from '@nestjs/common';
import { type DomainEvent, isPayloadObject, uuidOrNull } from '@engage/shared-kernel';
import { CONTACT_UPDATED } from '@engage/crm';
import { CONVERSATION_STATUS_CHANGED, MESSAGE_RECEIVED } from '@engage/messaging';
import { consumeIdempotentBatch, Database, EventSubscriptions } from '@engage/platform';
import { EXIT_BY_EVENT } from '../infrastructure/sequences.sql';

export const EXITS_CONSUMER = 'campaigns.sequence-exits';
export const EXIT_EVENTS = [MESSAGE_RECEIVED, CONVERSATION_STATUS_CHANGED, CONTACT_UPDATED];

type ExitReason = 'reply' | 'opt_out' | 'conversation_resolved';

interface Exit {
  contactId: string;
  // The account the event happened on (a reply, a resolved conversation); null: every account.
  channelAccountId: string | null;
  reason: ExitReason;
  at: Date;
}

// The exit_on key each reason is chosen by.
const KEY_OF: Record<ExitReason, string> = { reply: 'reply', opt_out: 'opt_out', conversation_resolved: 'conversation_resolved' };

// Ends running enrolments on what their version exits on: a customer's message in a conversation on
// the sequence's account (message.received), the contact's conversation there resolved
// (conversation.status.changed to RESOLVED), and the contact no longer opted in (the CRM's
// contact.updated carries the whole contact). An enrolment made after the event is left alone, and
// an ended one is never changed again, so a redelivered event changes nothing.
@Injectable()
export class SequenceExits implements OnModuleInit {
  constructor(
    private readonly subscriptions: EventSubscriptions,
    private readonly db: Database,
  ) {}

  onModuleInit(): void {
    this.subscriptions.add({
      consumer: EXITS_CONSUMER,
      sources: [MESSAGE_RECEIVED.source, CONTACT_UPDATED.source],
      handle: (event) => this.apply([event]),
      handleBatch: (events) => this.apply(events),
    });
  }

  async apply(events: DomainEvent[]): Promise<void> {
    const exits = events.filter((event) => exitOf(event) !== null);
    if (exits.length === 0) return;
    await consumeIdempotentBatch(this.db, exits, async (tx, batch) => {
      for (const event of batch) {
        const exit = exitOf(event)!;
        await tx.query(EXIT_BY_EVENT, [exit.contactId, KEY_OF[exit.reason], exit.channelAccountId, exit.reason, exit.at]);
      }
    });
  }
}

function exitOf(event: DomainEvent): Exit | null {
  const payload = isPayloadObject(event.payload) ? event.payload : {};
  const occurred = new Date(event.occurredAt);
  const at = Number.isNaN(occurred.getTime()) ? new Date() : occurred;
  if (event.type === MESSAGE_RECEIVED.name && event.source === MESSAGE_RECEIVED.source) {
    const message = payload.message;
    if (!isPayloadObject(message) || message.direction !== 'INBOUND') return null;
    return withIds(message.contact_id, message.channel_account_id, 'reply', at);
  }
  if (event.type === CONVERSATION_STATUS_CHANGED.name && event.source === CONVERSATION_STATUS_CHANGED.source) {
    const conversation = payload.conversation;
    if (!isPayloadObject(conversation) || (payload.to_status ?? conversation.status) !== 'RESOLVED') return null;
    return withIds(conversation.contact_id, conversation.channel_account_id, 'conversation_resolved', at);
  }
  if (event.type === CONTACT_UPDATED.name && event.source === CONTACT_UPDATED.source) {
    const contact = payload.contact;
    if (!isPayloadObject(contact) || contact.opt_in_status === true) return null;
    const contactId = uuidOrNull(contact.id);
    return contactId ? { contactId, channelAccountId: null, reason: 'opt_out', at } : null;
  }
  return null;
}

function withIds(contact: unknown, account: unknown, reason: ExitReason, at: Date): Exit | null {
  const contactId = uuidOrNull(contact);
  const channelAccountId = uuidOrNull(account);
  return contactId && channelAccountId ? { contactId, channelAccountId, reason, at } : null;
}
