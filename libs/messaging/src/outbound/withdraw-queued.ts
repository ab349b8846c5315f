import type { Tx } from '@engage/platform';
import type { RequestContext } from '@engage/shared-kernel';
import { MESSAGE_FAILED, messageEvent } from '../application/messaging-events';
import { toMessageView, type MessageView } from '../application/views';
import type { MessageOrigin } from '../domain/message-origin';
import type { MessageRow } from '../infrastructure/messaging.sql';
import { WITHDRAW_QUEUED } from './outbound.sql';

export interface QueuedOrigin {
  channelAccountId: string;
  origin: MessageOrigin;
  originId: string;
}

// Withdraws the messages of one origin still waiting in an account's paced queue (QUEUED: the queue
// has not taken them), in the caller's transaction: each becomes FAILED with `reason`, metadata
// `withdrawn: true`, and its message.failed (reason `withdrawn`). A message the queue took first
// (PENDING or later) is left as it is: the queue's take and this update both need the row QUEUED,
// so each message is either sent or withdrawn, never both.
export async function withdrawQueued(tx: Tx, ctx: RequestContext, from: QueuedOrigin, reason: string): Promise<MessageView[]> {
  const rows = await tx.query<MessageRow>(WITHDRAW_QUEUED, [from.channelAccountId, from.origin, from.originId, reason]);
  const views = rows.map(toMessageView);
  if (views.length > 0) await tx.emit(views.map((view) => messageEvent(MESSAGE_FAILED, ctx, view, { from_status: 'QUEUED', reason: 'withdrawn' })));
  return views;
}
