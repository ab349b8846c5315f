import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { DomainError, isUuid, NotFound, type RequestContext } from '@engage/shared-kernel';
import { type Database, sqlStateOf, type Tx } from '@engage/platform';

const FOREIGN_KEY_VIOLATION = '23503';
import { checkOutboundAuthor, isQueuedOrigin, type MessageOrigin } from '../domain/message-origin';
import type { ProviderOutcome } from './pacing';
import { CHANNEL_BY_ID, type ChannelAccountRow, CONVERSATION_BY_ID, type ConversationRow, type MessageRow } from '../infrastructure/messaging.sql';
import type { ChannelAdapter, ChannelAdapters, DeliverySession, OutboundSend, PlannedPart } from './channel-adapter.port';
import { type Attempt, finishSend, type TakenMessage } from './finish-send';
import { QueuedOutcomes } from './queued-outcomes';
import { ProviderError } from './provider-result';
import { touchConversation, upsertConversation } from '../conversations/conversation-store';
import { toMessageView, type MessageView } from '../application/views';
import { ADD_METADATA, INSERT_OUTBOUND } from './outbound.sql';
import { ACCOUNT_NEXT_SEND } from './queue.sql';

export interface PartGaps {
  gapMinMs: number;
  gapMaxMs: number;
}

// What a send left behind: the rows it wrote (final states), the provider's first answer, and the
// provider's words when a part failed (the parts after it are FAILED unsent).
export interface Dispatched {
  conversation: ConversationRow;
  messages: MessageView[];
  messageIds: string[];
  result: Record<string, unknown> | null;
  failure: string | null;
}

// A send stored QUEUED: it goes out under the account's pacing (OutboundQueueWorker).
export interface Queued {
  conversation: ConversationRow;
  messages: MessageView[];
  messageIds: string[];
  scheduledFor: Date;
}

// What one queued message's delivery came to, for the account's pacing: a provider answer (ok or
// not), or a refusal before the provider was called (the window closed, the account was switched off).
export type QueuedOutcome = { provider: ProviderOutcome } | { refused: string };

// A send's answer as chat-lite-send (§4.1) and the inbox's reply give it.
export interface SendOutcome {
  success: true;
  result: Record<string, unknown>;
  conversationId: string;
  contactId: string;
  debug: { hasChannelAccount: boolean; hasConversationId: boolean; hasContactId: boolean };
}

// The provider refused or failed: the attempt is stored (FAILED) and the caller gets the provider's words.
export class SendFailed extends Error {
  constructor(
    message: string,
    readonly messages: MessageView[],
  ) {
    super(message);
  }
}

// A person in the inbox (a member's session), as opposed to an API key, a rule, a bot or a sequence:
// the channels' window rules give people more time (Meta's HUMAN_AGENT tag).
export const writtenByHuman = (ctx: RequestContext) => ctx.userId !== null && ctx.role !== 'API_KEY' && ctx.role !== 'SYSTEM';

// Where a send lands: a conversation by id; a contact on a channel account (its open conversation
// there, found or created); or a conversation the caller finds or creates in the transaction that
// stores the messages (chat-lite-send's contact and conversation).
// A caller that finds the conversation itself (resolve, in the storing transaction) may also write
// its own record of the stored rows in that transaction (stored: a campaign's recipient and its
// message id commit together).
export type Destination =
  | { conversationId: string }
  | { channelAccountId: string; contactId: string }
  | { kind: string; resolve: (tx: Tx) => Promise<ConversationRow>; stored?: (tx: Tx, messageIds: string[]) => Promise<void> };

// The one way a message leaves the service, whoever wrote it. It asks the conversation's channel
// adapter whether and as what parts the send may go out, stores one row per part (PENDING,
// committed before any provider call, so nothing is lost), delivers the parts in order (spaced by
// the §4.1 gap where the channel wants it; after a failed part the rest are not sent), records each
// outcome once (SENT with the provider's id or FAILED with its words) with its message.* event, and
// answers the rows. A crash between the two writes leaves PENDING rows that the PendingSendSweeper
// fails as outcome_unknown: never resent by itself.
export class OutboundDispatcher {
  private readonly outcomes: QueuedOutcomes;

  constructor(
    private readonly db: Database,
    private readonly adapters: ChannelAdapters,
    private readonly gaps: PartGaps,
    // Called when a message is queued, so this process's queue worker looks at once.
    private readonly queued: () => void = () => undefined,
  ) {
    this.outcomes = new QueuedOutcomes(db);
  }

