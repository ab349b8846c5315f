import { DomainError, type RequestContext } from '@engage/shared-kernel';
import type { ContactService } from '@engage/crm';
import { CHANNEL_CAPABILITIES } from '../../domain/channel-capabilities';
import type { ConversationRow } from '../../infrastructure/messaging.sql';
import type { ChannelAdapter, ReplyInput } from '../channel-adapter.port';
import type { SendOutcome, SendService } from '../send.service';

// The chat-app provider of §4.2 as a channel adapter: a reply is a chat-lite-send to the contact's
// first phone, into the conversation (same provider calls, statuses and events). The send service
// is reached lazily: it asks the adapters which kinds it may send on, so it is built after them.
export class ChatAppAdapter implements ChannelAdapter {
  readonly kind = 'chat_app' as const;
  readonly capabilities = CHANNEL_CAPABILITIES.chat_app;

  constructor(
    private readonly sends: () => SendService,
    private readonly contacts: ContactService,
  ) {}

  async reply(ctx: RequestContext, conversation: ConversationRow, input: ReplyInput): Promise<SendOutcome> {
    const contact = await this.contacts.get(ctx, conversation.contact_id);
    if (contact.phones.length === 0) throw new DomainError('validation', 'validation_failed', 'the contact of this conversation has no phone number');
    return this.sends().send(ctx, {
      to: contact.phones[0],
      message: input.message,
      organizationId: ctx.organizationId,
      conversationId: conversation.id,
      contactName: null,
      from: null,
      mediaUrls: input.mediaUrls,
      crossChannel: null,
      author: input.author,
      metadata: input.metadata,
    });
  }
}
