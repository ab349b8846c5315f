import type { DomainEvent, RequestContext } from '@engage/shared-kernel';
import type { Tx } from '@engage/platform';
import { type ContactService, findOrCreateContactsByPhones } from '@engage/crm';
import type { InboundPayload } from './inbound-payload';
import type { InboundEventRow } from './inbound.sql';
import {
  INBOUND_SEEN_BATCH,
  INSERT_INBOUND_MESSAGES,
  LAST_OUTBOUND_BATCH,
  MARK_INBOUND_BATCH_DONE,
  MESSAGES_BY_EXTERNAL_IDS,
  UPSERT_CONVERSATIONS,
} from './inbound-batch.sql';
import { type ConversationRow, type MessageRow, SET_CONVERSATION_STATUS } from '../infrastructure/messaging.sql';
import {
  type CampaignReplyTarget,
  CONVERSATION_CREATED,
  CONVERSATION_STATUS_CHANGED,
  MESSAGE_RECEIVED,
  conversationEvent,
  messageEvent,
} from '../application/messaging-events';
import { toConversationView, toMessageView } from '../application/views';

type MessagePayload = Extract<InboundPayload, { type: 'message' }>;
// The batch's statements are fixed texts run many times a second under load: prepared once per connection.
const PREPARED = { prepare: true };
export interface StoredMedia {
  url: string;
  kind: string;
  original_url: string;
  rehost_error?: string;
}
export interface ClaimedMessage {
  event: InboundEventRow;
  payload: MessagePayload;
  media?: StoredMedia[];
}

// The message events of one organization in one transaction, with the same outcome as one at a
// time (InboundProcessor.apply): duplicates settled, contacts and conversations found or created,
// snoozed conversations woken, messages stored, the same events emitted. Answers the events it
// could not take (a sender that is not a valid phone): the caller processes them one by one.
// Any failure throws, and the caller's transaction undoes everything.
export async function applyMessageBatch(tx: Tx, ctx: RequestContext, contacts: ContactService, batch: ClaimedMessage[]): Promise<ClaimedMessage[]> {
  const key = (channel: string, externalId: string) => `${channel} ${externalId}`;
  const seenRows = await tx.query<{ channel_account_id: string; external_id: string }>(
    INBOUND_SEEN_BATCH,
    [batch.map((m) => m.event.channel_account_id), batch.map((m) => m.payload.id)],
    PREPARED,
  );
  const seen = new Set(seenRows.map((r) => key(r.channel_account_id, r.external_id)));
  const done: Array<{ id: string; error: string | null }> = [];
  const fresh: ClaimedMessage[] = [];
  for (const m of batch) {
    const k = key(m.event.channel_account_id, m.payload.id);
    if (seen.has(k)) done.push({ id: m.event.id, error: `duplicate of provider message ${m.payload.id}` });
    else {
      seen.add(k); // a second copy in the same batch is a duplicate too
      fresh.push(m);
    }
  }
  const found = await findOrCreateContactsByPhones(
    tx,
    ctx,
    contacts,
    fresh.map((m) => ({ raw: m.payload.from.replace(/@s\..*$/i, ''), name: m.payload.name })),
  );
  const left: ClaimedMessage[] = [];
  const taken: Array<ClaimedMessage & { contactId: string }> = [];
  for (const [i, m] of fresh.entries()) {
    const answer = found[i];
    if ('error' in answer) left.push(m);
    else taken.push({ ...m, contactId: answer.contact.id });
  }
  const events: DomainEvent[] = [];
  const conversations = await upsertConversations(tx, ctx, taken, events, { stamp: 'now' });
  const rows =
    taken.length === 0
      ? []
      : await tx.query<MessageRow>(
          INSERT_INBOUND_MESSAGES,
          [
            taken.map((m) => conversations.get(pair(m))!.id),
            taken.map((m) => m.contactId),
            taken.map((m) => m.event.channel_account_id),
            taken.map((m) => m.payload.text),
            taken.map((m) => JSON.stringify(m.media ?? m.payload.media)),
            taken.map((m) => m.payload.id),
            taken.map((m) =>
              JSON.stringify({
                sender_name: m.payload.name,
                reply_to: m.payload.reply_to,
                provider_timestamp: m.payload.timestamp,
                inbound_event_id: String(m.event.id),
              }),
            ),
          ],
          PREPARED,
        );
  // A provider id stored by a concurrent worker meanwhile: the caller starts over one by one.
  if (rows.length !== taken.length) throw new Error('a provider message of the batch is being stored by another worker');
  const stored = new Map(rows.map((row) => [key(row.channel_account_id, row.external_id!), row]));
  const replied = await repliedTo(tx, taken, conversations);
  for (const m of taken) {
    const message = toMessageView(stored.get(key(m.event.channel_account_id, m.payload.id))!);
    const named = m.payload.reply_to ? replied.named.get(key(m.event.channel_account_id, m.payload.reply_to)) : undefined;
    const to = named ?? replied.last.get(message.conversation_id);
    const channelKind = conversations.get(pair(m))!.channel_kind;
    events.push(messageEvent(MESSAGE_RECEIVED, ctx, message, receivedExtra(m.contactId, channelKind, to)));
    done.push({ id: m.event.id, error: null });
  }
  if (events.length > 0) await tx.emit(events);
  if (done.length > 0) await tx.execute(MARK_INBOUND_BATCH_DONE, [done.map((d) => d.id), done.map((d) => d.error)], PREPARED);
  return left;
}

