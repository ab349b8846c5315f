import { DomainError, type EventCause, isUuid, NotFound, type RequestContext } from '@engage/shared-kernel';
import { type Database, type Tx, type ViolationMap } from '@engage/platform';
import { AGENT } from '../domain/message-origin';
import { characterCount, MAX_MESSAGE_CHARACTERS } from '../domain/send-request';
import { type ConversationStatus, isConversationStatus, parseStatusChange } from '../domain/statuses';
import {
  CONVERSATION_BY_ID,
  CONVERSATION_FOR_UPDATE,
  CONVERSATION_MESSAGES,
  type ConversationRow,
  LIST_CONVERSATIONS,
  MARK_CONVERSATION_READ,
  type MessageRow,
  SET_CONVERSATION_ASSIGNEE,
  SET_CONVERSATION_STATUS,
  UNREAD_COUNTS,
} from '../infrastructure/messaging.sql';
import { CONVERSATION_ASSIGNED, CONVERSATION_STATUS_CHANGED, conversationEvent } from '../application/messaging-events';
import { type OutboundDispatcher, SendFailed, type SendOutcome } from '../outbound/dispatcher';
import { type ConversationView, toConversationView, toMessageView, type MessageView } from '../application/views';

export interface ConversationQuery {
  status?: string;
  assignee_id?: string;
  unassigned?: boolean;
  page: number;
  limit: number;
}

const invalid = (message: string) => new DomainError('validation', 'validation_failed', message);
const assertId = (id: string) => {
  if (!isUuid(id)) throw invalid('conversation id must be a UUID');
};

// The agents' inbox: list, read, reply (through the send path), status and assignment.
export class ConversationService {
  constructor(
    private readonly db: Database,
    private readonly dispatcher: OutboundDispatcher,
  ) {}

  async list(ctx: RequestContext, q: ConversationQuery) {
    if (q.status !== undefined && !isConversationStatus(q.status)) throw invalid('status must be one of OPEN, PENDING, SNOOZED, RESOLVED');
    if (q.assignee_id !== undefined && !isUuid(q.assignee_id)) throw invalid('assignee_id must be a UUID');
    const [result] = await this.db.inTenant(ctx, (tx) =>
      tx.query<{ total: number; conversations: ConversationRow[] }>(LIST_CONVERSATIONS, [
        q.limit,
        (q.page - 1) * q.limit,
        q.status ?? null,
        q.assignee_id ?? null,
        q.unassigned === true,
      ]),
    );
    return {
      conversations: result.conversations.map(toConversationView),
      total: result.total,
      page: q.page,
      limit: q.limit,
      total_pages: Math.ceil(result.total / q.limit),
    };
  }

  async get(ctx: RequestContext, id: string, page = 1, limit = 50): Promise<ConversationView & { messages: MessageView[] }> {
    assertId(id);
    return this.db.inTenant(ctx, async (tx) => {
      const conversation = await this.find(tx, id);
      const messages = await tx.query<MessageRow>(CONVERSATION_MESSAGES, [id, limit, (page - 1) * limit]);
      return { ...toConversationView(conversation), messages: messages.map(toMessageView) };
    });
  }

  async markRead(ctx: RequestContext, id: string): Promise<ConversationView> {
    assertId(id);
    const [row] = await this.db.inTenant(ctx, (tx) => tx.query<ConversationRow>(MARK_CONVERSATION_READ, [id]));
    if (!row) throw NotFound('conversation', id);
    return toConversationView(row);
  }

  unreadCounts(ctx: RequestContext, mine: boolean): Promise<{ total: number; conversations: number; by_status: Record<string, number> }> {
    return this.db.inTenant(
      ctx,
      async (tx) => (await tx.query<{ total: number; conversations: number; by_status: Record<string, number> }>(UNREAD_COUNTS, [mine ? ctx.userId : null]))[0],
    );
  }

  // The reply goes out on the conversation's own channel, through that kind's adapter (422 when
  // the kind has none or is not answered from the inbox). Written by an agent (origin `agent`).
  async reply(ctx: RequestContext, id: string, input: { message: string; media_urls?: string[]; subject?: string }): Promise<SendOutcome> {
    assertId(id);
    if (characterCount(input.message) > MAX_MESSAGE_CHARACTERS) throw invalid(`message must be at most ${MAX_MESSAGE_CHARACTERS} characters`);
    const reply = { message: input.message, mediaUrls: input.media_urls ?? [], subject: input.subject, author: AGENT };
    const sent = await this.dispatcher.send(ctx, { conversationId: id }, reply);
    if (sent.failure !== null) throw new SendFailed(sent.failure, sent.messages);
    return {
      success: true,
      result: sent.result!,
      conversationId: sent.conversation.id,
      contactId: sent.conversation.contact_id,
      debug: { hasChannelAccount: true, hasConversationId: true, hasContactId: true },
    };
  }

  // cause: the rule run whose action this is (its events carry it; automation's loop guard).
  async changeStatus(ctx: RequestContext, id: string, input: { status: unknown; snoozed_until?: unknown }, cause?: EventCause): Promise<ConversationView> {
    assertId(id);
    const change = parseStatusChange(input.status, input.snoozed_until);
    return this.db.inTenant(
      ctx,
      async (tx) => {
        const current = await this.find(tx, id, true);
        if (current.status === change.status && change.status !== 'SNOOZED') return toConversationView(current);
        const [row] = await tx.query<ConversationRow>(SET_CONVERSATION_STATUS, [id, change.status, change.snoozedUntil], { violations: REOPEN_CONFLICT });
        const view = toConversationView(row);
        const statuses = { from_status: current.status as ConversationStatus, to_status: change.status };
        await tx.emit([conversationEvent(CONVERSATION_STATUS_CHANGED, ctx, view, statuses)]);
        return view;
      },
      { cause },
    );
  }

  async assign(ctx: RequestContext, id: string, assigneeId: unknown, cause?: EventCause): Promise<ConversationView> {
    assertId(id);
    if (assigneeId !== null && !isUuid(assigneeId)) throw invalid('assignee_id must be a UUID or null');
    return this.db.inTenant(
      ctx,
      async (tx) => {
        const current = await this.find(tx, id, true);
        if (current.assignee_id === assigneeId) return toConversationView(current);
        const [row] = await tx.query<ConversationRow>(SET_CONVERSATION_ASSIGNEE, [id, assigneeId], {
          violations: { foreign_key: () => invalid('assignee_id is not a member of this organization') },
        });
        const view = toConversationView(row);
        await tx.emit([conversationEvent(CONVERSATION_ASSIGNED, ctx, view, { previous_assignee_id: current.assignee_id })]);
        return view;
      },
      { cause },
    );
  }

  private async find(tx: Tx, id: string, forUpdate = false): Promise<ConversationRow> {
    const [row] = await tx.query<ConversationRow>(forUpdate ? CONVERSATION_FOR_UPDATE : CONVERSATION_BY_ID, [id]);
    if (!row) throw NotFound('conversation', id);
    return row;
  }
}

// Reopening a resolved conversation while the contact has another unresolved one on the channel.
const REOPEN_CONFLICT: ViolationMap = {
  unique: () => new DomainError('conflict', 'conversation.already_open', 'The contact already has an unresolved conversation on this channel'),
};
