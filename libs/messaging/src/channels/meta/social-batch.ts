import type { DomainEvent, RequestContext } from '@engage/shared-kernel';
import type { Tx } from '@engage/platform';
import { AGENT, CUSTOMER } from '../../domain/message-origin';
import type { SocialPayload } from './meta-webhook';
import type { InboundEventRow } from '../../inbound/inbound.sql';
import { INBOUND_SEEN_BATCH, MARK_INBOUND_BATCH_DONE } from '../../inbound/inbound-batch.sql';
import type { MessageRow } from '../../infrastructure/messaging.sql';
import { CHANNEL_CONTACTS_BATCH, INSERT_SOCIAL_MESSAGES, MARK_INBOUND_BATCH_RETRY } from './social-batch.sql';
import { type StoredMedia, upsertConversations } from '../../inbound/inbound-batch';
import { MESSAGE_RECEIVED, MESSAGE_SENT, messageEvent } from '../../application/messaging-events';
import type { SocialInbound } from './social-inbound';
import { applyReceipts } from './social-receipts';
import { toMessageView } from '../../application/views';

type Message = Extract<SocialPayload, { type: 'social_message' }>;
type Receipt = Extract<SocialPayload, { type: 'social_receipt' }>;
const PREPARED = { prepare: true };

export interface ClaimedSocial {
  event: InboundEventRow;
  payload: SocialPayload;
  media?: StoredMedia[];
}

interface Taken {
  event: InboundEventRow;
  payload: Message;
  media?: StoredMedia[];
  contactId: string;
  unread: 0 | 1;
  wrote?: Date;
}

