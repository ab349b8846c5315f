import { randomUUID } from 'node:crypto';
import { groupBy, type RequestContext } from '@engage/shared-kernel';
import type { Database, Tx } from '@engage/platform';
import { type ContactService, findOrCreateContactByPhone } from '@engage/crm';
import type { InboundPayload } from './inbound-payload';
import { canMoveMessage, type MessageStatus } from '../domain/statuses';
import { CLAIM_INBOUND, type InboundEventRow, MARK_INBOUND_DONE, MARK_INBOUND_RETRY, SYSTEM_DUE_INBOUND } from './inbound.sql';
import { CLAIM_INBOUND_BATCH } from './inbound-batch.sql';
import { applyMessageBatch, receivedExtra, type StoredMedia } from './inbound-batch';
import { applySocialBatch } from '../channels/meta/social-batch';
import type { MediaFetcher, MediaStore } from './media-store.port';
import {
  type ConversationRow,
  INBOUND_EXISTS,
  INSERT_INBOUND_MESSAGE,
  LAST_OUTBOUND,
  MESSAGE_BY_EXTERNAL_ID,
  type MessageRow,
  SET_CONVERSATION_STATUS,
  SET_MESSAGE_STATUS,
} from '../infrastructure/messaging.sql';
import { upsertConversation } from '../conversations/conversation-store';
import { CONVERSATION_STATUS_CHANGED, MESSAGE_RECEIVED, MESSAGE_STATUS_EVENTS, conversationEvent, messageEvent } from '../application/messaging-events';
import { toConversationView, toMessageView } from '../application/views';
import { NotYet, Settled } from './inbound-outcomes';
import { isSocialPayload, type SocialPayload } from '../channels/meta/meta-webhook';
import type { SocialInbound } from '../channels/meta/social-inbound';

export const MAX_INBOUND_ATTEMPTS = 8;
// Work units (batches, or single events) processed at once by one worker, each in its own
// transaction (and pool connection).
export const INBOUND_LANES = 4;

// Message events stored in one transaction at most.
export const BATCH_SIZE = 50;
// Events of a batch whose media are downloaded at the same time (each has at most 10 files).
const MEDIA_EVENTS_AT_ONCE = 4;
// A customer's message is never lost to the organization's plan: past a plan limit it is kept and
// the organization flagged over its limit, and an ended subscription does not refuse it.
const INBOUND = { purpose: 'inbound' } as const;

type MessagePayload = Extract<InboundPayload, { type: 'message' }>;
interface DueEvent {
  id: string;
  organization_id: string;
  payload: InboundPayload;
}

// §4.3, the background half. Each stored event is claimed (FOR UPDATE SKIP LOCKED) in its tenant's
// transaction and marked processed in that same transaction, so a crash anywhere leaves it to be
// claimed again, and provider ids are unique per channel, so nothing is stored twice.
export class InboundProcessor {
  constructor(
    private readonly db: Database,
    private readonly contacts: ContactService,
    private readonly media?: { store: MediaStore; fetch: MediaFetcher },
    private readonly lanes = INBOUND_LANES,
    // Messenger and Instagram events (absent where only the chat app is processed).
    private readonly social?: SocialInbound,
  ) {}

