import { randomUUID } from 'node:crypto';
import type { RequestContext } from '@engage/shared-kernel';
import type { Tx } from '@engage/platform';
import type { ContactService } from '@engage/crm';
import type { ChannelCapabilities } from '../../domain/channel-capabilities';
import { windowClosesAt } from '../../domain/channel-capabilities';
import type { SocialPayload } from './meta-webhook';
import { AGENT } from '../../domain/message-origin';
import { CHANNEL_KINDS, canMoveMessage, type MessageStatus } from '../../domain/statuses';
import type { InboundEventRow } from '../../inbound/inbound.sql';
import {
  type ConversationRow,
  INBOUND_EXISTS,
  INSERT_INBOUND_MESSAGE,
  INSERT_MESSAGE,
  type MessageRow,
  SET_CONVERSATION_STATUS,
  SET_MESSAGE_STATUS,
} from '../../infrastructure/messaging.sql';
import { CHANNEL_CONTACT, INSERT_CHANNEL_CONTACT, MOVE_WINDOW, OUTBOUND_BEFORE_WATERMARK, OUTBOUND_BY_EXTERNAL_IDS } from './social.sql';
import { upsertConversation } from '../../conversations/conversation-store';
import { NotYet, Settled } from '../../inbound/inbound-outcomes';
import { enqueueMetaProfile, PLACEHOLDER_NAME } from './meta-profile.job';
import {
  CONVERSATION_STATUS_CHANGED,
  MESSAGE_RECEIVED,
  MESSAGE_SENT,
  MESSAGE_STATUS_EVENTS,
  conversationEvent,
  messageEvent,
} from '../../application/messaging-events';
import { toConversationView, toMessageView } from '../../application/views';

type Message = Extract<SocialPayload, { type: 'social_message' }>;
type Receipt = Extract<SocialPayload, { type: 'social_receipt' }>;
type Media = { url: string; kind: string }[];

// The worker's half for Messenger and Instagram: customers known by their page-scoped id, messages
// de-duplicated by Meta's message id, the channel's window moved by each customer message (the rule
// comes from the kind's declared capabilities), receipts moving outbound statuses.
export class SocialInbound {
  constructor(
    private readonly contacts: ContactService,
    private readonly capabilitiesOf: (kind: string) => ChannelCapabilities | null,
    private readonly now: () => Date = () => new Date(),
  ) {}

  apply(tx: Tx, ctx: RequestContext, event: InboundEventRow, payload: SocialPayload, media?: Media): Promise<void> {
    return payload.type === 'social_message' ? this.message(tx, ctx, event, payload, media) : this.receipt(tx, ctx, event, payload);
  }

  private async message(tx: Tx, ctx: RequestContext, event: InboundEventRow, payload: Message, media?: Media): Promise<void> {
    const channelId = event.channel_account_id;
    const [seen] = await tx.query(INBOUND_EXISTS, [channelId, payload.id]);
    if (seen) throw new Settled(`duplicate of provider message ${payload.id}`);
    // Our own sends come back as echoes; the first try leaves the send time to record its id.
    if (payload.echo && event.attempts === 0) throw new NotYet('echo: the send that made it may not have recorded its id yet');
    const contactId = await this.contactOf(tx, ctx, channelId, payload.user);
    let conversation = await upsertConversation(tx, ctx, contactId, channelId, payload.echo ? 0 : 1);
    const metadata = {
      reply_to: payload.reply_to,
      provider_timestamp: payload.timestamp,
      inbound_event_id: String(event.id),
      ...(payload.postback ? { postback: payload.postback } : {}),
    };
    const content = JSON.stringify(media ?? payload.media);
    if (payload.echo) {
      // Sent from Meta's own inbox (or another app of the page): kept as an outbound message.
      const echo = JSON.stringify({ ...metadata, echo: true });
      const [row] = await tx.query<MessageRow>(INSERT_MESSAGE, [
        conversation.id,
        contactId,
        channelId,
        'OUTBOUND',
        'SENT',
        payload.text,
        content,
        payload.id,
        echo,
        null,
        AGENT.origin,
        AGENT.originId,
      ]);
      if (!row) throw new Error(`provider message ${payload.id} is being stored by another worker`);
      return tx.emit([messageEvent(MESSAGE_SENT, ctx, toMessageView(row))]);
    }
    if (conversation.status === 'SNOOZED' || conversation.status === 'PENDING') {
      const from = conversation.status;
      [conversation] = await tx.query<ConversationRow>(SET_CONVERSATION_STATUS, [conversation.id, 'OPEN', null]);
      await tx.emit([conversationEvent(CONVERSATION_STATUS_CHANGED, ctx, toConversationView(conversation), { from_status: from, to_status: 'OPEN' })]);
    }
    const wrote = this.customerWroteAt(payload.timestamp);
    await tx.query(MOVE_WINDOW, [conversation.id, wrote, this.windowClosesAt(conversation.channel_kind, wrote)]);
    const values = [conversation.id, contactId, channelId, payload.text, content, payload.id, JSON.stringify(metadata)];
    const [row] = await tx.query<MessageRow>(INSERT_INBOUND_MESSAGE, values);
    if (!row) throw new Error(`provider message ${payload.id} is being stored by another worker`);
    await tx.emit([messageEvent(MESSAGE_RECEIVED, ctx, toMessageView(row), { contact_id: contactId })]);
  }