  async send(ctx: RequestContext, destination: Destination, send: OutboundSend): Promise<Dispatched> {
    const author = checkOutboundAuthor(send.author);
    const human = writtenByHuman(ctx);
    const { adapter, contactId, resolve, known } = await this.route(ctx, destination, author.origin);
    // A named conversation's account is opened before anything is stored: a send it cannot take
    // (no credentials, the window closed) is refused with nothing written.
    const early = known ? await adapter.open(ctx, known, human) : null;
    const to = send.to ?? (contactId && adapter.recipient ? await adapter.recipient(ctx, contactId) : undefined);
    const metadata = { ...send.metadata, send_id: randomUUID(), ...(ctx.userId ? { sender_user_id: ctx.userId } : {}) };
    const request = { ...send, author, to, metadata };
    const stored = await this.db.inTenant(ctx, async (tx) => {
      const conversation = await resolve(tx);
      const parts = await adapter.plan(tx, ctx, conversation, request, human);
      if (parts.length === 0) throw new DomainError('validation', 'validation_failed', 'Nothing to send: give a message or media');
      const rows = await this.insertParts(tx, conversation, parts, request, 'PENDING', null);
      return { conversation, rows };
    });
    let session: DeliverySession;
    try {
      session = early ?? (await adapter.open(ctx, stored.conversation, human));
    } catch (error) {
      // Refused at the last moment (the account was switched off, the window closed): recorded, not lost.
      if (!(error instanceof DomainError)) throw error;
      const attempts = stored.rows.map(() => ({ result: null, error: error.message }));
      const messages = await this.db.inTenant(ctx, (tx) =>
        finishSend(
          tx,
          ctx,
          stored.rows.map((r) => r.id),
          attempts,
        ),
      );
      return this.outcome(stored.conversation, stored.rows, messages, attempts, error.message, null);
    }
    const { attempts, failure } = await this.deliver(adapter, session, stored.rows);
    const messages = await this.db.inTenant(ctx, (tx) =>
      finishSend(
        tx,
        ctx,
        stored.rows.map((r) => r.id),
        attempts,
      ),
    );
    const last = stored.rows[stored.rows.length - 1];
    const extra = failure === null && session.afterSent ? await session.afterSent(last) : null;
    if (extra) await this.db.inTenant(ctx, (tx) => tx.query(ADD_METADATA, [last.id, JSON.stringify(extra)]));
    return this.outcome(stored.conversation, stored.rows, messages, attempts, failure, extra);
  }

  // A message of an automated origin, or an integrator's queued send: checked and planned as a send
  // is (the window, the account, the recipient), stored QUEUED, and left to the queue's pacing. A
  // named conversation's channel is opened first, so a send it cannot take now (the window closed,
  // no credentials) is refused with nothing stored; the queue checks again when it sends.
  // `wake: false` leaves this process's worker asleep (the PacedSender sends at once itself).
  async enqueue(ctx: RequestContext, destination: Destination, send: OutboundSend, options: { wake?: boolean } = {}): Promise<Queued> {
    const author = checkOutboundAuthor(send.author);
    if (!isQueuedOrigin(author.origin)) {
      throw new DomainError('validation', 'validation_failed', `messages of origin ${author.origin} are sent at once, not queued`);
    }
    const { adapter, contactId, resolve, known } = await this.route(ctx, destination, author.origin);
    if (known) await adapter.open(ctx, known, false);
    const to = send.to ?? (contactId && adapter.recipient ? await adapter.recipient(ctx, contactId) : undefined);
    const metadata = { ...send.metadata, send_id: randomUUID(), ...(ctx.userId ? { sender_user_id: ctx.userId } : {}) };
    const request = { ...send, author, to, metadata };
    const stored = await this.db.inTenant(ctx, async (tx) => {
      const conversation = await resolve(tx);
      const parts = await adapter.plan(tx, ctx, conversation, request, false);
      if (parts.length === 0) throw new DomainError('validation', 'validation_failed', 'Nothing to send: give a message or media');
      const [account] = await tx.query<{ next_send_at: Date | null }>(ACCOUNT_NEXT_SEND, [conversation.channel_account_id]);
      const now = new Date();
      const scheduledFor = account?.next_send_at && account.next_send_at > now ? account.next_send_at : now;
      const rows = await this.insertParts(tx, conversation, parts, request, 'QUEUED', scheduledFor);
      if ('stored' in destination && destination.stored) {
        await destination.stored(
          tx,
          rows.map((row) => row.id),
        );
      }
      return { conversation, rows, scheduledFor };
    });
    if (options.wake !== false) this.queued();
    return {
      conversation: stored.conversation,
      messages: stored.rows.map(toMessageView),
      messageIds: stored.rows.map((r) => r.id),
      scheduledFor: stored.scheduledFor,
    };
  }

