import { createEvent, type RequestContext } from '@engage/shared-kernel';
import type { ConversationView, MessageView } from './views';

const actorOf = (ctx: RequestContext) => ctx.userId ?? null;

export const messageEvent = (type: string, ctx: RequestContext, message: MessageView, extra: Record<string, unknown> = {}) =>
  createEvent({ type, source: 'messaging', organizationId: message.organization_id, aggregateId: message.id, payload: { message, actor_id: actorOf(ctx), ...extra } });

export const conversationEvent = (type: string, ctx: RequestContext, conversation: ConversationView, extra: Record<string, unknown> = {}) =>
  createEvent({ type, source: 'messaging', organizationId: conversation.organization_id, aggregateId: conversation.id, payload: { conversation, actor_id: actorOf(ctx), ...extra } });
