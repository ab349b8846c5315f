import { NotFound, type RequestContext } from '@engage/shared-kernel';
import type { Tx } from '@engage/platform';
import {
  AUTO_CHANNEL,
  CHANNEL_BY_ID,
  type ChannelAccountRow,
  type ConversationRow,
  CREATE_AUTO_CHANNEL,
  FIRST_ACTIVE_CHANNEL,
  TOUCH_CONVERSATION,
  UPSERT_CONVERSATION,
} from '../infrastructure/messaging.sql';
import { CONVERSATION_CREATED, conversationEvent } from '../application/messaging-events';
import { toConversationView } from '../application/views';

// §4.1 step 6: the most recent active chat-app account, or the one account the send path creates
// (a unique partial index keeps concurrent first sends from creating several).
export async function defaultChannel(tx: Tx): Promise<ChannelAccountRow> {
  const [active] = await tx.query<ChannelAccountRow>(FIRST_ACTIVE_CHANNEL, [], { prepare: true });
  if (active) return active;
  const [created] = await tx.query<ChannelAccountRow>(CREATE_AUTO_CHANNEL);
  if (created) return created;
  const [existing] = await tx.query<ChannelAccountRow>(AUTO_CHANNEL);
  return existing;
}

export async function channelById(tx: Tx, id: string): Promise<ChannelAccountRow> {
  const [row] = await tx.query<ChannelAccountRow>(CHANNEL_BY_ID, [id]);
  if (!row) throw NotFound('channel_account', id);
  return row;
}

// §4.1 step 7 / inbound: the unresolved conversation of (contact, channel), found or created in one
// statement; emits conversation.created when it is new. `stampCustomer`: a customer's message on a
// channel without a provider window marks last_customer_message_at now.
export async function upsertConversation(
  tx: Tx,
  ctx: RequestContext,
  contactId: string,
  channelId: string,
  unread: 0 | 1,
  stampCustomer = false,
): Promise<ConversationRow> {
  const [row] = await tx.query<ConversationRow & { created: boolean }>(UPSERT_CONVERSATION, [contactId, channelId, unread, stampCustomer], { prepare: true });
  const { created, ...conversation } = row;
  if (created) await tx.emit([conversationEvent(CONVERSATION_CREATED, ctx, toConversationView(conversation))]);
  return conversation;
}

export async function touchConversation(tx: Tx, id: string, unread: 0 | 1): Promise<ConversationRow> {
  const [row] = await tx.query<ConversationRow>(TOUCH_CONVERSATION, [id, unread]);
  if (!row) throw NotFound('conversation', id);
  return row;
}
