import { DomainError, NotFound, type RequestContext } from '@engage/shared-kernel';
import type { Database, Tx } from '@engage/platform';
import { type ContactService, findOrCreateContactByPhone } from '@engage/crm';
import type { OutboundSend } from './channel-adapter.port';
import { upsertConversation } from '../conversations/conversation-store';
import { cleanRecipient } from '../domain/send-request';
import { CHANNEL_BY_ID, type ChannelAccountRow, CONVERSATION_BY_ID, type ConversationRow } from '../infrastructure/messaging.sql';
import type { Destination, OutboundDispatcher } from './dispatcher';
import { parseQueuedSend, type QueuedSendInput } from './outbound-queue';

export interface QueuedSendAnswer {
  message_id: string;
  // Every row the send wrote (one per provider call; the first is message_id).
  message_ids: string[];
  conversation_id: string;
  status: 'QUEUED';
  scheduled_for: string;
}

const unprocessable = (code: string, message: string) => new DomainError('unprocessable', code, message);

// The channel kinds a phone number addresses.
const PHONE_KINDS = ['chat_app', 'sms'];

// POST /functions/v1/messaging/outbound: an integrator's message stored QUEUED on the account they
// name (origin api_queued), to go out under its pacing. The recipient is found or created as
// chat-lite-send does: a number finds or creates the contact through the CRM and then the contact's
// conversation on that account, in the transaction that stores the message (nothing is left behind
// when the channel refuses the send).
export class QueuedSendService {
  constructor(
    private readonly db: Database,
    private readonly contacts: ContactService,
    private readonly dispatcher: OutboundDispatcher,
  ) {}

  async send(ctx: RequestContext, body: unknown): Promise<QueuedSendAnswer> {
    const input = parseQueuedSend(body);
    const [account] = await this.db.inTenant(ctx, (tx) => tx.query<ChannelAccountRow>(CHANNEL_BY_ID, [input.channelAccountId]));
    if (!account) throw NotFound('channel_account', input.channelAccountId);
    if (!account.is_active) throw unprocessable('channel.inactive', 'This channel account is switched off (is_active false)');
    const send: OutboundSend = {
      message: input.text,
      mediaUrls: input.mediaUrl ? [input.mediaUrl] : [],
      author: { origin: 'api_queued', originId: null },
      ...(input.mediaKind ? { metadata: { media_kind: input.mediaKind } } : {}),
    };
    const { destination, to } = await this.destinationOf(ctx, account, input);
    const queued = await this.dispatcher.enqueue(ctx, destination, to === undefined ? send : { ...send, to });
    return {
      message_id: queued.messageIds[0],
      message_ids: queued.messageIds,
      conversation_id: queued.conversation.id,
      status: 'QUEUED',
      scheduled_for: queued.scheduledFor.toISOString(),
    };
  }

  private async destinationOf(ctx: RequestContext, account: ChannelAccountRow, input: QueuedSendInput): Promise<{ destination: Destination; to?: string }> {
    const { recipient } = input;
    if ('contactId' in recipient) {
      await this.contacts.get(ctx, recipient.contactId);
      return { destination: { channelAccountId: account.id, contactId: recipient.contactId } };
    }
    if ('conversationId' in recipient) {
      const [conversation] = await this.db.inTenant(ctx, (tx) => tx.query<ConversationRow>(CONVERSATION_BY_ID, [recipient.conversationId]));
      if (!conversation) throw NotFound('conversation', recipient.conversationId);
      if (conversation.channel_account_id !== account.id) {
        throw new DomainError('validation', 'validation_failed', 'conversation_id is a conversation on another channel account than channel_account_id', {
          field: 'conversation_id',
        });
      }
      return { destination: { conversationId: conversation.id } };
    }
    if (!PHONE_KINDS.includes(account.kind)) {
      throw unprocessable(
        'channel.recipient_not_phone',
        `A ${account.kind} channel account does not address phone numbers: give contact_id or conversation_id`,
      );
    }
    const { cleaned, digits } = cleanRecipient(recipient.to);
    // The SMS provider takes E.164; the chat app takes digits.
    if (account.kind === 'sms' && !cleaned.startsWith('+')) {
      throw new DomainError('validation', 'validation_failed', 'to must be in E.164 form (+<country><number>) on an SMS account', { field: 'to' });
    }
    const resolve = async (tx: Tx) => {
      const { contact } = await findOrCreateContactByPhone(tx, ctx, this.contacts, cleaned, null);
      return upsertConversation(tx, ctx, contact.id, account.id, 0);
    };
    return { destination: { kind: account.kind, resolve }, to: account.kind === 'sms' ? `+${digits}` : digits };
  }
}
