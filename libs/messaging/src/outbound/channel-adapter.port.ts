import { DomainError, type RequestContext } from '@engage/shared-kernel';
import type { Tx } from '@engage/platform';
import { type ChannelCapabilities, CHANNEL_CAPABILITIES } from '../domain/channel-capabilities';
import type { MessageAuthor, MessageOrigin } from '../domain/message-origin';
import type { MediaKind } from '../domain/media';
import { type ChannelKind, isChannelKind } from '../domain/statuses';
import type { ConversationRow, MessageRow } from '../infrastructure/messaging.sql';
import type { ProviderResult } from './provider-result';

// What a sender asks the dispatcher to send into a conversation.
export interface OutboundSend {
  message: string;
  mediaUrls: string[];
  // What the media are (§4.2: image, video or document), when the sender says; otherwise the
  // adapter decides (the chat app's single-message sends are images; email and Meta by extension).
  mediaKind?: MediaKind;
  // Who wrote it: an agent in the inbox, the API, or an automated sender and its source.
  author: MessageAuthor;
  // Stored on the message's metadata.
  metadata?: Record<string, unknown>;
  // Email: the subject (default: "Re: " and the thread's).
  subject?: string;
  // The recipient's address when the sender chose it (chat-lite-send's number); otherwise the
  // adapter finds it (the contact's phone or email, the channel's user id).
  to?: string;
}

// One message row of a send, as the adapter plans it: the text or caption and at most one
// attachment per provider call (email: all of them), with what the adapter needs at delivery.
export interface PlannedPart {
  content: string;
  media: { url: string; kind: MediaKind }[];
  metadata: Record<string, unknown>;
  emailMessageId?: string | null;
}

// A channel account opened for delivery: its credentials and the recipient's address, read when the
// messages go out. `deliver` answers the provider's result or throws ProviderError with its words.
export interface DeliverySession {
  deliver(message: MessageRow): Promise<ProviderResult>;
  // Several receivers of the same content in one provider call (adapters with `sharesCalls`).
  deliverMany?(messages: MessageRow[]): Promise<ProviderResult>;
  // After the last part went out (email: the copy in the Sent folder). Its answer is added to the
  // send's result; it never fails the send.
  afterSent?(message: MessageRow): Promise<Record<string, unknown>>;
}

// One kind of channel: what it can do and how a message goes out on it. Adapters only deliver; the
// dispatcher stores, sequences, records outcomes and emits events for every kind.
export interface ChannelAdapter {
  readonly kind: ChannelKind;
  readonly capabilities: ChannelCapabilities;
  // Whether consecutive provider calls of one send are spaced by the §4.1 gap (the chat app drops
  // bursts); the others take the parts as fast as they come.
  readonly spacesParts?: boolean;
  // Whether one provider call can carry several receivers of the same content (§4.2; the paced
  // queue fills it up to the account's receivers_per_call).
  readonly sharesCalls?: boolean;
  // Whether a session depends on the account only (its credentials), not on the conversation: the
  // paced queue then opens one for a run of sends on the account instead of one per message.
  readonly sessionPerAccount?: boolean;
  // Before the transaction, when the sender gave no address: the recipient's (may read other contexts).
  recipient?(ctx: RequestContext, contactId: string): Promise<string>;
  // In the dispatcher's transaction, before anything is stored: whether the send may go out (the
  // account is active and connected, the window is open for this author) and its parts. Throws a
  // DomainError naming why not.
  plan(tx: Tx, ctx: RequestContext, conversation: ConversationRow, send: OutboundSend, human: boolean): Promise<PlannedPart[]>;
  // After the rows are committed: the account opened for delivery (the window checked again).
  open(ctx: RequestContext, conversation: ConversationRow, human: boolean): Promise<DeliverySession>;
  // A real call to the provider with the channel account's own credentials (absent: nothing to check).
  check?(ctx: RequestContext, channelAccountId: string): Promise<{ ok: boolean; error?: string }>;
}

// Origins a person writes through the inbox: they take the reply path's rules (SMS refuses them).
const HUMAN_REPLY_ORIGINS: readonly MessageOrigin[] = ['agent', 'scheduled'];

// The adapters of this installation, by kind.
export class ChannelAdapters {
  private readonly byKind = new Map<string, ChannelAdapter>();

  constructor(adapters: ChannelAdapter[]) {
    for (const adapter of adapters) this.byKind.set(adapter.kind, adapter);
  }

  capabilitiesOf(kind: string): ChannelCapabilities | null {
    return isChannelKind(kind) ? CHANNEL_CAPABILITIES[kind] : null;
  }

  // The channel account's credentials tried against its provider.
  async check(ctx: RequestContext, channel: { id: string; kind: string }): Promise<{ ok: boolean; error?: string }> {
    const adapter = this.byKind.get(channel.kind);
    if (!adapter?.check) {
      throw new DomainError('unprocessable', 'channel.no_check', `${channel.kind} channel accounts have no provider credentials to check here`, {
        channel_kind: channel.kind,
      });
    }
    return adapter.check(ctx, channel.id);
  }

  // The adapter through which chat-lite-send may send on this kind, or null (the caller says why,
  // before anything is stored or sent).
  forDirectSend(kind: string): ChannelAdapter | null {
    const adapter = this.byKind.get(kind);
    return adapter?.capabilities.directSend ? adapter : null;
  }

  // The adapter a reply on this kind goes through: 422 when the kind has none (yet) or its
  // conversations are not answered from the inbox.
  forReply(kind: string): ChannelAdapter {
    const capabilities = this.capabilitiesOf(kind);
    if (capabilities && !capabilities.agentReply) {
      const message = `Conversations on ${kind} channels cannot be answered from the inbox`;
      throw new DomainError('unprocessable', 'channel.reply_not_allowed', message, { channel_kind: kind });
    }
    return this.forKind(kind);
  }

  // The adapter a message of this origin goes out through: replies by people take the reply path's
  // rules; the API and automated senders may use any kind that has an adapter (SMS included).
  forSend(kind: string, origin: MessageOrigin): ChannelAdapter {
    return HUMAN_REPLY_ORIGINS.includes(origin) ? this.forReply(kind) : this.forKind(kind);
  }

  forKindOrNull(kind: string): ChannelAdapter | null {
    return this.byKind.get(kind) ?? null;
  }

  private forKind(kind: string): ChannelAdapter {
    const adapter = this.byKind.get(kind);
    if (!adapter) {
      throw new DomainError('unprocessable', 'channel.no_adapter', `Sending on ${kind} channels is not available on this server`, { channel_kind: kind });
    }
    return adapter;
  }
}