  // The window runs from when the customer wrote (never from a time in the future).
  customerWroteAt(timestamp: string | null): Date {
    const now = this.now();
    return timestamp && new Date(timestamp) < now ? new Date(timestamp) : now;
  }

  windowClosesAt(kind: string, wrote: Date): Date | null {
    return windowClosesAt(this.capabilitiesOf(kind)?.window ?? null, wrote);
  }

  // Each windowed kind's free-form hours, for the batch's upsert to open the windows in SQL.
  freeFormWindows(): { kinds: string[]; hours: number[] } {
    const windowed = CHANNEL_KINDS.flatMap((kind) => {
      const window = this.capabilitiesOf(kind)?.window;
      return window ? [{ kind, hours: window.freeFormHours }] : [];
    });
    return { kinds: windowed.map((w) => w.kind), hours: windowed.map((w) => w.hours) };
  }

  private async receipt(tx: Tx, ctx: RequestContext, event: InboundEventRow, payload: Receipt): Promise<void> {
    const [known] = await tx.query<{ contact_id: string }>(CHANNEL_CONTACT, [event.channel_account_id, payload.user]);
    if (!known) throw new Settled(`no customer ${payload.user} on this channel`);
    const messages =
      payload.mids.length > 0
        ? await tx.query<MessageRow>(OUTBOUND_BY_EXTERNAL_IDS, [event.channel_account_id, payload.mids])
        : await tx.query<MessageRow>(OUTBOUND_BEFORE_WATERMARK, [event.channel_account_id, known.contact_id, payload.watermark]);
    // A receipt can overtake the send's commit of the message ids it names.
    if (messages.length === 0 && payload.mids.length > 0) throw new NotYet(`no message with provider ids ${payload.mids.join(', ').slice(0, 200)} (yet)`);
    const to = payload.status.toUpperCase() as MessageStatus;
    const moved = [];
    for (const message of messages) {
      if (!canMoveMessage(message.status as MessageStatus, to)) continue;
      const [row] = await tx.query<MessageRow>(SET_MESSAGE_STATUS, [message.id, to, null]);
      moved.push(messageEvent(MESSAGE_STATUS_EVENTS[payload.status], ctx, toMessageView(row), { from_status: message.status }));
    }
    if (moved.length === 0) throw new Settled(`nothing moved to ${to}`);
    await tx.emit(moved);
  }

  // Found or created by the page-scoped id, with a job to look up its profile. Creation runs in a
  // savepoint: when another worker mapped the same id first, it is rolled back and the winner's contact read.
  async contactOf(tx: Tx, ctx: RequestContext, channelId: string, user: string): Promise<string> {
    const [known] = await tx.query<{ contact_id: string }>(CHANNEL_CONTACT, [channelId, user]);
    if (known) return known.contact_id;
    const savepoint = `channel_contact_${randomUUID().replace(/-/g, '')}`;
    await tx.query(`SAVEPOINT ${savepoint}`);
    const contact = await this.contacts.createIn(tx, ctx, { first_name: PLACEHOLDER_NAME });
    const [mapped] = await tx.query<{ contact_id: string }>(INSERT_CHANNEL_CONTACT, [channelId, user, contact.id]);
    if (mapped) {
      await tx.query(`RELEASE SAVEPOINT ${savepoint}`);
      // Its name comes from the Graph API later, off this transaction's path.
      await enqueueMetaProfile(tx, { channelAccountId: channelId, userId: user, contactId: mapped.contact_id });
      return mapped.contact_id;
    }
    await tx.query(`ROLLBACK TO SAVEPOINT ${savepoint}`);
    const [winner] = await tx.query<{ contact_id: string }>(CHANNEL_CONTACT, [channelId, user]);
    return winner.contact_id;
  }
}
