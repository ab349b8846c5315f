import { DomainError, type RequestContext } from '@engage/shared-kernel';
import { type ChannelCapabilities, CHANNEL_CAPABILITIES } from '../domain/channel-capabilities';
import type { MessageAuthor } from '../domain/message-origin';
import { type ChannelKind, isChannelKind } from '../domain/statuses';
import type { ConversationRow } from '../infrastructure/messaging.sql';
import type { SendOutcome } from './send.service';

export interface ReplyInput {
  message: string;
  mediaUrls: string[];
  // Who wrote it: an agent in the inbox, or an automated sender and its source (a nudge, a rule...).
  author: MessageAuthor;
  // Stored on the message's metadata.
  metadata?: Record<string, string>;
  // Email: the subject (default: "Re: " and the thread's).
  subject?: string;
}

// One kind of channel: what it can do and how a reply goes out on it. The reply path, the send
// path and the worker ask the adapter (or its declared capabilities), never the kind's name.
export interface ChannelAdapter {
  readonly kind: ChannelKind;
  readonly capabilities: ChannelCapabilities;
  reply(ctx: RequestContext, conversation: ConversationRow, input: ReplyInput): Promise<SendOutcome>;
  // A real call to the provider with the channel account's own credentials (absent: nothing to check).
  check?(ctx: RequestContext, channelAccountId: string): Promise<{ ok: boolean; error?: string }>;
}

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
    const adapter = this.byKind.get(kind);
    if (!adapter) {
      throw new DomainError('unprocessable', 'channel.no_adapter', `Sending on ${kind} channels is not available on this server`, { channel_kind: kind });
    }
    return adapter;
  }
}
