import type { RequestContext } from '@engage/shared-kernel';
import type { MessageAuthor } from '../domain/message-origin';

// How a scheduled message goes out: as a reply into its conversation, written by `ctx` (its author,
// so the channel's window rule for people applies at send time). Answers the ids of the messages it
// wrote; throws a DomainError when the channel refuses the send before anything is stored (a closed
// window, an inactive account) or an Error with the provider's words when the provider failed (the
// rows stay FAILED). Wired in scheduled-messages.providers.ts.
export type ScheduledDelivery = (
  ctx: RequestContext,
  conversationId: string,
  reply: { message: string; mediaUrls: string[]; author: MessageAuthor },
) => Promise<{ messageIds: string[] }>;

export const SCHEDULED_DELIVERY = Symbol('SCHEDULED_DELIVERY');