  // Whether messages on this kind can share one provider call (several receivers, §4.2).
  sharesCalls(kind: string): boolean {
    return this.adapters.capabilitiesOf(kind) !== null && this.adapters.forKindOrNull(kind)?.sharesCalls === true;
  }

  // Queued messages the queue took (now PENDING): one message, or several receivers of the same
  // content in one provider call where the channel allows it. Delivered through the channel's
  // adapter as automated messages (the window checked again now), each outcome recorded once with
  // its event. `next`, asked once the provider answered, names the messages of the run's next call:
  // they are taken in the commit that records this call's outcomes (answered as `taken`; empty when
  // another process took them), so between two calls of a run there is one write, and nothing but
  // the call on the wire is PENDING. The run keeps the sessions it opened (see QueuedRun).
  async deliverQueued(
    ctx: RequestContext,
    messages: TakenMessage[],
    options: { run?: QueuedRun; next?: (outcome: QueuedOutcome) => { ids: string[]; at: Date } | null } = {},
  ): Promise<{ outcome: QueuedOutcome; taken: TakenMessage[] }> {
    const first = messages[0];
    const ids = messages.map((m) => m.id);
    const run = options.run ?? new QueuedRun();
    let session: DeliverySession;
    let attempt: Attempt;
    let outcome: QueuedOutcome;
    try {
      const opened = await this.openQueued(ctx, first, run);
      if (messages.length === 1 && answeredSince(first, opened.lastCustomerMessageAt)) {
        throw new DomainError('unprocessable', 'message.withdrawn', 'Withdrawn: the customer wrote after this message was queued');
      }
      session = await opened.session;
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      attempt = { result: null, error: error.message };
      outcome = { refused: error.message };
      return { outcome, taken: await this.record(ctx, ids, attempt, options.next?.(outcome) ?? null) };
    }
    try {
      const result = messages.length > 1 && session.deliverMany ? await session.deliverMany(messages) : await session.deliver(first);
      attempt = { result, error: null };
      outcome = { provider: { ok: true } };
    } catch (error) {
      if (!(error instanceof ProviderError)) throw error;
      attempt = { result: null, error: error.message };
      outcome = {
        provider: {
          ok: false,
          httpStatus: error.httpStatus,
          message: error.message,
          timedOut: /timed? ?out/i.test(error.message),
          rateLimited: error.rateLimited,
        },
      };
    }
    const next = options.next?.(outcome) ?? null;
    if (!session.afterSent) return { outcome, taken: await this.record(ctx, ids, attempt, next) };
    // What the channel does after a send (email: the copy in the Sent folder) comes between this
    // call's record and the next call's take, so the next message is not PENDING meanwhile.
    await this.record(ctx, ids, attempt, null);
    const extra = attempt.result ? await session.afterSent(first) : null;
    if (extra) await this.db.inTenant(ctx, (tx) => tx.query(ADD_METADATA, [first.id, JSON.stringify(extra)]));
    return { outcome, taken: next ? await this.record(ctx, [], attempt, next) : [] };
  }

  // One commit: the call's outcomes with their events, and the next call's messages taken (shared
  // with the records of other accounts' calls that end meanwhile: QueuedOutcomes).
  private record(ctx: RequestContext, ids: string[], attempt: Attempt, next: { ids: string[]; at: Date } | null) {
    return this.outcomes.write(ctx, { ids, attempt, take: next?.ids ?? [], at: next?.at ?? new Date() });
  }

  // The session a queued message goes out through, and the customer's last message to weigh its
  // withdrawal: an adapter whose session is the account's (`sessionPerAccount`) is opened once per
  // run and the take's view of the conversation serves; else the conversation is read and the
  // session opened for each message.
  private async openQueued(ctx: RequestContext, message: TakenMessage, run: QueuedRun) {
    if (run.shared) return { session: run.shared, lastCustomerMessageAt: message.customer_wrote_at };
    const [conversation] = await this.db.inTenant(ctx, (tx) => tx.query<ConversationRow>(CONVERSATION_BY_ID, [message.conversation_id]));
    const adapter = this.adapters.forSend(conversation.channel_kind, message.origin);
    const session = adapter.open(ctx, conversation, false);
    // Awaited by each message of the run; a withdrawn first message must not leave it unobserved.
    session.catch(() => undefined);
    if (adapter.sessionPerAccount) run.shared = session;
    return { session, lastCustomerMessageAt: conversation.last_customer_message_at };
  }

