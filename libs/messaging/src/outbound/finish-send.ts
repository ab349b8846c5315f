import type { RequestContext } from '@engage/shared-kernel';
import type { Tx } from '@engage/platform';
import { FINISH_SEND, type MessageRow } from '../infrastructure/messaging.sql';
import { MESSAGE_FAILED, MESSAGE_SENT, messageEvent } from '../application/messaging-events';
import type { ProviderResult } from './provider-result';
import { toMessageView, type MessageView } from '../application/views';

export interface Attempt {
  result: ProviderResult | null;
  error: string | null;
}

// Each PENDING row of a send becomes SENT (provider id, message.sent) or FAILED (the provider's
// words, message.failed), whatever the channel.
export async function finishSend(tx: Tx, ctx: RequestContext, messageIds: string[], attempts: Attempt[]): Promise<MessageView[]> {
  const messages: MessageView[] = [];
  for (const [index, attempt] of attempts.entries()) {
    const metadata = attempt.result
      ? { provider_response: { status: attempt.result.status, message: attempt.result.message } }
      : { provider_error: attempt.error };
    const [row] = await tx.query<MessageRow>(
      FINISH_SEND,
      [messageIds[index], attempt.result ? 'SENT' : 'FAILED', attempt.error, attempt.result?.externalId ?? null, JSON.stringify(metadata)],
      { prepare: true },
    );
    // Gone or no longer PENDING: the sweeper already failed it as interrupted; its event is out.
    if (!row) continue;
    const view = toMessageView(row);
    messages.push(view);
    await tx.emit([messageEvent(attempt.result ? MESSAGE_SENT : MESSAGE_FAILED, ctx, view)]);
  }
  return messages;
}
