import { randomUUID } from 'node:crypto';
import { DomainError, type Clock, type RequestContext } from '@engage/shared-kernel';
import type { Database, SecretBox, Tx } from '@engage/platform';
import { CHANNEL_CAPABILITIES, decideWindow, type WindowDecision } from '../../domain/channel-capabilities';
import { attachmentOf } from '../../domain/provider-calls';
import type { GraphMessage, GraphSendApi } from '../../infrastructure/graph-send-api';
import { CHANNEL_SECRET, type ConversationRow } from '../../infrastructure/messaging.sql';
import { CONTACT_CHANNEL_ID, INSERT_OUTBOUND_PART } from '../../infrastructure/social.sql';
import { touchConversation } from '../conversation-store';
import { type Attempt, finishSend } from '../finish-send';
import type { ChannelAdapter, ReplyInput } from '../channel-adapter.port';
import { ProviderError } from '../messaging-provider.port';
import { SendFailed, type SendOutcome } from '../send.service';

const GRAPH_TYPE = { image: 'image', video: 'video', document: 'file' } as const;
type PlannedMessage = Omit<GraphMessage, 'recipient'>;
type ChannelSecret = { external_account_id: string | null; access_token_sealed: string | null; is_active: boolean };

// A person in the inbox (a member's session), as opposed to an API key, a rule, a bot or a sequence.
const writtenByHuman = (ctx: RequestContext) => ctx.userId !== null && ctx.role !== 'API_KEY' && ctx.role !== 'SYSTEM';

// Messenger or Instagram through the Graph API's Send API. The window rule is checked before
// anything is stored or sent; then, as on every channel, the messages are stored PENDING, sent one
// by one (the text, then each attachment), and each becomes SENT or FAILED with its event.
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

  async reply(ctx: RequestContext, conversation: ConversationRow, input: ReplyInput): Promise<SendOutcome> {
    const decision = decideWindow(this.capabilities.window, conversation.last_customer_message_at, this.clock.now(), writtenByHuman(ctx));
    const messages = planMessages(input, decision);
    const target = await this.db.inTenant(ctx, (tx) => this.storePending(tx, ctx, conversation, messages, decision, input));
    const attempts: Attempt[] = [];
    let failure: string | null = null;
    for (const message of messages) {
      if (failure !== null) {
        attempts.push({ result: null, error: 'Not sent: an earlier part of this send failed' });
        continue;
      }
      try {
        attempts.push({ result: await this.graph.send(target.accountId, target.token, { ...message, recipient: { id: target.user } }), error: null });
      } catch (error) {
        if (!(error instanceof ProviderError)) throw error;
        failure = error.message;
        attempts.push({ result: null, error: error.message });
      }
    }
    const stored = await this.db.inTenant(ctx, (tx) => finishSend(tx, ctx, target.messageIds, attempts));
    if (failure !== null) throw new SendFailed(failure, stored);
    return {
      success: true,
      result: attempts[0].result!.raw,
      conversationId: conversation.id,
      contactId: conversation.contact_id,
      debug: { hasChannelAccount: true, hasConversationId: true, hasContactId: true },
    };
  }

  async check(ctx: RequestContext, channelAccountId: string): Promise<{ ok: boolean; error?: string }> {
    const [channel] = await this.db.inTenant(ctx, (tx) => tx.query<ChannelSecret>(CHANNEL_SECRET, [channelAccountId]));
    if (!channel?.external_account_id || !channel.access_token_sealed) return { ok: false, error: 'no page or access token stored' };
    return this.graph.check(channel.external_account_id, this.box.open(channel.access_token_sealed));
  }

  private async storePending(
    tx: Tx,
    ctx: RequestContext,
    conversation: ConversationRow,
    messages: PlannedMessage[],
    decision: WindowDecision,
    input: ReplyInput,
  ) {
    const [channel] = await tx.query<ChannelSecret>(CHANNEL_SECRET, [conversation.channel_account_id]);
    if (!channel?.external_account_id || !channel.access_token_sealed) {
      throw unprocessable('channel.not_connected', 'This channel account has no page or access token');
    }
    if (!channel.is_active) throw unprocessable('channel.inactive', 'This channel account is not active');
    const [recipient] = await tx.query<{ external_user_id: string }>(CONTACT_CHANNEL_ID, [conversation.channel_account_id, conversation.contact_id]);
    if (!recipient) throw unprocessable('channel.no_recipient', 'The contact has not written on this channel, so it has no address there');
    await touchConversation(tx, conversation.id, 0);
    const metadata = { ...input.metadata, window: decision.send, ...(ctx.userId ? { sender_user_id: ctx.userId } : {}), send_id: randomUUID() };
    const messageIds: string[] = [];
    for (const [index, m] of messages.entries()) {
      const text = 'text' in m.message ? m.message.text : '';
      const attachment = 'attachment' in m.message ? m.message.attachment : null;
      const media = attachment ? [{ url: attachment.payload.url, kind: attachment.type === 'file' ? 'document' : attachment.type }] : [];
      const [row] = await tx.query<{ id: string }>(INSERT_OUTBOUND_PART, [
        conversation.id,
        conversation.contact_id,
        conversation.channel_account_id,
        index,
        text,
        JSON.stringify(media),
        JSON.stringify(metadata),
        input.author.origin,
        input.author.originId,
      ]);
      messageIds.push(row.id);
    }
    return { accountId: channel.external_account_id, token: this.box.open(channel.access_token_sealed), user: recipient.external_user_id, messageIds };
  }
}

const unprocessable = (code: string, message: string) => new DomainError('unprocessable', code, message);

// The text first, then one message per attachment (the Send API carries no captions).
function planMessages(input: ReplyInput, decision: WindowDecision): PlannedMessage[] {
  const how =
    decision.send === 'human_agent_tag' ? { messaging_type: 'MESSAGE_TAG' as const, tag: 'HUMAN_AGENT' as const } : { messaging_type: 'RESPONSE' as const };
  const attachments = input.mediaUrls.map((url) => attachmentOf(url, false));
  return [
    ...(input.message.length > 0 ? [{ ...how, message: { text: input.message } }] : []),
    ...attachments.map((a) => ({ ...how, message: { attachment: { type: GRAPH_TYPE[a.kind], payload: { url: a.url, is_reusable: true } } } })),
  ];
}