  // The adapter a send goes through and how its conversation is reached in the storing transaction.
  // A named conversation or account is read first, so a send the channel refuses stores nothing.
  private async route(ctx: RequestContext, destination: Destination, origin: MessageOrigin) {
    if ('resolve' in destination)
      return { adapter: this.adapters.forSend(destination.kind, origin), contactId: null, resolve: destination.resolve, known: null };
    if ('channelAccountId' in destination) {
      const { channelAccountId, contactId } = destination;
      if (!isUuid(channelAccountId)) throw NotFound('channel_account', String(channelAccountId));
      if (!isUuid(contactId)) throw NotFound('contact', String(contactId));
      const [channel] = await this.db.inTenant(ctx, (tx) => tx.query<ChannelAccountRow>(CHANNEL_BY_ID, [channelAccountId]));
      if (!channel) throw NotFound('channel_account', channelAccountId);
      // A contact that is not the organization's fails the conversation's foreign key: a 404, not a 500.
      const resolve = (tx: Tx) =>
        upsertConversation(tx, ctx, contactId, channelAccountId, 0).catch((error: unknown) => {
          throw sqlStateOf(error) === FOREIGN_KEY_VIOLATION ? NotFound('contact', contactId) : error;
        });
      return { adapter: this.adapters.forSend(channel.kind, origin), contactId, resolve, known: null };
    }
    const id = destination.conversationId;
    if (!isUuid(id)) throw new DomainError('validation', 'validation_failed', 'conversation id must be a UUID');
    const [conversation] = await this.db.inTenant(ctx, (tx) => tx.query<ConversationRow>(CONVERSATION_BY_ID, [id]));
    if (!conversation) throw NotFound('conversation', id);
    const resolve = (tx: Tx) => touchConversation(tx, id, 0);
    return { adapter: this.adapters.forSend(conversation.channel_kind, origin), contactId: conversation.contact_id, resolve, known: conversation };
  }

  private async insertParts(
    tx: Tx,
    conversation: ConversationRow,
    parts: PlannedPart[],
    send: OutboundSend,
    status: 'PENDING' | 'QUEUED',
    scheduledFor: Date | null,
  ) {
    const rows: MessageRow[] = [];
    for (const [index, part] of parts.entries()) {
      const metadata = { ...send.metadata, ...part.metadata };
      const [row] = await tx.query<MessageRow>(
        INSERT_OUTBOUND,
        [
          conversation.id,
          conversation.contact_id,
          conversation.channel_account_id,
          status,
          part.content,
          JSON.stringify(part.media),
          JSON.stringify(metadata),
          part.emailMessageId ?? null,
          index,
          send.author.origin,
          send.author.originId,
          scheduledFor,
        ],
        { prepare: true },
      );
      rows.push(row);
    }
    return rows;
  }

  // The parts in order; after a failed one the rest are recorded as not sent.
  private async deliver(adapter: ChannelAdapter, session: DeliverySession, rows: MessageRow[]) {
    const attempts: Attempt[] = [];
    let failure: string | null = null;
    for (const [index, row] of rows.entries()) {
      if (failure !== null) {
        attempts.push({ result: null, error: 'Not sent: an earlier part of this send failed' });
        continue;
      }
      // A timer, not a busy wait: other requests run meanwhile.
      if (index > 0 && adapter.spacesParts) await sleep(gapBetween(this.gaps.gapMinMs, Math.max(this.gaps.gapMinMs, this.gaps.gapMaxMs)));
      try {
        attempts.push({ result: await session.deliver(row), error: null });
      } catch (error) {
        if (!(error instanceof ProviderError)) throw error;
        failure = error.message;
        attempts.push({ result: null, error: error.message });
      }
    }
    return { attempts, failure };
  }

  private outcome(
    conversation: ConversationRow,
    rows: MessageRow[],
    messages: MessageView[],
    attempts: Attempt[],
    failure: string | null,
    extra: Record<string, unknown> | null,
  ): Dispatched {
    const first = attempts[0]?.result?.raw ?? null;
    return {
      conversation,
      messages,
      messageIds: rows.map((r) => r.id),
      result: first ? { ...first, ...extra } : null,
      failure,
    };
  }
}

// A run of queued sends on one account (the queue's burst): the session it opened once, when the
// channel's session is the account's.
export class QueuedRun {
  shared: Promise<DeliverySession> | null = null;
}

// A queued message meant to re-open a silent conversation (metadata `withdraw_on_reply`, e.g. a
// re-engagement nudge) is pointless once the customer wrote after it was queued.
const answeredSince = (message: MessageRow, lastCustomerMessageAt: Date | null) =>
  message.metadata.withdraw_on_reply === true &&
  lastCustomerMessageAt !== null &&
  new Date(lastCustomerMessageAt).getTime() > new Date(message.created_at).getTime();

// A gap in [min, max] milliseconds between consecutive calls.
export const gapBetween = (min: number, max: number, random: () => number = Math.random): number => Math.round(min + (max - min) * random());
