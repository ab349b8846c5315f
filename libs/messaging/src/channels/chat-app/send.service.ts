import { DomainError, NotFound, type RequestContext } from '@engage/shared-kernel';
import type { Database, Tx } from '@engage/platform';
import { type ContactService, findOrCreateContactByPhone } from '@engage/crm';
import type { OrganizationSettings } from '@engage/identity';
import { cleanRecipient, type SendRequest } from '../../domain/send-request';
import { CONVERSATION_BY_ID, type ConversationRow } from '../../infrastructure/messaging.sql';
import { type OutboundDispatcher, SendFailed, type SendOutcome } from '../../outbound/dispatcher';
import type { ChannelAdapters } from '../../outbound/channel-adapter.port';
import { channelById, defaultChannel, touchConversation, upsertConversation } from '../../conversations/conversation-store';

// §4.1 (chat-lite-send) with nothing lost: validate (done by the caller), clean the number, read the
// provider key, check what the request names; then the dispatcher stores contact, channel account,
// conversation and one PENDING message per provider call (committed), calls the provider and
// records each outcome (SENT or FAILED) with its event. The provider's answer is in the response.
export class SendService {
  constructor(
    private readonly contacts: ContactService,
    private readonly settings: Pick<OrganizationSettings, 'providerKey'>,
    private readonly dispatcher: OutboundDispatcher,
    private readonly db: Database,
    // Which channel kinds this path may send on: the channel adapter port answers, by capability.
    private readonly adapters: Pick<ChannelAdapters, 'forDirectSend'>,
    private readonly log: (fields: Record<string, unknown>, line: string) => void = () => undefined,
  ) {}

  async send(ctx: RequestContext, req: SendRequest): Promise<SendOutcome> {
    const recipientGiven = req.to === null ? null : cleanRecipient(req.to);
    if (req.to !== null) this.log({ to: req.to, cleaned: recipientGiven?.cleaned }, 'chat-lite-send recipient');
    const provider = await this.settings.providerKey(req.organizationId);
    if (!provider) throw NotFound('organization', req.organizationId);
    if (provider.key === null) {
      throw new DomainError('not_found', 'provider_key.not_found', 'The organization has no provider API key (setting appgain_api_key)');
    }
    const target = await this.checkTargets(ctx, req);
    const recipient = recipientGiven ?? cleanRecipient(target.phone ?? '');
    const metadata: Record<string, unknown> = { ...req.metadata };
    if (req.from !== null) metadata.sender_name = req.from;
    if (req.crossChannel) metadata.cross_channel = { ...req.crossChannel, requested_conversation_id: req.conversationId };
    let contactId = '';
    const resolve = async (tx: Tx) => {
      const found = await this.conversationOf(tx, ctx, req, recipient.cleaned, target.conversation);
      contactId = found.contactId;
      return found.conversation;
    };
    const sent = await this.dispatcher.send(
      ctx,
      { kind: target.kind, resolve },
      { message: req.message, mediaUrls: req.mediaUrls, author: req.author, metadata, to: recipient.cleaned },
    );
    if (sent.failure !== null) throw new SendFailed(sent.failure, sent.messages);
    return {
      success: true,
      result: sent.result!,
      conversationId: sent.conversation.id,
      contactId,
      debug: { hasChannelAccount: true, hasConversationId: true, hasContactId: true },
    };
  }

  // Before anything is sent: a named conversation or channel must exist in this organization.
  // The contact is read after the transaction (the CRM opens its own; nesting could exhaust the pool).
  // Nothing named (the common send to a number): no transaction at all.
  private async checkTargets(ctx: RequestContext, req: SendRequest): Promise<{ conversation: ConversationRow | null; phone: string | null; kind: string }> {
    if (!req.crossChannel && !req.conversationId) return { conversation: null, phone: null, kind: 'chat_app' };
    const { conversation, kind } = await this.db.inTenant(ctx, async (tx) => {
      let kind = 'chat_app';
      if (req.crossChannel) {
        const channel = await channelById(tx, req.crossChannel.responseChannelId);
        if (!this.adapters.forDirectSend(channel.kind)) {
          throw new DomainError(
            'validation',
            'channel.cannot_send',
            `responseChannelId is a ${channel.kind} channel, which has no sending adapter; answer on a chat_app channel`,
          );
        }
        if (!channel.is_active) throw new DomainError('validation', 'channel.inactive', 'responseChannelId is not an active channel account');
        kind = channel.kind;
      }
      if (!req.conversationId) return { conversation: null, kind };
      const [row] = await tx.query<ConversationRow>(CONVERSATION_BY_ID, [req.conversationId]);
      if (!row) throw NotFound('conversation', req.conversationId);
      // chat-lite-send speaks through the chat-app provider: a conversation on another channel
      // (Messenger, Instagram, email) is answered through its own adapter and window rule, never here.
      if (!req.crossChannel && !this.adapters.forDirectSend(row.channel_kind)) {
        throw new DomainError(
          'validation',
          'channel.cannot_send',
          `conversationId is a ${row.channel_kind} conversation, which chat-lite-send cannot send on; ` +
            `reply with POST /functions/v1/messaging/conversations/${row.id}/reply`,
        );
      }
      return { conversation: row, kind: req.crossChannel ? kind : row.channel_kind };
    });
    if (!conversation || req.to !== null) return { conversation, phone: null, kind };
    const contact = await this.contacts.get(ctx, conversation.contact_id);
    if (contact.phones.length === 0) throw new DomainError('validation', 'validation_failed', "The conversation's contact has no phone number; give `to`");
    return { conversation, phone: contact.phones[0], kind };
  }

  // Steps 5-7 and 9, in the transaction that stores the messages: the contact (race-free
  // find-or-create through the CRM) and the conversation the message lands in.
  private async conversationOf(tx: Tx, ctx: RequestContext, req: SendRequest, phone: string, named: ConversationRow | null) {
    const { contact } = await findOrCreateContactByPhone(tx, ctx, this.contacts, phone, req.contactName);
    const of = (conversation: ConversationRow) => ({ conversation, contactId: contact.id });
    if (req.crossChannel) return of(await upsertConversation(tx, ctx, contact.id, req.crossChannel.responseChannelId, 0));
    if (named) return of(await touchConversation(tx, named.id, 0));
    const channel = await defaultChannel(tx);
    return of(await upsertConversation(tx, ctx, contact.id, channel.id, 0));
  }
}
