import { DomainError, isUuid, NotFound, type RequestContext, toView } from '@engage/shared-kernel';
import type { Database, Tx } from '@engage/platform';
import { assertAllowed } from '@engage/identity';
import { CHANNEL_CAPABILITIES } from '../domain/channel-capabilities';
import { isChannelKind } from '../domain/statuses';
import { CONVERSATION_BY_ID, type ConversationRow } from '../infrastructure/messaging.sql';
import {
  isCancelled,
  notScheduled,
  parseNewScheduledMessage,
  parseScheduledMessageChange,
  parseScheduledMessageQuery,
  SCHEDULED_MESSAGES,
  SCHEDULED_MESSAGES_MANAGE,
  type ScheduledMessageRow,
  type ScheduledMessageView,
} from './scheduled-messages';
import {
  CANCEL_SCHEDULED_MESSAGE,
  CHANGE_SCHEDULED_MESSAGE,
  INSERT_SCHEDULED_MESSAGE,
  LIST_SCHEDULED_MESSAGES,
  SCHEDULED_MESSAGE_BY_ID,
} from './scheduled-messages.sql';

export const toScheduledMessageView = (row: ScheduledMessageRow): ScheduledMessageView => toView(SCHEDULED_MESSAGES, row);

export interface ScheduledMessagePage {
  scheduled_messages: ScheduledMessageView[];
  total: number;
  page: number;
  limit: number;
  total_pages: number;
}

// Members schedule, edit and cancel replies; the scheduled-send pass sends them. Edits and cancels
// are conditional on the status `scheduled` (one statement), so they never cross a send under way.
export class ScheduledMessageService {
  constructor(
    private readonly db: Database,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async create(ctx: RequestContext, conversationId: string, input: unknown): Promise<ScheduledMessageView> {
    assertAllowed(ctx.role, SCHEDULED_MESSAGES_MANAGE);
    const message = parseNewScheduledMessage(input, this.now());
    if (!isUuid(conversationId)) throw NotFound('conversation', String(conversationId));
    return this.db.inTenant(ctx, async (tx) => {
      const [conversation] = await tx.query<ConversationRow>(CONVERSATION_BY_ID, [conversationId]);
      if (!conversation) throw NotFound('conversation', conversationId);
      // Refused now rather than at send time: a kind whose conversations the inbox does not answer.
      const kind = conversation.channel_kind;
      if (isChannelKind(kind) && !CHANNEL_CAPABILITIES[kind].agentReply) {
        throw new DomainError('unprocessable', 'channel.reply_not_allowed', `Conversations on ${kind} channels cannot be answered from the inbox`, {
          channel_kind: kind,
        });
      }
      const [row] = await tx.query<ScheduledMessageRow>(INSERT_SCHEDULED_MESSAGE, [
        conversationId,
        message.sendAt,
        message.text,
        message.mediaUrls,
        message.cancelOnReply,
        ctx.userId,
      ]);
      return toScheduledMessageView(row);
    });
  }

  async list(ctx: RequestContext, input: { status?: unknown; conversation_id?: unknown; page?: unknown; limit?: unknown }): Promise<ScheduledMessagePage> {
    const q = parseScheduledMessageQuery(input);
    const [result] = await this.db.inTenant(
      ctx,
      (tx) =>
        tx.query<{ total: number; scheduled_messages: ScheduledMessageRow[] }>(LIST_SCHEDULED_MESSAGES, [
          q.status ?? null,
          q.conversationId ?? null,
          q.limit,
          (q.page - 1) * q.limit,
        ]),
      { readOnly: true },
    );
    return {
      scheduled_messages: result.scheduled_messages.map(toScheduledMessageView),
      total: result.total,
      page: q.page,
      limit: q.limit,
      total_pages: Math.ceil(result.total / q.limit),
    };
  }

  async get(ctx: RequestContext, id: string): Promise<ScheduledMessageView> {
    return toScheduledMessageView(await this.db.inTenant(ctx, (tx) => this.find(tx, id), { readOnly: true }));
  }

  // text and/or send_at, while it is scheduled; 409 once it is being sent, sent or cancelled.
  async change(ctx: RequestContext, id: string, input: unknown): Promise<ScheduledMessageView> {
    assertAllowed(ctx.role, SCHEDULED_MESSAGES_MANAGE);
    const change = parseScheduledMessageChange(input, this.now());
    return this.db.inTenant(ctx, async (tx) => {
      const current = await this.find(tx, id);
      const [row] = await tx.query<ScheduledMessageRow>(CHANGE_SCHEDULED_MESSAGE, [current.id, change.text ?? null, change.sendAt ?? null]);
      if (!row) throw notScheduled(current.id, (await this.find(tx, id)).status);
      return toScheduledMessageView(row);
    });
  }

  // Cancelled while scheduled; a message already cancelled (here or by a reply) answers as it is;
  // 409 once a send took it (being sent, sent or failed).
  async cancel(ctx: RequestContext, id: string): Promise<ScheduledMessageView> {
    assertAllowed(ctx.role, SCHEDULED_MESSAGES_MANAGE);
    return this.db.inTenant(ctx, async (tx) => {
      const current = await this.find(tx, id);
      const [row] = await tx.query<ScheduledMessageRow>(CANCEL_SCHEDULED_MESSAGE, [current.id]);
      if (row) return toScheduledMessageView(row);
      const now = await this.find(tx, id);
      if (isCancelled(now.status)) return toScheduledMessageView(now);
      throw notScheduled(now.id, now.status);
    });
  }

  private async find(tx: Tx, id: string): Promise<ScheduledMessageRow> {
    if (!isUuid(id)) throw NotFound('scheduled_message', String(id));
    const [row] = await tx.query<ScheduledMessageRow>(SCHEDULED_MESSAGE_BY_ID, [id]);
    if (!row) throw NotFound('scheduled_message', id);
    return row;
  }
}