  // Returns how many events were settled. The due messages of an organization go in batches (one
  // transaction each, a sender's messages in one batch and in order); status callbacks, and every
  // event of a batch that failed, go one at a time. A few lanes work in parallel; every event is
  // claimed with SKIP LOCKED, so lanes (and other workers) never process one event twice, and a
  // failing event does not hold the others.
  async processDue(limit = 100): Promise<number> {
    const due = await this.db.systemQuery<{ id: string; organization_id: string; payload: InboundPayload }>(SYSTEM_DUE_INBOUND, [limit], { prepare: true });
    const units = workUnits(due);
    let done = 0;
    let next = 0;
    const lane = async (): Promise<void> => {
      while (next < units.length) {
        const unit = units[next++];
        if (unit[0].payload?.type === 'message') done += await this.processBatch(unit);
        else if (isSocialPayload(unit[0].payload) && this.social) done += await this.processSocialBatch(unit, this.social);
        else for (const event of unit) done += Number(await this.processOne(event.id, event.organization_id, event.payload));
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(this.lanes, units.length)) }, lane));
    return done;
  }

  private async processBatch(unit: DueEvent[]): Promise<number> {
    const organizationId = unit[0].organization_id;
    const ctx: RequestContext = { organizationId, userId: null, role: 'SYSTEM', requestId: randomUUID() };
    const media = await mapLimited(unit, MEDIA_EVENTS_AT_ONCE, (e) => this.rehost(organizationId, e.payload));
    const mediaOf = new Map(unit.map((e, i) => [String(e.id), media[i]]));
    let left: DueEvent[];
    let settled = 0;
    try {
      left = await this.db.inTenant(
        ctx,
        async (tx) => {
          const claimed = await tx.query<InboundEventRow>(CLAIM_INBOUND_BATCH, [unit.map((e) => e.id)], { prepare: true });
          const messages = claimed.map((event) => ({ event, payload: event.payload as unknown as MessagePayload, media: mediaOf.get(String(event.id)) }));
          const rest = await applyMessageBatch(tx, ctx, this.contacts, messages);
          settled = claimed.length - rest.length;
          return rest.map(({ event, payload }) => ({ id: event.id, organization_id: organizationId, payload }));
        },
        INBOUND,
      );
    } catch {
      // Whatever failed, one at a time tells which event it was and counts its attempt.
      settled = 0;
      left = unit;
    }
    for (const event of left) if (await this.processOne(event.id, organizationId, event.payload)) settled++;
    return settled;
  }

  // Messenger and Instagram events of one organization in one transaction (applySocialBatch); as for
  // chat-app batches, when anything fails the events go one at a time, so only the failing one waits.
  private async processSocialBatch(unit: DueEvent[], social: SocialInbound): Promise<number> {
    const organizationId = unit[0].organization_id;
    const ctx: RequestContext = { organizationId, userId: null, role: 'SYSTEM', requestId: randomUUID() };
    const media = await mapLimited(unit, MEDIA_EVENTS_AT_ONCE, (e) => this.rehost(organizationId, e.payload));
    const mediaOf = new Map(unit.map((e, i) => [String(e.id), media[i]]));
    try {
      return await this.db.inTenant(
        ctx,
        async (tx) => {
          const claimed = await tx.query<InboundEventRow>(CLAIM_INBOUND_BATCH, [unit.map((e) => e.id)], { prepare: true });
          const batch = claimed.map((event) => ({ event, payload: event.payload as unknown as SocialPayload, media: mediaOf.get(String(event.id)) }));
          return applySocialBatch(tx, ctx, social, batch, MAX_INBOUND_ATTEMPTS);
        },
        INBOUND,
      );
    } catch {
      let settled = 0;
      for (const event of unit) if (await this.processOne(event.id, organizationId, event.payload)) settled++;
      return settled;
    }
  }

  private async processOne(id: string, organizationId: string, payload: InboundPayload): Promise<boolean> {
    const ctx: RequestContext = { organizationId, userId: null, role: 'SYSTEM', requestId: randomUUID() };
    try {
      // Downloads happen before the claim's transaction, so no lock waits on the network. Files are
      // named by content: a retried event stores the same files again.
      const media = await this.rehost(organizationId, payload);
      return await this.db.inTenant(
        ctx,
        async (tx) => {
          const [event] = await tx.query<InboundEventRow>(CLAIM_INBOUND, [id]);
          if (!event) return false;
          // Deleted while this event was being stored (its delete trigger could not see it yet).
          if (!event.channel_exists) throw new Settled('channel account deleted');
          await this.apply(tx, ctx, event, media);
          await tx.execute(MARK_INBOUND_DONE, [id, null]);
          return true;
        },
        INBOUND,
      );
    } catch (error) {
      const final = error instanceof Settled;
      const reason = String((error as Error).message).slice(0, 500);
      await this.db.inTenant(
        ctx,
        (tx) => (final ? tx.execute(MARK_INBOUND_DONE, [id, error.message]) : tx.execute(MARK_INBOUND_RETRY, [id, reason, MAX_INBOUND_ATTEMPTS])),
        INBOUND,
      );
      return final;
    }
  }

  private async rehost(organizationId: string, payload: InboundPayload | SocialPayload): Promise<StoredMedia[] | undefined> {
    if (!this.media) return undefined;
    if ((payload?.type !== 'message' && payload?.type !== 'social_message') || payload.media.length === 0) return undefined;
    const { store, fetch } = this.media;
    return Promise.all(
      payload.media.map(async ({ url, kind }): Promise<StoredMedia> => {
        try {
          const file = await fetch(url);
          return { url: await store.put(organizationId, file.bytes, file.contentType), kind, original_url: url };
        } catch (error) {
          // The message is stored anyway, with the provider's address and why it was not re-hosted.
          return { url, kind, original_url: url, rehost_error: String((error as Error).message).slice(0, 200) };
        }
      }),
    );
  }

  private async apply(tx: Tx, ctx: RequestContext, event: InboundEventRow, media?: StoredMedia[]): Promise<void> {
    const payload = event.payload as unknown as InboundPayload | SocialPayload;
    if (isSocialPayload(payload)) {
      if (!this.social) throw new NotYet('no social channel handler in this process');
      return this.social.apply(tx, ctx, event, payload, media);
    }
    if (payload.type === 'status') return this.applyStatus(tx, ctx, event, payload);
    const [seen] = await tx.query(INBOUND_EXISTS, [event.channel_account_id, payload.id]);
    if (seen) throw new Settled(`duplicate of provider message ${payload.id}`);
    const { contact } = await findOrCreateContactByPhone(tx, ctx, this.contacts, payload.from.replace(/@s\..*$/i, ''), payload.name);
    let conversation = await upsertConversation(tx, ctx, contact.id, event.channel_account_id, 1, true);
    // A customer writing wakes a snoozed or pending conversation.
    if (conversation.status === 'SNOOZED' || conversation.status === 'PENDING') {
      const from = conversation.status;
      [conversation] = await tx.query<ConversationRow>(SET_CONVERSATION_STATUS, [conversation.id, 'OPEN', null]);
      await tx.emit([conversationEvent(CONVERSATION_STATUS_CHANGED, ctx, toConversationView(conversation), { from_status: from, to_status: 'OPEN' })]);
    }
    const metadata = { sender_name: payload.name, reply_to: payload.reply_to, provider_timestamp: payload.timestamp, inbound_event_id: String(event.id) };
    const [row] = await tx.query<MessageRow>(INSERT_INBOUND_MESSAGE, [
      conversation.id,
      contact.id,
      event.channel_account_id,
      payload.text,
      JSON.stringify(media ?? payload.media),
      payload.id,
      JSON.stringify(metadata),
    ]);
    // A concurrent worker stored the same provider id first: undo this transaction's work.
    if (!row) throw new Error(`provider message ${payload.id} is being stored by another worker`);
    const message = toMessageView(row);
    const repliedTo = await this.repliedTo(tx, event.channel_account_id, conversation.id, payload.reply_to);
    await tx.emit([messageEvent(MESSAGE_RECEIVED, ctx, message, receivedExtra(contact.id, conversation.channel_kind, repliedTo))]);
  }

  // The message replied to: the one named by reply_to, else the conversation's last outbound one.
  private async repliedTo(tx: Tx, channelId: string, conversationId: string, replyTo: string | null): Promise<MessageRow | undefined> {
    if (replyTo) {
      const [named] = await tx.query<MessageRow>(MESSAGE_BY_EXTERNAL_ID, [channelId, replyTo]);
      if (named) return named;
    }
    const [last] = await tx.query<MessageRow>(LAST_OUTBOUND, [conversationId]);
    return last;
  }

  private async applyStatus(tx: Tx, ctx: RequestContext, event: InboundEventRow, payload: Extract<InboundPayload, { type: 'status' }>): Promise<void> {
    const [message] = await tx.query<MessageRow>(MESSAGE_BY_EXTERNAL_ID, [event.channel_account_id, payload.id]);
    if (!message) throw new NotYet(`no message with provider id ${payload.id} (yet)`);
    const to = payload.status.toUpperCase() as MessageStatus;
    if (!canMoveMessage(message.status as MessageStatus, to)) throw new Settled(`ignored: ${message.status} does not move to ${to}`);
    const [row] = await tx.query<MessageRow>(SET_MESSAGE_STATUS, [
      message.id,
      to,
      to === 'FAILED' ? (payload.error ?? 'reported failed by the provider') : null,
    ]);
    await tx.emit([messageEvent(MESSAGE_STATUS_EVENTS[payload.status], ctx, toMessageView(row), { from_status: message.status })]);
  }
}