// The Messenger and Instagram events of one organization in one transaction, with the outcome of
// one at a time (SocialInbound.apply): duplicates settled, a first echo left for a retry, customers
// found or created by page-scoped id, conversations upserted and their windows moved, messages
// stored with one statement, then the receipts (which may name messages of this batch, see
// applyReceipts). Every event is marked (done, done with its reason, or retried) here; any other
// failure throws and the caller's transaction undoes everything. Answers how many were settled.
export async function applySocialBatch(tx: Tx, ctx: RequestContext, social: SocialInbound, batch: ClaimedSocial[], maxAttempts: number): Promise<number> {
  const key = (channel: string, id: string) => `${channel} ${id}`;
  const done: Array<{ id: string; error: string | null }> = [];
  const retry: Array<{ id: string; reason: string }> = [];
  const messages = batch.filter((c): c is ClaimedSocial & { payload: Message } => c.payload.type === 'social_message');
  // Our own sends come back as echoes; the first try leaves the send time to record its id.
  const due = messages.filter((m) => {
    if (!m.payload.echo || m.event.attempts > 0) return true;
    retry.push({ id: m.event.id, reason: 'echo: the send that made it may not have recorded its id yet' });
    return false;
  });
  const seenRows =
    due.length === 0
      ? []
      : await tx.query<{ channel_account_id: string; external_id: string }>(
          INBOUND_SEEN_BATCH,
          [due.map((m) => m.event.channel_account_id), due.map((m) => m.payload.id)],
          PREPARED,
        );
  const seen = new Set(seenRows.map((r) => key(r.channel_account_id, r.external_id)));
  const fresh = due.filter((m) => {
    const k = key(m.event.channel_account_id, m.payload.id);
    if (!seen.has(k)) {
      seen.add(k); // a second copy in the same batch is a duplicate too
      return true;
    }
    done.push({ id: m.event.id, error: `duplicate of provider message ${m.payload.id}` });
    return false;
  });
  const contactOf = await contactsOf(tx, ctx, social, fresh);
  const taken: Taken[] = fresh.map((m) => ({
    ...m,
    contactId: contactOf.get(key(m.event.channel_account_id, m.payload.user))!,
    unread: m.payload.echo ? 0 : 1,
    wrote: m.payload.echo ? undefined : social.customerWroteAt(m.payload.timestamp),
  }));
  const events: DomainEvent[] = [];
  // The windows move with the upsert: a second update of the same rows cost as much again.
  const conversations = await upsertConversations(tx, ctx, taken, events, { stamp: 'wrote', windows: social.freeFormWindows() });
  const conversationOf = (m: Taken) => conversations.get(`${m.contactId} ${m.event.channel_account_id}`)!;
  const rows =
    taken.length === 0
      ? []
      : await tx.query<MessageRow>(
          INSERT_SOCIAL_MESSAGES,
          [
            taken.map((m) => conversationOf(m).id),
            taken.map((m) => m.contactId),
            taken.map((m) => m.event.channel_account_id),
            taken.map((m) => m.payload.text),
            taken.map((m) => JSON.stringify(m.media ?? m.payload.media)),
            taken.map((m) => m.payload.id),
            taken.map((m) => JSON.stringify(metadataOf(m))),
            taken.map((m) => (m.payload.echo ? 'OUTBOUND' : 'INBOUND')),
            taken.map((m) => (m.payload.echo ? 'SENT' : 'DELIVERED')),
            // An echo was written at the page, by a person (Meta's inbox or another app of the page).
            taken.map((m) => (m.payload.echo ? AGENT : CUSTOMER).origin),
          ],
          PREPARED,
        );
  // A Meta id stored by a concurrent worker meanwhile: the caller starts over one by one.
  if (rows.length !== taken.length) throw new Error('a provider message of the batch is being stored by another worker');
  const stored = new Map(rows.map((row) => [key(row.channel_account_id, row.external_id!), row]));
  for (const m of taken) {
    const message = toMessageView(stored.get(key(m.event.channel_account_id, m.payload.id))!);
    events.push(m.payload.echo ? messageEvent(MESSAGE_SENT, ctx, message) : messageEvent(MESSAGE_RECEIVED, ctx, message, { contact_id: m.contactId }));
    done.push({ id: m.event.id, error: null });
  }
  // Receipts after the messages, so one naming a message of this batch finds it.
  const receipts = batch.filter((c): c is ClaimedSocial & { payload: Receipt } => c.payload.type === 'social_receipt');
  const moved = await applyReceipts(tx, ctx, receipts);
  events.push(...moved.events);
  for (const o of moved.outcomes) {
    if (o.retry) retry.push({ id: o.id, reason: o.error! });
    else done.push({ id: o.id, error: o.error });
  }
  if (events.length > 0) await tx.emit(events);
  if (done.length > 0) await tx.execute(MARK_INBOUND_BATCH_DONE, [done.map((d) => d.id), done.map((d) => d.error)], PREPARED);
  if (retry.length > 0) await tx.execute(MARK_INBOUND_BATCH_RETRY, [retry.map((r) => r.id), retry.map((r) => r.reason), maxAttempts], PREPARED);
  return done.length;
}

function metadataOf(m: Taken): Record<string, unknown> {
  const { reply_to, timestamp, postback, echo } = m.payload;
  return {
    reply_to,
    provider_timestamp: timestamp,
    inbound_event_id: String(m.event.id),
    ...(postback ? { postback } : {}),
    ...(echo ? { echo: true } : {}),
  };
}

// The contact of each (channel, page-scoped id): one look-up for the known ones, then the new ones
// created one by one (in a fixed order, so two workers creating the same ones do not deadlock).
async function contactsOf(tx: Tx, ctx: RequestContext, social: SocialInbound, fresh: ClaimedSocial[]): Promise<Map<string, string>> {
  const users = new Map<string, { channel: string; user: string }>();
  for (const m of fresh) users.set(`${m.event.channel_account_id} ${m.payload.user}`, { channel: m.event.channel_account_id, user: m.payload.user });
  const result = new Map<string, string>();
  if (users.size === 0) return result;
  const list = [...users.values()];
  const known = await tx.query<{ channel_account_id: string; external_user_id: string; contact_id: string }>(
    CHANNEL_CONTACTS_BATCH,
    [list.map((u) => u.channel), list.map((u) => u.user)],
    PREPARED,
  );
  for (const row of known) result.set(`${row.channel_account_id} ${row.external_user_id}`, row.contact_id);
  for (const [k, u] of [...users.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (!result.has(k)) result.set(k, await social.contactOf(tx, ctx, u.channel, u.user));
  }
  return result;
}
