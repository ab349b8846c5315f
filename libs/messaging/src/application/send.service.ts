import { randomInt } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { DomainError, NotFound, type RequestContext } from '@engage/shared-kernel';
import type { Database, Tx } from '@engage/platform';
import { type ContactService, findOrCreateContactByPhone } from '@engage/crm';
import type { OrganizationSettings } from '@engage/identity';
import { attachmentOf, gapBetween, planCalls, type ProviderBody } from '../domain/provider-calls';
import { cleanRecipient, type SendRequest } from '../domain/send-request';
import { CONVERSATION_BY_ID, type ConversationRow, INSERT_MESSAGE, type MessageRow } from '../infrastructure/messaging.sql';
import type { ChannelAdapters } from './channel-adapter.port';
import { type Attempt, finishSend } from './finish-send';
import { channelById, defaultChannel, touchConversation, upsertConversation } from './conversation-store';
import { type MessagingProvider, ProviderError } from './messaging-provider.port';
import type { MessageView } from './views';

export interface SendOutcome {
  success: true;
  result: Record<string, unknown>;
  conversationId: string;
  contactId: string;
  debug: { hasChannelAccount: boolean; hasConversationId: boolean; hasContactId: boolean };
}

// The provider refused or failed: the attempt is stored (FAILED) and the caller gets the provider's words.
export class SendFailed extends Error {
  constructor(
    message: string,
    readonly messages: MessageView[],
  ) {
    super(message);
  }
}

export interface SendSettings {
  gapMinMs: number;
  gapMaxMs: number;
}

// §4.1 with nothing lost: validate (done by the caller), clean the number, read the provider key,
// store contact, channel account, conversation and one PENDING message per provider call (committed),
// call the provider, then record each outcome (SENT or FAILED) with its event. A crash between the
// two writes leaves PENDING rows that the PendingSendSweeper fails as `interrupted`.
export class SendService {
  constructor(
    private readonly db: Database,
    private readonly contacts: ContactService,
    private readonly settings: OrganizationSettings,
    private readonly provider: MessagingProvider,
    private readonly gaps: SendSettings,
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

    const calls = planCalls(
      [recipient.digits],
      req.message,
      req.mediaUrls.map((url) => attachmentOf(url)),
      () => randomInt(1, 2_147_483_647),
    );
    const pending = await this.db.inTenant(ctx, (tx) => this.storePending(tx, ctx, req, recipient.cleaned, target.conversation, calls));

    const attempts: Attempt[] = [];
    let failure: string | null = null;
    for (const [index, body] of calls.entries()) {
      if (failure !== null) {
        attempts.push({ result: null, error: 'Not sent: an earlier attachment of this send failed' });
        continue;
      }
      // A timer, not a busy wait: other requests run meanwhile.
      if (index > 0) await sleep(gapBetween(this.gaps.gapMinMs, Math.max(this.gaps.gapMinMs, this.gaps.gapMaxMs)));
      try {
        attempts.push({ result: await this.provider.send(req.organizationId, provider.key, body), error: null });
      } catch (error) {
        if (!(error instanceof ProviderError)) throw error;
        failure = error.message;
        attempts.push({ result: null, error: error.message });
      }
    }

    const messages = await this.db.inTenant(ctx, (tx) => finishSend(tx, ctx, pending.messageIds, attempts));
    if (failure !== null) throw new SendFailed(failure, messages);
    return {
      success: true,
      result: attempts[0].result!.raw,
      conversationId: pending.conversation.id,
      contactId: pending.contactId,
      debug: { hasChannelAccount: true, hasConversationId: true, hasContactId: true },
    };
  }

  // Before anything is sent: a named conversation or channel must exist in this organization.
  // The contact is read after the transaction (the CRM opens its own; nesting could exhaust the pool).
  // Nothing named (the common send to a number): no transaction at all.
  private async checkTargets(ctx: RequestContext, req: SendRequest): Promise<{ conversation: ConversationRow | null; phone: string | null }> {
    if (!req.crossChannel && !req.conversationId) return { conversation: null, phone: null };
    const conversation = await this.db.inTenant(ctx, async (tx) => {
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
      }
      if (!req.conversationId) return null;
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
      return row;
    });
    if (!conversation || req.to !== null) return { conversation, phone: null };
    const contact = await this.contacts.get(ctx, conversation.contact_id);
    if (contact.phones.length === 0) throw new DomainError('validation', 'validation_failed', "The conversation's contact has no phone number; give `to`");
    return { conversation, phone: contact.phones[0] };
  }

  // Steps 5-8 before the provider is called: the message rows exist (PENDING) whatever happens next.
  private async storePending(tx: Tx, ctx: RequestContext, req: SendRequest, phone: string, named: ConversationRow | null, calls: ProviderBody[]) {
    // Step 5: contact (race-free find-or-create through the CRM).
    const { contact } = await findOrCreateContactByPhone(tx, ctx, this.contacts, phone, req.contactName);
    // Steps 6, 7 and 9: the conversation the message lands in.
    let conversation: ConversationRow;
    if (req.crossChannel) {
      conversation = await upsertConversation(tx, ctx, contact.id, req.crossChannel.responseChannelId, 0);
    } else if (named) {
      conversation = await touchConversation(tx, named.id, 0);
    } else {
      const channel = await defaultChannel(tx);
      conversation = await upsertConversation(tx, ctx, contact.id, channel.id, 0);
    }
    // Step 8: one message per provider call; no event yet (message.* events announce final states).
    const messageIds: string[] = [];
    for (const body of calls) {
      const call = body.UOWCHAT;
      const url = call.imageUrl || call.videoUrl || call.documentUrl;
      const metadata: Record<string, unknown> = { ...req.metadata, random_string: call.random_string };
      if (req.from !== null) metadata.sender_name = req.from;
      if (req.crossChannel) metadata.cross_channel = { ...req.crossChannel, requested_conversation_id: req.conversationId };
      const [row] = await tx.query<MessageRow>(
        INSERT_MESSAGE,
        [
          conversation.id,
          contact.id,
          conversation.channel_account_id,
          'OUTBOUND',
          'PENDING',
          call.message,
          JSON.stringify(url ? [{ url, kind: call.imageUrl ? 'image' : call.videoUrl ? 'video' : 'document' }] : []),
          null,
          JSON.stringify(metadata),
          null,
          req.author.origin,
          req.author.originId,
        ],
        { prepare: true },
      );
      messageIds.push(row.id);
    }
    return { conversation, contactId: contact.id, messageIds };
  }
}