// Work for the lanes: each organization's chat-app message events, and its Messenger and Instagram
// events, in as few batches of about BATCH_SIZE as fit (a batch costs about the same for 5 events as
// for 50; senders are spread by a hash, so a batch can be somewhat larger), a sender always in the
// same batch and in the order received; other events alone.
function workUnits(due: DueEvent[]): DueEvent[][] {
  const units: DueEvent[][] = due.filter((event) => event.payload?.type !== 'message' && !isSocialPayload(event.payload)).map((event) => [event]);
  // By the sender's digits, so "+2010...", "2010..." and "2010...@s.host" land in the same batch.
  // A malformed payload must not stop the pass: it goes into some batch, and fails there alone.
  const phone = (event: DueEvent) =>
    String((event.payload as MessagePayload).from ?? '')
      .replace(/@s\..*$/i, '')
      .replace(/\D/g, '');
  const psid = (event: DueEvent) => String((event.payload as unknown as SocialPayload).user ?? '');
  for (const [kind, senderOf] of [
    ['message', phone],
    ['social', psid],
  ] as const) {
    const ofKind = due.filter((event) => (kind === 'social' ? isSocialPayload(event.payload) : event.payload?.type === 'message'));
    for (const events of groupBy(ofKind, (event) => event.organization_id).values()) {
      const count = Math.ceil(events.length / BATCH_SIZE);
      const batches: DueEvent[][] = Array.from({ length: count }, () => []);
      for (const event of events) batches[slotOf(senderOf(event), count)].push(event);
      units.push(...batches.filter((b) => b.length > 0));
    }
  }
  return units;
}

function slotOf(sender: string, count: number): number {
  let hash = 0;
  for (let i = 0; i < sender.length; i++) hash = (hash * 31 + sender.charCodeAt(i)) | 0;
  return Math.abs(hash) % count;
}

// Promise.all with at most `limit` calls under way; answers in the items' order.
async function mapLimited<T, R>(items: T[], limit: number, call: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const run = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await call(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, run));
  return results;
}
