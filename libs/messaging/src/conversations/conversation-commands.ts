import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { EventCause, RequestContext } from '@engage/shared-kernel';
import type { ConversationView } from '../application/views';
import { ConversationService } from './conversation.service';

// Commands other contexts send to change a conversation (automation's actions), on @nestjs/cqrs's
// command bus; the same rules and events as the inbox's own changes. For a rule's action, `cause`
// is what its events carry (the loop guard). Setting what is already set changes nothing.

export class SetConversationStatus extends Command<ConversationView> {
  constructor(
    readonly ctx: RequestContext,
    readonly conversationId: string,
    readonly status: 'OPEN' | 'PENDING' | 'RESOLVED',
    readonly cause?: EventCause,
  ) {
    super();
  }
}

// assigneeId: a member of the organization, or null to unassign.
export class AssignConversation extends Command<ConversationView> {
  constructor(
    readonly ctx: RequestContext,
    readonly conversationId: string,
    readonly assigneeId: string | null,
    readonly cause?: EventCause,
  ) {
    super();
  }
}

@CommandHandler(SetConversationStatus)
export class SetConversationStatusHandler implements ICommandHandler<SetConversationStatus, ConversationView> {
  constructor(private readonly conversations: ConversationService) {}

  execute({ ctx, conversationId, status, cause }: SetConversationStatus): Promise<ConversationView> {
    return this.conversations.changeStatus(ctx, conversationId, { status }, cause);
  }
}

@CommandHandler(AssignConversation)
export class AssignConversationHandler implements ICommandHandler<AssignConversation, ConversationView> {
  constructor(private readonly conversations: ConversationService) {}

  execute({ ctx, conversationId, assigneeId, cause }: AssignConversation): Promise<ConversationView> {
    return this.conversations.assign(ctx, conversationId, assigneeId, cause);
  }
}

export const CONVERSATION_COMMAND_HANDLERS = [SetConversationStatusHandler, AssignConversationHandler];
