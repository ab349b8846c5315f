import { randomInt } from 'node:crypto';
import { DomainError, type RequestContext } from '@engage/shared-kernel';
import type { ContactService } from '@engage/crm';
import type { OrganizationSettings } from '@engage/identity';
import { CHANNEL_CAPABILITIES } from '../../domain/channel-capabilities';
import { attachmentOf, type MediaKind } from '../../domain/media';
import { planCalls, providerBody } from './provider-calls';
import { cleanRecipient } from '../../domain/send-request';
import type { ConversationRow, MessageRow } from '../../infrastructure/messaging.sql';
import type { ChannelAdapter, DeliverySession, OutboundSend, PlannedPart } from '../../outbound/channel-adapter.port';
import type { MessagingProvider } from './messaging-provider.port';

// The chat-app provider of §4.2 as a channel adapter: one provider call per attachment (§4.1: the
// first carries the text or caption and nonce 0, the others a unique nonce), to the number the
// sender chose or the contact's first phone, with the organization's provider key.
export class ChatAppAdapter implements ChannelAdapter {
  readonly kind = 'chat_app' as const;
  readonly capabilities = CHANNEL_CAPABILITIES.chat_app;
  readonly spacesParts = true;
  readonly sharesCalls = true;
  readonly sessionPerAccount = true;

  constructor(
    private readonly provider: MessagingProvider,
    private readonly settings: Pick<OrganizationSettings, 'providerKey'>,
    private readonly contacts: ContactService,
  ) {}

  async recipient(ctx: RequestContext, contactId: string): Promise<string> {
    const contact = await this.contacts.get(ctx, contactId);
    if (contact.phones.length === 0) throw new DomainError('validation', 'validation_failed', 'the contact of this conversation has no phone number');
    return contact.phones[0];
  }

  plan(_tx: unknown, _ctx: RequestContext, _conversation: ConversationRow, send: OutboundSend): Promise<PlannedPart[]> {
    if (send.to === undefined) throw new DomainError('validation', 'validation_failed', 'the contact of this conversation has no phone number');
    const to = cleanRecipient(send.to).digits;
    const calls = planCalls(
      [to],
      send.message,
      send.mediaUrls.map((url) => (send.mediaKind ? { url, kind: send.mediaKind } : attachmentOf(url))),
      () => randomInt(1, 2_147_483_647),
    );
    return Promise.resolve(
      calls.map(({ UOWCHAT: call }) => {
        const url = call.imageUrl || call.videoUrl || call.documentUrl;
        const kind: MediaKind = call.imageUrl ? 'image' : call.videoUrl ? 'video' : 'document';
        return { content: call.message, media: url ? [{ url, kind }] : [], metadata: { random_string: call.random_string, to } };
      }),
    );
  }

  async open(ctx: RequestContext): Promise<DeliverySession> {
    const provider = await this.settings.providerKey(ctx.organizationId);
    if (!provider?.key) {
      throw new DomainError('not_found', 'provider_key.not_found', 'The organization has no provider API key (setting appgain_api_key)');
    }
    const key = provider.key;
    // One call to every receiver of the messages (the same text and media), with the first's nonce.
    const call = (messages: MessageRow[]) => {
      const [first] = messages;
      const media = first.media[0];
      const attachment = media ? { url: media.url, kind: media.kind as MediaKind } : undefined;
      const receivers = messages.map((m) => String(m.metadata.to));
      return this.provider.send(ctx.organizationId, key, providerBody(receivers, first.content, attachment, Number(first.metadata.random_string ?? 0)));
    };
    return { deliver: (message: MessageRow) => call([message]), deliverMany: call };
  }
}