const pair = (m: { contactId: string; event: InboundEventRow }) => `${m.contactId} ${m.event.channel_account_id}`;

// How the customer's messages of a batch move their conversations (UPSERT_CONVERSATIONS): stamped
// with the transaction's time, or with each message's own time (`wrote`) and the window that opens
// for the channel's kind (its free-form hours).
export type CustomerTime = { stamp: 'now' } | { stamp: 'wrote'; windows: { kinds: string[]; hours: number[] } };

// One upsert for the batch's distinct (contact, channel) pairs, each counting its messages as unread
// (`unread` 0: a message that is not the customer's, a Meta echo); emits conversation.created, and
// wakes a snoozed or pending conversation as one customer message would.
export async function upsertConversations(
  tx: Tx,
  ctx: RequestContext,
  taken: Array<{ contactId: string; event: InboundEventRow; unread?: 0 | 1; wrote?: Date }>,
  events: DomainEvent[],
  customer: CustomerTime,
): Promise<Map<string, ConversationRow>> {
  const unread = new Map<string, { contactId: string; channelId: string; count: number; wrote: Date | null }>();
  for (const m of taken) {
    const entry = unread.get(pair(m)) ?? { contactId: m.contactId, channelId: m.event.channel_account_id, count: 0, wrote: null };
    entry.count += m.unread ?? 1;
    if (m.wrote && (!entry.wrote || entry.wrote < m.wrote)) entry.wrote = m.wrote;
    unread.set(pair(m), entry);
  }
  const pairs = [...unread.values()].sort((a, b) => (a.contactId + a.channelId < b.contactId + b.channelId ? -1 : 1));
  const result = new Map<string, ConversationRow>();
  if (pairs.length === 0) return result;
  const windows = customer.stamp === 'wrote' ? customer.windows : { kinds: [], hours: [] };
  const rows = await tx.query<ConversationRow & { created: boolean }>(
    UPSERT_CONVERSATIONS,
    [
      pairs.map((p) => p.contactId),
      pairs.map((p) => p.channelId),
      pairs.map((p) => p.count),
      customer.stamp === 'now',
      pairs.map((p) => p.wrote),
      windows.kinds,
      windows.hours,
    ],
    PREPARED,
  );
  for (const { created, ...row } of rows) {
    let conversation: ConversationRow = row;
    if (created) events.push(conversationEvent(CONVERSATION_CREATED, ctx, toConversationView(conversation)));
    const customerWrote = (unread.get(`${row.contact_id} ${row.channel_account_id}`)?.count ?? 0) > 0;
    if (customerWrote && (conversation.status === 'SNOOZED' || conversation.status === 'PENDING')) {
      const from = conversation.status;
      [conversation] = await tx.query<ConversationRow>(SET_CONVERSATION_STATUS, [conversation.id, 'OPEN', null]);
      events.push(conversationEvent(CONVERSATION_STATUS_CHANGED, ctx, toConversationView(conversation), { from_status: from, to_status: 'OPEN' }));
    }
    result.set(`${conversation.contact_id} ${conversation.channel_account_id}`, conversation);
  }
  return result;
}

// The messages replied to: those named by reply_to, and each conversation's last outbound one.
async function repliedTo(
  tx: Tx,
  taken: ClaimedMessage[],
  conversations: Map<string, ConversationRow>,
): Promise<{ named: Map<string, MessageRow>; last: Map<string, MessageRow> }> {
  const naming = taken.filter((m) => m.payload.reply_to !== null);
  const namedRows =
    naming.length === 0
      ? []
      : await tx.query<MessageRow>(MESSAGES_BY_EXTERNAL_IDS, [naming.map((m) => m.event.channel_account_id), naming.map((m) => m.payload.reply_to)], PREPARED);
  const lastRows = await tx.query<MessageRow>(LAST_OUTBOUND_BATCH, [[...new Set([...conversations.values()].map((c) => c.id))]], PREPARED);
  return {
    named: new Map(namedRows.map((row) => [`${row.channel_account_id} ${row.external_id}`, row])),
    last: new Map(lastRows.map((row) => [row.conversation_id, row])),
  };
}

// A reply to a broadcast's or a sequence's message: message.received names the message replied to
// (its origin says whose it is; a campaign_id kept on its metadata is passed on), and campaigns
// decide whether it counts as a response (docs/campaigns.md, "Replies").
export function campaignReplyOf(message: Pick<MessageRow, 'id' | 'origin' | 'origin_id' | 'metadata'>): CampaignReplyTarget | null {
  if (message.origin !== 'broadcast' && message.origin !== 'sequence') return null;
  return { message_id: message.id, origin: message.origin, origin_id: message.origin_id ?? null, campaign_id: message.metadata.campaign_id ?? null };
}

// What message.received carries besides the message on the chat-app and SMS paths.
export function receivedExtra(contactId: string, channelKind: string, repliedTo: MessageRow | undefined) {
  const target = repliedTo ? campaignReplyOf(repliedTo) : null;
  return { contact_id: contactId, channel_kind: channelKind, ...(target ? { replied_to: target } : {}) };
}
