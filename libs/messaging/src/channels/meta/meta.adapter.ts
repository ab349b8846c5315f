import { DomainError, type Clock, type RequestContext } from '@engage/shared-kernel';
import type { Database, SecretBox, Tx } from '@engage/platform';
import { CHANNEL_CAPABILITIES, decideWindow, type WindowDecision } from '../../domain/channel-capabilities';
import { attachmentOf } from '../../domain/media';
import type { GraphMessage, GraphSendApi } from './graph-send-api';
import { CHANNEL_SECRET, type ConversationRow, type MessageRow } from '../../infrastructure/messaging.sql';
import { CONTACT_CHANNEL_ID } from './social.sql';
import type { ChannelAdapter, DeliverySession, OutboundSend, PlannedPart } from '../../outbound/channel-adapter.port';

const GRAPH_TYPE = { image: 'image', video: 'video', document: 'file' } as const;
type ChannelSecret = { external_account_id: string | null; access_token_sealed: string | null; is_active: boolean };

// Messenger or Instagram through the Graph API's Send API: the text first, then one message per
// attachment (the Send API carries no captions). The window rule is checked before anything is
// stored and again when the messages go out.
export class MetaAdapter implements ChannelAdapter {
  readonly capabilities;

  constructor(
    readonly kind: 'messenger' | 'instagram',
    private readonly db: Database,
    private readonly box: SecretBox,
    private readonly graph: GraphSendApi,
    private readonly clock: Clock,
  ) {
    this.capabilities = CHANNEL_CAPABILITIES[kind];
  }

  async plan(tx: Tx, _ctx: RequestContext, conversation: ConversationRow, send: OutboundSend, human: boolean): Promise<PlannedPart[]> {
    const decision = this.decide(conversation, human);
    await this.target(tx, conversation);
    const metadata = { window: decision.send };
    const attachments = send.mediaUrls.map((url) => (send.mediaKind ? { url, kind: send.mediaKind } : attachmentOf(url, false)));
    return [
      ...(send.message.length > 0 ? [{ content: send.message, media: [], metadata }] : []),
      ...attachments.map((a) => ({ content: '', media: [{ url: a.url, kind: a.kind }], metadata })),
    ];
  }

  async open(ctx: RequestContext, conversation: ConversationRow, human: boolean): Promise<DeliverySession> {
    const decision = this.decide(conversation, human);
    const target = await this.db.inTenant(ctx, (tx) => this.target(tx, conversation));
    const how =
      decision.send === 'human_agent_tag' ? { messaging_type: 'MESSAGE_TAG' as const, tag: 'HUMAN_AGENT' as const } : { messaging_type: 'RESPONSE' as const };
    return {
      deliver: (row: MessageRow) => {
        const media = row.media[0];
        const message: GraphMessage['message'] = media
          ? { attachment: { type: GRAPH_TYPE[media.kind as keyof typeof GRAPH_TYPE] ?? 'file', payload: { url: media.url, is_reusable: true } } }
          : { text: row.content };
        return this.graph.send(target.accountId, target.token, { ...how, recipient: { id: target.user }, message });
      },
    };
  }

  async check(ctx: RequestContext, channelAccountId: string): Promise<{ ok: boolean; error?: string }> {
    const [channel] = await this.db.inTenant(ctx, (tx) => tx.query<ChannelSecret>(CHANNEL_SECRET, [channelAccountId]));
    if (!channel?.external_account_id || !channel.access_token_sealed) return { ok: false, error: 'no page or access token stored' };
    return this.graph.check(channel.external_account_id, this.box.open(channel.access_token_sealed));
  }

  private decide(conversation: ConversationRow, human: boolean): WindowDecision {
    return decideWindow(this.capabilities.window, conversation.last_customer_message_at, this.clock.now(), human);
  }

  // The page (or Instagram account), its token and the customer's id on it.
  private async target(tx: Tx, conversation: ConversationRow) {
    const [channel] = await tx.query<ChannelSecret>(CHANNEL_SECRET, [conversation.channel_account_id]);
    if (!channel?.external_account_id || !channel.access_token_sealed) {
      throw unprocessable('channel.not_connected', 'This channel account has no page or access token');
    }
    if (!channel.is_active) throw unprocessable('channel.inactive', 'This channel account is not active');
    const [recipient] = await tx.query<{ external_user_id: string }>(CONTACT_CHANNEL_ID, [conversation.channel_account_id, conversation.contact_id]);
    if (!recipient) throw unprocessable('channel.no_recipient', 'The contact has not written on this channel, so it has no address there');
    return { accountId: channel.external_account_id, token: this.box.open(channel.access_token_sealed), user: recipient.external_user_id };
  }
}

const unprocessable = (code: string, message: string) => new DomainError('unprocessable', code, message);
